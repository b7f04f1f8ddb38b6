// Preference and RL training in the browser (issue 26): a GRPO link shows its controls, the step's
// phases with the rollout, what fits in completions (the CLI's figures, one core), the tree's rollout
// levers applied to the configuration, and a pasted wake-up out-of-memory read as the rollout's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { launch, serve, openPage, ready, shot, cli } from './harness.mjs';

let browser, root;
before(async () => { browser = await launch(); root = await serve('/'); });
after(async () => { await browser?.close(); await root?.close(); });

const GRPO = 'model=qwen2.5-1.5b&method=full&objective=grpo&rollout=colocate&rollout_util=0.3&batch=8&gpu=h100-80g';

test('a GRPO link: its controls, the rollout among the phases, what fits in completions', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?${GRPO}&lang=en`);
  await ready(page);
  assert.equal(await page.inputValue('[data-testid="objective"]'), 'grpo');
  for (const key of ['generations', 'prompt_len', 'completion_len', 'rollout', 'rollout_util', 'sleep', 'beta']) {
    assert.ok(await page.$(`[data-testid="${key}"]`), `the ${key} control`);
  }
  // GRPO's sequence is prompt + completion: no sequence slider.
  assert.equal(await page.$('[data-testid="seq"]'), null);
  const moments = await page.$$eval('[data-testid="timeline"] .phase', (r) => r.map((x) => x.textContent));
  assert.ok(moments.some((m) => m.startsWith('rollout')) && moments.some((m) => m.startsWith('log-probabilities')), moments.join('|'));
  // The page's totals and solvers are the CLI's.
  const j = cli(['--json', '--fit', GRPO]);
  assert.equal(await page.getAttribute('[data-testid="total"]', 'data-bytes'), String(j.device_bytes));
  assert.equal(await page.getAttribute('[data-testid="timeline-card"]', 'data-peak'), j.rl.peak_phase);
  await page.waitForSelector('[data-testid="max-completion"]');
  assert.equal(await page.getAttribute('[data-testid="max-completion"]', 'data-value'), String(j.max_completion_len));
  assert.equal(await page.getAttribute('[data-testid="max-generations"]', 'data-value'), String(j.max_generations));
  assert.equal(await page.$('[data-testid="max-seq"]'), null);
  await shot(page, 'rl-grpo');
  assert.deepEqual(page.problems, []);
});

test('the tree\'s rollout levers act on the configuration with their saving', async () => {
  const page = await openPage(browser);
  await page.goto(`${root.url}?${GRPO}&tree=batch&lang=en`);
  await ready(page);
  await page.waitForSelector('[data-testid="lever-rolloutsleep"]');
  const total = BigInt(await page.getAttribute('[data-testid="total"]', 'data-bytes'));
  await page.click('[data-testid="lever-rolloutsleep"]');
  await page.waitForSelector('[data-testid="what-if"]');
  await page.waitForFunction(() => location.search.includes('sleep=2'), null, { timeout: 3000 });
  const after = BigInt(await page.getAttribute('[data-testid="total"]', 'data-bytes'));
  assert.ok(after < total, `${total} → ${after}`);
  assert.equal(await page.getAttribute('[data-testid="what-if"]', 'data-saved'), (total - after).toString());
  // The same lever from the CLI's bills: the engine asleep between rollouts.
  assert.equal(String(cli(['--json', `${GRPO}&sleep=2`]).device_bytes), after.toString());
  assert.deepEqual(page.problems, []);
});

test('a pasted wake-up out of memory is the rollout engine beside the trainer', async () => {
  const toml = await readFile('tests/data/oom_reports.toml', 'utf8');
  const text = toml.match(/id = "unsloth-3302-standby-resume-wake-up"[\s\S]*?text = '''\n([\s\S]*?)\n'''/)[1];
  const page = await openPage(browser, { locale: 'zh-CN' });
  await page.goto(`${root.url}?${GRPO}`);
  await ready(page);
  await page.$eval('[data-testid="oom-paste"]', (el, t) => { el.value = t; }, text);
  await page.click('[data-testid="paste-run"]');
  await page.waitForSelector('[data-testid="paste-result"]');
  assert.equal(await page.getAttribute('[data-testid="paste-result"]', 'data-diagnosis'), 'rollout');
  await page.waitForSelector('[data-testid="tree-card"][data-node="batch"]');
  assert.match(await page.textContent('[data-testid="paste-why"]'), /采样引擎唤醒时拿不回显存/);
  // The paste is never echoed into the link: only its numbers and signals.
  assert.doesNotMatch(decodeURIComponent(page.url()), /cumem|UnslothGRPOTrainer/);
  await shot(page, 'rl-paste-zh');
  assert.deepEqual(page.problems, []);
});

// Unsloth's fast_inference rollout (twenty-first session): the page sends the link to the reader
// worker, whose bill sizes the engine as Unsloth's load_vllm does; the page shows the worker's bill,
// the CLI's, with the note that names the batch.
test('an Unsloth GRPO link is billed by the worker with load_vllm\'s sizing', async () => {
  const q = 'model=phi-4&method=qlora&rank=16&framework=unsloth&framework_version=2025.2.4&objective=grpo&rollout=shared&rollout_util=0.6952&generations=6&batch=6&prompt_len=256&completion_len=200&gpu=t4&engine=vllm&engine_version=0.7.1';
  const page = await openPage(browser);
  await page.goto(`${root.url}?${q}&lang=en`);
  await ready(page);
  // The worker's notes cross without their keys: the note is found by its text.
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="bill-notes"] li')]
    .some((li) => li.textContent.includes('load_vllm')), null, { timeout: 20000 });
  const notes = await page.$$eval('[data-testid="bill-notes"] li', (l) => l.map((x) => x.textContent));
  assert.ok(notes.some((n) => /load_vllm.*max_num_seqs 128.*max_num_batched_tokens 456/.test(n)), notes.join(' | '));
  await shot(page, 'rl-unsloth-vllm');
  const j = cli(['--json', '--fit', q]);
  assert.equal(await page.getAttribute('[data-testid="total"]', 'data-bytes'), String(j.device_bytes));
  // The worker's answer carries the step's phases (the timeline) and what fits in completions.
  const moments = await page.$$eval('[data-testid="timeline"] .phase', (r) => r.map((x) => x.textContent));
  assert.ok(moments.some((m) => m.startsWith('rollout')), moments.join('|'));
  assert.equal(await page.getAttribute('[data-testid="timeline-card"]', 'data-peak'), j.rl.peak_phase);
  await page.waitForSelector('[data-testid="max-completion"]');
  assert.equal(await page.getAttribute('[data-testid="max-completion"]', 'data-value'), String(j.max_completion_len));
  assert.equal(await page.getAttribute('[data-testid="max-generations"]', 'data-value'), String(j.max_generations));
  assert.deepEqual(page.problems, []);
});
