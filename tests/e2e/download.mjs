// What the browser downloads for the page: every file of dist/ it loads (embed-demo.html is a demo
// page, not part of the app), raw and gzip -9 (node's zlib).
import { readdir, readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';

/** The budget of the whole first download, gzip (the developers' guide). */
export const BUDGET = 320_000;

export async function download(dir = 'dist') {
  const names = (await readdir(dir)).filter((f) => /\.(wasm|js|css|html|svg)$/.test(f) && f !== 'embed-demo.html').sort();
  const files = [];
  for (const name of names) {
    const data = await readFile(`${dir}/${name}`);
    files.push({ name, raw: data.length, gzip: gzipSync(data, { level: 9 }).length });
  }
  return { files, raw: files.reduce((s, f) => s + f.raw, 0), gzip: files.reduce((s, f) => s + f.gzip, 0) };
}
