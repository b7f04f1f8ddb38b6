// A Megatron-style training grid (issue 28) on the page: its bill comes from the reader worker
// (the grid's code loads on demand), and what the page shows — the totals, the stages, the worst
// one, each lever's worst GPU — is the CLI's `parallel` object for the same link.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, serve, openPage, ready, shot, cli } from './harness.mjs';

let browser, root;
before(async () => { browser = await launch(); root = await serve('/'); });
after(async () => { await browser?.close(); await root?.close(); });

const GRID = 'model=qwen3-30b-a3b&method=full&framework=megatron&tp=2&pp=4&ep=4&dp=2&sp=1&seq=4096&microbatches=8&gc=0&gpu=h100-80g';

test('a grid link: the worker\'s bill, one bar per kind of stage, the worst named, the levers', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?${GRID}&lang=en`);
  await ready(page);
  await page.waitForSelector('[data-testid="grid"][data-pending="0"]', { timeout: 20000 });
  const expected = cli(['--json', GRID]);
  assert.equal(await page.getAttribute('[data-testid="total"]', 'data-bytes'), String(expected.device_bytes));
  const p = expected.parallel;
  assert.equal(p.worst_rank.bytes, expected.device_bytes, 'the bill is the worst stage\'s');
  // Stage 0 (the embedding, four micro-batches in flight) is its own bar, with the CLI's bytes.
  assert.equal(await page.getAttribute('[data-testid="grid-stage-0"]', 'data-bytes'), String(p.ranks[0].device_bytes));
  const stages = await page.locator('[data-testid^="grid-stage-"]').count();
  assert.ok(stages >= 2 && stages <= p.ranks.length, `${stages} bars for ${p.ranks.length} stages`);
  assert.match(await page.textContent(`[data-testid="grid-stage-${p.worst_rank.stage}"]`), /needs the most/);
  // Which experts each GPU holds, as the CLI's experts line says it (128 over ep 4: 32 each).
  assert.match(await page.textContent('[data-testid="grid-experts"]'), /rank 0 holds experts 0 … 31, rank 3 experts 96 … 127/);
  // The tp lever: the worst GPU of the grid with tp=4, as the CLI bills it.
  const tp4 = cli(['--json', GRID.replace('tp=2', 'tp=4')]);
  assert.equal(await page.getAttribute('[data-testid="grid-lever-tp"]', 'data-after'), String(tp4.device_bytes));
  // The worst stage is the first (12 layers, four micro-batches in flight): Megatron's uneven
  // pipeline moves layers off it, to 9 (the 39 left split 13 each over the three others).
  const uneven = cli(['--json', `${GRID}&first_stage_layers=9`]);
  assert.ok(uneven.device_bytes < expected.device_bytes);
  assert.equal(await page.getAttribute('[data-testid="grid-lever-first_stage_layers"]', 'data-after'), String(uneven.device_bytes));
  assert.match(await page.textContent('[data-testid="grid-lever-first_stage_layers"]'), /first_stage_layers=9/);
  // The ledger's lines carry the worker's formulas, rendered.
  assert.match(await page.textContent('[data-testid="component-weights"]'), /stage 0 of 4/);
  assert.match(await page.textContent('[data-testid="bill-notes"] [data-key="grid"]'), /Megatron-style grid tp2·pp4·ep4/);
  await shot(page, 'parallel-grid');
  // A lever is one click away: the link takes tp=4 and the worker bills the new grid.
  await page.click('[data-testid="grid-lever-tp"] button');
  await page.waitForFunction(() => location.search.includes('tp=4'), null, { timeout: 3000 });
  await page.waitForSelector('[data-testid="grid"][data-pending="0"]', { timeout: 20000 });
  assert.equal(await page.getAttribute('[data-testid="total"]', 'data-bytes'), String(tp4.device_bytes));
  assert.deepEqual(page.problems, []);
});

test('a grid in Chinese at 360 px, then a change of the grid', async () => {
  const page = await openPage(browser, { locale: 'zh-CN', viewport: { width: 360, height: 780 } });
  await page.goto(`${root.url}?${GRID}&lang=zh`);
  await ready(page);
  await page.waitForSelector('[data-testid="grid"][data-pending="0"]', { timeout: 20000 });
  assert.match(await page.textContent('[data-testid="grid"]'), /阶段/);
  // The texts' `code spans` are shown as code, not as backticks.
  assert.match(await page.textContent('[data-testid="grid-experts"]'), /每个 MoE 层 128 个路由专家.*rank 0 存专家 0 … 31/);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 360, `${width}`);
  await shot(page, 'parallel-grid-zh-360');
  // A new link for the same page: the worker answers for it.
  await page.goto(`${root.url}?${GRID.replace('pp=4', 'pp=2')}&lang=zh`);
  await ready(page);
  await page.waitForSelector('[data-testid="grid"][data-pending="0"]', { timeout: 20000 });
  const expected = cli(['--json', GRID.replace('pp=4', 'pp=2')]);
  assert.equal(await page.getAttribute('[data-testid="total"]', 'data-bytes'), String(expected.device_bytes));
  assert.equal(await page.locator('[data-testid^="grid-stage-"]').count(), 2);
  assert.deepEqual(page.problems, []);
});

test('a hostile grid link: bad sizes are notices, absurd ones a bill with its refusals named', async () => {
  const page = await openPage(browser, { viewport: { width: 360, height: 780 } });
  await page.goto(`${root.url}?model=llama-3.1-8b&method=full&tp=abc&ep=0&pp=99999&lang=en`);
  await ready(page);
  // Nothing valid made a grid: the page is the plain bill, with a notice per bad value.
  assert.ok((await page.locator('[data-testid="notices"] li').count()) >= 3);
  assert.equal(await page.locator('[data-testid="grid"]').count(), 0);
  // Valid sizes Megatron would refuse: billed, and the refusals said.
  await page.goto(`${root.url}?model=llama-3.1-8b&method=full&tp=1024&pp=1000&microbatches=100000&lang=en`);
  await ready(page);
  await page.waitForSelector('[data-testid="grid"][data-pending="0"]', { timeout: 20000 });
  assert.ok(Number(await page.getAttribute('[data-testid="total"]', 'data-bytes')) > 0);
  assert.ok((await page.locator('[data-testid="bill-notes"] [data-key="grid_refused"]').count()) >= 2);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 360, `${width}`);
  assert.deepEqual(page.problems, []);
});

test('the OOM tree\'s sharding card: a data-parallel link\'s grid levers, bytes before → after, one click', async () => {
  // FSDP over 8 GPUs of a MoE model: the card offers tp, pp, ep, cp on the grid the link implies
  // (all 8 GPUs data parallel), each with the worst GPU after it as the CLI bills it.
  const DP = 'model=qwen3-30b-a3b&method=full&gpus=8&zero=3&seq=4096&gpu=h100-80g';
  const page = await openPage(browser);
  await page.goto(`${root.url}?${DP}&tree=sharding&lang=en`);
  await ready(page);
  await page.waitForSelector('[data-testid="tree-card"][data-node="sharding"] [data-testid="tree-grid-levers"]', { timeout: 20000 });
  // The page bills this link itself: asking the worker for the card's levers hides nothing ("what fits" stays).
  assert.ok(await page.$('[data-testid="what-fits"] [data-testid="max-batch"]'));
  const base = cli(['--json', `${DP}&dp=8`]);
  const ep2 = cli(['--json', `${DP}&dp=8&ep=2`]);
  const card = '[data-testid="tree-card"] [data-testid="tree-grid-levers"]';
  assert.equal(await page.getAttribute(`${card} [data-testid="grid-lever-ep"]`, 'data-after'), String(ep2.device_bytes));
  for (const key of ['tp', 'pp', 'cp']) assert.ok(await page.$(`${card} [data-testid="grid-lever-${key}"]`), key);
  // Before → after in GiB, two decimals: the grid of 8 data-parallel GPUs, then ep=2.
  const gib = (b) => (b / 2 ** 30).toFixed(2);
  assert.match(await page.textContent(`${card} [data-testid="grid-lever-ep"]`), new RegExp(`${gib(base.device_bytes)} GiB → ${gib(ep2.device_bytes)} GiB`));
  // Expert parallel is smaller here: the routed experts are split over two GPUs.
  assert.ok(ep2.device_bytes < base.device_bytes);
  await (await page.$('[data-testid="tree-card"]')).screenshot({ path: 'target/e2e/tree-sharding-grid-levers.png' });
  // One click: the link keeps its 8 GPUs (dp=8) and takes ep=2; the worker bills the grid.
  await page.click(`${card} [data-testid="grid-lever-ep"] button`);
  await page.waitForFunction(() => location.search.includes('ep=2') && location.search.includes('dp=8'), null, { timeout: 3000 });
  await page.waitForSelector('[data-testid="grid"][data-pending="0"]', { timeout: 20000 });
  assert.equal(await page.getAttribute('[data-testid="total"]', 'data-bytes'), String(ep2.device_bytes));
  assert.deepEqual(page.problems, []);
});

// DPO on the grid (twenty-ninth session): the page sends the link to the worker as a grid, whose
// bill carries the reference model laid out as the policy, and no note that the grid is not billed.
test('a DPO link on a grid: the worker\'s grid bill with its reference model', async () => {
  const DPO = 'model=qwen3-4b&objective=dpo&method=full&framework=megatron&tp=4&sp=1&seq=4096&batch=1&accum=4&gc=1&gpu=a100-80g';
  const page = await openPage(browser);
  await page.goto(`${root.url}?${DPO}&lang=en`);
  await ready(page);
  await page.waitForSelector('[data-testid="grid"][data-pending="0"]', { timeout: 20000 });
  const expected = cli(['--json', DPO]);
  assert.equal(await page.getAttribute('[data-testid="total"]', 'data-bytes'), String(expected.device_bytes));
  assert.match(await page.textContent('[data-testid="component-reference_model"]'), /frozen copy of this GPU's 1,005,764,096 parameters/);
  assert.equal(await page.locator('[data-testid="bill-notes"] [data-key="rl_grid"]').count(), 0);
  await shot(page, 'parallel-dpo');
  assert.deepEqual(page.problems, []);
});

test('a colocated GRPO link on a grid: the grid\'s step beside its vLLM engine, from the worker', async () => {
  const GRPO = 'model=qwen3-4b&objective=grpo&rollout=colocate&rollout_util=0.4&rollout_tp=2&method=full&tp=2&dp=2&dist_optim=1&batch=4&prompt_len=512&completion_len=1024&gpu=a100-80g';
  const page = await openPage(browser);
  await page.goto(`${root.url}?${GRPO}&lang=en`);
  await ready(page);
  await page.waitForSelector('[data-testid="grid"][data-pending="0"]', { timeout: 20000 });
  const expected = cli(['--json', GRPO]);
  assert.equal(await page.getAttribute('[data-testid="total"]', 'data-bytes'), String(expected.device_bytes));
  assert.match(await page.textContent('[data-testid="component-rollout_weights"]'), /rollout, vLLM/);
  assert.match(await page.textContent('[data-testid="component-gradients"]'), /main_grad/);
  assert.match(await page.textContent('[data-testid="bill-notes"]'), /2 vLLM engine\(s\) of tensor parallel 2/);
  assert.doesNotMatch(await page.textContent('[data-testid="bill-notes"]'), /not billed here/);
  await shot(page, 'parallel-grpo');
  assert.deepEqual(page.problems, []);
});
