// The serving planner: an engine link opens it; its numbers are the CLI's (one core); a lever is
// one click and can be undone; the engine's own settings appear with the engine; a hostile
// engine value is a notice; the embed shows the planner; usable at 360 px in Chinese.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, serve, openPage, ready, shot, cli } from './harness.mjs';

let browser, root;
before(async () => { browser = await launch(); root = await serve('/'); });
after(async () => { await browser?.close(); await root?.close(); });

test('a vLLM link opens the planner with the CLI\'s figures; a lever applies and undoes', async () => {
  const query = 'model=qwen3-8b&mode=infer&engine=vllm&seq=32768&batch=16&gpu=rtx4090';
  const expected = cli(['--json', query]).serving;
  const page = await openPage(browser);
  await page.goto(`${root.url}?${query}&lang=en`);
  await ready(page);
  await page.waitForSelector('[data-testid="planner"]');
  assert.equal(await page.getAttribute('[data-testid="serving-kv-tokens"]', 'data-value'), String(expected.kv_tokens));
  assert.equal(await page.getAttribute('[data-testid="serving-max-context"]', 'data-value'), String(expected.max_context));
  assert.match(await page.textContent('[data-testid="verdict"]'), /Starts, but requests queue/);
  const points = Number(await page.getAttribute('[data-testid="planner-chart"]', 'data-points'));
  assert.ok(points >= 8, `${points} points on the curve`);
  // The curve: plotters draws it as a polyline in the planner's blue.
  assert.ok(await page.$('[data-testid="planner-chart"] polyline[stroke="#2563EB"]'));
  assert.ok(await page.$('[data-testid="planner-chart"] circle.you'));
  // The engine's own settings are there; generate()'s are not needed.
  for (const key of ['engine_version', 'gpu_util', 'max_batched_tokens', 'max_num_seqs', 'block_size', 'cuda_graphs']) {
    assert.ok(await page.$(`[data-testid="${key}"]`), key);
  }
  assert.equal(await page.$('[data-testid="mem_fraction"]'), null);
  // An 8-bit KV cache: half the bytes per token, about twice the requests at once.
  const beforeC = Number(await page.getAttribute('[data-testid="serving-concurrency"]', 'data-value'));
  await page.click('[data-testid="plan-kveightbit"]');
  await page.waitForFunction(() => location.search.includes('kv=fp8'), null, { timeout: 3000 });
  await ready(page);
  const afterC = Number(await page.getAttribute('[data-testid="serving-concurrency"]', 'data-value'));
  assert.ok(afterC > 1.9 * beforeC && afterC < 2.1 * beforeC, `${beforeC} → ${afterC}`);
  assert.match(await page.textContent('[data-testid="what-if"]'), /×.*→.*×/);
  await shot(page, 'planner-vllm');
  await page.click('[data-testid="undo-lever"]');
  await page.waitForFunction(() => !location.search.includes('kv=fp8'), null, { timeout: 3000 });
  assert.deepEqual(page.problems, []);
});

test('switching engines shows each one\'s settings; llama.cpp reports host RAM when layers stay off the GPU', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?model=gpt-oss-20b&mode=infer&seq=16384&lang=en`);
  await ready(page);
  assert.equal(await page.$('[data-testid="planner"]'), null, 'generate() has no planner');
  await page.click('[data-testid="engine"] [data-value="sglang"]');
  await page.waitForSelector('[data-testid="mem_fraction"]');
  assert.equal(await page.$('[data-testid="gpu_util"]'), null);
  await page.click('[data-testid="engine"] [data-value="llamacpp"]');
  await page.waitForSelector('[data-testid="gpu_layers"]');
  assert.equal(await page.getAttribute('[data-testid="gpu_layers"]', 'placeholder'), '25', '24 layers + the output layer');
  await page.fill('[data-testid="gpu_layers"]', '8');
  await page.press('[data-testid="gpu_layers"]', 'Enter');
  await page.waitForSelector('[data-testid="serving-host"]');
  const expected = cli(['--json', 'model=gpt-oss-20b&mode=infer&seq=16384&engine=llamacpp&gpu_layers=8']).serving;
  assert.equal(await page.getAttribute('[data-testid="serving-kv-tokens"]', 'data-value'), String(expected.kv_tokens));
  // Emptying the field goes back to the engine's default (every layer on the GPU).
  await page.fill('[data-testid="gpu_layers"]', '');
  await page.press('[data-testid="gpu_layers"]', 'Enter');
  await page.waitForFunction(() => !location.search.includes('gpu_layers'), null, { timeout: 3000 });
  assert.deepEqual(page.problems, []);
});

test('a hostile engine value is a notice; the embed shows the planner; 360 px in Chinese', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?mode=infer&engine=vllm&engine_version=%3Cscript%3Ealert(1)%3C/script%3E&gpu_util=9&lang=en`);
  await ready(page);
  const notices = await page.textContent('[data-testid="notices"]');
  assert.match(notices, /engine_version/);
  assert.match(notices, /gpu_util/);
  assert.equal(await page.$$eval('script', (all) => all.some((x) => x.textContent.includes('alert(1)'))), false);
  await page.waitForSelector('[data-testid="planner"]');

  const embed = await openPage(browser);
  await embed.goto(`${root.url}?model=qwen3-8b&mode=infer&engine=sglang&seq=8192&batch=8&gpu=h100-80g&embed=1`);
  await embed.waitForSelector('[data-testid="embed"] [data-testid="planner"]');

  const phone = await openPage(browser, { viewport: { width: 360, height: 780 }, locale: 'zh-CN' });
  await phone.goto(`${root.url}?model=qwen3-32b&mode=infer&engine=vllm&seq=16384&batch=8&gpu=h20&lang=zh`);
  await ready(phone);
  await phone.waitForSelector('[data-testid="planner"]');
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 1, `no horizontal scroll at 360 px (${overflow})`);
  await shot(phone, 'planner-360-zh');
  for (const p of [page, embed, phone]) assert.deepEqual(p.problems, []);
});

test('the serving add-ons: a link with a drafter, LoRA slots and a shared prefix gives the CLI\'s bill; the controls change it; hostile values are notices', async () => {
  const query = 'model=llama-3.1-8b&mode=infer&engine=vllm&seq=8192&gpu=h100-80g&spec=eagle3&max_loras=4&max_lora_rank=64&prefix_share=0.5';
  const expected = cli(['--json', query]);
  const page = await openPage(browser);
  await page.goto(`${root.url}?${query}&lang=en`);
  await ready(page);
  await page.waitForSelector('[data-testid="planner"]');
  assert.equal(await page.getAttribute('[data-testid="serving-kv-tokens"]', 'data-value'), String(expected.serving.kv_tokens));
  assert.equal(await page.getAttribute('[data-testid="serving-max-context"]', 'data-value'), String(expected.serving.max_context));
  // The drafter and the adapter slots are lines of the bill, with the CLI's bytes.
  const line = (id) => expected.components.find((c) => c.id === id)?.bytes;
  for (const id of ['draft_model', 'adapter_weights']) {
    assert.ok(line(id) > 0, `${id} in the CLI's bill`);
    assert.equal(await page.getAttribute(`[data-testid="component-${id}"]`, 'data-bytes'), String(line(id)), id);
  }
  // The controls show the link's add-ons.
  assert.equal(await page.inputValue('[data-testid="spec"]'), 'eagle3');
  assert.equal(await page.inputValue('[data-testid="max_loras"]'), '4');
  assert.equal(await page.inputValue('[data-testid="max_lora_rank"]'), '64');
  assert.equal(await page.inputValue('[data-testid="prefix_share"]'), '0.5');
  // The planner's curve counts the shared prefix once: its lever lines start from the effective
  // concurrency, above the engine's own figure (the verdict's).
  const engineC = Number(await page.getAttribute('[data-testid="serving-concurrency"]', 'data-value'));
  assert.ok(expected.serving.effective_concurrency > engineC, `${expected.serving.effective_concurrency} > ${engineC}`);
  await shot(page, 'serving-addons');
  // A planner lever on a link the worker bills: the worker bills the new link (the CLI's pool),
  // and the "before → after" line is drawn from its answer for the link before.
  await page.click('[data-testid="plan-engineshare"]');
  await page.waitForFunction(() => location.search.includes('gpu_util=0.95'), null, { timeout: 3000 });
  const shared = cli(['--json', `${query}&gpu_util=0.95`]);
  await page.waitForFunction((t) => document.querySelector('[data-testid="serving-kv-tokens"]')?.getAttribute('data-value') === t,
    String(shared.serving.kv_tokens), { timeout: 20000 });
  assert.match(await page.textContent('[data-testid="what-if"]'), /×.*→.*×/);
  // No drafter: its line goes, and the link loses the key.
  await page.selectOption('[data-testid="spec"]', 'none');
  await page.waitForFunction(() => !location.search.includes('spec='), null, { timeout: 3000 });
  await ready(page);
  assert.equal(await page.$('[data-testid="component-draft_model"]'), null);
  assert.ok(await page.$('[data-testid="component-adapter_weights"]'));
  assert.deepEqual(page.problems, []);

  // Hostile values: a message each, the page still drawn.
  const hostile = await openPage(browser);
  await hostile.goto(`${root.url}?model=qwen3-8b&mode=infer&engine=sglang&spec=warp&prefix_share=7&max_loras=-1&lang=en`);
  await ready(hostile);
  const notices = await hostile.textContent('[data-testid="notices"]');
  for (const key of ['spec', 'prefix_share', 'max_loras']) assert.match(notices, new RegExp(key), notices);
  assert.ok(await hostile.$('[data-testid="planner"]'));
  assert.deepEqual(hostile.problems, []);
});

test('max_model_len=auto: the checkbox gives the engine\'s own context, as the CLI bills it', async () => {
  // Llama-3.1-8B on a 24 GB card: vLLM's auto-fit lowers the model's 131,072 tokens to what the pool
  // holds (tests/serving_addons.rs checks the arithmetic); the page shows the CLI's figure.
  const query = 'model=llama-3.1-8b&mode=infer&engine=vllm&gpu=rtx4090';
  const expected = cli(['--json', `${query}&max_model_len=auto`]);
  assert.ok(expected.serving.context_tokens < 131072 && expected.serving.context_tokens > 0);
  const page = await openPage(browser);
  await page.goto(`${root.url}?${query}&lang=en`);
  await ready(page);
  assert.equal(await page.isChecked('[data-testid="max_model_len"]'), false);
  await page.check('[data-testid="max_model_len"]');
  await page.waitForFunction(() => location.search.includes('max_model_len=auto'), null, { timeout: 3000 });
  // One request of the whole pool: the engine's concurrency is 1, as the CLI's.
  assert.equal(expected.serving.max_concurrency, 1);
  await page.waitForFunction((n) => Number(document.querySelector('[data-testid="serving-concurrency"]')?.dataset.value) === n, expected.serving.max_concurrency, { timeout: 3000 });
  assert.match(await page.textContent('[data-testid="bill-notes"]'), /max_model_len=auto/);
  await page.uncheck('[data-testid="max_model_len"]');
  await page.waitForFunction(() => !location.search.includes('max_model_len'), null, { timeout: 3000 });
  assert.deepEqual(page.problems, []);
});

test('a served grid and a device map: the page shows the worker\'s bill, the CLI\'s, with each stage and the planner', async () => {
  // Qwen3-235B-A22B in block FP8 on vLLM over tp 4 × pp 2 H100s: the CLI's JSON lists both
  // stages (94 layers: 47 each) and the one that binds the pool; the page bills it through the
  // reader worker (the grid's code loads on demand) and shows the same figures.
  const query = 'model=qwen3-235b-a22b&mode=infer&engine=vllm&quant=fp8_block&tp=4&pp=2&gpu=h100-80g';
  const out = cli(['--json', query]);
  assert.deepEqual(out.parallel.ranks.map((r) => r.layers), [47, 47]);
  assert.equal(out.parallel.schedule, null);
  assert.ok(out.parallel.worst_rank.bytes > 0);
  const page = await openPage(browser);
  await page.goto(`${root.url}?${query}&lang=en`);
  await ready(page);
  await page.waitForSelector('[data-testid="grid"][data-pending="0"]', { timeout: 20000 });
  await page.waitForSelector('[data-testid="planner"]');
  assert.equal(await page.getAttribute('[data-testid="total"]', 'data-bytes'), String(out.device_bytes));
  assert.equal(await page.getAttribute('[data-testid="serving-kv-tokens"]', 'data-value'), String(out.serving.kv_tokens));
  assert.equal(await page.getAttribute('[data-testid="serving-max-context"]', 'data-value'), String(out.serving.max_context));
  // Both stages hold 47 layers and need the same: one bar, the CLI's bytes; no training schedule.
  assert.equal(await page.getAttribute('[data-testid="grid-stage-0"]', 'data-bytes'), String(out.parallel.ranks[0].device_bytes));
  assert.doesNotMatch(await page.textContent('[data-testid="grid"]'), /1f1b/);
  // The tp lever: requests at once over tp 8 × pp 2, as the CLI bills it (× 100).
  const tp8 = cli(['--json', query.replace('tp=4', 'tp=8')]);
  assert.equal(await page.getAttribute('[data-testid="grid-lever-tp"]', 'data-after'), String(Math.round(tp8.serving.effective_concurrency * 100)));
  // The planner's curve is the worker's; no note says the grid is billed elsewhere.
  assert.ok(Number(await page.getAttribute('[data-testid="planner-chart"]', 'data-points')) >= 8);
  assert.equal(await page.$('li[data-key="serving_grid"]'), null);
  await shot(page, 'serving-grid');
  // A click on the lever: the link takes tp=8 and the worker bills that grid.
  await page.click('[data-testid="grid-lever-tp"] button');
  await page.waitForFunction(() => location.search.includes('tp=8'), null, { timeout: 3000 });
  await page.waitForSelector('[data-testid="grid"][data-pending="0"]', { timeout: 20000 });
  await page.waitForFunction((t) => document.querySelector('[data-testid="serving-kv-tokens"]')?.getAttribute('data-value') === t,
    String(tp8.serving.kv_tokens), { timeout: 5000 });
  assert.deepEqual(page.problems, []);

  // transformers' device_map over 3 GPUs: each GPU a stage, the worst billed, the CLI's bytes.
  const map = 'model=qwen2.5-72b&mode=infer&engine=hf&quant=bf16&attn=flash&seq=8192&gen=512&pp=3&gpu=a100-80g';
  const mapped = cli(['--json', map]);
  const phone = await openPage(browser, { locale: 'zh-CN', viewport: { width: 360, height: 780 } });
  await phone.goto(`${root.url}?${map}&lang=zh`);
  await ready(phone);
  await phone.waitForSelector('[data-testid="grid"][data-pending="0"]', { timeout: 20000 });
  assert.equal(await phone.getAttribute('[data-testid="total"]', 'data-bytes'), String(mapped.device_bytes));
  assert.equal(await phone.getAttribute(`[data-testid="grid-stage-${mapped.parallel.worst_rank.stage}"]`, 'data-bytes'), String(mapped.parallel.worst_rank.bytes));
  const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 1, `no horizontal scroll at 360 px (${overflow})`);
  await shot(phone, 'device-map-360-zh');

  // ChatGLM's remote code (mask=full): the worker replays its prefill through the caching
  // allocator and the page shows that bill, the CLI's bytes, with the note that says so.
  const glm = 'model=custom&layers=40&hidden=4096&heads=32&kv_heads=2&head_dim=128&ffn=13696&vocab=151552&tied=0&qkv_bias=1&mode=infer&engine=hf&engine_version=4.40.0&quant=bf16&attn=sdpa&seq=32000&gen=512&gpu=a100-80g&mask=full';
  const replayed = cli(['--json', glm]);
  await phone.goto(`${root.url}?${glm}&lang=zh`);
  await ready(phone);
  await phone.waitForFunction((b) => document.querySelector('[data-testid="total"]')?.getAttribute('data-bytes') === b,
    String(replayed.device_bytes), { timeout: 20000 });
  assert.ok(await phone.$('li[data-key="full_mask"]'), 'the replay note is shown');
  await shot(phone, 'chatglm-remote-360-zh');
  assert.deepEqual(phone.problems, []);
});

test('a served VLM: the worker bills vLLM\'s encoder profile as the CLI does; the images per prompt and the largest image are inputs; 360 px in Chinese', async () => {
  // Qwen2.5-VL-7B on an L4: the largest image's encoder block is the profile's peak
  // (tests/serving_encoder.rs has its bytes by hand); a smaller max_pixels gives KV room back.
  const query = 'model=qwen2.5-vl-7b&mode=infer&engine=vllm&engine_version=0.19&seq=2048&gpu=l4';
  const expected = cli(['--json', query]);
  const line = (bill, id) => bill.components.find((c) => c.id === id)?.bytes;
  const page = await openPage(browser, { viewport: { width: 360, height: 780 }, locale: 'zh-CN' });
  await page.goto(`${root.url}?${query}&lang=zh`);
  await ready(page);
  await page.waitForFunction((b) => document.querySelector('[data-testid="component-activations"]')?.getAttribute('data-bytes') === b,
    String(line(expected, 'activations')), { timeout: 20000 });
  assert.equal(await page.getAttribute('[data-testid="serving-kv-tokens"]', 'data-value'), String(expected.serving.kv_tokens));
  assert.match(await page.textContent('[data-testid="component-activations"]'), /视觉编码器/);
  for (const key of ['mm_limit', 'max_pixels']) assert.ok(await page.$(`[data-testid="${key}"]`), key);
  await page.fill('[data-testid="max_pixels"]', '1003520');
  await page.press('[data-testid="max_pixels"]', 'Enter');
  await page.waitForFunction(() => location.search.includes('max_pixels=1003520'), null, { timeout: 3000 });
  const smaller = cli(['--json', `${query}&max_pixels=1003520`]);
  assert.ok(smaller.serving.kv_tokens > expected.serving.kv_tokens);
  await page.waitForFunction((t) => document.querySelector('[data-testid="serving-kv-tokens"]')?.getAttribute('data-value') === t,
    String(smaller.serving.kv_tokens), { timeout: 20000 });
  await shot(page, 'serving-vlm-360-zh');
  assert.deepEqual(page.problems, []);
});
