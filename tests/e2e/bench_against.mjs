// One interleaved run of this build (dist/) against another build's dist folder (`node
// tests/e2e/bench_against.mjs OTHER_DIST`, e.g. an issue's starting commit built with `trunk build
// --release` in a worktree): cold loads (first paint, first result painted, app live) of the default
// page and a shared link, unthrottled and at 4× CPU throttle, and slider → chart latency. Figures, not
// pass/fail.
import { launch } from './harness.mjs';
import { startServer } from './serve.mjs';

const OTHER = process.argv[2];
if (!OTHER) throw new Error('usage: node tests/e2e/bench_against.mjs OTHER_DIST');
const browser = await launch();
const builds = { now: await startServer({ dir: 'dist', base: '/' }), start: await startServer({ dir: OTHER, base: '/' }) };
const LINK = '?model=qwen3-8b&method=qlora&seq=8192&gpu=rtx4090';
async function load(url, throttle) {
  const context = await browser.newContext();
  const page = await context.newPage();
  if (throttle > 1) { const cdp = await context.newCDPSession(page); await cdp.send('Emulation.setCPUThrottlingRate', { rate: throttle }); }
  await page.addInitScript(() => {
    const seen = () => {
      const total = [...document.querySelectorAll('[data-testid="total"]')].find((t) => t.offsetParent !== null);
      if (total && window.__result === undefined) { window.__result = null; requestAnimationFrame(() => { window.__result = performance.now(); }); }
      if (total && !document.getElementById('boot') && window.__live === undefined) { window.__live = null; requestAnimationFrame(() => { window.__live = performance.now(); }); }
    };
    new MutationObserver(seen).observe(document, { childList: true, subtree: true, attributes: true });
  });
  await page.goto(url);
  await page.waitForFunction(() => typeof window.__live === 'number' && typeof window.__result === 'number', null, { timeout: 60000 });
  const m = await page.evaluate(() => ({ result: window.__result, live: window.__live, fcp: (performance.getEntriesByName('first-contentful-paint')[0] || { startTime: NaN }).startTime }));
  await context.close();
  return { ...m, result: Math.max(m.result, m.fcp) };
}
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [label, q, throttle, n] of [['default page', '', 1, 15], ['default page', '', 4, 9], ['link', LINK, 1, 9], ['link', LINK, 4, 9]]) {
  const r = { now: [], start: [] };
  for (let i = 0; i < n; i++) for (const k of ['now', 'start']) r[k].push(await load(builds[k].url + q, throttle));
  for (const k of ['now', 'start']) {
    console.log(`${label}, CPU ${throttle}×, ${k}: first paint ${med(r[k].map((x) => x.fcp)).toFixed(0)} ms, first result painted ${med(r[k].map((x) => x.result)).toFixed(0)} ms, app live ${med(r[k].map((x) => x.live)).toFixed(0)} ms (median of ${n})`);
  }
}
// Slider → chart, 200 inputs each, interleaved in blocks of 50.
const sl = { now: [], start: [] };
for (let block = 0; block < 4; block++) for (const k of ['now', 'start']) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${builds[k].url}?model=qwen2.5-7b&method=qlora`);
  await page.waitForFunction(() => !document.getElementById('boot') && document.querySelector('[data-testid="chart"] svg'));
  sl[k].push(...await page.evaluate(async () => {
    const slider = document.querySelector('[data-testid="seq"]');
    const chart = document.querySelector('[data-testid="chart"]');
    const out = [];
    for (let i = 0; i < 50; i++) {
      const changed = new Promise((resolve) => { const mo = new MutationObserver(() => { mo.disconnect(); resolve(); }); mo.observe(chart, { childList: true, subtree: true, characterData: true, attributes: true }); setTimeout(() => { mo.disconnect(); resolve(); }, 1000); });
      const t0 = performance.now();
      slider.value = String(45 + (i % 35));
      slider.dispatchEvent(new Event('input', { bubbles: true }));
      await changed;
      out.push(performance.now() - t0);
    }
    return out;
  }));
  await context.close();
}
for (const k of ['now', 'start']) { const s = sl[k].sort((a, b) => a - b); console.log(`slider → chart, ${k}: median ${s[100].toFixed(2)} ms, p95 ${s[190].toFixed(2)} ms (200 inputs)`); }
await browser.close(); for (const s of Object.values(builds)) await s.close();
