// The download budget (the developers' guide: the whole first download ≤ 320 KB gzip), checked on
// the bundle `make dist` built. `make bench` prints the same figures per file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { download, BUDGET } from './download.mjs';

test(`the whole download is at most ${BUDGET} B gzip`, async () => {
  const { files, gzip } = await download();
  assert.ok(files.some((f) => f.name.endsWith('.wasm')) && files.some((f) => f.name === 'index.html'), 'dist/ holds the app');
  const list = files.map((f) => `${f.name} ${f.gzip} B`).join(', ');
  assert.ok(gzip <= BUDGET, `${gzip} B gzip > ${BUDGET} B: ${list}`);
});

test('the trace worker is built beside the app and loaded only on demand', async () => {
  const { onDemand } = await download();
  const names = onDemand.map((f) => f.name);
  for (const name of ['vram-ledger-reader_bg.wasm', 'vram-ledger-reader.js', 'vram-ledger-reader_loader.js']) {
    assert.ok(names.includes(name), `dist/ has ${name}: ${names.join(', ')}`);
  }
  const { readFile } = await import('node:fs/promises');
  const html = await readFile('dist/index.html', 'utf8');
  assert.doesNotMatch(html, /vram-ledger-reader/, 'index.html neither loads nor preloads the worker');
});
