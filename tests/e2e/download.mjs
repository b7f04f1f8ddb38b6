// What the browser downloads for the page: every file of dist/ it loads (embed-demo.html is a demo
// page, not part of the app; the trace worker's files load only when a trace is dropped), raw and
// gzip -9 (node's zlib).
import { readdir, readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';

/** The budget of the whole first download, gzip (the developers' guide). */
export const BUDGET = 320_000;

/** The trace worker (src/bin/vram-ledger-reader.rs): loaded on demand, not in the first download. */
export const ON_DEMAND = /^vram-ledger-reader/;

export async function download(dir = 'dist') {
  const names = (await readdir(dir)).filter((f) => /\.(wasm|js|css|html|svg)$/.test(f) && f !== 'embed-demo.html').sort();
  const files = [];
  const onDemand = [];
  for (const name of names) {
    const data = await readFile(`${dir}/${name}`);
    const file = { name, raw: data.length, gzip: gzipSync(data, { level: 9 }).length };
    (ON_DEMAND.test(name) ? onDemand : files).push(file);
  }
  const sum = (list, k) => list.reduce((s, f) => s + f[k], 0);
  return { files, raw: sum(files, 'raw'), gzip: sum(files, 'gzip'), onDemand, onDemandGzip: sum(onDemand, 'gzip') };
}
