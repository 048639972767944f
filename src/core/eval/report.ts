/**
 * From an eval run to a judgement: accuracy with its 95% Wilson interval, invalid answers, the
 * per-difficulty breakdown and latency, then pass or fail against a saved baseline (a one-sided
 * two-proportion z-test) or, without one, against accuracy floors per difficulty.
 */
import type { ReasonCode } from '../detect/types';
import type { Baseline } from './baseline';
import { DIFFICULTIES, type Difficulty, type Suite } from './problems';
import type { EvalCounts, EvalRun, EvalStatus, InvalidWhy, ProblemResult } from './run';
import { percentile, twoProportionZTest, wilsonInterval, type Interval } from './stats';

/**
 * Accuracy floors without a baseline. Any instruction-tuned model, 1B parameters and up, gets
 * nearly all one-operation sums of two-digit numbers right and most two-operation ones; three
 * operations with a 3-by-2-digit product and precedence to respect is where small models slip,
 * so that floor is lower. A difficulty fails only when its whole 95% interval lies below the
 * floor, so a healthy model is not failed by a bad draw on a small sample, while a model that
 * gets one answer in three wrong fails the easy floor at n = 100.
 */
export const ACCURACY_FLOORS: Readonly<Record<Difficulty, number>> = { easy: 0.9, medium: 0.8, hard: 0.6 };

/** A drop is significant below this one-sided p-value. */
export const SIGNIFICANCE = 0.05;

export interface DifficultyStats {
  graded: number;
  correct: number;
  wrong: number;
  invalid: number;
  accuracy: number | null;
  interval: Interval;
  floor: number;
  /** The whole interval lies below the floor. */
  belowFloor: boolean;
}

export interface NamedAnswer {
  id: string;
  difficulty: Difficulty;
  question: string;
  expected: number;
  given: number | null;
  why?: InvalidWhy;
  reasons: ReasonCode[];
  answerTail: string;
}

export interface BaselineComparison {
  accuracy: number;
  correct: number;
  graded: number;
  model: string | null;
  date: string;
  seed: number;
  z: number;
  pBelow: number;
  /** Things that make the comparison weaker (another model, another seed). */
  warnings: string[];
}

export interface Judgement {
  basis: 'baseline' | 'floors';
  pass: boolean;
  /** One line: the verdict and why. */
  message: string;
  baseline?: BaselineComparison;
}

export interface EvalReport {
  url: string;
  model: string | null;
  suite: Suite;
  seed: number;
  n: number;
  status: EvalStatus;
  failure?: string;
  counts: EvalCounts;
  graded: number;
  accuracy: number | null;
  interval: Interval;
  invalidRate: number | null;
  invalidBy: Record<InvalidWhy, number>;
  byDifficulty: Record<Difficulty, DifficultyStats>;
  latencyMs: { p50: number | null; p95: number | null };
  ttftMs: { p50: number | null; p95: number | null };
  durationMs: number;
  /** Absent when the run did not complete (cancelled or failed): nothing to judge. */
  judgement?: Judgement;
  invalidAnswers: NamedAnswer[];
  wrongAnswers: NamedAnswer[];
}

const graded = (c: { correct: number; wrong: number; invalid: number }): number => c.correct + c.wrong + c.invalid;

function named(r: ProblemResult): NamedAnswer {
  return {
    id: r.problem.id,
    difficulty: r.problem.difficulty,
    question: r.problem.question,
    expected: r.problem.answer,
    given: r.given,
    ...(r.invalid ? { why: r.invalid } : {}),
    reasons: r.reasons,
    answerTail: r.answerTail,
  };
}

function difficultyStats(results: readonly ProblemResult[], d: Difficulty): DifficultyStats {
  const mine = results.filter((r) => r.problem.difficulty === d);
  const c = { correct: 0, wrong: 0, invalid: 0 };
  for (const r of mine) if (r.outcome !== 'error') c[r.outcome]++;
  const n = graded(c);
  const interval = wilsonInterval(c.correct, n);
  return { graded: n, ...c, accuracy: n ? c.correct / n : null, interval, floor: ACCURACY_FLOORS[d], belowFloor: n > 0 && interval.high < ACCURACY_FLOORS[d] };
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

function judgeFloors(by: Record<Difficulty, DifficultyStats>): Judgement {
  const below = DIFFICULTIES.filter((d) => by[d].belowFloor);
  if (!below.length) return { basis: 'floors', pass: true, message: 'PASS: no difficulty is below its accuracy floor (no baseline: floors used).' };
  const what = below.map((d) => `${d} ${pct(by[d].accuracy ?? 0)} (95% CI up to ${pct(by[d].interval.high)}) < ${pct(by[d].floor)}`).join('; ');
  return { basis: 'floors', pass: false, message: `FAIL: accuracy below the floor: ${what} (no baseline: floors used).` };
}

function judgeBaseline(run: EvalRun, correct: number, n: number, b: Baseline): Judgement {
  const bGraded = graded(b.counts);
  const test = twoProportionZTest(correct, n, b.counts.correct, bGraded);
  const warnings: string[] = [];
  if (b.model !== null && run.model !== null && b.model !== run.model) warnings.push(`the baseline was measured on model ${b.model}, this run on ${run.model}`);
  if (b.seed !== run.seed) warnings.push(`the baseline used seed ${b.seed}, this run ${run.seed} (other problems of the same kind)`);
  const comparison: BaselineComparison = {
    accuracy: b.accuracy,
    correct: b.counts.correct,
    graded: bGraded,
    model: b.model,
    date: b.date,
    seed: b.seed,
    z: test.z,
    pBelow: test.pBelow,
    warnings,
  };
  const versus = `${pct(n ? correct / n : 0)} vs baseline ${pct(b.accuracy)} (z = ${test.z.toFixed(2)}, one-sided p = ${test.pBelow < 0.0001 ? test.pBelow.toExponential(1) : test.pBelow.toFixed(4)})`;
  const pass = test.pBelow >= SIGNIFICANCE;
  return {
    basis: 'baseline',
    pass,
    message: pass ? `PASS: accuracy not significantly below the baseline: ${versus}.` : `FAIL: accuracy significantly below the baseline: ${versus}.`,
    baseline: comparison,
  };
}

export function summarise(run: EvalRun, baseline?: Baseline): EvalReport {
  const { results, counts } = run;
  const n = graded(counts);
  const byDifficulty = Object.fromEntries(DIFFICULTIES.map((d) => [d, difficultyStats(results, d)])) as Record<Difficulty, DifficultyStats>;
  const answered = results.filter((r) => r.outcome !== 'error');
  const durations = answered.map((r) => r.durationMs);
  const ttfts = answered.map((r) => r.ttftMs).filter((t): t is number => t !== null);
  const invalid = results.filter((r) => r.outcome === 'invalid');
  const invalidBy: Record<InvalidWhy, number> = { nan: 0, degenerate: 0, 'no-number': 0, truncated: 0 };
  for (const r of invalid) if (r.invalid) invalidBy[r.invalid]++;
  const report: EvalReport = {
    url: run.url,
    model: run.model,
    suite: run.suite,
    seed: run.seed,
    n: run.n,
    status: run.status,
    ...(run.failure ? { failure: run.failure } : {}),
    counts,
    graded: n,
    accuracy: n ? counts.correct / n : null,
    interval: wilsonInterval(counts.correct, n),
    invalidRate: n ? counts.invalid / n : null,
    invalidBy,
    byDifficulty,
    latencyMs: { p50: percentile(durations, 0.5), p95: percentile(durations, 0.95) },
    ttftMs: { p50: percentile(ttfts, 0.5), p95: percentile(ttfts, 0.95) },
    durationMs: run.durationMs,
    // NaN answers first: they are the ones to look at.
    invalidAnswers: [...invalid].sort((a, b) => rank(a.invalid) - rank(b.invalid)).map(named),
    wrongAnswers: results.filter((r) => r.outcome === 'wrong').map(named),
  };
  if (run.status === 'completed' && n > 0) report.judgement = baseline ? judgeBaseline(run, counts.correct, n, baseline) : judgeFloors(byDifficulty);
  return report;
}

const rank = (why: InvalidWhy | undefined): number => (why === 'nan' ? 0 : why === 'degenerate' ? 1 : why === 'truncated' ? 2 : 3);
