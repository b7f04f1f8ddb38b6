// The OOM decision tree in the browser: walked with the keyboard, the selected node in the URL, a
// lever applied to the configuration (before/after bars and the saving), and a diagnosis from typed
// numbers (tests/e2e/paste.test.mjs pastes real errors).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, serve, openPage, ready, shot } from './harness.mjs';

let browser, root;
before(async () => { browser = await launch(); root = await serve('/'); });
after(async () => { await browser?.close(); await root?.close(); });

test('walk the tree with the keyboard and apply a lever', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?model=llama-3.1-8b&batch=8&accum=2&gc=0&gpu=a100-80g`);
  await ready(page);
  const nodes = await page.$$eval('[data-testid="oom-tree"] [data-node]', (els) => els.map((e) => e.dataset.node));
  assert.deepEqual(nodes.sort(), ['batch', 'checkpointing', 'dtype', 'fragmentation', 'kill', 'measure', 'oom', 'peak', 'seq', 'sharding', 'zombie']);
  await page.focus('[data-node="oom"]');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid="tree-card"][data-node="oom"]');
  for (const expected of ['measure', 'zombie']) {
    await page.keyboard.press('ArrowDown');
    await page.waitForSelector(`[data-testid="tree-card"][data-node="${expected}"]`);
  }
  await page.keyboard.press('ArrowDown'); // the decision's first branch: kill
  await page.waitForSelector('[data-testid="tree-card"][data-node="kill"]');
  await page.keyboard.press('ArrowRight'); // its sibling: ① batch
  await page.waitForSelector('[data-testid="tree-card"][data-node="batch"]');
  await page.waitForFunction(() => location.search.includes('tree=batch'), null, { timeout: 3000 });
  const card = await page.textContent('[data-testid="tree-card"]');
  assert.match(card, /accumulation/);

  const total = BigInt(await page.getAttribute('[data-testid="total"]', 'data-bytes'));
  const acts = BigInt(await page.getAttribute('[data-testid="component-activations"]', 'data-bytes'));
  await page.click('[data-testid="lever-halvebatch"]');
  await page.waitForSelector('[data-testid="what-if"]');
  // Batch 8 → 4 and accumulation 2 → 4: the same effective batch; activations halve.
  assert.equal(await page.inputValue('[data-testid="batch-typed"]'), '4');
  assert.equal(await page.inputValue('[data-testid="accum"]'), '4');
  const acts2 = BigInt(await page.getAttribute('[data-testid="component-activations"]', 'data-bytes'));
  assert.ok(acts2 * 2n - acts <= 2n && acts - acts2 * 2n <= 2n, `${acts} → ${acts2}`);
  const total2 = BigInt(await page.getAttribute('[data-testid="total"]', 'data-bytes'));
  assert.equal(await page.getAttribute('[data-testid="what-if"]', 'data-saved'), (total - total2).toString());
  // Before and after bars.
  assert.ok(await page.$('[data-testid="chart"] rect.segment[data-bar="1"]'));
  await shot(page, 'tree-lever-applied');
  await page.click('[data-testid="undo-lever"]');
  assert.equal(await page.getAttribute('[data-testid="total"]', 'data-bytes'), total.toString());
  assert.equal(await page.$('[data-testid="what-if"]'), null);
  assert.deepEqual(page.problems, []);
});

test('a link can open the tree at a step', async () => {
  const page = await openPage(browser, { locale: 'zh-CN' });
  await page.goto(`${root.url}?tree=fragmentation`);
  await ready(page);
  assert.match(await page.textContent('[data-testid="tree-card"]'), /expandable_segments:True/);
  assert.ok(await page.$('[data-node="fragmentation"].selected'));
  await (await page.$('[data-testid="oom-tree"]')).screenshot({ path: 'target/e2e/tree-zh.png' });
  await page.goto(`${root.url}?tree=${encodeURIComponent('<b>x</b>')}`);
  await ready(page);
  assert.ok(await page.$('[data-testid="notices"] [data-key="tree"]'));
  assert.deepEqual(page.problems, []);
});

test('typed measurements walk the tree and highlight the path', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?model=llama-3.1-8b&batch=8&gc=0`);
  await ready(page);
  await page.click('[data-testid="typed-numbers"] summary');
  const run = async (a, r, d, t) => {
    await page.fill('[data-testid="m-allocated"]', String(a));
    await page.fill('[data-testid="m-reserved"]', String(r));
    await page.fill('[data-testid="m-device"]', String(d));
    await page.fill('[data-testid="m-total"]', String(t));
    await page.click('[data-testid="diagnose-run"]');
  };
  // nvidia-smi 23.5 GiB, this process 12 + 0.49: 11 GiB held by others.
  await run(11, 12, 23.5, 24);
  await page.waitForSelector('[data-testid="tree-card"][data-node="kill"]');
  assert.equal(await page.getAttribute('[data-testid="paste-result"]', 'data-diagnosis'), 'zombie');
  assert.match(await page.textContent('[data-testid="paste-why"]'), /11\.\d\d GiB of the 24\.00 GiB card/);
  assert.ok(await page.$('path.edge.on-path[data-from="zombie"][data-to="kill"]'));
  await run(14, 22, 22.6, 24);
  await page.waitForSelector('[data-testid="tree-card"][data-node="fragmentation"]');
  // 22 of 24 GiB live: a shortage; without checkpointing, checkpointing saves the most.
  await run(22, 23.2, 23.7, 24);
  await page.waitForSelector('[data-testid="tree-card"][data-node="checkpointing"]');
  assert.ok(await page.$('[data-testid="paste-lever-checkpointing"]'));
  await shot(page, 'tree-diagnosis');
  await run(10, 5, 12, 24);
  assert.match(await page.textContent('[data-testid="diagnose-error"]'), /Reserved cannot be below/);
  assert.deepEqual(page.problems, []);
});

test('the five-OOM drill injects each mistake and links to the node that finds it', async () => {
  const page = await openPage(browser);
  // LoRA on a 16-bit base: PEFT's k-bit recipe (QLoRA's default) already holds the embedding and
  // LM head in fp32, so the fp32_module mistake shows only off that path.
  await page.goto(`${root.url}?model=qwen2.5-7b&method=lora&seq=1024`);
  await ready(page);
  for (const [id, component] of [['no_grad', 'eval_graph'], ['tensor_list', 'kept_tensors'], ['fp32_module', 'fp32_module'], ['zombie', 'zombie_process']]) {
    assert.equal(await page.$(`[data-testid="component-${component}"]`), null);
    await page.check(`[data-testid="drill-${id}"]`);
    await page.waitForSelector(`[data-testid="component-${component}"]`);
    assert.ok(await page.$(`[data-testid="chart"] rect.segment[data-component="${component}"]`), `${component} in the chart`);
  }
  await page.waitForFunction(() => location.search.includes('drill=no_grad,tensor_list,fp32_module,zombie'), null, { timeout: 3000 });
  // The zombie is on the device, not in the allocator: reserved + context < device total.
  const reserved = BigInt(await page.getAttribute('[data-testid="total-reserved"]', 'data-bytes'));
  const device = BigInt(await page.getAttribute('[data-testid="total"]', 'data-bytes'));
  const zombie = BigInt(await page.getAttribute('[data-testid="component-zombie_process"]', 'data-bytes'));
  assert.ok(device - reserved > zombie);
  await page.uncheck('[data-testid="drill-zombie"]');
  await page.waitForFunction(() => !document.querySelector('[data-testid="component-zombie_process"]'));
  // Batch pushed to the first OOM: the verdict turns.
  await page.check('[data-testid="drill-max_batch"]');
  await page.waitForSelector('[data-testid="verdict"][data-fits="false"]');
  await page.click('[data-testid="drill"] li:nth-child(3) .link-button');
  await page.waitForSelector('[data-testid="tree-card"][data-node="batch"]');
  await shot(page, 'drill');
  assert.deepEqual(page.problems, []);
});

test('snippets copy, and the speed card opens', async () => {
  const page = await openPage(browser);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: root.url.replace(/\/$/, '') });
  await page.goto(`${root.url}?tree=fragmentation`);
  await ready(page);
  await page.click('[data-testid="tree-card"] [data-testid="copy-snippet"]');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True python train.py');
  await page.click('[data-testid="speed-card-box"] summary');
  await page.waitForSelector('[data-testid="speed-card"]');
  const rows = await page.$$eval('[data-testid="speed-card"] tbody tr', (r) => r.map((x) => [...x.children].map((c) => c.textContent)));
  assert.equal(rows.length, 3);
  // docs/speed-card.md: on a 24 GB card, LoRA fits Mistral-7B, QLoRA (PEFT's recipe) Phi-4.
  assert.match(rows[0][2], /mistral-7b/);
  assert.match(rows[0][3], /phi-4/);
  assert.deepEqual(page.problems, []);
});
