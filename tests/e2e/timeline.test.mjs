// The step's memory over its phases: under the bars, the peak marked and named above the ledger,
// each moment's live set on hover or focus, `view=timeline` alone (for a chapter page), its SVG.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, serve, openPage, ready, shot, cli } from './harness.mjs';

let browser, root;
before(async () => { browser = await launch(); root = await serve('/'); });
after(async () => { await browser?.close(); await root?.close(); });

test('full fine-tuning peaks at the optimizer step; a moment shows what is live then', async () => {
  const page = await openPage(browser);
  // Llama-3.1-8B, full, mixed AdamW on an H100: 14 B per parameter stay; the step adds the bf16
  // gradients (2 B) and foreach AdamW's temporaries (4 B): 20 B × 8,030,261,248 = 149.58 GiB.
  await page.goto(`${root.url}?model=llama-3.1-8b&method=full&gpu=h100-80g`);
  await ready(page);
  assert.equal(await page.getAttribute('[data-testid="timeline-card"]', 'data-peak'), 'optimizer_step');
  assert.equal(await page.getAttribute('[data-testid="peak-phase"]', 'data-phase'), 'optimizer_step');
  assert.match(await page.textContent('[data-testid="peak-phase"]'), /The peak is at optimizer step/);
  const moments = await page.$$eval('[data-testid="timeline"] rect.phase', (r) => r.length);
  assert.equal(moments, 6);
  await page.focus('[data-testid="timeline"] rect.phase[data-bar="4"]');
  const detail = await page.textContent('[data-testid="timeline-detail"]');
  assert.match(detail, /^optimizer step: .*Gradients 14\.96 GiB.*Optimizer-step temporaries 29\.92 GiB/, detail);
  assert.doesNotMatch(detail, /Activations/, 'freed before the step');
  await page.hover('[data-testid="timeline"] rect.phase[data-bar="3"]');
  assert.match(await page.textContent('[data-testid="timeline-detail"]'), /^backward's start: .*Activations/);
  await shot(page, 'timeline-full');
  assert.deepEqual(page.problems, []);
});

test('a tied head stored apart in the checkpoint makes loading the peak, as the CLI says', async () => {
  // Qwen2.5-0.5B-Instruct-AWQ stores its LM head beside the embedding (head_copy=1): until
  // from_pretrained ties them, loading holds a second 151,936 × 896 × 2 B = 272,269,312 B matrix
  // (hand arithmetic; tests/phases.rs), more than generating 2,048 tokens after a 1-token prompt.
  // The reader worker bills such a link (head_copy is its key): the page shows its answer.
  const q = 'model=qwen2.5-0.5b&mode=infer&quant=awq4&seq=1&gen=2048&gpu=a100-80g&head_copy=1';
  const expected = String(cli(['--json', q]).device_bytes);
  const page = await openPage(browser);
  await page.goto(`${root.url}?${q}&lang=en`);
  await ready(page);
  await page.waitForFunction((v) => document.querySelector('[data-testid="total"]')?.getAttribute('data-bytes') === v, expected, { timeout: 20000 });
  assert.equal(await page.getAttribute('[data-testid="timeline-card"]', 'data-peak'), 'load');
  assert.match(await page.textContent('[data-testid="component-activations"] .formula'), /from_pretrained.*151,936 × 896 × 2 B/);
  assert.match(decodeURIComponent(await page.evaluate(() => location.search)), /head_copy=1/);
  await page.goto(`${root.url}?${q.replace('&head_copy=1', '')}&lang=en`);
  await ready(page);
  assert.equal(await page.getAttribute('[data-testid="timeline-card"]', 'data-peak'), 'decode');
  assert.deepEqual(page.problems, []);
});

test('view=timeline shows it alone, in Chinese, at 360 px; the embed posts its height', async () => {
  const page = await openPage(browser, { locale: 'zh-CN', viewport: { width: 360, height: 740 } });
  await page.goto(`${root.url}?view=timeline&model=qwen3-8b&method=qlora&seq=8192`);
  await page.waitForSelector('[data-testid="timeline-page"]');
  assert.equal(await page.$('[data-testid="ledger"]'), null, 'the picture alone');
  assert.match(await page.textContent('[data-testid="timeline-card"] h2'), /一步之中的显存/);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `no horizontal scroll at 360 px (${overflow})`);
  await shot(page, 'timeline-alone-zh-360');
  const frame = await openPage(browser);
  // The listener is in place before the iframe loads (its first height may come at once).
  await frame.setContent(`<script>window.__heights = []; addEventListener('message', (e) => {
      if (e.data && e.data.type === 'vram-ledger:height') window.__heights.push(e.data.height); });</script>
    <iframe src="${root.url}?view=timeline&embed=1" style="width:600px"></iframe>`);
  await frame.waitForFunction(() => window.__heights.length > 0, null, { timeout: 20000 });
  const heights = await frame.evaluate(() => Math.max(...window.__heights));
  assert.ok(heights > 200, `height ${heights}`);
  assert.deepEqual(page.problems, []);
});

test('the timeline downloads as SVG with each moment\'s title', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?model=llama-3.1-8b&method=qlora`);
  await ready(page);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="download-timeline-svg"]')]);
  const { readFile } = await import('node:fs/promises');
  const svg = await readFile(await download.path(), 'utf8');
  assert.match(svg, /^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.equal((svg.match(/<title>/g) || []).length, 6);
  assert.match(svg, /<title>backward&apos;s start: /);
  assert.deepEqual(page.problems, []);
});

// The user's trace (tests/data/traces: synthetic, in PyTorch's layouts; the step's numbers by hand
// in tools/make_trace_fixtures.py), read by the reader worker and laid over the timeline.
test('a dropped trace is read off the page, drawn over the phases and compared by category', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?model=llama-3.1-8b&method=full&gpu=h100-80g`);
  await ready(page);
  await page.click('[data-testid="trace-link"]');
  assert.equal(await page.$eval('[data-testid="measured"]', (d) => d.open), true, 'the link opens the panel');
  await page.setInputFiles('[data-testid="trace-file"]', 'tests/data/traces/timeline.json.gz');
  await page.waitForSelector('[data-testid="trace-result"]', { timeout: 20000 });
  // optimizer state 2000 MiB measured = 1.95 GiB; the peak 4500 MiB = 4.39 GiB.
  assert.match(await page.textContent('[data-testid="measured-optimizer_state"]'), /1\.95 GiB/);
  assert.match(await page.textContent('[data-testid="trace-facts"]'), /memory_timeline · 8 .*4\.39 GiB/);
  const phases = ['load', 'forward', 'loss', 'backward', 'optimizer_step', 'zero_grad'];
  assert.ok(phases.includes(await page.getAttribute('[data-testid="trace-result"]', 'data-diverges')));
  const svg = await page.innerHTML('[data-testid="timeline"]');
  assert.match(svg, /#111827/, 'the measured curve');
  assert.match(svg, /measured \(your trace\)/);
  assert.doesNotMatch(await page.evaluate(() => location.search), /trace|timeline|json|4718592000/, 'nothing of the trace in the link');

  await page.setInputFiles('[data-testid="trace-file"]', 'tests/data/traces/snapshot.pickle');
  await page.waitForFunction(() => /snapshot/.test(document.querySelector('[data-testid="trace-facts"]')?.textContent ?? ''), null, { timeout: 20000 });
  // 512 MiB reserved before the history + the 8192 MiB segment = 8.50 GiB.
  assert.match(await page.textContent('[data-testid="trace-facts"]'), /8\.50 GiB/);
  assert.match(await page.textContent('[data-testid="measured-unknown"]'), /0\.20 GiB/);
  await shot(page, 'timeline-trace');

  await page.setInputFiles('[data-testid="trace-file"]', 'tests/data/traces/hostile.pickle');
  await page.waitForSelector('[data-testid="trace-error"]', { timeout: 20000 });
  assert.match(await page.textContent('[data-testid="trace-error"]'), /refused/);
  assert.deepEqual(page.problems, []);
});
