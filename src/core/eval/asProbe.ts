/**
 * The accuracy smoke test as the fix loop's probe (a sweep's rows, Apply and Verify's before and
 * after): each problem is one item of a QuickProbeResult, so the loop reads timings and the
 * detector's verdicts as it does for the Quick Health Probe. A run that fails its accuracy floors
 * with every answer reading fine is `degenerate`: the output went bad in a way only the answers'
 * values show, and the summary's message says so with the figures.
 */
import { fetchModels } from '../probe/server-api';
import { worstVerdict, type QuickProbeItem, type QuickProbeResult } from '../probe/quick';
import type { ServerTarget } from '../probe/types';
import { SUITES, type Suite } from './problems';
import { summarise } from './report';
import { runEval } from './run';

export interface AccuracyProbeOptions {
  suite: Suite;
  n: number;
  seed: number;
  concurrency: number;
  /** Default: the first model the server lists (a restarted server serves what its launch says). */
  model?: string;
  signal?: AbortSignal;
}

/** The eval settings as a run takes them: a suite it knows (else mixed), n in 1–5000, concurrency in 1–256. */
export function evalSettings(raw: { suite: string; problems: number; concurrency: number }): { suite: Suite; n: number; concurrency: number } {
  const whole = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, Math.floor(Number.isFinite(x) ? x : lo)));
  return {
    suite: (SUITES as readonly string[]).includes(raw.suite) ? (raw.suite as Suite) : 'mixed',
    n: whole(raw.problems, 1, 5000),
    concurrency: whole(raw.concurrency, 1, 256),
  };
}

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

export async function accuracyProbe(server: ServerTarget, opts: AccuracyProbeOptions): Promise<QuickProbeResult> {
  // The model the restarted server serves now (a launch change can rename it).
  const model = opts.model ?? (await fetchModels(server, opts.signal ? { signal: opts.signal } : {}).catch(() => []))[0]?.id;
  const items: QuickProbeItem[] = [];
  const run = await runEval(server, {
    suite: opts.suite,
    n: opts.n,
    seed: opts.seed,
    concurrency: opts.concurrency,
    ...(model ? { model } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    onAnswer: (problem, result) => items.push({ id: problem.id, label: `${problem.id} (${problem.difficulty})`, prompt: problem.prompt, result }),
  });
  const report = summarise(run);
  const detected = worstVerdict(items.map((i) => i.result.verdict.kind));
  const wrong = report.judgement !== undefined && !report.judgement.pass;
  const verdict = detected !== 'ok' ? detected : wrong ? 'degenerate' : 'ok';
  const figures = report.accuracy === null ? 'nothing graded' : `accuracy ${pct(report.accuracy)} (${report.counts.correct}/${report.graded})`;
  const message =
    report.status === 'failed'
      ? `The accuracy test failed: ${report.failure ?? 'error'}`
      : report.judgement
        ? `Accuracy smoke test: ${figures}. ${report.judgement.message}`
        : `Accuracy smoke test ${report.status}: ${figures}.`;
  return { items, summary: { verdict, errors: report.counts.errors, message } };
}
