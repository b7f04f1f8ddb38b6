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
