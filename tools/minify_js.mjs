// Part of Trunk's post-build hook (tools/post_build.mjs): minifies wasm-bindgen's JS glue in a
// release build with terser (−1.9 KB of the gzip download, `make bench`). Property names are kept (the wasm imports
// its functions by name), so only local names and whitespace change. Without terser installed
// (`npm ci` not run) it leaves the file as it is and says so; a debug build is left alone. The
// subresource-integrity hash Trunk wrote into index.html for the file is replaced by the new one.
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export async function minifyJs(dir) {
  if (process.env.TRUNK_PROFILE !== 'release') return;
  let minify;
  try {
    ({ minify } = await import('terser'));
  } catch {
    console.warn('tools/minify_js.mjs: terser is not installed (npm ci): the JS glue stays unminified');
    return;
  }
  const sri = (text) => 'sha384-' + createHash('sha384').update(text).digest('base64');
  const htmlPath = join(dir, 'index.html');
  let html = await readFile(htmlPath, 'utf8');
  for (const name of await readdir(dir)) {
    if (!name.endsWith('.js')) continue;
    const path = join(dir, name);
    const source = await readFile(path, 'utf8');
    // The trace worker's glue is a classic script (wasm-bindgen's no-modules target): its global
    // `wasm_bindgen` is what Trunk's loader shim calls, so it is minified as a script, top level kept.
    const classic = name.startsWith('vram-ledger-reader');
    const out = await minify(source, { module: !classic, toplevel: false, compress: { passes: 2 }, mangle: true, format: { comments: false } });
    if (!out.code) throw new Error(`terser produced nothing for ${name}`);
    await writeFile(path, out.code);
    const before = sri(source);
    if (html.includes(before)) html = html.split(before).join(sri(out.code));
  }
  await writeFile(htmlPath, html);
}
