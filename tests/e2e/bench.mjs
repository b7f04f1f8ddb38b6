// `make bench`: figures, not pass/fail. What the browser downloads (raw and gzip -9); cold loads
// (first paint, first complete render, layout shift) unthrottled and with the CPU throttled 4×; and
// the latency from a slider input to the updated chart. Headless Chromium, served from localhost.
import { launch, serve } from './harness.mjs';
import { download, BUDGET } from './download.mjs';

const { files, raw, gzip, onDemand, onDemandGzip } = await download();
console.log('file'.padEnd(48), 'raw'.padStart(10), 'gzip -9'.padStart(10));
for (const f of files) console.log(f.name.padEnd(48), String(f.raw).padStart(10), String(f.gzip).padStart(10));
console.log('total the app downloads'.padEnd(48), String(raw).padStart(10), String(gzip).padStart(10), `(node zlib level 9; budget ${BUDGET}, checked by make test)`);
for (const f of onDemand) console.log(`${f.name} (on demand)`.padEnd(48), String(f.raw).padStart(10), String(f.gzip).padStart(10));
console.log('the trace worker, loaded when a trace is dropped'.padEnd(48), ''.padStart(10), String(onDemandGzip).padStart(10));

const browser = await launch();
const server = await serve('/');

// Cold loads with an empty cache, on loopback, unthrottled and with Chrome's CPU throttled 4× (a
// mid-range phone): the first contentful paint; the first result painted (the frame after a device
// total is first visible: index.html's prerendered page for the default page, the wasm's render for
// a link with a query); the app live (the wasm's render on screen, #boot gone); the layout shift.
async function coldLoads(label, url, throttle, n) {
  const paint = [], result = [], live = [], shift = [];
  for (let i = 0; i < n; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    if (throttle > 1) {
      const cdp = await context.newCDPSession(page);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: throttle });
    }
    await page.addInitScript(() => {
      window.__cls = 0;
      new PerformanceObserver((list) => { for (const e of list.getEntries()) if (!e.hadRecentInput) window.__cls += e.value; })
        .observe({ type: 'layout-shift', buffered: true });
      const seen = () => {
        // The bill's total, prerendered (without test ids) or the wasm's.
        const total = [...document.querySelectorAll('.verdict .totals dd[data-bytes]')].find((t) => t.offsetParent !== null);
        if (total && window.__result === undefined) {
          window.__result = null;
          requestAnimationFrame(() => { window.__result = performance.now(); });
        }
        if (total && !document.getElementById('boot') && window.__live === undefined) {
          window.__live = null;
          requestAnimationFrame(() => { window.__live = performance.now(); });
        }
      };
      new MutationObserver(seen).observe(document, { childList: true, subtree: true, attributes: true });
    });
    await page.goto(url);
    await page.waitForFunction(() => typeof window.__live === 'number' && typeof window.__result === 'number');
    const m = await page.evaluate(() => ({
      result: window.__result,
      live: window.__live,
      fcp: (performance.getEntriesByName('first-contentful-paint')[0] || { startTime: NaN }).startTime,
      cls: window.__cls,
    }));
    paint.push(m.fcp); result.push(Math.max(m.result, m.fcp)); live.push(m.live); shift.push(m.cls);
    await context.close();
  }
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(0.9 * xs.length))];
  console.log(`cold load, ${label}, CPU ${throttle === 1 ? 'unthrottled' : `throttled ${throttle}×`}: first paint median ${med(paint).toFixed(1)} ms; `
    + `first result painted median ${med(result).toFixed(1)} ms, p90 ${p90(result).toFixed(1)} ms; app live median ${med(live).toFixed(1)} ms; `
    + `layout shift (CLS) max ${Math.max(...shift).toFixed(4)} (${n} loads)`);
}
const LINK = '?model=qwen3-8b&method=qlora&seq=8192&gpu=rtx4090';
await coldLoads('default page', server.url, 1, 15);
await coldLoads('default page', server.url, 4, 9);
await coldLoads(`link ${LINK}`, `${server.url}${LINK}`, 1, 9);
await coldLoads(`link ${LINK}`, `${server.url}${LINK}`, 4, 9);
// A slider input to the updated chart, 200 inputs: dispatch `input` on the sequence slider and wait
// for the chart's SVG to be replaced (a MutationObserver on the chart).
{
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${server.url}?model=qwen2.5-7b&method=qlora`);
  await page.waitForSelector('[data-testid="chart"] svg');
  const samples = await page.evaluate(async () => {
    const slider = document.querySelector('[data-testid="seq"]');
    const chart = document.querySelector('[data-testid="chart"]');
    const out = [];
    for (let i = 0; i < 200; i++) {
      const changed = new Promise((resolve) => {
        const mo = new MutationObserver(() => { mo.disconnect(); resolve(); });
        mo.observe(chart, { childList: true, subtree: true, characterData: true, attributes: true });
        setTimeout(() => { mo.disconnect(); resolve(); }, 1000); // never hang the bench
      });
      const t0 = performance.now();
      slider.value = String(45 + (i % 35)); // 2^(45/4) ≈ 2435 … 2^(79/4) ≈ 890 k tokens; never the starting 2048
      slider.dispatchEvent(new Event('input', { bubbles: true }));
      await changed;
      out.push(performance.now() - t0);
    }
    return out;
  });
  samples.sort((a, b) => a - b);
  const q = (p) => samples[Math.min(samples.length - 1, Math.floor(p * samples.length))].toFixed(2);
  console.log(`slider input → chart updated: median ${q(0.5)} ms, p95 ${q(0.95)} ms, max ${q(1)} ms (200 inputs)`);
  await context.close();
}
await browser.close();
await server.close();
