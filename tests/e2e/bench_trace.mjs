// A figure, not a test: reading a large trace in the page (headless Chromium). Makes a ~88 MB
// synthetic snapshot (tools/make_trace_fixtures.py --big), or with `timeline` a profiler memory
// timeline of about MB megabytes, and times the reader worker from the file chosen to the answer
// drawn; the worker's wasm memory after reading is what it reports.
//   node tests/e2e/bench_trace.mjs [MB]             (after make dist)
//   node tests/e2e/bench_trace.mjs timeline [MB]
import { execFileSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { launch, serve, openPage, ready } from './harness.mjs';

const timeline = process.argv[2] === 'timeline';
const mb = Number(process.argv[timeline ? 3 : 2] ?? (timeline ? 50 : 100));
const path = timeline ? `target/bench-timeline-${mb}.json` : `target/bench-snapshot-${mb}.pickle`;
if (timeline) {
  // export_memory_timeline's layout: [times_us, [one row of 9 category sizes per time]], ~65 B a row.
  const rows = Math.round((mb * 1e6) / 65);
  const times = Array.from({ length: rows }, (_, i) => 1000 + 10 * i);
  const sizes = times.map((_, i) => [0, 1048576000, 0, (i * 7919) % 8388608, (i * 104729) % 104857600, (i * 15485863) % 314572800, (i * 32452843) % 629145600, 0, 0]);
  writeFileSync(path, JSON.stringify([times, sizes]));
} else {
  execFileSync('python3', ['tools/make_trace_fixtures.py', '--big', path, String(mb)]);
}
const browser = await launch();
const root = await serve('/');
const page = await openPage(browser);
await page.goto(`${root.url}?model=llama-3.1-8b&method=full&gpu=h100-80g`);
await ready(page);
await page.click('[data-testid="trace-link"]');
const started = Date.now();
await page.setInputFiles('[data-testid="trace-file"]', path);
await page.waitForSelector('[data-testid="trace-result"]', { timeout: 120000 });
const wall = Date.now() - started;
const ms = await page.getAttribute('[data-testid="trace-read"]', 'data-ms');
const memory = Number(await page.getAttribute('[data-testid="trace-read"]', 'data-memory'));
console.log(`${timeline ? 'timeline' : 'snapshot'} ${(statSync(path).size / 1e6).toFixed(1)} MB: read in ${ms} ms by the worker (${wall} ms from the file chosen to the result drawn); worker memory ${(memory / 2 ** 20).toFixed(0)} MiB`);
await browser.close();
await root.close();
