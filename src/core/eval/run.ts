/**
 * Runs a problem set against a server: every problem is one greedy probe through runProbe, so the
 * NaN / degenerate detector judges each answer as it streams, and then the answer is read and
 * checked. At most `concurrency` requests are in flight; a user abort, or a server that cannot be
 * reached at all, ends the run early.
 */
import { setMaxListeners } from 'node:events';
import type { ReasonCode, VerdictKind } from '../detect/types';
import { runProbe } from '../probe/runner';
import type { Endpoint, ProbeError, ProbeErrorKind, ProbeParams, ProbeResult, ServerTarget } from '../probe/types';
import { parseAnswer, type AnswerSource } from './parse';
import { generateProblems, type Problem, type Suite } from './problems';

export interface EvalOptions {
  suite: Suite;
  n: number;
  seed: number;
  /** Requests in flight at most. */
  concurrency: number;
  model?: string;
  endpoint?: Endpoint;
  /** Per-request limit, whole request (and idle between chunks). Default 60 s. */
  timeoutMs?: number;
  /** Default 1024: room for a working, or a thinking model's reasoning, before the answer line. */
  maxTokens?: number;
  signal?: AbortSignal;
  onProgress?: (p: EvalProgress) => void;
  /** Called with each graded or failed problem as it finishes, before onProgress. */
  onResult?: (r: ProblemResult) => void;
  /** Called with each answered problem's whole probe result (the fix loop reads its timings and verdicts). */
  onAnswer?: (problem: Problem, r: ProbeResult) => void;
  /** Failed requests tolerated before the run gives up. Default max(2, n / 10). */
  maxErrors?: number;
}

export interface EvalCounts {
  correct: number;
  wrong: number;
  /** No number in the answer, or the detector judged it NaN or degenerate. */
  invalid: number;
  /** Requests that failed (HTTP error, timeout, cut stream): not graded. */
  errors: number;
}

export interface EvalProgress extends EvalCounts {
  done: number;
  total: number;
}

export type ProblemOutcome = 'correct' | 'wrong' | 'invalid' | 'error';

/**
 * Why an answer is invalid: the detector's verdict, nothing that reads as a number, or cut by the
 * token limit before its Answer line (a thinking model can spend the whole budget reasoning; the
 * last number of a cut working is not its answer).
 */
export type InvalidWhy = 'nan' | 'degenerate' | 'no-number' | 'truncated';

export interface ProblemResult {
  problem: Problem;
  outcome: ProblemOutcome;
  /** The integer read from the answer (null when none). */
  given: number | null;
  source: AnswerSource | 'none';
  invalid?: InvalidWhy;
  verdict: VerdictKind;
  reasons: ReasonCode[];
  /** The end of the answer (what the reading looked at), at most 300 characters. */
  answerTail: string;
  durationMs: number;
  ttftMs: number | null;
  error?: ProbeError;
}

export type EvalStatus = 'completed' | 'cancelled' | 'failed';

export interface EvalRun {
  url: string;
  suite: Suite;
  seed: number;
  n: number;
  model: string | null;
  status: EvalStatus;
  /** Why the run failed (status 'failed'). */
  failure?: string;
  /** Results of the problems that finished, in problem order. */
  results: ProblemResult[];
  counts: EvalCounts;
  startedAt: string;
  durationMs: number;
}

export const DEFAULT_EVAL_TIMEOUT_MS = 60_000;
export const DEFAULT_EVAL_MAX_TOKENS = 1024;

/** Errors that no other request would escape: stop at the first. */
const FATAL: ReadonlySet<ProbeErrorKind> = new Set(['unreachable', 'tls', 'auth']);

const TAIL = 300;

function judge(problem: Problem, r: Awaited<ReturnType<typeof runProbe>>): ProblemResult | null {
  if (r.status === 'stopped') return null; // cancelled in flight: not part of the run
  const base = {
    problem,
    verdict: r.verdict.kind,
    reasons: r.verdict.reasons.filter((x) => x.kind !== 'suspect').map((x) => x.code),
    answerTail: r.content.length > TAIL ? r.content.slice(-TAIL) : r.content,
    durationMs: r.durationMs,
    ttftMs: r.ttftMs,
  };
  // What the detector saw outranks how the request ended: a NaN answer that was then cut is NaN.
  if (r.verdict.kind !== 'ok') return { ...base, outcome: 'invalid', invalid: r.verdict.kind, given: null, source: 'none' };
  if (r.status === 'error') return { ...base, outcome: 'error', given: null, source: 'none', ...(r.error ? { error: r.error } : {}) };
  const parsed = parseAnswer(r.content);
  if (r.finishReason === 'length' && parsed.source !== 'answer-line') return { ...base, outcome: 'invalid', invalid: 'truncated', given: null, source: 'none' };
  if (parsed.value === null) return { ...base, outcome: 'invalid', invalid: 'no-number', given: null, source: 'none' };
  return { ...base, outcome: parsed.value === problem.answer ? 'correct' : 'wrong', given: parsed.value, source: parsed.source };
}

/** The probe one problem is sent as: greedy, streamed, stopped early once the answer is NaN. */
export function probeParamsFor(problem: Problem, opts: Pick<EvalOptions, 'endpoint' | 'maxTokens' | 'model' | 'timeoutMs'>): ProbeParams {
  return {
    endpoint: opts.endpoint ?? 'chat',
    prompt: problem.prompt,
    stream: true,
    temperature: 0,
    maxTokens: opts.maxTokens ?? DEFAULT_EVAL_MAX_TOKENS,
    earlyStop: true, // a NaN answer is invalid whatever follows: stop paying for it
    timeoutMs: opts.timeoutMs ?? DEFAULT_EVAL_TIMEOUT_MS,
    ...(opts.model ? { model: opts.model } : {}),
  };
}

export async function runEval(target: ServerTarget, opts: EvalOptions): Promise<EvalRun> {
  const problems = generateProblems(opts.suite, opts.n, opts.seed);
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const concurrency = Math.max(1, Math.floor(opts.concurrency));
  const timeoutMs = opts.timeoutMs ?? DEFAULT_EVAL_TIMEOUT_MS;
  const maxErrors = opts.maxErrors ?? Math.max(2, Math.floor(problems.length / 10));
  // One controller for the whole run: the user's abort and our own give-up both end every request.
  const stop = new AbortController();
  // Every request in flight listens to it: that many listeners is the design, not a leak.
  setMaxListeners(concurrency + 8, stop.signal);
  const onAbort = (): void => stop.abort();
  if (opts.signal?.aborted) stop.abort();
  else opts.signal?.addEventListener('abort', onAbort, { once: true });

  const slots: (ProblemResult | null)[] = new Array<ProblemResult | null>(problems.length).fill(null);
  const counts: EvalCounts = { correct: 0, wrong: 0, invalid: 0, errors: 0 };
  let done = 0;
  let failure: string | undefined;
  let next = 0;

  const worker = async (): Promise<void> => {
    while (!stop.signal.aborted && next < problems.length) {
      const i = next++;
      const problem = problems[i];
      const r = await runProbe(target, probeParamsFor(problem, opts), { signal: stop.signal, overallTimeoutMs: timeoutMs });
      const result = stop.signal.aborted && r.status !== 'completed' ? null : judge(problem, r);
      if (!result) continue;
      opts.onAnswer?.(problem, r);
      slots[i] = result;
      done++;
      if (result.outcome === 'correct') counts.correct++;
      else if (result.outcome === 'wrong') counts.wrong++;
      else if (result.outcome === 'invalid') counts.invalid++;
      else {
        counts.errors++;
        const kind = result.error?.kind;
        if ((kind && FATAL.has(kind)) || counts.errors > maxErrors) {
          failure ??=
            kind && FATAL.has(kind)
              ? (result.error?.message ?? 'The server cannot be reached.')
              : `${counts.errors} requests failed (the last: ${result.error?.message ?? 'error'}); the run was stopped.`;
          stop.abort();
        }
      }
      opts.onResult?.(result);
      opts.onProgress?.({ done, total: problems.length, ...counts });
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, problems.length) }, worker));
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
  }
  const status: EvalStatus = failure ? 'failed' : opts.signal?.aborted ? 'cancelled' : 'completed';
  return {
    url: target.baseUrl,
    suite: opts.suite,
    seed: opts.seed,
    n: problems.length,
    model: opts.model ?? null,
    status,
    ...(failure ? { failure } : {}),
    results: slots.filter((s): s is ProblemResult => s !== null),
    counts,
    startedAt,
    durationMs: performance.now() - started,
  };
}
