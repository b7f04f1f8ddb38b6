// `make bench`: figures, not pass/fail. What the browser downloads (raw and gzip -9), and the time from
// navigation to the first complete render (the device total on screen) in headless Chromium, served
// from localhost with an empty cache each time.
import { readdir, readFile, stat } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { launch, serve } from './harness.mjs';

const files = (await readdir('dist')).filter((f) => /\.(wasm|js|css|html|svg)$/.test(f));
let raw = 0, gz = 0;
console.log('file'.padEnd(48), 'raw'.padStart(10), 'gzip -9'.padStart(10));
for (const f of files.sort()) {
  const data = await readFile(`dist/${f}`);
  const z = gzipSync(data, { level: 9 }).length;
  raw += (await stat(`dist/${f}`)).size;
  gz += z;
  console.log(f.padEnd(48), String(data.length).padStart(10), String(z).padStart(10));
}
console.log('total'.padEnd(48), String(raw).padStart(10), String(gz).padStart(10));

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
await browser.close();
await server.close();
