// The app shell in a real browser: it renders, computes, switches language, works under a
// sub-path, survives a hostile link, and logs no errors.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, serve, openPage, ready, shot } from './harness.mjs';

const GIB = 2 ** 30;
let browser, root, sub;

before(async () => {
  browser = await launch();
  root = await serve('/');
  sub = await serve('/some/sub/path/');
});
after(async () => {
  await browser?.close();
  await root?.close();
  await sub?.close();
});

test('renders the title and the bill of the default scenario', async () => {
  const page = await openPage(browser);
  await page.goto(root.url);
  await ready(page);
  assert.equal(await page.title(), 'VRAM Ledger · 显存账本');
  assert.equal(await page.textContent('[data-testid="title"]'), 'VRAM Ledger · 显存账本');
  // Default: Llama-3.1-8B LoRA with a bf16 base: 8,030,261,248 params × 2 B = 16,060,522,496 B
  // (parameter count from the model card; 14.96 GiB, which vLLM's load log also reports, B2).
  const weights = Number(await page.getAttribute('[data-testid="component-weights"]', 'data-bytes'));
  assert.equal(weights, 8_030_261_248 * 2);
  assert.match(await page.textContent('[data-testid="component-weights"]'), /14\.96 GiB/);
  const total = Number(await page.getAttribute('[data-testid="total"]', 'data-bytes'));
  assert.ok(total > weights, 'the device total includes more than the weights');
  await shot(page, 'default-en');
  assert.deepEqual(page.problems, []);
});

test('switches between Chinese and English', async () => {
  const page = await openPage(browser, { locale: 'zh-CN' });
  await page.goto(root.url);
  await ready(page);
  // The browser prefers Chinese.
  assert.equal(await page.getAttribute('html', 'lang'), 'zh-CN');
  assert.match(await page.textContent('[data-testid="component-weights"] th'), /权重/);
  await shot(page, 'default-zh');
  await page.click('[data-testid="lang-en"]');
  assert.match(await page.textContent('[data-testid="component-weights"] th'), /Weights/);
  assert.equal(await page.getAttribute('html', 'lang'), 'en');
  // A link's lang= wins over the browser's language.
  await page.goto(`${root.url}?lang=en`);
  await ready(page);
  assert.match(await page.textContent('[data-testid="component-weights"] th'), /Weights/);
  assert.deepEqual(page.problems, []);
});

test('a link reproduces its scenario: Llama-2-7B inference, 4k context', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?model=llama-2-7b&mode=infer&seq=4096`);
  await ready(page);
  // KV cache: 2 × 32 layers × 32 KV heads × 128 × 4096 tokens × 2 B = 2 GiB (chapter §2: "≈ 2.1 GB").
  const kv = Number(await page.getAttribute('[data-testid="component-kv_cache"]', 'data-bytes'));
  assert.equal(kv, 2 * 32 * 32 * 128 * 4096 * 2);
  assert.equal(kv / GIB, 2);
  assert.deepEqual(page.problems, []);
});

test('works when hosted under a sub-path', async () => {
  const page = await openPage(browser);
  await page.goto(`${sub.url}?model=qwen2.5-7b`);
  await ready(page);
  assert.match(await page.textContent('[data-testid="scenario"]'), /Qwen2\.5-7B/);
  await shot(page, 'sub-path');
  assert.deepEqual(page.problems, []);
});

test('a hostile link shows notices, runs no script, and the page still works', async () => {
  const page = await openPage(browser);
  const payload = encodeURIComponent('<img src=x onerror=alert(1)>');
  await page.goto(`${root.url}?model=${payload}&seq=-5&batch=NaN&${payload}=1&gpu=${payload}&vram=1e400`);
  await ready(page);
  const notices = await page.textContent('[data-testid="notices"]');
  for (const key of ['model', 'seq', 'batch', 'gpu', 'vram']) {
    assert.ok(await page.$(`[data-testid="notices"] [data-key="${key}"]`), `a notice names ${key}`);
  }
  assert.match(notices, /<img src=x onerror=alert\(1\)>/, 'the payload is shown as text');
  assert.equal(await page.$('img[src="x"]'), null, 'no element was injected');
  // Defaults were kept: the bill is finite.
  const total = Number(await page.getAttribute('[data-testid="total"]', 'data-bytes'));
  assert.ok(Number.isFinite(total) && total > 0);
  // (The notices quote the link's `NaN`; the computed parts must not contain one.)
  for (const part of ['[data-testid="ledger"]', '[data-testid="verdict"]', '.totals']) {
    assert.doesNotMatch(await page.textContent(part), /NaN|Infinity|undefined/, part);
  }
  await shot(page, 'hostile-link');
  assert.deepEqual(page.problems, []);
});

test('is usable at 360 px', async () => {
  const page = await openPage(browser, { viewport: { width: 360, height: 800 } });
  await page.goto(`${root.url}?lang=zh`);
  await ready(page);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `no horizontal scrolling at 360 px (overflow ${overflow}px)`);
  await shot(page, 'phone-360');
  assert.deepEqual(page.problems, []);
});

test('a link\'s page frame paints before the wasm arrives, in the link\'s language, and goes when the app renders', async () => {
  const page = await openPage(browser);
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await page.route(/\.wasm$/, async (route) => { await held; await route.continue(); });
  // A link with a query (not only a language, which gets the prerendered default page).
  await page.goto(`${root.url}?lang=zh&seq=4096`, { waitUntil: 'domcontentloaded' });
  assert.equal(await page.isVisible('#boot-frame'), true);
  assert.equal(await page.textContent('#boot-frame h1'), 'VRAM Ledger · 显存账本');
  assert.match(await page.textContent('#boot-frame .boot-loading'), /正在载入计算器.*Loading the calculator/);
  assert.match(await page.textContent('#boot-tagline'), /显存账/);
  const frame = await page.$eval('#boot-frame .app-header', (h) => h.getBoundingClientRect().height);
  await shot(page, 'boot-frame-zh');
  release();
  await ready(page);
  assert.equal(await page.$('#boot'), null, 'the frame is gone');
  // The app's header has the frame's height: nothing below it moves when the app replaces it.
  const header = await page.$eval('.app-header', (h) => h.getBoundingClientRect().height);
  assert.ok(Math.abs(header - frame) <= 1, `header ${header} px vs frame ${frame} px`);
  assert.deepEqual(page.problems, []);
});
