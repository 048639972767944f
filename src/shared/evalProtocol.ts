/**
 * The one definition of what the extension host and the Accuracy Smoke Test webview say to each
 * other. Both sides import these types; the host validates every page message with
 * isEvalWebviewMessage (webview input is untrusted).
 */
import type { Difficulty, Suite } from '../core/eval/problems';
import type { EvalReport } from '../core/eval/report';
import type { EvalProgress, ProblemResult } from '../core/eval/run';

/** What the run is: shown while it runs and after. */
export interface EvalSetup {
  serverLabel: string;
  url: string;
  model: string | null;
  suite: Suite;
  n: number;
  seed: number;
  concurrency: number;
  /** The baseline file the run is judged against (its name); absent: the floors. */
  baselineLabel?: string;
}

/** Correct answers and graded ones per difficulty, so far. */
export type DifficultyTally = Record<Difficulty, { correct: number; graded: number }>;

export function emptyTally(): DifficultyTally {
  return { easy: { correct: 0, graded: 0 }, medium: { correct: 0, graded: 0 }, hard: { correct: 0, graded: 0 } };
}

/** Counts one finished problem into the tally (failed requests are not graded). */
export function addToTally(tally: DifficultyTally, r: ProblemResult): void {
  if (r.outcome === 'error') return;
  const t = tally[r.problem.difficulty];
  t.graded++;
  if (r.outcome === 'correct') t.correct++;
}

export interface EvalViewState {
  setup: EvalSetup;
  /** `running` → `stopping` (Stop pressed) → `done`; `done` from the start for a run from the history. */
  phase: 'running' | 'stopping' | 'done';
  progress: EvalProgress;
  tally: DifficultyTally;
  /** The finished run's report (bounded: ../core/eval/history MAX_NAMED_ANSWERS answers named). */
  report?: EvalReport;
  /** The run could not be made at all (no model, a baseline that cannot be read). */
  error?: string;
  /** Where the last Save as Baseline wrote (its name). */
  savedBaseline?: string;
  /** Shown from the history (no Run Again on a server that is gone). */
  fromHistory?: boolean;
}

export type HostToEvalWebview =
  | { type: 'state'; state: EvalViewState }
  /** One more problem finished. */
  | { type: 'progress'; progress: EvalProgress; tally: DifficultyTally };

export type EvalWebviewToHost =
  | { type: 'ready' }
  /** Stop the run (the answers in already are kept and judged as a cancelled run). */
  | { type: 'stop' }
  /** The same settings again, now. */
  | { type: 'runAgain' }
  /** Save this run as a baseline file the user picks (never overwritten without asking). */
  | { type: 'saveBaseline' }
  /** Pick a baseline file and run again against it. */
  | { type: 'compareBaseline' }
  /** Open Diagnose Server on this server with the accuracy-drop symptom. */
  | { type: 'diagnose' };

const EVAL_MESSAGE_TYPE_SET: Record<EvalWebviewToHost['type'], true> = {
  ready: true,
  stop: true,
  runAgain: true,
  saveBaseline: true,
  compareBaseline: true,
  diagnose: true,
};
export const EVAL_MESSAGE_TYPES = Object.keys(EVAL_MESSAGE_TYPE_SET) as EvalWebviewToHost['type'][];

/** Every page message carries only its type: anything else is refused. */
export function isEvalWebviewMessage(value: unknown): value is EvalWebviewToHost {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const m = value as Record<string, unknown>;
  return typeof m.type === 'string' && Object.hasOwn(EVAL_MESSAGE_TYPE_SET, m.type) && Object.keys(m).length === 1;
}
