// Embed mode: the course-like demo page embeds two calculators; both render in compact form and
// report their heights; the parent's messages are ignored.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, serve, openPage, shot } from './harness.mjs';

let browser, root;
before(async () => { browser = await launch(); root = await serve('/course/7.1/'); });
after(async () => { await browser?.close(); await root?.close(); });

test('the embed demo renders both iframes and receives their heights', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}embed-demo.html`);
  for (const id of ['calc-qlora', 'calc-infer']) {
    const frame = await (await page.waitForSelector(`#${id}`)).contentFrame();
    await frame.waitForSelector('[data-testid="total"]', { timeout: 20000 });
    assert.ok(await frame.$('[data-testid="embed"]'), 'compact layout');
    assert.equal(await frame.$('[data-testid="title"]'), null, 'no header in embed mode');
    assert.equal(await frame.$('[data-testid="model"]'), null, 'only the main sliders');
    assert.ok(await frame.$('[data-testid="seq"]'));
    assert.ok(await frame.$('[data-testid="chart"] svg'));
    const full = await frame.getAttribute('[data-testid="open-full"]', 'href');
    assert.doesNotMatch(full, /embed=1/, 'open in full leaves embed mode');
  }
  await page.waitForFunction(() => ['calc-qlora', 'calc-infer'].every((id) => window.__heights.some((h) => h.id === id)), null, { timeout: 10000 });
  const heights = await page.evaluate(() => window.__heights.filter((h) => h.id.startsWith('calc-')));
  for (const h of heights) assert.ok(h.height > 200 && h.height < 5000, JSON.stringify(h));
  const styled = await page.$eval('#calc-qlora', (f) => f.style.height);
  assert.match(styled, /^\d+px$/);
  // A slider change in a frame changes its height report only if the layout changed; it must not flood.
  const frame = await (await page.$('#calc-infer')).contentFrame();
  await frame.focus('[data-testid="seq"]');
  await frame.press('[data-testid="seq"]', 'ArrowLeft');
  const count = await page.evaluate(() => window.__heights.length);
  assert.ok(count < 20, `${count} height messages`);
  // The embedded page accepts no state from its parent.
  await page.evaluate(() => document.getElementById('calc-qlora').contentWindow.postMessage({ type: 'vram-ledger:set', query: 'model=gpt2' }, '*'));
  const qframe = await (await page.$('#calc-qlora')).contentFrame();
  assert.match(await qframe.textContent('[data-testid="scenario"]'), /Qwen2\.5-7B/);
  await shot(page, 'embed-demo');
  assert.deepEqual(page.problems, []);
});

test('the full page offers embed code for the current state', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?model=qwen2.5-7b&method=qlora`);
  await page.waitForSelector('[data-testid="total"]');
  const code = await page.inputValue('[data-testid="embed-code"]');
  assert.match(code, /^<iframe src="[^"]*\?model=qwen2\.5-7b&amp;method=qlora&amp;embed=1"/);
  assert.match(code, /vram-ledger:height/);
  assert.deepEqual(page.problems, []);
});
