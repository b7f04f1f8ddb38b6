// `make bench`: figures, not pass/fail. What the browser downloads (raw and gzip -9), and the time from
// navigation to the first complete render (the device total on screen) in headless Chromium, served
// from localhost with an empty cache each time.
import { readdir, readFile, stat } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { launch, serve } from './harness.mjs';

// embed-demo.html is a demo page, not part of what the app downloads.
const files = (await readdir('dist')).filter((f) => /\.(wasm|js|css|html|svg)$/.test(f) && f !== 'embed-demo.html');
let raw = 0, gz = 0;
console.log('file'.padEnd(48), 'raw'.padStart(10), 'gzip -9'.padStart(10));
for (const f of files.sort()) {
  const data = await readFile(`dist/${f}`);
  const z = gzipSync(data, { level: 9 }).length;
  raw += (await stat(`dist/${f}`)).size;
  gz += z;
  console.log(f.padEnd(48), String(data.length).padStart(10), String(z).padStart(10));
}
console.log('total the app downloads'.padEnd(48), String(raw).padStart(10), String(gz).padStart(10), '(node zlib level 9)');

const browser = await launch();
const server = await serve('/');
const times = [];
for (let i = 0; i < 15; i++) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(server.url);
  await page.waitForSelector('[data-testid="total"]');
  const t = await page.evaluate(() => performance.now());
  times.push(t);
  await context.close();
}
times.sort((a, b) => a - b);
const pct = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(1);
console.log(`cold load → first complete render: median ${pct(0.5)} ms, p90 ${pct(0.9)} ms (15 loads)`);
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
