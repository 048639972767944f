/**
 * The baseline file `eval --save-baseline` writes: what a healthy run of this server and model
 * scored, so a later run (after an upgrade, a new kernel, another KV-cache dtype) is compared with
 * it instead of with generic floors.
 */
import { DIFFICULTIES, SUITES, type Difficulty, type Suite } from './problems';
import type { EvalReport } from './report';

export const BASELINE_FORMAT = 'inference-doctor-eval-baseline';

export interface Baseline {
  format: typeof BASELINE_FORMAT;
  formatVersion: 1;
  suite: Suite;
  seed: number;
  n: number;
  url: string;
  model: string | null;
  accuracy: number;
  counts: { correct: number; wrong: number; invalid: number; errors: number };
  byDifficulty: Record<Difficulty, { graded: number; correct: number }>;
  date: string;
  toolVersion: string;
}

export class BaselineError extends Error {}

export function makeBaseline(report: EvalReport, toolVersion: string, date = new Date()): Baseline {
  if (report.accuracy === null) throw new BaselineError('Nothing was graded: there is no accuracy to save as a baseline.');
  return {
    format: BASELINE_FORMAT,
    formatVersion: 1,
    suite: report.suite,
    seed: report.seed,
    n: report.n,
    url: report.url,
    model: report.model,
    accuracy: report.accuracy,
    counts: { ...report.counts },
    byDifficulty: Object.fromEntries(
      DIFFICULTIES.map((d) => [d, { graded: report.byDifficulty[d].graded, correct: report.byDifficulty[d].correct }]),
    ) as Baseline['byDifficulty'],
    date: date.toISOString(),
    toolVersion,
  };
}

const count = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/** Reads a baseline file's text; throws BaselineError saying what is wrong with it. */
export function parseBaseline(text: string): Baseline {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new BaselineError(`not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!raw || typeof raw !== 'object') throw new BaselineError('not a JSON object');
  const b = raw as Partial<Baseline>;
  if (b.format !== BASELINE_FORMAT) throw new BaselineError(`not an eval baseline (format should be "${BASELINE_FORMAT}")`);
  if (b.formatVersion !== 1) throw new BaselineError(`formatVersion ${String(b.formatVersion)} is not one this version reads (1)`);
  if (!b.suite || !SUITES.includes(b.suite)) throw new BaselineError(`suite must be one of ${SUITES.join(', ')}`);
  if (!count(b.seed) || !count(b.n)) throw new BaselineError('seed and n must be whole numbers');
  const c = b.counts;
  if (!c || !count(c.correct) || !count(c.wrong) || !count(c.invalid) || !count(c.errors))
    throw new BaselineError('counts must hold correct, wrong, invalid and errors');
  const gradedCount = c.correct + c.wrong + c.invalid;
  if (gradedCount === 0) throw new BaselineError('the baseline graded no answers');
  return {
    format: BASELINE_FORMAT,
    formatVersion: 1,
    suite: b.suite,
    seed: b.seed,
    n: b.n,
    url: typeof b.url === 'string' ? b.url : '',
    model: typeof b.model === 'string' ? b.model : null,
    // The counts are the truth; the accuracy field is for people reading the file.
    accuracy: c.correct / gradedCount,
    counts: { correct: c.correct, wrong: c.wrong, invalid: c.invalid, errors: c.errors },
    byDifficulty: (b.byDifficulty ?? {}) as Baseline['byDifficulty'],
    date: typeof b.date === 'string' ? b.date : '',
    toolVersion: typeof b.toolVersion === 'string' ? b.toolVersion : '',
  };
}
