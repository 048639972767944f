/**
 * Evidence from probes of the running server: a probe result (core/probe runProbe), a Quick
 * Health Probe (its three prompts), a list of results, or a bare detector verdict. Each becomes a
 * ProbeEvidence with the verdict, the reason codes that made it and the suspect ones apart.
 */
import type { Verdict } from '../detect/types';
import type { QuickProbeResult } from '../probe/quick';
import type { ProbeResult, ServerWatch } from '../probe/types';
import { emptyEvidence, putEngine, putSlot, type Evidence, type ProbeEvidence } from './evidence';

export type ProbeInput = ProbeResult | QuickProbeResult | Verdict | readonly (ProbeResult | Verdict)[];

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function isVerdict(v: unknown): v is Verdict {
  return isObj(v) && typeof v.kind === 'string' && Array.isArray(v.reasons) && !('status' in v);
}

function isQuick(v: unknown): v is QuickProbeResult {
  return isObj(v) && Array.isArray(v.items) && isObj(v.summary);
}

function isResult(v: unknown): v is ProbeResult {
  return isObj(v) && isVerdict(v.verdict) && typeof v.status === 'string';
}

function fromVerdict(v: Verdict, base: Omit<ProbeEvidence, 'verdict' | 'reasons' | 'suspects'>): ProbeEvidence {
  const reasons = v.reasons.filter((r) => r && r.kind !== 'suspect').map((r) => r.code);
  const suspects = v.reasons.filter((r) => r && r.kind === 'suspect').map((r) => r.code);
  const kind = v.kind === 'nan' || v.kind === 'degenerate' ? v.kind : 'ok';
  return { ...base, verdict: kind, reasons: [...new Set(reasons)], suspects: [...new Set(suspects)] };
}

function fromResult(r: ProbeResult, label: string | undefined, where: string | undefined): ProbeEvidence {
  const base: Omit<ProbeEvidence, 'verdict' | 'reasons' | 'suspects'> = {
    status: r.status,
    finishReason: typeof r.finishReason === 'string' ? r.finishReason : null,
    matchedStop: typeof r.matchedStop === 'string' || typeof r.matchedStop === 'number' ? r.matchedStop : null,
    source: 'probe',
  };
  if (r.error?.kind) base.errorKind = r.error.kind;
  if (label) base.label = label;
  if (where) base.where = where;
  return fromVerdict(r.verdict, base);
}

/** What the probe saw of the server: the engine it reports itself as, its version, and that vLLM counts NaN. */
function serverFacts(ev: Evidence, watch: ServerWatch): void {
  if (watch.engine !== 'sglang' && watch.engine !== 'vllm') return;
  putEngine(ev, { value: watch.engine, source: 'probe', certainty: 'certain', where: '/v1/models owned_by' });
  if (watch.engine === 'vllm' && typeof watch.version === 'string') {
    putSlot(ev, ev.versions, 'vllm', { value: watch.version, source: 'probe', certainty: 'certain', where: '/version' }, 'versions.vllm');
  }
  // The counter exists only when the server runs with this variable set.
  if (watch.corruptedRequests)
    ev.env.VLLM_COMPUTE_NANS_IN_LOGITS = { value: '1', source: 'probe', certainty: 'likely', where: '/metrics vllm:corrupted_requests' };
}

export interface ProbeEvidenceOptions {
  /** Names the probe (a prompt id, a sweep row); quick-probe items use their prompt id. */
  label?: string;
  where?: string;
}

/** Evidence holding one ProbeEvidence per probe in `input`. */
export function fromProbe(input: ProbeInput, options: ProbeEvidenceOptions = {}): Evidence {
  const ev = emptyEvidence();
  const add = (x: unknown, label?: string): void => {
    if (isResult(x)) ev.probes.push(fromResult(x, label, options.where));
    else if (isVerdict(x)) {
      const base: Omit<ProbeEvidence, 'verdict' | 'reasons' | 'suspects'> = { status: 'completed', finishReason: null, matchedStop: null, source: 'probe' };
      if (label) base.label = label;
      if (options.where) base.where = options.where;
      ev.probes.push(fromVerdict(x, base));
    }
  };
  const watch = isObj(input) && isObj((input as { server?: unknown }).server) ? (input as { server: ServerWatch }).server : undefined;
  if (watch) serverFacts(ev, watch);
  if (isQuick(input)) {
    for (const item of input.items) if (isObj(item)) add(item.result, typeof item.id === 'string' ? item.id : options.label);
  } else if (Array.isArray(input)) {
    input.forEach((x, i) => add(x, options.label ? `${options.label} #${i + 1}` : undefined));
  } else add(input, options.label);
  return ev;
}
