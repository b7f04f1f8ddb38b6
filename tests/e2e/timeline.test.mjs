// The step's memory over its phases: under the bars, the peak marked and named above the ledger,
// each moment's live set on hover or focus, `view=timeline` alone (for a chapter page), its SVG.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, serve, openPage, ready, shot } from './harness.mjs';

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
