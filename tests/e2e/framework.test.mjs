// "I train with …" (issue 27): the framework select fills the keys its release implies, the link
// carries only the framework, a key set by hand wins, and the page's totals are the CLI's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, serve, openPage, ready, shot, cli } from './harness.mjs';

let browser, root;
before(async () => { browser = await launch(); root = await serve('/'); });
after(async () => { await browser?.close(); await root?.close(); });

const BASE = 'model=llama-3.1-8b&method=qlora&seq=8192&gpu=rtx4090';

test('choosing Unsloth sets its defaults, the link carries only the framework', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?${BASE}&lang=en`);
  await ready(page);
  const before = BigInt(await page.getAttribute('[data-testid="total"]', 'data-bytes'));
  await page.selectOption('[data-testid="framework"]', 'unsloth');
  await page.waitForFunction(() => location.search.includes('framework=unsloth'), null, { timeout: 3000 });
  const search = decodeURIComponent(await page.evaluate(() => location.search));
  // Unsloth's own defaults (docs/frameworks.md) show in the controls, not in the link.
  assert.equal(await page.inputValue('[data-testid="optim"]'), 'adamw8bit');
  assert.equal(await page.inputValue('[data-testid="loss"]'), 'fused');
  assert.equal(await page.inputValue('[data-testid="alloc"]'), 'expandable');
  assert.doesNotMatch(search, /optim=|loss=|alloc=|gc=/, search);
  // The offloaded checkpoint and the fused loss need less of the card; the page's total is the CLI's.
  const after = BigInt(await page.getAttribute('[data-testid="total"]', 'data-bytes'));
  assert.ok(after < before, `${before} → ${after}`);
  assert.equal(after.toString(), String(cli(['--json', `${BASE}&framework=unsloth`]).device_bytes));
  assert.match(await page.textContent('[data-testid="bill-notes"] [data-key="framework"]'), /Unsloth 2026\.8\.19 sets .*gc=unsloth/);
  assert.match(await page.textContent('[data-testid="bill-notes"] [data-key="offloaded_checkpoints"]'), /host RAM/);
  await shot(page, 'framework-unsloth');
  // A key set by hand wins and stays in the link.
  await page.selectOption('[data-testid="optim"]', 'adamw');
  await page.waitForFunction(() => location.search.includes('optim=adamw'), null, { timeout: 3000 });
  assert.equal(await page.inputValue('[data-testid="framework"]'), 'unsloth');
  assert.deepEqual(page.problems, []);
});

test('a TRL release from the select, and back to the newest', async () => {
  const page = await openPage(browser, { locale: 'zh-CN' });
  await page.goto(`${root.url}?${BASE}&framework=trl&lang=zh`);
  await ready(page);
  assert.equal(await page.inputValue('[data-testid="recipe"]'), 'plain');
  await page.selectOption('[data-testid="framework_version"]', '0.25');
  await page.waitForFunction(() => location.search.includes('framework_version=0.25'), null, { timeout: 3000 });
  // TRL 0.9–0.25 cast the head back to bf16 after PEFT's preparation: recipe=trl.
  assert.equal(await page.inputValue('[data-testid="recipe"]'), 'trl');
  await page.selectOption('[data-testid="framework_version"]', '');
  await page.waitForFunction(() => !location.search.includes('framework_version'), null, { timeout: 3000 });
  assert.equal(await page.inputValue('[data-testid="recipe"]'), 'plain');
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 1280, `${width}`);
  assert.deepEqual(page.problems, []);
});

test('a hostile framework in a link is a notice; the page goes on', async () => {
  const page = await openPage(browser, { viewport: { width: 360, height: 780 } });
  await page.goto(`${root.url}?${BASE}&framework=${encodeURIComponent('<img src=x>')}&framework_version=abc`);
  await ready(page);
  assert.ok(await page.$('[data-testid="notices"] [data-key="framework"]'));
  assert.ok(await page.$('[data-testid="notices"] [data-key="framework_version"]'));
  assert.equal(await page.inputValue('[data-testid="framework"]'), 'hf');
  assert.equal(await page.$('.notices img'), null);
  assert.deepEqual(page.problems, []);
});

test('an Unsloth 2024 release bills its per-layer RoPE tables, in Chinese at 360 px', async () => {
  // unsloth 2024.10 keeps a cos/sin pair in every attention layer over min(32,768, the model's
  // context) positions (docs/research/frameworks/unsloth-notebook-loads.md): Llama-3.1-8B, 32 layers
  // × 2 × 32,768 × 128 × 2 B = 536,870,912 B beside the weights; 2026.8.19 keeps one pair.
  const q = `${BASE}&framework=unsloth&framework_version=2024.10`;
  const page = await openPage(browser, { viewport: { width: 360, height: 800 }, locale: 'zh-CN' });
  await page.goto(`${root.url}?${q}&lang=zh`);
  await ready(page);
  const weights = BigInt(await page.getAttribute('[data-testid="component-weights"]', 'data-bytes'));
  const cliBill = cli(['--json', q]);
  const cliWeights = cliBill.components.find((c) => c.id === 'weights').bytes;
  assert.equal(weights.toString(), String(cliWeights));
  const newest = cli(['--json', `${BASE}&framework=unsloth`]).components.find((c) => c.id === 'weights').bytes;
  assert.equal(BigInt(cliWeights) - BigInt(newest), 536_870_912n - 2n * 32_768n * 128n * 2n);
  const formula = await page.textContent('[data-testid="component-weights"] .formula');
  assert.match(formula, /RoPE 的 cos\/sin 表.rope_cache..32 × 2 × 32,768 个位置 × 128 × 2 B = 512\.00 MiB/);
  assert.match(await page.textContent('[data-testid="bill-notes"] [data-key="framework"]'), /rope_cache=layer/);
  assert.equal(await page.getAttribute('[data-testid="total"]', 'data-bytes'), String(cliBill.device_bytes));
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `no horizontal scrolling at 360 px (overflow ${overflow}px)`);
  await page.locator('[data-testid="ledger"]').scrollIntoViewIfNeeded();
  await shot(page, 'framework-unsloth-2024-rope-zh-360');
  assert.deepEqual(page.problems, []);
});

test('Unsloth 2025.9 holds the logits its free memory allows, and Llama-4 every expert per token, as the CLI does', async () => {
  // unsloth_fused_ce_loss (2025.8.5 on) sizes its chunks by half the memory free at its first call:
  // Qwen3-32B QLoRA, 2 × 4,096 tokens on an 80 GB card holds all 8,192 tokens' logits in one chunk
  // (tests/framework.rs: 8,192 × 151,936 × 6 B + 8,192 × 5,120 × 2 B + 4 × 8,192 = 7,551,877,120 B).
  const q = 'framework=unsloth&framework_version=2025.9.1&model=qwen3-32b&method=qlora&seq=4096&batch=2&gpu=a100-80g';
  const page = await openPage(browser);
  await page.goto(`${root.url}?${q}&lang=en`);
  await ready(page);
  assert.equal(await page.getAttribute('[data-testid="component-logits"]', 'data-bytes'), '7551877120');
  assert.match(await page.textContent('[data-testid="component-logits"] .formula'), /a chunk of 8,192 tokens × vocab 151,936/);
  assert.equal(await page.getAttribute('[data-testid="total"]', 'data-bytes'), String(cli(['--json', q]).device_bytes));
  // transformers' Llama-4 runs all 16 of Scout's experts over every token (tests/recipes.rs: the
  // recomputed layer holds 3,019,898,880 B more at 4,096 tokens than top-1 routing would).
  const scout = 'model=llama-4-scout&method=qlora&recipe=plain&rank=32&targets=qkvo&seq=4096&batch=1&gc=unsloth&kernels=unsloth&loss=fused&gpu=h100-80g';
  await page.goto(`${root.url}?${scout}&lang=en`);
  await ready(page);
  const dense = BigInt(await page.getAttribute('[data-testid="component-activations"]', 'data-bytes'));
  assert.equal(dense.toString(), String(cli(['--json', scout]).components.find((c) => c.id === 'activations').bytes));
  await page.goto(`${root.url}?${scout}&dense_experts=0&lang=en`);
  await ready(page);
  const sparse = BigInt(await page.getAttribute('[data-testid="component-activations"]', 'data-bytes'));
  assert.ok(dense - sparse >= 3_019_898_876n && dense - sparse <= 3_019_898_884n, `${dense} - ${sparse}`);
  assert.match(decodeURIComponent(await page.evaluate(() => location.search)), /dense_experts=0/);
  assert.deepEqual(page.problems, []);
});

test("Unsloth's tiled MLP from a link: the 500K-context notebook's bill, from the reader worker, as the CLI's", async () => {
  const page = await openPage(browser);
  // unslothai/notebooks gpt_oss_(20B)_500K_Context_Fine_tuning (tests/data/measured.toml): 70.451 GiB reserved.
  const q = 'framework=unsloth&framework_version=2025.11.4&model=gpt-oss-20b&method=qlora&rank=8&targets=all&seq=486607&batch=1&gpu=a100-80g';
  await page.goto(`${root.url}?${q}&lang=en`);
  await ready(page);
  const before = BigInt(await page.getAttribute('[data-testid="total"]', 'data-bytes'));
  assert.equal(before.toString(), String(cli(['--json', q]).device_bytes));
  await page.goto(`${root.url}?${q}&tiled_mlp=1&lang=en`);
  await ready(page);
  const expected = String(cli(['--json', `${q}&tiled_mlp=1`]).device_bytes);
  await page.waitForFunction((b) => document.querySelector('[data-testid="total"]')?.dataset.bytes === b, expected);
  assert.ok(BigInt(expected) < before, `${before} → ${expected}`);
  assert.match(await page.textContent('[data-testid="component-activations"]'), /tiles of 2,896 tokens/);
  assert.deepEqual(page.problems, []);
});

test("Unsloth trains a VLM's vision tower with its adapters: the reader worker's bill, as the CLI's", async () => {
  const page = await openPage(browser);
  // Gemma-3-4B QLoRA r 16 with one image: 38,497,792 trainable, as the Unsloth vision notebook's banner
  // (tests/data/measured.toml, unsloth-nb-gemma-3-4b-vision-latex-ocr-rtx4090-b1).
  const q = 'framework=unsloth&model=gemma-3-4b&method=qlora&rank=16&targets=all&seq=2048&images=1&gpu=rtx4090';
  await page.goto(`${root.url}?${q}&lang=en`);
  await ready(page);
  const expected = String(cli(['--json', q]).device_bytes);
  await page.waitForFunction((b) => document.querySelector('[data-testid="total"]')?.dataset.bytes === b, expected);
  assert.match(await page.textContent('[data-testid="component-adapter_weights"]'), /38,497,792/);
  assert.match(await page.textContent('[data-testid="component-vision_activations"]'), /vision tower trains/);
  // With the tower frozen the link says so, and the bill is smaller.
  await page.goto(`${root.url}?${q}&vision_train=0&lang=en`);
  await ready(page);
  const frozen = String(cli(['--json', `${q}&vision_train=0`]).device_bytes);
  await page.waitForFunction((b) => document.querySelector('[data-testid="total"]')?.dataset.bytes === b, frozen);
  assert.ok(BigInt(frozen) < BigInt(expected), `${frozen} vs ${expected}`);
  assert.match(decodeURIComponent(await page.evaluate(() => location.search)), /vision_train=0/);
  assert.deepEqual(page.problems, []);
});
