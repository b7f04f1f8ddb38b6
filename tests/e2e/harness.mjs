// Shared set-up for the end-to-end tests: dist/ served on a free loopback port, Debian's Chromium
// driven by playwright-core, every console error and uncaught exception recorded (a test fails on
// any), screenshots saved under target/e2e/ for people to look at.
import { mkdir } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { startServer } from './serve.mjs';

export const SHOTS = 'target/e2e';

/** The native CLI's JSON for `args` (`target/debug/vram-ledger`, built by `cargo test`): what a page's figures are checked against. */
export function cli(args) {
  return JSON.parse(execFileSync('target/debug/vram-ledger', args, { encoding: 'utf8' }));
}

export async function launch() {
  if (!existsSync('dist/index.html')) throw new Error('dist/ is missing: run `make dist` first');
  await mkdir(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

export async function serve(base = '/') {
  return startServer({ dir: 'dist', base });
}

/** A new page whose console errors and page errors are collected in `page.problems`. */
export async function openPage(browser, { viewport = { width: 1280, height: 900 }, locale = 'en-US', colorScheme = 'light' } = {}) {
  const context = await browser.newContext({ viewport, locale, colorScheme });
  // Nothing in the tests may reach the internet: abort anything that is not loopback.
  await context.route(/^https?:\/\/(?!127\.0\.0\.1|localhost)/, (route) => route.abort());
  const page = await context.newPage();
  page.problems = [];
  page.on('console', (m) => { if (m.type() === 'error') page.problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => page.problems.push(`pageerror: ${e.message}`));
  page.on('dialog', (d) => { page.problems.push(`dialog: ${d.message()}`); d.dismiss(); });
  return page;
}

/** Waits for the app to render: the page painted before the wasm (#boot) is gone and the ledger is there. */
/** The page's result for its query: the app has replaced the prerendered page, and a bill the
 * reader worker makes (a grid's, a served model's) has come for this query (`data-pending` gone). */
export async function ready(page) {
  await page.waitForFunction(
    () => !document.getElementById('boot') && document.querySelector('[data-testid="total"]') && !document.querySelector('.verdict[data-pending]'),
    null,
    { timeout: 20000 },
  );
}

export async function shot(page, name) {
  await page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });
}
