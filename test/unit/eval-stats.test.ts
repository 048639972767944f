/**
 * The eval statistics against values computed by hand (and checked with Python's
 * statistics.NormalDist): Wilson intervals, the pooled two-proportion z-test, percentiles; then the
 * judgement of a run against floors and against a baseline.
 */
import assert from 'node:assert/strict';
import { BaselineError, makeBaseline, parseBaseline } from '../../src/core/eval/baseline';
import { generateProblems, type Problem } from '../../src/core/eval/problems';
import { summarise } from '../../src/core/eval/report';
import type { EvalRun, ProblemOutcome, ProblemResult } from '../../src/core/eval/run';
import { normalCdf, percentile, twoProportionZTest, wilsonInterval } from '../../src/core/eval/stats';

const close = (actual: number, expected: number, tolerance = 1e-4): void =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${actual} is not within ${tolerance} of ${expected}`);

describe('eval statistics', () => {
  it('Wilson interval', () => {
    // 8/10: p = 0.8, z² / n = 0.38415; centre 0.71674, half-width 0.22658.
    let w = wilsonInterval(8, 10);
    close(w.low, 0.490162);
    close(w.high, 0.943318);
    w = wilsonInterval(0, 10);
    assert.equal(w.low, 0);
    close(w.high, 0.277533);
    w = wilsonInterval(10, 10);
    close(w.low, 0.722467);
    close(w.high, 1);
    w = wilsonInterval(50, 100);
    close(w.low, 0.403832);
    close(w.high, 0.596168);
    assert.deepEqual(wilsonInterval(0, 0), { low: 0, high: 1 });
  });

  it('normal CDF', () => {
    close(normalCdf(0), 0.5, 1e-7);
    close(normalCdf(1), 0.841345, 1e-6);
    close(normalCdf(-1.6448536), 0.05, 1e-6);
    close(normalCdf(-3.086067), 0.0010141, 1e-6);
  });

  it('two-proportion z-test, one-sided "below"', () => {
    // 60/100 vs 80/100: pooled 0.7, se = √(0.7·0.3·0.02) = 0.0648074, z = −0.2 / se.
    let t = twoProportionZTest(60, 100, 80, 100);
    close(t.z, -3.086067);
    close(t.pBelow, 0.0010141, 1e-6);
    t = twoProportionZTest(80, 100, 60, 100);
    close(t.z, 3.086067);
    close(t.pBelow, 0.9989859, 1e-6);
    // 110/200 vs 120/200: pooled 0.575, z = −1.01144, p = 0.15590 (not significant).
    t = twoProportionZTest(110, 200, 120, 200);
    close(t.z, -1.011443);
    close(t.pBelow, 0.155902, 1e-5);
    assert.deepEqual(twoProportionZTest(100, 100, 50, 50), { z: 0, pBelow: 0.5 });
    assert.deepEqual(twoProportionZTest(0, 0, 5, 10), { z: 0, pBelow: 0.5 });
  });

  it('nearest-rank percentiles', () => {
    const values = Array.from({ length: 20 }, (_, i) => 20 - i);
    assert.equal(percentile(values, 0.5), 10);
    assert.equal(percentile(values, 0.95), 19);
    assert.equal(percentile(values, 1), 20);
    assert.equal(percentile([7], 0.95), 7);
    assert.equal(percentile([], 0.5), null);
  });
});

/** A run where the i-th problem gets the outcome `outcomeOf(problem, i)`. */
function fakeRun(n: number, outcomeOf: (p: Problem, i: number) => ProblemOutcome): EvalRun {
  const problems = generateProblems('arithmetic', n, 1);
  const results: ProblemResult[] = problems.map((problem, i) => {
    const outcome = outcomeOf(problem, i);
    return {
      problem,
      outcome,
      given: outcome === 'correct' ? problem.answer : outcome === 'wrong' ? problem.answer + 1 : null,
      source: outcome === 'correct' || outcome === 'wrong' ? 'answer-line' : 'none',
      ...(outcome === 'invalid' ? { invalid: 'nan' as const } : {}),
      verdict: outcome === 'invalid' ? 'nan' : 'ok',
      reasons: outcome === 'invalid' ? ['nan-marker'] : [],
      answerTail: '',
      durationMs: 10 + i,
      ttftMs: 1,
    };
  });
  const counts = { correct: 0, wrong: 0, invalid: 0, errors: 0 };
  for (const r of results) counts[r.outcome === 'error' ? 'errors' : r.outcome]++;
  return { url: 'http://x', suite: 'arithmetic', seed: 1, n, model: 'm', status: 'completed', results, counts, startedAt: '', durationMs: 1 };
}

describe('eval judgement', () => {
  it('passes a healthy run on the floors and says floors were used', () => {
    const report = summarise(fakeRun(90, () => 'correct'));
    assert.equal(report.judgement?.basis, 'floors');
    assert.equal(report.judgement?.pass, true);
    assert.match(report.judgement?.message ?? '', /floors used/);
    assert.equal(report.accuracy, 1);
    assert.equal(report.latencyMs.p50, 10 + 44);
  });

  it('fails when a difficulty lies wholly below its floor', () => {
    // Easy problems (every third) wrong 40% of the time: 18/30 correct, upper bound ≈ 0.75 < 0.9.
    const report = summarise(fakeRun(90, (p, i) => (p.difficulty === 'easy' && i % 5 < 2 ? 'wrong' : 'correct')));
    assert.equal(report.judgement?.pass, false);
    assert.ok(report.byDifficulty.easy.belowFloor);
    assert.ok(!report.byDifficulty.hard.belowFloor);
    assert.equal(report.wrongAnswers.length, 12);
  });

  it('names NaN answers as invalid and keeps errors out of the accuracy', () => {
    const report = summarise(fakeRun(30, (_, i) => (i < 3 ? 'invalid' : i < 5 ? 'error' : 'correct')));
    assert.equal(report.graded, 28);
    assert.equal(report.invalidBy.nan, 3);
    assert.equal(report.invalidAnswers.length, 3);
    assert.equal(report.invalidAnswers[0].why, 'nan');
    close(report.invalidRate ?? -1, 3 / 28);
  });

  it('compares with a baseline by the z-test, and round-trips the baseline file', () => {
    const healthy = summarise(fakeRun(100, (_, i) => (i % 10 === 0 ? 'wrong' : 'correct')));
    const baseline = parseBaseline(JSON.stringify(makeBaseline(healthy, '9.9.9', new Date('2026-01-02T03:04:05Z'))));
    assert.equal(baseline.accuracy, 0.9);
    assert.equal(baseline.toolVersion, '9.9.9');
    assert.equal(baseline.date, '2026-01-02T03:04:05.000Z');
    const same = summarise(
      fakeRun(100, (_, i) => (i % 10 === 1 ? 'wrong' : 'correct')),
      baseline,
    );
    assert.equal(same.judgement?.basis, 'baseline');
    assert.equal(same.judgement?.pass, true);
    const worse = summarise(
      fakeRun(100, (_, i) => (i % 10 < 3 ? 'wrong' : 'correct')),
      baseline,
    );
    assert.equal(worse.judgement?.pass, false);
    // 70/100 vs 90/100: z = −3.5355, well below p = 0.05.
    close(worse.judgement?.baseline?.z ?? 0, -3.535534);
  });

  it('refuses files that are not baselines', () => {
    assert.throws(() => parseBaseline('{'), BaselineError);
    assert.throws(() => parseBaseline('{"format":"something-else"}'), /not an eval baseline/);
    assert.throws(
      () => parseBaseline(JSON.stringify({ format: 'inference-doctor-eval-baseline', formatVersion: 1, suite: 'x', seed: 1, n: 1, counts: {} })),
      /suite/,
    );
  });

  it('does not judge a run that did not complete', () => {
    const run = { ...fakeRun(9, () => 'correct'), status: 'cancelled' as const };
    assert.equal(summarise(run).judgement, undefined);
  });
});
