/**
 * The Quick Health Probe: three short prompts sent together to one server. A broken kernel
 * usually shows on at least one of them within a few hundred tokens.
 */
import type { VerdictKind } from '../detect/types';
import { runProbe, type RunProbeOptions } from './runner';
import type { Endpoint, ProbeResult, ServerTarget, ServerWatch } from './types';
import { corruptedDuring, watchServer, withCounterVerdict } from './watch';

export interface QuickPrompt {
  id: string;
  label: string;
  prompt: string;
}

export const QUICK_PROMPTS: readonly QuickPrompt[] = [
  { id: 'greeting', label: 'Greeting', prompt: 'Hello! How are you today?' },
  { id: 'code', label: 'Code', prompt: 'Write a function that checks whether a number is prime, in Python.' },
  { id: 'counting', label: 'Counting', prompt: 'Count from 1 to 20.' },
];

export interface QuickProbeParams {
  model?: string;
  maxTokens?: number;
  endpoint?: Endpoint;
  stream?: boolean;
  timeoutMs?: number;
  earlyStop?: boolean;
  /** The prompts (default QUICK_PROMPTS): a sweep may probe each combination with the user's own. */
  prompts?: readonly QuickPrompt[];
  /** Watch the server around the prompts (engine, vLLM's repetition detection and NaN counter). Default true. */
  watch?: boolean;
}

export interface QuickProbeItem extends QuickPrompt {
  result: ProbeResult;
}

export interface QuickProbeSummary {
  /** Worst verdict over the prompts (nan > degenerate > ok). */
  verdict: VerdictKind;
  /** Prompts whose request failed (the verdict then only covers what arrived). */
  errors: number;
  /** One line for a status bar or a notification. */
  message: string;
}

export interface QuickProbeResult {
  items: QuickProbeItem[];
  summary: QuickProbeSummary;
  /** The engine and its counters around the prompts (absent when not watched). */
  server?: ServerWatch;
}

/** How bad a verdict is: nan > degenerate > ok. */
export const VERDICT_RANK: Readonly<Record<VerdictKind, number>> = { ok: 0, degenerate: 1, nan: 2 };

export function worstVerdict(kinds: VerdictKind[]): VerdictKind {
  return kinds.reduce<VerdictKind>((worst, k) => (VERDICT_RANK[k] > VERDICT_RANK[worst] ? k : worst), 'ok');
}

export async function runQuickProbe(
  target: ServerTarget,
  params: QuickProbeParams = {},
  opts: Omit<RunProbeOptions, 'onEvent'> = {},
): Promise<QuickProbeResult> {
  const prompts = params.prompts?.length ? params.prompts : QUICK_PROMPTS;
  const runAll = ({ repetitionDetection }: { repetitionDetection: boolean }): Promise<ProbeResult[]> =>
    Promise.all(
      prompts.map((p) =>
        runProbe(
          target,
          {
            endpoint: params.endpoint ?? 'chat',
            prompt: p.prompt,
            stream: params.stream ?? true,
            temperature: 0,
            maxTokens: params.maxTokens ?? 256,
            earlyStop: params.earlyStop ?? true,
            ...(params.model ? { model: params.model } : {}),
            ...(params.timeoutMs ? { timeoutMs: params.timeoutMs } : {}),
            ...(repetitionDetection && params.endpoint !== 'generate' ? { repetitionDetection } : {}),
          },
          opts,
        ),
      ),
    );
  let results: ProbeResult[];
  let server: ServerWatch | undefined;
  if (params.watch === false) results = await runAll({ repetitionDetection: false });
  else {
    const watched = await watchServer(target, runAll, opts.signal ? { signal: opts.signal } : {});
    server = watched.watch;
    // The counter is the server's, not a prompt's: every prompt that ran while it rose carries it.
    results = watched.value.map((r) =>
      corruptedDuring(server) && r.status !== 'error' ? { ...r, verdict: withCounterVerdict(r.verdict, server, r.totalChars) } : r,
    );
  }
  const items = prompts.map((p, i) => ({ ...p, result: results[i] }));
  const verdict = worstVerdict(items.map((i) => i.result.verdict.kind));
  const failed = items.filter((i) => i.result.status === 'error');
  const bad = items.filter((i) => i.result.verdict.kind !== 'ok').map((i) => i.label.toLowerCase());
  let message: string;
  if (verdict === 'nan') message = `NaN: the server produced NaN output (${bad.join(', ')}).`;
  else if (verdict === 'degenerate') message = `Degenerate output on ${bad.join(', ')}.`;
  else if (failed.length === items.length) message = `All probes failed: ${failed[0].result.error?.message ?? 'error'}`;
  else if (failed.length)
    message = `Output looks healthy, but ${failed.length} of ${items.length} probes failed: ${failed[0].result.error?.message ?? 'error'}`;
  else message = items.length === 3 ? 'All three probes look healthy.' : `All ${items.length} probes look healthy.`;
  const moved = corruptedDuring(server);
  if (moved) message += ` The server counted ${moved} corrupted request${moved === 1 ? '' : 's'} (NaN in the logits) during the probe.`;
  return { items, summary: { verdict, errors: failed.length, message }, ...(server ? { server } : {}) };
}
