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
