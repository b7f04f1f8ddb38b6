// The result before the wasm: the default page's first screen is in index.html as the app rendered
// it at build time (tools/prerender.mjs), in the reader's language, and it is what the wasm then
// draws — the header, the controls (each select with its chosen option: nobody can open one before
// the wasm), the verdict, the totals, the bars (their click targets come with the wasm), the step's
// timeline card with its peak; the app adds
// the timeline's picture in the place kept for it, what fits (both below the first screen) and the
// sections below (the ledger, the tree, …). A link with a query paints the frame instead.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, serve, openPage, ready, shot } from './harness.mjs';

let browser, root;

before(async () => {
  browser = await launch();
  root = await serve('/');
});
after(async () => {
  await browser?.close();
  await root?.close();
});

/** What a reader sees of the page under `scope`: the texts and numbers that could drift. The
 * prerendered page has no test ids (tools/prerender.mjs leaves them to the wasm's render), so both
 * are read through the page's own structure. */
function seen(scope) {
  const q = (sel) => document.querySelector(`${scope} ${sel}`);
  const text = (sel) => q(sel)?.textContent ?? null;
  return {
    title: text('header h1'),
    scenario: text('.scenario-line'),
    verdict: text('.verdict-line'),
    totals: [...document.querySelectorAll(`${scope} .verdict .totals dd[data-bytes]`)].map((d) => d.getAttribute('data-bytes')),
    chart: q('.chart-card:not(.timeline) .chart svg')?.outerHTML ?? null,
    targets: [...document.querySelectorAll(`${scope} .chart-card:not(.timeline) .chart .segment`)].map((r) =>
      [r.getAttribute('data-component'), r.getAttribute('x'), r.getAttribute('y'), r.getAttribute('height'), r.textContent]),
    peak: q('.chart-card.timeline')?.getAttribute('data-peak') ?? null,
    // The controls' values: each select's chosen option.
    chosen: [...document.querySelectorAll(`${scope} .layout select`)].map((s) => s.selectedOptions[0]?.textContent ?? null),
    // Everything the first screen says (the header, the controls and the results), the timeline's
    // picture and its detail line aside, and the bars' tooltips (compared as `targets`).
    header: text('header').replace(/\s+/g, ' '),
    screen: (() => {
      const layout = q('.layout').cloneNode(true);
      layout.querySelectorAll('.chart-card.timeline .chart, .chart-card.timeline .segment-detail, .fits, select, .chart-targets')
        .forEach((e) => e.remove());
      return layout.textContent.replace(/\s+/g, ' ');
    })(),
  };
}

/** The timeline card's picture: its moments, and the height kept for it. */
function timeline(scope) {
  const card = document.querySelector(`${scope} .chart-card.timeline`);
  const picture = card?.querySelector('.chart');
  return {
    moments: [...(card?.querySelectorAll('.chart:not(.timeline-later) .phase') ?? [])].map((r) => r.textContent),
    height: picture?.getBoundingClientRect().height ?? 0,
    card: card?.getBoundingClientRect().height ?? 0,
  };
}

for (const [locale, lang] of [['en-US', 'en'], ['zh-CN', 'zh']]) {
  test(`the default page (${lang}) is painted before the wasm, and the wasm draws the same`, async () => {
    // The wasm never arrives: what is on screen is index.html alone.
    const before = await openPage(browser, { locale });
    await before.route(/\.wasm$/, (route) => route.abort());
    await before.goto(root.url);
    assert.equal(await before.isVisible(`#boot-${lang}`), true, 'the prerendered page in the reader\'s language');
    assert.equal(await before.isVisible('#boot-frame'), false);
    assert.equal(await before.isVisible(`#boot-${lang === 'en' ? 'zh' : 'en'}`), false);
    assert.equal(await before.isVisible(`#boot-${lang} .chart-card .chart svg`), true, 'the bars are on screen');
    assert.equal(await before.evaluate(() => document.querySelectorAll('#boot [data-testid]').length), 0, 'no test ids');
    const painted = await before.evaluate(seen, `#boot-${lang}`);
    const kept = await before.evaluate(timeline, `#boot-${lang}`);
    await shot(before, `prerendered-${lang}`);

    const after = await openPage(browser, { locale });
    await after.goto(root.url);
    await ready(after);
    const drawn = await after.evaluate(seen, 'body');
    const timelineDrawn = await after.evaluate(timeline, 'body');
    assert.ok(painted.totals.every((b) => Number(b) > 0), JSON.stringify(painted.totals));
    // The bars' click targets (each segment's tooltip) come with the app: clicking needs it.
    assert.deepEqual(painted.targets, [], 'no click targets before the wasm');
    assert.ok(drawn.targets.length >= 5, 'the segments are there');
    assert.equal(painted.peak, 'backward', 'the default LoRA step peaks at backward\'s start');
    assert.deepEqual({ ...painted, targets: drawn.targets }, drawn);
    assert.ok(painted.chosen.length >= 5 && painted.chosen.every((c) => c), JSON.stringify(painted.chosen));
    // What fits comes with the app (below the first screen), as do the selects' other options.
    assert.equal(await before.evaluate((s) => document.querySelector(s), `#boot-${lang} .fits`), null);
    assert.equal(await after.isVisible('.fits[data-testid="what-fits"]'), true);
    assert.ok(await after.evaluate(() => document.querySelector('select[data-testid="model"]').options.length > 20));
    // The timeline's picture comes with the app, in the place the prerendered page kept for it.
    assert.deepEqual(kept.moments, [], 'no picture before the wasm');
    assert.equal(timelineDrawn.moments.length, 6, 'the step\'s six moments');
    assert.ok(Math.abs(kept.height - timelineDrawn.height) <= 4, `picture height kept: ${kept.height} vs ${timelineDrawn.height}`);
    assert.ok(Math.abs(kept.card - timelineDrawn.card) <= 12, `card height kept: ${kept.card} vs ${timelineDrawn.card}`);
    assert.deepEqual(after.problems, []);
  });
}

test('a link with a query paints the frame, then the result', async () => {
  const before = await openPage(browser);
  await before.route(/\.wasm$/, (route) => route.abort());
  await before.goto(`${root.url}?model=qwen3-8b&method=qlora&seq=8192&gpu=rtx4090`);
  assert.equal(await before.isVisible('#boot-frame'), true);
  assert.equal(await before.isVisible('#boot-en'), false);
  const page = await openPage(browser);
  await page.goto(`${root.url}?model=qwen3-8b&method=qlora&seq=8192&gpu=rtx4090`);
  await ready(page);
  assert.match(await page.textContent('[data-testid="scenario"]'), /Qwen3-8B/);
  // Only a language in the link still gets the prerendered page, in that language.
  const zh = await openPage(browser, { locale: 'en-US' });
  await zh.route(/\.wasm$/, (route) => route.abort());
  await zh.goto(`${root.url}?lang=zh`);
  assert.equal(await zh.isVisible('#boot-zh'), true);
  assert.deepEqual(page.problems, []);
});
