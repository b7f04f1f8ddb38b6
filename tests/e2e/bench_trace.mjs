// A figure, not a test: reading a large memory snapshot in the page (headless Chromium). Makes a
// ~88 MB synthetic snapshot (tools/make_trace_fixtures.py --big) and times the reader worker from
// the file chosen to the answer drawn; the worker's wasm memory after reading is what it reports.
//   node tests/e2e/bench_trace.mjs [MB]        (after make dist)
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { launch, serve, openPage, ready } from './harness.mjs';

const mb = Number(process.argv[2] ?? 100);
const path = `target/bench-snapshot-${mb}.pickle`;
execFileSync('python3', ['tools/make_trace_fixtures.py', '--big', path, String(mb)]);
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
console.log(`snapshot ${(statSync(path).size / 1e6).toFixed(1)} MB: read in ${ms} ms by the worker (${wall} ms from the file chosen to the result drawn); worker memory ${(memory / 2 ** 20).toFixed(0)} MiB`);
await browser.close();
await root.close();
