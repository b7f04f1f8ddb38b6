// Pasting the error the student holds: real reports (tests/data/oom_reports.toml) land on their
// node of the tree with the numbers and the levers for the configuration; the link carries the
// numbers only; hostile pastes (markup, megabytes of junk) leave the page alive and say so.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { launch, serve, openPage, ready, shot } from './harness.mjs';

let browser, root, reports;
before(async () => {
  browser = await launch();
  root = await serve('/');
  // The fixture's texts, by id (a minimal reader of its `id = "…"` / `text = '''…'''` pairs).
  const toml = await readFile('tests/data/oom_reports.toml', 'utf8');
  reports = {};
  for (const m of toml.matchAll(/id = "([^"]+)"[\s\S]*?text = '''\n([\s\S]*?)\n'''/g)) reports[m[1]] = m[2];
});
after(async () => { await browser?.close(); await root?.close(); });

async function paste(page, text) {
  await page.$eval('[data-testid="oom-paste"]', (el, t) => { el.value = t; }, text);
  // The reader worker answers asynchronously: a result there before is marked, and the new one awaited.
  await page.$$eval('[data-testid="paste-result"]', (els) => els.forEach((el) => { el.dataset.stale = '1'; }));
  await page.click('[data-testid="paste-run"]');
  await page.waitForSelector('[data-testid="paste-result"]:not([data-stale])');
}

test('a pasted PyTorch error lands on its node, and the link carries only its numbers', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?model=qwen2.5-7b&method=lora&gpu=rtx4090`);
  await ready(page);
  // kaito-project/kaito#976: 736.86 MiB reserved-but-unallocated > the 546 MiB request; the one
  // "Process" line is the container's own process.
  await paste(page, reports['kaito-976-vllm-expandable']);
  assert.equal(await page.getAttribute('[data-testid="paste-result"]', 'data-diagnosis'), 'fragmentation');
  await page.waitForSelector('[data-testid="tree-card"][data-node="fragmentation"]');
  assert.ok(await page.$('path.edge.on-path[data-to="fragmentation"]'));
  assert.match(await page.textContent('[data-testid="paste-why"]'), /736\.86 MiB.*546\.00 MiB/);
  assert.match(await page.textContent('[data-testid="paste-numbers"]'), /15\.77 GiB/);
  assert.match(await page.textContent('[data-testid="paste-advice"]'), /expandable_segments:True/);
  await (await page.$('.oom-tree')).screenshot({ path: 'target/e2e/paste-tree.png' });
  await page.waitForFunction(() => location.search.includes('oom='), null, { timeout: 3000 });
  const search = decodeURIComponent(await page.evaluate(() => location.search));
  assert.doesNotMatch(search, /Tried|allocate|PyTorch|engine\.py/i, 'the text never goes into the link');
  // The link alone gives the same diagnosis back.
  const again = await openPage(browser);
  await again.goto(`${root.url}${search}`);
  await ready(again);
  assert.equal(await again.getAttribute('[data-testid="paste-result"]', 'data-diagnosis'), 'fragmentation');
  assert.deepEqual([...page.problems, ...again.problems], []);
});

test('a shortage ranks the levers for the configuration, one click applies one', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?model=llama-3.1-8b&method=lora&batch=8&gc=0&gpu=rtx4090`);
  await ready(page);
  // pytorch/pytorch#16417: 22.90 of 23.65 GiB allocated, 194.87 MiB unallocated.
  await paste(page, reports['pytorch-16417-batch-8-to-4']);
  assert.equal(await page.getAttribute('[data-testid="paste-result"]', 'data-diagnosis'), 'shortage');
  const levers = await page.$$eval('[data-testid^="paste-lever-"]', (els) => els.map((e) => e.dataset.testid));
  assert.ok(levers.length >= 3, levers.join());
  // Without checkpointing at batch 8, checkpointing saves the most and comes first.
  assert.equal(levers[0], 'paste-lever-checkpointing');
  await page.click('[data-testid="paste-lever-checkpointing"]');
  await page.waitForSelector('[data-testid="what-if"]');
  assert.equal(await page.isChecked('[data-testid="gc"]'), true);
  assert.deepEqual(page.problems, []);
});

test('a serving engine error gives the engine lever with numbers', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?model=qwen2.5-7b&mode=infer&engine=vllm&seq=32768&gpu=rtx4090`);
  await ready(page);
  // QwenLM/Qwen#295 (in Chinese): max seq len 32768 > the 7344 tokens the KV cache holds.
  await paste(page, reports['qwen-295-kv-7344-zh']);
  assert.equal(await page.getAttribute('[data-testid="paste-result"]', 'data-diagnosis'), 'kv_budget');
  assert.match(await page.textContent('[data-testid="paste-advice"]'), /--max-model-len 7,344/);
  assert.deepEqual(page.problems, []);
});

test('in Chinese at 360 px, and hostile pastes change nothing but the answer', async () => {
  const page = await openPage(browser, { viewport: { width: 360, height: 780 }, locale: 'zh-CN' });
  await page.goto(`${root.url}?lang=zh`);
  await ready(page);
  await paste(page, reports['glm4-408-other-process-rank5-zh']);
  assert.equal(await page.getAttribute('[data-testid="paste-result"]', 'data-diagnosis'), 'zombie');
  assert.match(await page.textContent('[data-testid="paste-why"]'), /被其他进程占用/);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 360, `no horizontal scroll at 360 px (${width})`);
  await (await page.$('[data-testid="paste-result"]')).screenshot({ path: 'target/e2e/paste-zh-360.png' });
  // Markup is text: nothing runs, nothing renders.
  await paste(page, '<img src=x onerror="alert(1)"><script>alert(2)</script> CUDA out of memory');
  assert.equal(await page.getAttribute('[data-testid="paste-result"]', 'data-diagnosis'), 'unknown');
  assert.equal(await page.$('.paste-result img, .paste-result script'), null);
  // Two megabytes of junk lines with the error at the end: read from its end, and the page answers.
  // (Chromium lays out a long single-line textarea in quadratic time; a log has lines.)
  const junk = 'x\u0000\uFFFD 中文 <b> log line\n'.repeat(100_000) + '\nRuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.93 GiB total capacity; 7.10 GiB already allocated; 10.00 MiB free; 7.20 GiB reserved in total by PyTorch)';
  await paste(page, junk);
  await page.waitForFunction(() => document.querySelector('[data-testid="paste-result"]')?.dataset.diagnosis === 'shortage');
  assert.match(await page.textContent('[data-testid="paste-result"]'), /只读了最后 1 MiB/);
  // A hand-made link that is not a paste's numbers: a notice, the rest of the page as usual.
  await page.goto(`${root.url}?lang=zh&oom=${encodeURIComponent('<b>x</b>')}`);
  await ready(page);
  assert.ok(await page.$('[data-testid="notices"] [data-key="oom"]'));
  assert.equal(await page.$('[data-testid="paste-result"]'), null);
  // A value with a link's characters that is not a reading: the worker says so, a notice too.
  await page.goto(`${root.url}?lang=en&oom=zz,F1`);
  await ready(page);
  await page.waitForSelector('[data-testid="notices"] [data-key="oom"]', { timeout: 20000 });
  assert.match(await page.textContent('[data-testid="notices"] [data-key="oom"]'), /oom=zz,F1/);
  assert.equal(await page.$('[data-testid="paste-result"]'), null);
  assert.deepEqual(page.problems, []);
});

test('a host-RAM kill (torchrun\'s SIGKILL) is read as host RAM, in Chinese too', async () => {
  const page = await openPage(browser, { locale: 'zh-CN' });
  await page.goto(`${root.url}?lang=zh&model=qwen2.5-32b&method=full&zero=3&offload=all&gpu=h100-80g`);
  await ready(page);
  await paste(page, 'torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n[0]:\n  exitcode  : -9 (pid: 48213)\n  traceback : Signal 9 (SIGKILL) received by PID 48213\n');
  assert.equal(await page.getAttribute('[data-testid="paste-result"]', 'data-diagnosis'), 'host_ram');
  assert.match(await page.textContent('[data-testid="paste-why"]'), /主机内存/);
  assert.match(await page.textContent('[data-testid="paste-advice"]'), /dmesg/);
  await shot(page, 'paste-host-ram-zh');
  assert.deepEqual(page.problems, []);
});


test('a start-up log is set beside the ledger line by line, with the settings that explain it', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?model=qwen2.5-7b&mode=infer&engine=vllm&gpu=rtx4090`);
  await ready(page);
  // tests/data/startup_logs (0324wy/MapCoder's vllm.log): vLLM 0.6.4, Llama-3.1-8B-Instruct, TP2 on
  // 44.42 GiB cards; it prints "# GPU blocks: 31284" and "Loading model weights took 7.5122 GB".
  const text = await readFile('tests/data/startup_logs/vllm-0.6.4.post1-llama-3.1-8b-instruct-tp2.log', 'utf8');
  await paste(page, text);
  assert.equal(await page.getAttribute('[data-testid="paste-result"]', 'data-diagnosis'), 'startup_log');
  const numbers = await page.textContent('[data-testid="paste-numbers"]');
  assert.match(numbers, /KV blocks: engine \| ledger\s*31,284 \| 31,\d{3}/);
  assert.match(numbers, /weights loaded: engine \| ledger\s*7\.51 GiB \| 7\.\d\d GiB/);
  const advice = await page.textContent('[data-testid="paste-advice"]');
  // The page's configuration (Qwen2.5-7B on one RTX 4090) gives way to the log's.
  assert.match(advice, /model=llama-3\.1-8b \(← qwen2\.5-7b\)/);
  assert.match(advice, /gpus=2/);
  await (await page.$('[data-testid="paste-result"]')).screenshot({ path: 'target/e2e/paste-startup-log.png' });
  // The link carries the figures and settings (never the text) and gives the same rows back.
  await page.waitForFunction(() => location.search.includes('oom='), null, { timeout: 3000 });
  const search = decodeURIComponent(await page.evaluate(() => location.search));
  assert.match(search, /Kgpus:2/);
  assert.doesNotMatch(search, /MapCoder|model_runner|Namespace/);
  const again = await openPage(browser);
  await again.goto(`${root.url}${search}`);
  await ready(again);
  await again.waitForSelector('[data-testid="paste-result"][data-diagnosis="startup_log"]');
  assert.match(await again.textContent('[data-testid="paste-numbers"]'), /31,284/);
  // The settings' line opens the configuration the log was checked against: the page then bills
  // Llama-3.1-8B on two 44.42 GiB GPUs, and the rows stay (the paste is kept).
  await again.click('[data-testid="startup-apply"]');
  await again.waitForFunction(() => location.search.includes('gpus=2'), null, { timeout: 5000 });
  await ready(again);
  assert.equal(await again.inputValue('[data-testid="model"]'), 'llama-3.1-8b');
  assert.match(decodeURIComponent(await again.evaluate(() => location.search)), /vram=44\.42.*oom=.*Kgpus:2/);
  await again.waitForSelector('[data-testid="paste-result"][data-diagnosis="startup_log"]');
  assert.deepEqual([...page.problems, ...again.problems], []);
});

test('a model beyond the presets is billed by its shape, named as the report wrote it', async () => {
  const page = await openPage(browser, { locale: 'zh-CN' });
  await page.setViewportSize({ width: 360, height: 800 });
  await page.goto(`${root.url}?lang=zh`);
  await ready(page);
  // Full fine-tuning of ChatGLM3-6B (6,243,584,000 parameters × 16 B of weights, gradients and
  // Adam states = 100 GB before any activation) on a 24 GB RTX 4090.
  await paste(page, '用4090 24G显存 全参数微调 chatglm3-6b，batch_size 4，max_length 1024，爆显存了\ntorch.cuda.OutOfMemoryError: CUDA out of memory.');
  assert.equal(await page.getAttribute('[data-testid="paste-result"]', 'data-diagnosis'), 'shortage');
  assert.match(await page.textContent('[data-testid="paste-why"]'), /chatglm3-6b: model=custom&layers=28&hidden=4096&heads=32&kv_heads=2/);
  // No horizontal scroll at 360 px, with the long configuration in the text.
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= 360), true);
  await page.click('[data-testid="startup-apply"]');
  await page.waitForFunction(() => location.search.includes('vocab=65024'), null, { timeout: 5000 });
  await ready(page);
  assert.equal(await page.inputValue('[data-testid="model"]'), 'custom');
  assert.doesNotMatch(await page.evaluate(() => location.search), /name=/);
  await shot(page, 'paste-beyond-presets-zh-360');
  assert.deepEqual(page.problems, []);
});

test('a report in words is billed: the configuration it describes, and a link that opens it', async () => {
  const page = await openPage(browser, { locale: 'zh-CN' });
  await page.setViewportSize({ width: 360, height: 800 });
  await page.goto(`${root.url}?lang=zh`);
  await ready(page);
  // OpenRLHF #698's words with the model named: Llama-3-8B full SFT with Adam needs
  // 8.03 B × 16 B = 128.5 GB before any activation; the card is an 80 GB A100.
  await paste(page, "I'm running SFT training of Llama-3-8B and running out of memory on an 80 GB A100, even with a batch size of 1 and training sequence length of 128.");
  assert.equal(await page.getAttribute('[data-testid="paste-result"]', 'data-diagnosis'), 'shortage');
  assert.match(await page.textContent('[data-testid="paste-why"]'), /model=llama-3\.1-8b&method=full&batch=1&seq=128&gpu=a100-80g/);
  // The first advice opens that configuration; the paste stays.
  await page.click('[data-testid="startup-apply"]');
  await page.waitForFunction(() => location.search.includes('method=full'), null, { timeout: 5000 });
  await ready(page);
  assert.equal(await page.inputValue('[data-testid="model"]'), 'llama-3.1-8b');
  await page.waitForSelector('[data-testid="paste-result"][data-diagnosis="shortage"]');
  assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= 360), true);
  await shot(page, 'paste-described-zh-360');
  await (await page.$('[data-testid="paste-result"]')).screenshot({ path: 'target/e2e/paste-described-result-zh-360.png' });
  assert.deepEqual(page.problems, []);
});

test('a paste that leaves the cause open asks; each answer is appended to it and read', async () => {
  // Qwen2.5-7B fully fine-tuned on a 24 GB card: its bill (over 100 GiB) cannot fit.
  const page = await openPage(browser, { viewport: { width: 360, height: 900 } });
  await page.goto(`${root.url}?model=qwen2.5-7b&method=full&gpu=rtx4090&lang=en`);
  await ready(page);
  await paste(page, 'my fine-tuning ran out of memory, what should I do?');
  assert.equal(await page.getAttribute('[data-testid="paste-result"]', 'data-diagnosis'), 'unknown');
  const asked = await page.$$eval('[data-testid="questions"] [data-question]', (ps) => ps.map((p) => p.dataset.question));
  assert.deepEqual(asked, ['killed', 'when', 'grew', 'others', 'engine', 'setup']);
  await (await page.$('[data-testid="paste-result"]')).screenshot({ path: 'target/e2e/paste-questions-360.png' });
  // "The calculator is set to this run": its bill is compared with the card.
  await page.$$eval('[data-testid="paste-result"]', (els) => els.forEach((el) => { el.dataset.stale = '1'; }));
  await page.click('[data-testid="answer-setup-page"]');
  await page.waitForSelector('[data-testid="paste-result"]:not([data-stale])');
  assert.equal(await page.getAttribute('[data-testid="paste-result"]', 'data-diagnosis'), 'shortage');
  assert.match(await page.inputValue('[data-testid="oom-paste"]'), /\n#answer setup=page$/);
  assert.equal(await page.$('[data-testid="questions"]'), null, 'nothing left to ask');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `no horizontal scrolling at 360 px (overflow ${overflow}px)`);
  // In Chinese: the process killed (host RAM) is read from the answer alone.
  const zh = await openPage(browser);
  await zh.goto(`${root.url}?lang=zh`);
  await ready(zh);
  await paste(zh, '训练的时候程序突然没了');
  assert.match(await zh.textContent('[data-question="killed"]'), /进程被杀/);
  await (await zh.$('[data-testid="paste-result"]')).screenshot({ path: 'target/e2e/paste-questions-zh.png' });
  await zh.$$eval('[data-testid="paste-result"]', (els) => els.forEach((el) => { el.dataset.stale = '1'; }));
  await zh.click('[data-testid="answer-killed-host"]');
  await zh.waitForSelector('[data-testid="paste-result"]:not([data-stale])');
  assert.equal(await zh.getAttribute('[data-testid="paste-result"]', 'data-diagnosis'), 'host_ram');
  assert.deepEqual([...page.problems, ...zh.problems], []);
});
