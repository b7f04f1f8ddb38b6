// Part of Trunk's post-build hook (tools/post_build.mjs): the default page (no query), rendered by the app itself at
// build time — yew's server renderer running the same components natively (`vram-ledger-web
// --prerender zh|en`, the `prerender` feature) — is placed in index.html in both languages, so a
// reader sees the verdict, the totals and the bars at first paint, before any wasm runs. index.html's
// inline script shows the one in the reader's language (a link with a query shows the frame); the
// app removes both in the same task as its first render. A test compares the two renders
// (tests/e2e/prerender.test.mjs).
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

// Where index.html wants the pages (as Trunk's minifier may have written it).
const MARK = /<template id="?prerendered-page"?><\/template>/;
const render = (lang) =>
  execFileSync(
    'cargo',
    ['run', '--quiet', '--locked', '--offline', '--features', 'prerender', '--bin', 'vram-ledger-web', '--', '--prerender', lang],
    // Its own target folder: the host build with the feature does not invalidate `cargo test`'s.
    { encoding: 'utf8', env: { ...process.env, CARGO_TARGET_DIR: join('target', 'prerender') }, maxBuffer: 1 << 26 },
  );

export async function prerender(dir) {
  const htmlPath = join(dir, 'index.html');
  const html = await readFile(htmlPath, 'utf8');
  if (!MARK.test(html)) throw new Error(`index.html has no ${MARK}`);
  // The test hooks (`data-testid`) stay out of the static first paint: the wasm's render, which
  // replaces it in its first task, carries them (108 attributes, 264 B of the gzipped download).
  // Nor do the bars' click targets (an <svg class="chart-targets"> over each chart: transparent
  // rectangles with a tooltip each, 2 KB of the gzipped download): clicking one needs the wasm,
  // whose first render adds them.
  const page = (lang) =>
    render(lang)
      .replace(/ data-testid="[^"]*"/g, '')
      .replace(/<svg [^>]*class="chart-targets".*?<\/svg>/gs, '');
  const pages = ['zh', 'en'].map((lang) => `<div id="boot-${lang}" hidden>${page(lang)}</div>`).join('');
  await writeFile(htmlPath, html.replace(MARK, () => pages));
}
