// The calculator as people use it: fixed links give the pinned totals (the same as the CLI's),
// sliders work from the keyboard and update the chart and the URL, a reload reproduces the state,
// controls that do not apply are hidden, hostile values in every text parameter stay text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launch, serve, openPage, ready, shot } from './harness.mjs';

let browser, root;
before(async () => { browser = await launch(); root = await serve('/'); });
after(async () => { await browser?.close(); await root?.close(); });

const pinned = readFileSync('tests/data/links.tsv', 'utf8').split('\n')
  .filter((l) => l && !l.startsWith('#')).map((l) => l.split('\t'));

test('snapshot: fixed links give the pinned totals (the CLI\'s numbers)', async () => {
  const page = await openPage(browser);
  for (const [link, , allocated, reserved, device] of pinned) {
    await page.goto(root.url + link);
    await ready(page);
    assert.equal(await page.getAttribute('[data-testid="total"]', 'data-bytes'), device, link);
    assert.equal(await page.getAttribute('[data-testid="total-allocated"]', 'data-bytes'), allocated, link);
    assert.equal(await page.getAttribute('[data-testid="total-reserved"]', 'data-bytes'), reserved, link);
    // The table's rows add up to the total.
    const rows = await page.$$eval('[data-testid^="component-"]', (els) => els.map((e) => BigInt(e.dataset.bytes)));
    assert.equal(rows.reduce((a, b) => a + b, 0n).toString(), device, `${link}: rows sum to the total`);
  }
  await shot(page, 'fixed-link-last');
  assert.deepEqual(page.problems, []);
});

test('a slider moved by keyboard updates the chart and the URL; a reload reproduces it', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?model=qwen2.5-7b&method=qlora`);
  await ready(page);
  const before = await page.getAttribute('[data-testid="total"]', 'data-bytes');
  const historyBefore = await page.evaluate(() => history.length);
  const chartBefore = await page.innerHTML('[data-testid="chart"]');
  await page.focus('[data-testid="seq"]');
  // One octave in four quarter steps (2048 · 2^(k/4), rounded): each press is awaited before the
  // next, and a press that lands nowhere names where the focus went.
  for (const expected of ['2435', '2896', '3444', '4096']) {
    await page.keyboard.press('ArrowRight');
    const reached = await page
      .waitForFunction((v) => document.querySelector('[data-testid="seq-typed"]').value === v, expected, { timeout: 5000 })
      .then(() => true, () => false);
    const focus = await page.evaluate(() => document.activeElement?.dataset?.testid ?? document.activeElement?.tagName);
    assert.ok(reached, `ArrowRight reached ${expected}; the slider shows ${await page.inputValue('[data-testid="seq-typed"]')}, the focus is on ${focus}`);
    assert.equal(focus, 'seq', 'the slider keeps the focus while it redraws');
  }
  const after = await page.getAttribute('[data-testid="total"]', 'data-bytes');
  assert.ok(BigInt(after) > BigInt(before), 'longer sequences need more memory');
  assert.notEqual(await page.innerHTML('[data-testid="chart"]'), chartBefore, 'the chart was redrawn');
  await page.waitForFunction(() => location.search.includes('seq=4096'), null, { timeout: 3000 });
  assert.match(await page.inputValue('[data-testid="share-url"]'), /seq=4096/);
  const url = page.url();
  assert.match(url, /model=qwen2\.5-7b/);
  // History was replaced, not pushed.
  assert.equal(await page.evaluate(() => history.length), historyBefore);
  await page.reload();
  await ready(page);
  assert.equal(await page.getAttribute('[data-testid="total"]', 'data-bytes'), after);
  assert.equal(await page.inputValue('[data-testid="seq-typed"]'), '4096');
  assert.deepEqual(page.problems, []);
});

test('typed values are accepted, and a bad typed value gets a notice', async () => {
  const page = await openPage(browser);
  await page.goto(root.url);
  await ready(page);
  await page.fill('[data-testid="batch-typed"]', '3');
  await page.press('[data-testid="batch-typed"]', 'Enter');
  await page.waitForFunction(() => location.search.includes('batch=3'), null, { timeout: 3000 });
  await page.fill('[data-testid="gpus"]', '0');
  await page.press('[data-testid="gpus"]', 'Enter');
  assert.match(await page.textContent('[data-testid="notices"]'), /gpus=0/);
  await page.click('[data-testid="dismiss-notices"]');
  assert.equal(await page.$('[data-testid="notices"]'), null);
  assert.deepEqual(page.problems, []);
});

test('an image is typed as a side or as width x height; a Gemma-4 tower takes its token budget', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?model=qwen2-vl-7b&images=4&seq=512`);
  await ready(page);
  const square = await page.getAttribute('[data-testid="total"]', 'data-bytes');
  assert.equal(await page.inputValue('[data-testid="image_px"]'), '448');
  // A 320×50 strip is 22 tokens on Qwen2-VL, the 448 px square 256: the bill shrinks.
  await page.fill('[data-testid="image_px"]', '320x50');
  await page.press('[data-testid="image_px"]', 'Enter');
  await page.waitForFunction(() => location.search.includes('image_px=320x50'), null, { timeout: 3000 });
  const strip = await page.getAttribute('[data-testid="total"]', 'data-bytes');
  assert.ok(Number(strip) < Number(square), `${strip} < ${square}`);
  await page.fill('[data-testid="image_px"]', '320*50');
  await page.press('[data-testid="image_px"]', 'Enter');
  assert.match(await page.textContent('[data-testid="notices"]'), /image_px/);
  // No budget control for a tower of another kind; Gemma-4's has one, which the link carries.
  assert.equal(await page.$('[data-testid="max_soft_tokens"]'), null);
  await page.goto(`${root.url}?model=custom&layers=4&hidden=256&heads=4&kv_heads=2&head_dim=64&ffn=512&vocab=1000&vision=gemma4&images=1`);
  await ready(page);
  assert.equal(await page.inputValue('[data-testid="max_soft_tokens"]'), '280');
  await page.fill('[data-testid="max_soft_tokens"]', '560');
  await page.press('[data-testid="max_soft_tokens"]', 'Enter');
  await page.waitForFunction(() => location.search.includes('max_soft_tokens=560'), null, { timeout: 3000 });
  assert.deepEqual(page.problems, []);
});

test('controls that do not apply are hidden', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?mode=infer`);
  await ready(page);
  for (const id of ['method', 'rank', 'targets', 'optim', 'gc', 'zero']) {
    assert.equal(await page.$(`[data-testid="${id}"]`), null, `${id} hidden in inference`);
  }
  for (const id of ['kv', 'gen', 'quant']) assert.ok(await page.$(`[data-testid="${id}"]`), `${id} shown`);
  await page.click('[data-testid="mode"] [data-value="train"]');
  await page.click('[data-testid="method"] [data-value="full"]');
  assert.equal(await page.$('[data-testid="rank"]'), null, 'no rank for full fine-tuning');
  assert.equal(await page.$('[data-testid="quant"]'), null, 'full fine-tuning has no storage format');
  assert.ok(await page.$('[data-testid="component-master_weights"]'), 'full mixed precision has master weights');
  assert.equal(await page.$('[data-testid="images"]'), null, 'images only for VLM presets');
  await page.selectOption('[data-testid="model"]', 'qwen2-vl-7b');
  assert.ok(await page.$('[data-testid="images"]'));
  assert.deepEqual(page.problems, []);
});

test('GB toggle and copy link', async () => {
  const page = await openPage(browser);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: root.url.replace(/\/$/, '') });
  await page.goto(`${root.url}?model=llama-3.1-8b&mode=infer`);
  await ready(page);
  await page.click('[data-testid="unit-gb"]');
  // 16,060,522,496 B = 16.06 GB.
  assert.match(await page.textContent('[data-testid="component-weights"]'), /16\.06 GB/);
  await page.waitForFunction(() => location.search.includes('unit=gb'), null, { timeout: 3000 });
  await page.click('[data-testid="copy-link"]');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(copied, await page.inputValue('[data-testid="share-url"]'));
  assert.match(copied, /mode=infer.*unit=gb/);
  assert.deepEqual(page.problems, []);
});

test('markup in every text parameter stays text', async () => {
  const page = await openPage(browser);
  const payload = encodeURIComponent('"><img src=x onerror=alert(1)><svg onload=alert(2)>');
  const keys = ['model', 'mode', 'method', 'precision', 'quant', 'optim', 'targets', 'attn', 'kv', 'gpu', 'lang', 'unit', 'mlp', 'embed', 'tree'];
  await page.goto(`${root.url}?${keys.map((k) => `${k}=${payload}`).join('&')}&${payload}=${payload}`);
  await ready(page);
  assert.equal(await page.$('img[src="x"]'), null);
  assert.equal(await page.$('main svg[onload]'), null);
  for (const k of keys.filter((k) => !['embed', 'tree'].includes(k))) {
    assert.ok(await page.$(`[data-testid="notices"] [data-key="${k}"]`), `notice for ${k}`);
  }
  await shot(page, 'hostile-every-key');
  assert.deepEqual(page.problems, [], 'no dialog, no error');
});

test('the calculator at 360 px, Chinese, dark', async () => {
  const page = await openPage(browser, { viewport: { width: 360, height: 780 }, locale: 'zh-CN', colorScheme: 'dark' });
  await page.goto(`${root.url}?model=qwen2.5-7b&method=qlora&gpus=2&zero=2`);
  await ready(page);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `overflow ${overflow}px`);
  assert.equal(await page.$$eval('[data-testid="chart"] rect.segment[data-bar="1"]', (r) => r.length) > 0, true, 'a bar per GPU');
  await shot(page, 'calculator-360-zh-dark');
  assert.deepEqual(page.problems, []);
});

test('export: the ledger as Markdown and the chart as SVG', async () => {
  const page = await openPage(browser, { locale: 'zh-CN' });
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: root.url.replace(/\/$/, '') });
  await page.goto(`${root.url}?model=llama-2-7b&mode=infer&seq=4096`);
  await ready(page);
  await page.click('[data-testid="copy-markdown"]');
  const md = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(md, /\| 组成 \| 大小 \| 占比 \| 公式 \|/);
  assert.match(md, /\| KV cache \| 2\.00 GiB \|/, '2 × 32 × 32 × 128 × 4096 × 2 B = 2 GiB');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="download-svg"]')]);
  assert.equal(download.suggestedFilename(), 'vram-ledger.svg');
  const { readFile } = await import('node:fs/promises');
  const svg = await readFile(await download.path(), 'utf8');
  assert.match(svg, /^<svg[^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assert.match(svg, /data-component="kv_cache"/);
  assert.deepEqual(page.problems, []);
});

test('hovering or focusing a segment shows its size and formula', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?model=llama-2-7b&mode=infer&seq=4096`);
  await ready(page);
  await page.focus('[data-testid="chart"] rect.segment[data-component="kv_cache"]');
  assert.match(await page.textContent('[data-testid="segment-detail"]'), /KV cache: 2\.00 GiB — 2 × 32 layers/);
  await page.hover('[data-testid="chart"] rect.segment[data-component="weights"]');
  assert.match(await page.textContent('[data-testid="segment-detail"]'), /Weights: 12\.55 GiB/);
  assert.deepEqual(page.problems, []);
});

test('the model picker is searchable', async () => {
  const page = await openPage(browser);
  await page.goto(root.url);
  await ready(page);
  const all = await page.$$eval('[data-testid="model"] option', (o) => o.length);
  await page.fill('[data-testid="model-search"]', 'qwen2.5');
  const options = await page.$$eval('[data-testid="model"] option', (o) => o.map((x) => x.value));
  assert.ok(options.length < all);
  assert.ok(options.includes('qwen2.5-72b') && options.includes('llama-3.1-8b'), 'matches, plus the current model');
  assert.ok(!options.includes('gemma-2-9b'));
  await page.selectOption('[data-testid="model"]', 'qwen2.5-14b');
  assert.match(await page.textContent('[data-testid="scenario"]'), /Qwen2\.5-14B/);
  // Grouped by family, each with its size and year; a size or a year finds models too.
  await page.fill('[data-testid="model-search"]', '');
  const groups = await page.$$eval('[data-testid="model"] optgroup', (g) => g.map((x) => x.label));
  for (const family of ['Qwen3', 'DeepSeek', 'gpt-oss', 'Gemma 3', 'Llama 4']) assert.ok(groups.includes(family), `${family} in ${groups}`);
  const label = await page.$eval('[data-testid="model"] option[value="gpt-oss-20b"]', (o) => o.textContent);
  assert.match(label, /20\.9B, 2025/);
  await page.fill('[data-testid="model-search"]', '235');
  const big = await page.$$eval('[data-testid="model"] option', (o) => o.map((x) => x.value));
  assert.ok(big.includes('qwen3-235b-a22b'));
  assert.deepEqual(page.problems, []);
});

test('QLoRA follows PEFT\'s recipe unless told otherwise; every total shows its range', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?model=llama-3.1-8b&method=qlora&seq=4096&gpu=rtx4090`);
  await ready(page);
  assert.equal(await page.inputValue('[data-testid="recipe"]'), 'peft');
  const total = async () => BigInt(await page.getAttribute('[data-testid="total"]', 'data-bytes'));
  const peft = await total();
  for (const id of ['total-allocated', 'total-reserved', 'total']) {
    const [low, point, high] = await Promise.all(['data-low', 'data-bytes', 'data-high'].map(async (a) => BigInt(await page.getAttribute(`[data-testid="${id}"]`, a))));
    assert.ok(low < point && point < high, `${id}: ${low} ${point} ${high}`);
    assert.match(await page.textContent(`[data-testid="${id}"] .range`), /GiB–.*GiB/);
  }
  // The model as loaded: the fp32 embedding, LM head and norms (2.1 GB) and the head's bf16 copy go.
  await page.selectOption('[data-testid="recipe"]', 'plain');
  await page.waitForFunction(() => location.search.includes('recipe=plain'), null, { timeout: 3000 });
  assert.ok(peft - (await total()) > 3_000_000_000n);
  // Dropout keeps a copy per adapter (without checkpointing: with it, only the recomputed layer
  // holds them, and it is freed before the logits' peak).
  await page.goto(`${root.url}?model=llama-3.1-8b&method=lora&gc=0&seq=2048`);
  await ready(page);
  const before = await total();
  await page.fill('[data-testid="lora_dropout"]', '0.1');
  await page.press('[data-testid="lora_dropout"]', 'Enter');
  await page.waitForFunction(() => location.search.includes('lora_dropout=0.1'), null, { timeout: 3000 });
  assert.ok((await total()) > before);
  assert.deepEqual(page.problems, []);
});

test('DeepSpeed ZeRO-2 shows its gradient buckets and their two settings; FSDP shows neither', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?model=qwen2.5-7b&method=lora&gpus=2&zero=2`);
  await ready(page);
  // 1 bucket × 5e8 × 2 B + a bucket's reduction copy of the 40,370,176 adapter gradients × 2 B.
  assert.equal(await page.getAttribute('[data-testid="component-zero_buckets"]', 'data-bytes'), String(1e9 + 40370176 * 2));
  assert.equal(await page.inputValue('[data-testid="reduce_bucket_size"]'), '500000000');
  await page.check('[data-testid="overlap_comm"]');
  await page.waitForFunction(() => location.search.includes('overlap_comm=1'));
  assert.equal(await page.getAttribute('[data-testid="component-zero_buckets"]', 'data-bytes'), String(2e9 + 40370176 * 2));
  await page.selectOption('[data-testid="zero"]', '3');
  await page.waitForFunction(() => !document.querySelector('[data-testid="reduce_bucket_size"]'));
  assert.equal(await page.$('[data-testid="component-zero_buckets"]'), null);
  assert.deepEqual(page.problems, []);
});

test('CPU offload: the optimizer leaves the GPU under ZeRO-2, the weights too under ZeRO-3, with the host RAM in a note', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?model=llama-3.1-8b&method=full&zero=2&gpu=a100-80g`);
  await ready(page);
  assert.ok(await page.$('[data-testid="component-optimizer"]'));
  await page.selectOption('[data-testid="offload"]', 'optimizer');
  await page.waitForFunction(() => location.search.includes('offload=optimizer'));
  // Zero lines are left out of the ledger: the AdamW states and master weights are in host RAM.
  assert.equal(await page.$('[data-testid="component-optimizer"]'), null);
  assert.equal(await page.$('[data-testid="component-master_weights"]'), null);
  // ZeRO-2's kept buffer + autograd's gradient of the 525,336,576-parameter embedding, 2 B each.
  assert.equal(await page.getAttribute('[data-testid="component-gradients"]', 'data-bytes'), String(2 * 525336576 * 2));
  assert.match(await page.textContent('[data-testid="bill-notes"]'), /119\.66 GiB/);
  // ZeRO-3 with the parameters offloaded (one GPU too): no weights line, the gathered units instead.
  await page.selectOption('[data-testid="zero"]', '3');
  // Whose ZeRO-3: DeepSpeed's keeps 16-bit partitions beside the (offloaded) master.
  await page.selectOption('[data-testid="zero3"]', 'deepspeed');
  await page.waitForFunction(() => location.search.includes('zero3=deepspeed'));
  await page.selectOption('[data-testid="offload"]', 'all');
  await page.waitForFunction(() => location.search.includes('offload=all'));
  assert.equal(await page.$('[data-testid="component-weights"]'), null);
  assert.ok(await page.$('[data-testid="component-gathered_layer"]'));
  await page.selectOption('[data-testid="zero"]', '0');
  await page.waitForFunction(() => !document.querySelector('[data-testid="offload"]'));
  assert.ok(await page.$('[data-testid="component-optimizer"]'));
  assert.deepEqual(page.problems, []);
});
