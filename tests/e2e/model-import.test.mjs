// Bring your own model: paste, drop and fetch a config.json. Requests to huggingface.co are
// intercepted here (playwright routing); nothing reaches the internet.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launch, serve, openPage, ready, shot } from './harness.mjs';

let browser, root;
before(async () => { browser = await launch(); root = await serve('/'); });
after(async () => { await browser?.close(); await root?.close(); });

const qwen = readFileSync('tests/data/configs/qwen2.5-0.5b.json', 'utf8');
const cors = { 'access-control-allow-origin': '*', 'content-type': 'application/json' };

// The reader worker answers asynchronously: wait until the status says `re`.
async function statusSays(page, re) {
  await page.waitForFunction((source) => new RegExp(source).test(document.querySelector('[data-testid="import-status"]')?.textContent ?? ''), re.source);
  assert.match(await page.textContent('[data-testid="import-status"]'), re);
}

async function open(page) {
  await page.goto(root.url);
  await ready(page);
  await page.click('[data-testid="model-import"] summary');
}

// A fresh page with a fixture's config.json pasted in and used.
async function pasteConfig(page, name) {
  await open(page);
  await page.fill('[data-testid="config-json"]', readFileSync(`tests/data/configs/${name}.json`, 'utf8'));
  await page.click('[data-testid="use-config"]');
}

test('a pasted config.json becomes the model; a broken one gets a message naming the field', async () => {
  const page = await openPage(browser);
  await open(page);
  await page.fill('[data-testid="config-json"]', qwen);
  await page.click('[data-testid="use-config"]');
  // Qwen2.5-0.5B: 494,032,768 parameters (model card) × 2 B in bf16 = 988,065,536 B.
  await page.waitForFunction(() => document.querySelector('[data-testid="component-weights"]')?.dataset.bytes === '988065536');
  assert.match(await page.textContent('[data-testid="scenario"]'), /494\.0 M/);
  await page.waitForFunction(() => location.search.includes('model=custom'), null, { timeout: 3000 });

  await page.fill('[data-testid="config-json"]', qwen.replace('"hidden_size": 896', '"hidden_size": "wide"'));
  await page.click('[data-testid="use-config"]');
  await statusSays(page, /`hidden_size`/);
  await page.fill('[data-testid="config-json"]', '{"model_type": "llama", <img src=x onerror=alert(1)>');
  await page.click('[data-testid="use-config"]');
  await statusSays(page, /not valid JSON/);
  const name = JSON.stringify({ ...JSON.parse(qwen), _name_or_path: '<img src=x onerror=alert(1)>' });
  await page.fill('[data-testid="config-json"]', name);
  await page.click('[data-testid="use-config"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="scenario"]').textContent.includes('<img'));
  assert.equal(await page.$('img[src="x"]'), null, 'the name is text');
  await shot(page, 'model-import');
  assert.deepEqual(page.problems, []);
});

test('a dropped config.json file is read', async () => {
  const page = await openPage(browser);
  await open(page);
  const data = await page.evaluateHandle((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'config.json', { type: 'application/json' }));
    return dt;
  }, readFileSync('tests/data/configs/gpt2.json', 'utf8'));
  await page.dispatchEvent('[data-testid="config-drop"]', 'drop', { dataTransfer: data });
  // GPT-2: 124,439,808 parameters × 2 B.
  await page.waitForFunction(() => document.querySelector('[data-testid="component-weights"]')?.dataset.bytes === String(124439808 * 2));
  assert.deepEqual(page.problems, []);
});

test('fetching by Hugging Face id: ok, gated, missing, network failure, bad id', async () => {
  const page = await openPage(browser);
  await page.route('https://huggingface.co/**', (route) => {
    const url = route.request().url();
    if (url === 'https://huggingface.co/Qwen/Qwen2.5-0.5B/resolve/main/config.json') return route.fulfill({ status: 200, headers: cors, body: qwen });
    if (url.includes('/meta-llama/')) return route.fulfill({ status: 401, headers: cors, body: '{"error":"gated"}' });
    if (url.includes('/nobody/')) return route.fulfill({ status: 404, headers: cors, body: 'Entry not found' });
    return route.abort('failed');
  });
  await open(page);
  const fetchId = async (id) => {
    await page.fill('[data-testid="hf-id"]', id);
    await page.click('[data-testid="hf-fetch"]');
    await page.waitForFunction(() => !document.querySelector('[data-testid="hf-fetch"]').disabled
      && document.querySelector('[data-testid="import-status"]')?.textContent !== '…');
    return page.textContent('[data-testid="import-status"]');
  };
  assert.match(await fetchId('Qwen/Qwen2.5-0.5B'), /Imported/);
  assert.equal(await page.getAttribute('[data-testid="component-weights"]', 'data-bytes'), '988065536');
  assert.match(await fetchId('meta-llama/Llama-3.1-8B'), /gated.*paste/i);
  assert.match(await fetchId('nobody/nothing'), /404/);
  assert.match(await fetchId('offline/model'), /Could not reach/);
  assert.match(await fetchId('../../evil'), /owner\/name/);
  // The failed fetches are console errors of the browser's network layer, not of the app; only
  // those are allowed.
  const unexpected = page.problems.filter((p) => !/Failed to load resource|net::ERR_FAILED/.test(p));
  assert.deepEqual(unexpected, []);
});

test('fetching from ModelScope and from a Hub mirror; a bad mirror address is refused', async () => {
  const page = await openPage(browser);
  const qwen3 = readFileSync('tests/data/configs/qwen3-8b.json', 'utf8');
  const seen = [];
  await page.route(/^https:\/\/(modelscope\.cn|hf-mirror\.com)\//, (route) => {
    const url = route.request().url();
    seen.push(url);
    if (url === 'https://modelscope.cn/models/Qwen/Qwen3-8B/resolve/master/config.json'
      || url === 'https://hf-mirror.com/Qwen/Qwen3-8B/resolve/main/config.json') {
      return route.fulfill({ status: 200, headers: cors, body: qwen3 });
    }
    return route.fulfill({ status: 404, headers: cors, body: 'not found' });
  });
  await open(page);
  const fetchId = async (id) => {
    await page.fill('[data-testid="hf-id"]', id);
    await page.click('[data-testid="hf-fetch"]');
    await page.waitForFunction(() => !document.querySelector('[data-testid="hf-fetch"]').disabled
      && document.querySelector('[data-testid="import-status"]')?.textContent !== '…');
    return page.textContent('[data-testid="import-status"]');
  };
  // Qwen3-8B: 8,190,735,360 parameters (its model card's safetensors total) × 2 B in bf16.
  const weights = String(8190735360 * 2);
  await page.selectOption('[data-testid="hub"]', 'modelscope');
  assert.match(await fetchId('Qwen/Qwen3-8B'), /Imported/);
  assert.equal(await page.getAttribute('[data-testid="component-weights"]', 'data-bytes'), weights);
  assert.match(await fetchId('Qwen/Nothing'), /modelscope\.cn.*404|404.*modelscope\.cn/s);

  await page.selectOption('[data-testid="hub"]', 'mirror');
  await page.fill('[data-testid="hub-endpoint"]', 'javascript:alert(1)');
  assert.match(await fetchId('Qwen/Qwen3-8B'), /https:\/\/hf-mirror\.com/);
  await page.fill('[data-testid="hub-endpoint"]', 'https://hf-mirror.com');
  assert.match(await fetchId('Qwen/Qwen3-8B'), /Imported/);
  assert.deepEqual(seen, [
    'https://modelscope.cn/models/Qwen/Qwen3-8B/resolve/master/config.json',
    'https://modelscope.cn/models/Qwen/Nothing/resolve/master/config.json',
    'https://hf-mirror.com/Qwen/Qwen3-8B/resolve/main/config.json',
  ], 'the javascript: endpoint was never requested');
  const unexpected = page.problems.filter((p) => !/Failed to load resource/.test(p));
  assert.deepEqual(unexpected, []);
});

test('a config of an unknown model_type is imported as a generic decoder, with a note saying so', async () => {
  const page = await openPage(browser);
  await open(page);
  const config = { ...JSON.parse(qwen), model_type: 'my_new_decoder', architectures: ['MyNewForCausalLM'] };
  await page.fill('[data-testid="config-json"]', JSON.stringify(config));
  await page.click('[data-testid="use-config"]');
  await page.waitForSelector('[data-testid="import-note"]');
  assert.match(await page.textContent('[data-testid="import-note"]'), /my_new_decoder.*Llama-style/);
  // Read as Qwen2.5-0.5B's shape without its q/k/v biases (24 layers × (896 + 2·128) = 27,648 fewer).
  const bytes = Number(await page.getAttribute('[data-testid="component-weights"]', 'data-bytes'));
  assert.equal(bytes, (494032768 - 24 * (896 + 2 * 128)) * 2);
  await shot(page, 'model-import-generic');
  assert.deepEqual(page.problems, []);
});

test('Qwen3-Omni: the thinker under thinker_config is the model, its audio encoder billed with the vision tower', async () => {
  const page = await openPage(browser);
  await pasteConfig(page, 'qwen3-omni-30b-a3b');
  // The thinker's tensors summed by module (text 30,532,646,912 + vision 538,631,408 + AuT
  // 647,927,168 = 31,719,205,488; tests/data/configs/README.md) × 2 B.
  await page.waitForFunction(() => document.querySelector('[data-testid="component-weights"]')?.dataset.bytes === '63438410976');
  assert.match(await page.textContent('[data-testid="import-note"]'), /thinker.*talker/);
  await page.waitForFunction(() => location.search.includes('audio_params=647927168'), null, { timeout: 3000 });
  assert.match(await page.textContent('[data-testid="scenario"]'), /31\.72 B/);
  await shot(page, 'model-import-omni');
  assert.deepEqual(page.problems, []);
});

test('Gemma-4: its full-attention layers keep their own heads, which the reader worker bills', async () => {
  const page = await openPage(browser);
  await pasteConfig(page, 'gemma-4-31b');
  // global_head_dim 512, num_global_key_value_heads 4, attention_k_eq_v: the page keeps the keys
  // for the reader worker, which sets and bills them.
  await page.waitForFunction(() => location.search.includes('full_kv_heads=4&full_head_dim=512&full_k_eq_v=1'), null, { timeout: 5000 });
  await page.waitForSelector('[data-testid="component-weights"]');
  // The scenario line counts the parameters the bill counts (the weights line's, from the worker).
  const weights = await page.textContent('[data-testid="component-weights"]');
  const params = Number(weights.match(/([\d,]+) params/)[1].replaceAll(',', ''));
  assert.match(await page.textContent('[data-testid="scenario"]'), new RegExp(`${(params / 1e9).toFixed(2)} B`));
  // transformers' cache at 8,192 tokens: 10 full-attention layers × 8,192 × 2 × 4 × 512 × 2 B
  // + 50 sliding layers × 1,024 × 2 × 16 × 256 × 2 B = 671,088,640 + 838,860,800 B.
  await page.goto(`${root.url}?${new URL(page.url()).search.slice(1)}&mode=infer&seq=8192`);
  await ready(page);
  await page.waitForFunction(() => document.querySelector('[data-testid="component-kv_cache"]')?.dataset.bytes === '1509949440');
  assert.match(await page.textContent('[data-testid="component-kv_cache"]'), /their own 4 KV heads × 512/);
  assert.ok(new URL(page.url()).search.includes('full_kv_heads=4'), 'the share link keeps the shape');
  await shot(page, 'model-import-gemma4');
  // E2B: its last 20 layers read earlier layers' caches, per-layer embeddings of 256, the shared
  // layers' MLP twice as wide, and the audio encoder; the scenario line again counts the bill's
  // parameters, which the page's own build could not count (the per-layer table alone is
  // 262,144 × 35 × 256 = 2,348,810,240).
  await pasteConfig(page, 'gemma-4-e2b');
  await page.waitForFunction(() => location.search.includes('kv_shared_layers=20&ple_dim=256&wide_shared_mlp=1'), null, { timeout: 5000 });
  await page.waitForFunction(() => /params/.test(document.querySelector('[data-testid="component-weights"]')?.textContent ?? ''));
  const e2b = Number((await page.textContent('[data-testid="component-weights"]')).match(/([\d,]+) params/)[1].replaceAll(',', ''));
  assert.ok(e2b > 2348810240 * 2, `${e2b}`);
  await page.waitForFunction((b) => document.querySelector('[data-testid="scenario"]')?.textContent.includes(b), `${(e2b / 1e9).toFixed(2)} B`);
  assert.deepEqual(page.problems, []);
});

test('a pasted mem_report.py JSON is compared with the ledger, component by component', async () => {
  const page = await openPage(browser);
  await page.goto(root.url);
  await ready(page);
  await page.click('[data-testid="measured"] summary');
  await page.fill('[data-testid="measured-json"]', readFileSync('tests/data/mem_report/synthetic.json', 'utf8'));
  await page.waitForSelector('[data-testid="measured-table"]');
  // Against the default configuration first, then against the report's own configuration, where the
  // weights (2,094,336 fp32 parameters = 8,377,344 B, counted by hand) match exactly.
  await page.click('[data-testid="measured-load"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="measured-weights"]')?.dataset.error === '0');
  assert.match(await page.textContent('[data-testid="measured-weights"]'), /\+0\.0 %|−0\.0 %/);
  assert.ok(await page.$('[data-testid="measured-peak_reserved"]'));
  // A real report, recorded on the CPU (torch 2.5.1): its saved activations are 12,698,804 B, the
  // ledger's activations + saved log-probabilities 13,221,888 B (tests/validation.rs): +4.1 %.
  await page.fill('[data-testid="measured-json"]', readFileSync('tests/data/mem_report/recorded-cpu-torch-2.5.1.json', 'utf8'));
  await page.click('[data-testid="measured-load"]');
  await page.waitForFunction(() => !document.querySelector('[data-testid="measured-peak_reserved"]'));
  assert.match(await page.textContent('[data-testid="measured-activations"]'), /\+4\.1 %/);
  assert.match(await page.textContent('[data-testid="measured-optimizer"]'), /\+0\.0 %|−0\.0 %/);
  await page.fill('[data-testid="measured-json"]', '{"tool": "vram-ledger/mem_report", "version": 1, "bytes": {}}');
  assert.match(await page.textContent('[data-testid="measured-error"]'), /bytes\.weights/);
  assert.deepEqual(page.problems, []);
});
