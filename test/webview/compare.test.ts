/**
 * The reference check's page in headless Chromium: the exact HTML the panel ships (the webview
 * shell with compare.js) and a stub acquireVsCodeApi; the test plays the host with rows and a
 * verdict that core/compare builds from answers (one that parts early with far logprobs, one
 * that agrees, one with NaN logprobs). Answers carry hostile text: all of it must arrive as text.
 */
import { strict as assert } from 'node:assert';
import type { Page } from 'playwright-core';
import { comparePair, logprobSeries } from '../../src/core/compare/run';
import type { Greedy } from '../../src/core/compare/request';
import type { PromptComparison, TokenLogprob } from '../../src/core/compare/types';
import { judgeRun, THRESHOLDS } from '../../src/core/compare/verdict';
import { isCompareWebviewMessage, type CompareSummary, type CompareViewState, type HostToCompareWebview } from '../../src/shared/compareProtocol';
import { assertPageClean, elementsInApp, openWatchedPage, sendToWebview, startRig, type PageWatch, type WebviewRig } from './harness';

const WAIT = { timeout: 20_000 };
const CANARY = '__pwned';
const HOSTILE = [`<img src=x onerror="window.${CANARY}=1">`, `<script>window.${CANARY}=1</script>`, 'RLO:\u202Egnp.exe\u202C'];

interface TestWindow {
  __posted: { type: string; [key: string]: unknown }[];
  __violations: unknown[];
}

function answer(words: string[], logprobs: number[]): Greedy {
  const tokens: TokenLogprob[] = words.map((text, i) => ({ text, logprob: logprobs[i], top: [{ text, logprob: logprobs[i] }] }));
  return { ok: true, answer: { content: words.join(''), tokens, finishReason: 'stop', matchedStop: null, durationMs: 40 } };
}

const SHARED = ['Sure', ',', ' here', ' are', ' the', ' numbers', ':', ' 1', ',', ' 2'];
const lp = (n: number, base: number) => Array.from({ length: n }, (_, i) => base - (i % 3) * 0.1);

/** Prompt 0 parts at token 2 with far logprobs; prompt 1 agrees; prompt 2's B sends NaN logprobs. */
function rows(): PromptComparison[] {
  const mk = (i: number, prompt: string, a: Greedy, b: Greedy): PromptComparison => {
    const row = comparePair(i, prompt, a, b);
    if (a.ok && b.ok) row.logprobs = logprobSeries(a.answer, b.answer);
    return row;
  };
  const early = mk(
    0,
    `Count from 1 to 20. ${HOSTILE[1]}`,
    answer(SHARED, lp(SHARED.length, -0.2)),
    answer(['Sure', ',', ` ${HOSTILE[0]}`, ' seven', ' banana', ` ${HOSTILE[2]}`, ' x', ' y', ' z', ' w'], lp(10, -2.5)),
  );
  const same = mk(1, 'Name three colours.', answer(SHARED, lp(SHARED.length, -0.1)), answer(SHARED, lp(SHARED.length, -0.12)));
  const nanLp = lp(SHARED.length, -0.1).map((v, i) => (i === 4 || i === 5 ? NaN : v));
  const nan = mk(2, 'What is a KV cache?', answer(SHARED, lp(SHARED.length, -0.1)), answer(SHARED, nanLp));
  return [early, same, nan];
}

function setup(): CompareViewState['setup'] {
  return {
    a: { label: `reference ${HOSTILE[2]}`, url: 'http://127.0.0.1:30001', model: 'reference' },
    b: { label: `suspect ${HOSTILE[1]}`, url: 'http://127.0.0.1:30002', model: `diverging ${HOSTILE[0]}` },
    prompts: 3,
    topLogprobs: 5,
  };
}

function summaryOf(rs: PromptComparison[]): CompareSummary {
  const judged = judgeRun(rs);
  return {
    ...judged,
    notes: [`B answered differently when asked again ${HOSTILE[0]}`],
    thresholds: THRESHOLDS,
    a: { url: 'http://127.0.0.1:30001', model: 'reference' },
    b: { url: 'http://127.0.0.1:30002', model: 'diverging' },
    settings: { prompts: 3, topLogprobs: 5, maxTokens: 128, seed: 1234, temperature: 0 },
    repeat: null,
    cancelled: false,
  };
}

describe('compare webview: the reference check in headless Chromium', function () {
  this.timeout(120_000);
  let rig: WebviewRig;

  before(async () => {
    rig = await startRig();
  });
  after(async () => {
    await rig?.close();
  });

  const openPage = (): Promise<{ page: Page; watch: PageWatch }> => openWatchedPage(rig, '/compare', { waitReady: true });
  const send = (page: Page, m: HostToCompareWebview) => sendToWebview(page, m);
  const posted = (page: Page) => page.evaluate(() => (window as unknown as TestWindow).__posted);

  async function assertClean(page: Page, watch: PageWatch): Promise<void> {
    await assertPageClean(page, watch, rig.harness.origin, CANARY);
    // The page's one SVG kind is its own; nothing a payload spells exists as an element.
    assert.deepEqual(await elementsInApp(page, 'img, script, svg:not(.plot), iframe, style, a, [onerror], [onload], [onclick]'), []);
    for (const m of await posted(page)) assert.ok(isCompareWebviewMessage(m), `the page posts only valid messages: ${JSON.stringify(m)}`);
  }

  it('fills in prompt by prompt: the early split marked in both answers, the plot with the split and NaN marks; Stop posts stop', async () => {
    const { page, watch } = await openPage();
    const rs = rows();
    await send(page, { type: 'state', state: { setup: setup(), phase: 'running', rows: [] } });
    await page.waitForSelector('[data-testid="side-a"]');
    assert.equal(await page.textContent('[data-testid="server-label"]'), `suspect ${HOSTILE[1]}`);
    assert.ok((await page.textContent('[data-testid="side-b"]'))?.includes(`diverging ${HOSTILE[0]}`));
    // In completion order: the last prompt first; the page lists them by index.
    for (const r of [rs[2], rs[0], rs[1]]) await send(page, { type: 'row', row: r });
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="prompt-row"]').length === 3, undefined, WAIT);
    assert.deepEqual(await page.locator('[data-testid="prompt-row"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-index'))), ['0', '1', '2']);
    assert.match((await page.textContent('[data-testid="status"]')) ?? '', /3\/3 prompts compared/);

    const first = page.locator('[data-testid="prompt-row"][data-index="0"]');
    assert.equal(await first.getAttribute('open'), '', 'the first prompt that parts is open');
    assert.equal(await first.locator('[data-testid="split-at"]').textContent(), 'token 2');
    assert.equal(await first.locator('[data-testid="split-mark"]').count(), 2, 'the split is marked in both answers');
    assert.equal(await first.locator('[data-testid="continuation-a"]').textContent(), rs[0].continuationA);
    assert.equal(await first.locator('[data-testid="continuation-b"]').textContent(), rs[0].continuationB);
    assert.ok(rs[0].continuationB?.includes(HOSTILE[0]), 'the hostile token is in the continuation, as text');
    assert.equal(await first.locator('[data-testid="split-line"]').count(), 1, 'the plot marks the split');
    assert.equal(await first.locator('[data-testid="plot-a"]').count(), 1);
    assert.equal(await first.locator('[data-testid="plot-b"]').count(), 1);
    assert.equal(await page.locator('[data-testid="prompt-row"][data-index="1"] [data-testid="split-at"]').textContent(), 'same text');

    // NaN logprobs break B's line and show as marks.
    await page.click('[data-testid="prompt-row"][data-index="2"] summary');
    const nan = page.locator('[data-testid="prompt-row"][data-index="2"]');
    assert.equal(await nan.locator('[data-testid="nonfinite"]').count(), 2);
    assert.equal(await nan.locator('[data-testid="plot-b"]').count(), 2, "B's line is broken in two by the NaN values");
    await page.click('[data-testid="stop"]');
    await page.waitForFunction(() => (window as unknown as TestWindow).__posted.some((m) => m.type === 'stop'), undefined, WAIT);
    await assertClean(page, watch);
    await page.close();
  });

  it('the verdict with its reasons and numbers; a broken one offers Diagnose B; the buttons post their messages', async () => {
    const { page, watch } = await openPage();
    const rs = rows();
    const summary = summaryOf(rs);
    assert.equal(summary.verdict, 'broken', 'an early split with far logprobs and NaN logprobs is broken');
    await send(page, { type: 'state', state: { setup: setup(), phase: 'done', rows: rs, summary } });
    await page.waitForSelector('[data-testid="verdict"]');
    assert.equal(await page.getAttribute('[data-testid="verdict"]', 'data-verdict'), 'broken');
    assert.match((await page.textContent('[data-testid="verdict"] h2')) ?? '', /BROKEN/);
    assert.deepEqual(await page.locator('[data-testid="reasons"] li').allTextContents(), summary.reasons);
    assert.ok((await page.textContent('[data-testid="notes"]'))?.includes(HOSTILE[0]));
    const numbers = (await page.textContent('[data-testid="numbers"]')) ?? '';
    assert.match(numbers, /prompts compared3 of 3/);
    assert.match(numbers, new RegExp(`non-finite logprobs B${summary.numbers.nonFiniteB.nan} NaN`));
    await page.click('[data-testid="diagnose"]');
    await page.click('[data-testid="run-again"]');
    await page.waitForFunction(() => (window as unknown as TestWindow).__posted.length >= 3, undefined, WAIT);
    assert.deepEqual(
      (await posted(page)).filter((m) => m.type !== 'ready'),
      [{ type: 'diagnose' }, { type: 'runAgain' }],
    );
    await assertClean(page, watch);
    await page.close();
  });

  it('identical answers: IDENTICAL, no Diagnose, each answer shown once per side as text', async () => {
    const { page, watch } = await openPage();
    const same = comparePair(0, 'Say hi.', answer(['Hi', ` ${HOSTILE[2]}`], [-0.1, -0.2]), answer(['Hi', ` ${HOSTILE[2]}`], [-0.1, -0.2]));
    const summary = summaryOf([same]);
    assert.equal(summary.verdict, 'identical');
    await send(page, { type: 'state', state: { setup: setup(), phase: 'done', rows: [same], summary } });
    await page.waitForSelector('[data-testid="verdict"]');
    assert.equal(await page.getAttribute('[data-testid="verdict"]', 'data-verdict'), 'identical');
    assert.equal(await page.locator('[data-testid="diagnose"]').count(), 0);
    await page.click('[data-testid="prompt-row"] summary');
    assert.equal(await page.textContent('[data-testid="answer-b"]'), `Hi ${HOSTILE[2]}`);
    assert.equal(await page.locator('[data-testid="split-mark"]').count(), 0);
    await assertClean(page, watch);
    await page.close();
  });
});
