// The chapter's self-test (view=selftest): seven questions, the hint before the answer, the
// ledger's demonstration on the link's own configuration, one question alone (q=N), embedded, and
// hostile values of the two keys.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, serve, openPage, shot } from './harness.mjs';

let browser, root;
before(async () => { browser = await launch(); root = await serve('/course/7.1/'); });
after(async () => { await browser?.close(); await root?.close(); });

const questions = (page) => page.$$eval('[data-testid="selftest"] article', (a) => a.map((x) => x.id));

test('seven questions; the hint opens first, then the answer with the ledger\'s numbers', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?view=selftest&lang=en`);
  await page.waitForSelector('[data-testid="selftest"]', { timeout: 20000 });
  assert.deepEqual(await questions(page), ['q1', 'q2', 'q3', 'q4', 'q5', 'q6', 'q7']);
  const q1 = '[data-testid="q1"]';
  assert.match(await page.textContent(`${q1} h2`), /16 bytes per parameter/);
  // Nothing is answered until asked: the answer's summary is inside the closed hint.
  assert.equal(await page.isVisible(`${q1} [data-testid="answer"] summary`), false);
  await page.click(`${q1} [data-testid="hint"] > summary`);
  assert.equal(await page.isVisible(`${q1} [data-testid="finding"]`), false);
  await page.click(`${q1} [data-testid="answer"] > summary`);
  // The chapter's 16 B per parameter, from the ledger on Llama-3.1-8B (8,030,261,248 × 16 B).
  const finding = await page.textContent(`${q1} [data-testid="finding"]`);
  assert.match(finding, /2\.0 B \+ gradients 2\.0 B \+ AdamW 8\.0 B \+ master weights 4\.0 B = 16\.0 B per parameter/);
  assert.match(finding, /119\.66 GiB/);
  const labels = await page.$$eval(`${q1} svg text`, (t) => t.map((x) => x.textContent.trim()));
  assert.ok(labels.includes('mode=infer') && labels.includes('mode=train'), labels.join('|'));
  const see = await page.getAttribute(`${q1} [data-testid="see-it"]`, 'href');
  assert.match(see, /\?method=full&lang=en$/);
  assert.doesNotMatch(see, /view=selftest/);
  // Question 5 names the tree's node and links to it.
  await page.click('[data-testid="q5"] [data-testid="hint"] > summary');
  await page.click('[data-testid="q5"] [data-testid="answer"] > summary');
  assert.equal(await page.getAttribute('[data-testid="q5"] [data-testid="selftest-node"]', 'data-node'), 'fragmentation');
  assert.match(await page.getAttribute('[data-testid="q5"] [data-testid="selftest-node"]', 'href'), /tree=fragmentation/);
  await shot(page, 'selftest-en');
  // The configuration is the reader's: a longer sequence changes the numbers, and the answer stays open.
  const q6 = '[data-testid="q6"]';
  await page.click(`${q6} [data-testid="hint"] > summary`);
  await page.click(`${q6} [data-testid="answer"] > summary`);
  const was = await page.textContent(`${q6} [data-testid="finding"]`);
  assert.match(was, /^At 2,048 tokens/);
  await page.focus('[data-testid="seq"]');
  await page.press('[data-testid="seq"]', 'ArrowRight');
  await page.waitForFunction((w) => document.querySelector('[data-testid="q6"] [data-testid="finding"]').textContent !== w, was);
  assert.doesNotMatch(await page.textContent(`${q6} [data-testid="finding"]`), /^At 2,048 tokens/);
  assert.equal(await page.isVisible(`${q6} [data-testid="finding"]`), true, 'the opened answer stays open');
  assert.match(page.url(), /view=selftest/, 'the address keeps the view');
  // Back to the calculator with the same configuration.
  assert.doesNotMatch(await page.getAttribute('[data-testid="to-calculator"]', 'href'), /view=/);
  assert.deepEqual(page.problems, []);
});

test('one question alone, in Chinese, at 360 px', async () => {
  const page = await openPage(browser, { viewport: { width: 360, height: 740 }, locale: 'zh-CN' });
  await page.goto(`${root.url}?view=selftest&q=7&model=llama-3.1-8b&seq=2048`);
  await page.waitForSelector('[data-testid="selftest"]', { timeout: 20000 });
  assert.deepEqual(await questions(page), ['q7']);
  assert.match(await page.textContent('[data-testid="q7"] h2'), /推理服务先爆的是权重还是 KV/);
  await page.click('[data-testid="q7"] [data-testid="hint"] > summary');
  await page.click('[data-testid="q7"] [data-testid="answer"] > summary');
  // 2 × 32 × 8 × 128 × 2,048 × 2 B = 256 MiB per request; ⌊14.96 GiB / 0.25 GiB⌋ + 1 = 60.
  const finding = await page.textContent('[data-testid="q7"] [data-testid="finding"]');
  assert.match(finding, /256\.00 MiB/);
  assert.match(finding, /并发到 60 个时/);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 360, `no sideways scroll at 360 px (${width})`);
  await shot(page, 'selftest-q7-zh-360');
  assert.deepEqual(page.problems, []);
});

test('hostile values of view and q are named and ignored', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?view=selftest&q=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&lang=en`);
  await page.waitForSelector('[data-testid="selftest"]', { timeout: 20000 });
  assert.equal((await questions(page)).length, 7, 'a bad q shows every question');
  assert.match(await page.textContent('.notices'), /`q=<img src=x onerror=alert\(1\)>` is not accepted/);
  assert.equal(await page.$('.notices img'), null);
  await page.goto(`${root.url}?view=quiz&seq=4096&lang=en`);
  await page.waitForSelector('[data-testid="total"]', { timeout: 20000 });
  assert.match(await page.textContent('.notices'), /`view=quiz` is not accepted/);
  assert.deepEqual(page.problems, []);
});

test('a course page embeds one question and hears its height', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}embed-demo.html`);
  const el = await page.waitForSelector('#selftest-q7');
  await el.scrollIntoViewIfNeeded();
  const frame = await el.contentFrame();
  await frame.waitForSelector('[data-testid="q7"]', { timeout: 20000 });
  assert.ok(await frame.$('[data-testid="embed"]'));
  assert.equal(await frame.$('[data-testid="title"]'), null, 'no header in embed mode');
  assert.equal(await frame.getAttribute('[data-testid="see-it"]', 'target'), '_blank');
  await page.waitForFunction(() => window.__heights.some((h) => h.id === 'selftest-q7'), null, { timeout: 10000 });
  const before = await page.evaluate(() => window.__heights.filter((h) => h.id === 'selftest-q7').pop().height);
  await frame.click('[data-testid="q7"] [data-testid="hint"] > summary');
  await frame.click('[data-testid="q7"] [data-testid="answer"] > summary');
  await page.waitForFunction((h) => window.__heights.filter((x) => x.id === 'selftest-q7').pop().height > h, before, { timeout: 10000 });
  assert.deepEqual(page.problems, []);
});
