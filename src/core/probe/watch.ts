/**
 * A probe with the server watched around it: the engine first (engine.ts), so a vLLM 0.17+ server
 * is asked to detect repetition itself, and vLLM's NaN counter read before and after, so NaN logits
 * that left no mark in the text (vLLM has no "NaN happened" marker) still make a NaN verdict.
 */
import { reasonOf } from '../detect/detector';
import type { Verdict } from '../detect/types';
import { detectEngine, fetchVllmMetrics, vllmHasRepetitionDetection } from './engine';
import { runProbe, type RunProbeOptions } from './runner';
import type { ProbeParams, ProbeResult, ServerTarget, ServerWatch } from './types';

export interface WatchOptions {
  signal?: AbortSignal;
}

/**
 * Runs `probe` between the two reads. `probe` gets whether to ask for repetition detection; the
 * counter is read after it only when the server exported it before.
 */
export async function watchServer<T>(
  target: ServerTarget,
  probe: (ask: { repetitionDetection: boolean }) => Promise<T>,
  options: WatchOptions = {},
): Promise<{ value: T; watch: ServerWatch }> {
  const api = options.signal ? { signal: options.signal } : {};
  const facts = await detectEngine(target, api);
  const before = facts.engine === 'vllm' ? await fetchVllmMetrics(target, api) : undefined;
  const repetitionDetection = facts.engine === 'vllm' && vllmHasRepetitionDetection(facts.version);
  const value = await probe({ repetitionDetection });
  const watch: ServerWatch = { ...facts, repetitionDetection };
  if (before?.cacheConfig) watch.cacheConfig = before.cacheConfig;
  if (before?.corruptedRequests !== undefined) {
    const after = await fetchVllmMetrics(target, api);
    if (after?.corruptedRequests !== undefined) watch.corruptedRequests = { before: before.corruptedRequests, after: after.corruptedRequests };
  }
  return { value, watch };
}

/** How many corrupted requests the server counted during the probe (0 when it did not say). */
export function corruptedDuring(watch: ServerWatch | undefined): number {
  const c = watch?.corruptedRequests;
  return c && c.after > c.before ? c.after - c.before : 0;
}

/** The verdict with the counter's NaN added when it moved; the same verdict otherwise. */
export function withCounterVerdict(verdict: Verdict, watch: ServerWatch | undefined, textLength: number): Verdict {
  const moved = corruptedDuring(watch);
  if (!moved || verdict.reasons.some((r) => r.code === 'nan-counter')) return verdict;
  const reason = reasonOf(
    'nan-counter',
    textLength,
    `the server's vllm:corrupted_requests counter rose by ${moved} during the probe (${watch!.corruptedRequests!.before} → ${watch!.corruptedRequests!.after})`,
  );
  const reasons = [...verdict.reasons, reason];
  return { kind: 'nan', reasons, onset: verdict.onset ?? reason.offset };
}

/** One probe with the server watched: its result carries `server`, and the counter's NaN in its verdict. */
export async function runWatchedProbe(target: ServerTarget, params: ProbeParams, opts: RunProbeOptions = {}): Promise<ProbeResult> {
  const { value, watch } = await watchServer(
    target,
    ({ repetitionDetection }) =>
      runProbe(target, { ...params, ...(repetitionDetection && params.endpoint !== 'generate' ? { repetitionDetection } : {}) }, opts),
    opts.signal ? { signal: opts.signal } : {},
  );
  return { ...value, server: watch, verdict: withCounterVerdict(value.verdict, watch, value.totalChars) };
}
