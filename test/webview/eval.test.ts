/**
 * The Accuracy Smoke Test panel's page in headless Chromium: the exact HTML the panel ships (the
 * webview shell with eval.js) and a stub acquireVsCodeApi; the test plays the host with reports
 * that core/eval builds from results. Answers and labels carry hostile text: all of it must
 * arrive as text, and the page may post only the protocol's messages.
 */
import { strict as assert } from 'node:assert';
import type { Page } from 'playwright-core';
import { generateProblems } from '../../src/core/eval/problems';
import { summarise } from '../../src/core/eval/report';
import type { EvalRun, ProblemResult } from '../../src/core/eval/run';
import { wilsonInterval } from '../../src/core/eval/stats';
import { addToTally, emptyTally, isEvalWebviewMessage, type EvalViewState, type HostToEvalWebview } from '../../src/shared/evalProtocol';
import { assertPageClean, elementsInApp, openWatchedPage, sendToWebview, startRig, type PageWatch, type WebviewRig } from './harness';

const WAIT = { timeout: 20_000 };
const CANARY = '__pwned';
const HOSTILE = [
  `<img src=x onerror="window.${CANARY}=1">`,
  `<script>window.${CANARY}=1</script>`,
  `</td></tr></table><svg onload="window.${CANARY}=1">`,
  'RLO:\u202Egnp.exe\u202C',
];

interface TestWindow {
  __posted: { type: string; [key: string]: unknown }[];
  __violations: unknown[];
}

/** Results for the first n problems of a set: every `wrongEvery`-th answer wrong, one NaN answer, hostile answer texts. */
function results(n: number, wrongEvery: number): ProblemResult[] {
  return generateProblems('mixed', n, 1).map((problem, i): ProblemResult => {
    const base = { problem, verdict: 'ok' as const, reasons: [], durationMs: 100 + i, ttftMs: 20 + i, source: 'answer-line' as const };
    if (i === 1)
      return {
        ...base,
        outcome: 'invalid',
        invalid: 'nan',
        verdict: 'nan',
        reasons: ['nan-marker'],
        given: null,
        source: 'none',
        answerTail: `NaN NaN ${HOSTILE[3]}`,
      };
    if (i % wrongEvery === 0)
      return {
        ...base,
        outcome: 'wrong',
        given: problem.answer + 2,
        answerTail: `So the result is ${problem.answer + 2}. ${HOSTILE[i % 3]}\nAnswer: ${problem.answer + 2}`,
      };
    return { ...base, outcome: 'correct', given: problem.answer, answerTail: `Answer: ${problem.answer}` };
  });
}

function runOf(rs: ProblemResult[]): EvalRun {
  const counts = { correct: 0, wrong: 0, invalid: 0, errors: 0 };
  for (const r of rs)
    if (r.outcome === 'error') counts.errors++;
    else counts[r.outcome]++;
  return {
    url: 'http://127.0.0.1:30000',
    suite: 'mixed',
    seed: 1,
    n: rs.length,
    model: `Qwen/Qwen3-8B ${HOSTILE[0]}`,
    status: 'completed',
    results: rs,
    counts,
    startedAt: new Date(0).toISOString(),
    durationMs: 1800,
  };
}

function running(n: number): EvalViewState {
  return {
    setup: {
      serverLabel: `gpu-box ${HOSTILE[1]}`,
      url: 'http://127.0.0.1:30000',
      model: `Qwen/Qwen3-8B ${HOSTILE[0]}`,
      suite: 'mixed',
      n,
      seed: 1,
      concurrency: 16,
    },
    phase: 'running',
    progress: { done: 0, total: n, correct: 0, wrong: 0, invalid: 0, errors: 0 },
    tally: emptyTally(),
  };
}

describe('eval webview: the accuracy smoke test in headless Chromium', function () {
  this.timeout(120_000);
  let rig: WebviewRig;

  before(async () => {
    rig = await startRig();
  });
  after(async () => {
    await rig?.close();
  });

  const openPage = (): Promise<{ page: Page; watch: PageWatch }> => openWatchedPage(rig, '/eval', { waitReady: true });
  const send = (page: Page, m: HostToEvalWebview) => sendToWebview(page, m);
  const posted = (page: Page) => page.evaluate(() => (window as unknown as TestWindow).__posted);

  async function assertClean(page: Page, watch: PageWatch): Promise<void> {
    await assertPageClean(page, watch, rig.harness.origin, CANARY);
    // The page's one SVG kind is its own; nothing a payload spells exists as an element.
    assert.deepEqual(await elementsInApp(page, 'img, script, svg:not(.chart), iframe, style, a, [onerror], [onload], [onclick]'), []);
    for (const m of await posted(page)) assert.ok(isEvalWebviewMessage(m), `the page posts only valid messages: ${JSON.stringify(m)}`);
  }

  it('fills in live: answered so far, accuracy with its Wilson interval, the chart by difficulty; Stop posts stop', async () => {
    const { page, watch } = await openPage();
    const n = 30;
    await send(page, { type: 'state', state: running(n) });
    await page.waitForSelector('[data-testid="chart"]');
    assert.equal(await page.textContent('[data-testid="server-label"]'), `gpu-box ${HOSTILE[1]}`);
    assert.equal(await page.textContent('[data-testid="model"]'), `Qwen/Qwen3-8B ${HOSTILE[0]}`);
    assert.match((await page.textContent('[data-testid="setup"]')) ?? '', /judged against the floors/);

    const rs = results(n, 3);
    const tally = emptyTally();
    const counts = { correct: 0, wrong: 0, invalid: 0, errors: 0 };
    for (const r of rs.slice(0, 12)) {
      addToTally(tally, r);
      if (r.outcome !== 'error') counts[r.outcome]++;
    }
    await send(page, { type: 'progress', progress: { done: 12, total: n, ...counts }, tally });
    await page.waitForFunction(() => document.querySelector('[data-testid="status"]')?.textContent?.includes('12/30'), undefined, WAIT);
    const graded = counts.correct + counts.wrong + counts.invalid;
    const ci = wilsonInterval(counts.correct, graded);
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
    assert.equal(await page.textContent('[data-testid="accuracy"]'), pct(counts.correct / graded));
    assert.match(
      (await page.textContent('[data-testid="interval"]')) ?? '',
      new RegExp(`95% CI ${pct(ci.low).replace('.', '\\.')}–${pct(ci.high).replace('.', '\\.')}`),
    );
    assert.equal(await page.textContent('[data-testid="invalid-rate"]'), pct(counts.invalid / graded));
    for (const d of ['easy', 'medium', 'hard'] as const) {
      const want = tally[d].graded ? (tally[d].correct / tally[d].graded).toFixed(4) : '';
      assert.equal(await page.getAttribute(`[data-testid="bar-${d}"]`, 'data-accuracy'), want, `the ${d} bar`);
    }
    assert.equal(await page.locator('[data-testid="run-again"]').count(), 0, 'no Run Again while running');
    await page.click('[data-testid="stop"]');
    await page.waitForFunction(() => (window as unknown as TestWindow).__posted.some((m) => m.type === 'stop'), undefined, WAIT);
    await assertClean(page, watch);
    await page.close();
  });

  it('a failed run: FAIL with the floor named, the low bar marked, wrong and NaN answers as exact text; its buttons post their messages', async () => {
    const { page, watch } = await openPage();
    const rs = results(60, 2);
    const report = summarise(runOf(rs));
    assert.equal(report.judgement?.pass, false, 'the fixture fails the floors');
    const tally = emptyTally();
    for (const r of rs) addToTally(tally, r);
    await send(page, { type: 'state', state: { ...running(60), phase: 'done', progress: { done: 60, total: 60, ...report.counts }, tally, report } });
    await page.waitForSelector('[data-testid="verdict"]');
    assert.equal(await page.getAttribute('[data-testid="verdict"]', 'data-pass'), 'false');
    assert.match((await page.textContent('[data-testid="verdict"]')) ?? '', /FAIL: accuracy below the floor/);
    assert.ok((await page.locator('[data-testid="chart"] g.below').count()) >= 1, 'a difficulty below its floor is marked');
    const tails = await page.locator('[data-testid="wrong-list"] [data-testid="answer-tail"]').allTextContents();
    assert.equal(tails[0], report.wrongAnswers[0].answerTail, 'the answer as exact text');
    assert.ok(tails.some((t) => t.includes(HOSTILE[2])));
    assert.match((await page.textContent('[data-testid="wrong-list"] h2')) ?? '', new RegExp(`first 20 of ${report.counts.wrong}`));
    assert.match((await page.textContent('[data-testid="invalid-list"]')) ?? '', /nan-marker/);
    assert.equal(await page.locator('[data-testid="invalid-list"] .ctl[data-cp="U+202E"]').count(), 1, 'the bidi override is shown, isolated');
    assert.match((await page.textContent('[data-testid="latency"]')) ?? '', /latency p50 \d+ ms/);
    for (const id of ['diagnose', 'save-baseline', 'compare-baseline', 'run-again']) await page.click(`[data-testid="${id}"]`);
    await page.waitForFunction(() => (window as unknown as TestWindow).__posted.length >= 5, undefined, WAIT);
    assert.deepEqual(
      (await posted(page)).filter((m) => m.type !== 'ready'),
      [{ type: 'diagnose' }, { type: 'saveBaseline' }, { type: 'compareBaseline' }, { type: 'runAgain' }],
    );
    await assertClean(page, watch);
    await page.close();
  });

  it('a passing run from the history against a baseline: PASS, no Diagnose, no Run Again, the saved baseline named', async () => {
    const { page, watch } = await openPage();
    const rs = results(30, 1000);
    const baseline = {
      format: 'inference-doctor-eval-baseline',
      formatVersion: 1,
      suite: 'mixed',
      seed: 1,
      n: 30,
      url: '',
      model: null,
      accuracy: 1,
      counts: { correct: 30, wrong: 0, invalid: 0, errors: 0 },
      byDifficulty: {},
      date: '',
      toolVersion: '',
    } as const;
    const report = summarise(runOf(rs), {
      ...baseline,
      byDifficulty: { easy: { graded: 10, correct: 10 }, medium: { graded: 10, correct: 10 }, hard: { graded: 10, correct: 10 } },
    });
    assert.equal(report.judgement?.pass, true, 'one NaN answer in 30 is no significant drop');
    const tally = emptyTally();
    for (const r of rs) addToTally(tally, r);
    const state: EvalViewState = {
      ...running(30),
      setup: { ...running(30).setup, baselineLabel: `qwen.eval.json ${HOSTILE[1]}` },
      phase: 'done',
      progress: { done: 30, total: 30, ...report.counts },
      tally,
      report,
      fromHistory: true,
      savedBaseline: 'qwen.eval.json',
    };
    await send(page, { type: 'state', state });
    await page.waitForSelector('[data-testid="verdict"]');
    assert.equal(await page.getAttribute('[data-testid="verdict"]', 'data-pass'), 'true');
    assert.match((await page.textContent('[data-testid="verdict"]')) ?? '', /PASS: accuracy not significantly below the baseline/);
    assert.equal(await page.textContent('[data-testid="baseline-label"]'), `qwen.eval.json ${HOSTILE[1]}`);
    assert.equal(await page.locator('[data-testid="chart"] .floor').count(), 0, 'no floors drawn when a baseline judges');
    assert.equal(await page.locator('[data-testid="diagnose"]').count(), 0);
    assert.equal(await page.locator('[data-testid="run-again"]').count(), 0);
    assert.equal(await page.locator('[data-testid="save-baseline"]').count(), 1);
    assert.match((await page.textContent('[data-testid="saved"]')) ?? '', /qwen\.eval\.json/);
    await assertClean(page, watch);
    await page.close();
  });
});
