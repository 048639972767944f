/**
 * Compact evidence (EvidenceSpec) to a full Evidence: what rule cases, the CLI's --gpu/--model/…
 * options and tests say in a line. Facts are `certain` unless the spec says otherwise.
 */
import { computeCapabilityOfName, gpuFromArg } from '../../gpu/names';
import { ccText } from '../../gpu/gpus';
import { emptyEvidence, fact, setOwn, type Evidence, type FlagValue, type ProbeEvidence, type VersionKey } from '../evidence';
import { ccString, gpuFamilyOf } from '../gpuFamily';
import { traitsOfArchitecture } from '../modelHints';
import type { EvidenceSpec } from './types';

/** The verdict a set of probe reasons makes: NaN markers make `nan`, any other `degenerate`. */
function verdictOf(reasons: readonly string[]): ProbeEvidence['verdict'] {
  if (reasons.some((r) => r === 'nan-marker' || r === 'nan-logprob' || r === 'token0-run')) return 'nan';
  return reasons.length ? 'degenerate' : 'ok';
}

/** GPU name and capability from a spec's `gpu`: a capability ("12.0", "sm_120"), a --gpu id or a device name. */
export function gpuOfSpec(text: string): { name?: string; cc?: string } {
  const t = text.trim();
  const cc = ccString(t);
  if (cc && /^(?:sm_?|compute_)?\d+(?:\.\d+)?$/i.test(t)) return { cc };
  const byArg = gpuFromArg(t);
  if (byArg) return { name: byArg.label, cc: ccText(byArg.cc) };
  const named = computeCapabilityOfName(t);
  return named ? { name: t, cc: named } : { name: t };
}

export function evidenceOfSpec(spec: EvidenceSpec): Evidence {
  const ev = emptyEvidence();
  const c = spec.certainty ?? 'certain';
  const f = <T>(v: T) => fact(v, 'user', c);
  if (spec.engine) ev.engine = f(spec.engine);
  if (spec.gpu) {
    const g = gpuOfSpec(spec.gpu);
    if (g.name) ev.gpu.name = f(g.name);
    if (g.cc) ev.gpu.computeCapability = f(g.cc);
    const family = gpuFamilyOf(g.cc, g.name);
    if (family !== 'other' || g.cc) ev.gpu.family = f(family);
  }
  if (spec.quantization) ev.model.quantization = f(spec.quantization);
  if (spec.model) ev.model.path = f(spec.model);
  if (spec.architecture) {
    ev.model.architecture = f(spec.architecture);
    for (const [t, v] of Object.entries(traitsOfArchitecture(spec.architecture))) if (v !== undefined) ev.model.traits[t as keyof typeof ev.model.traits] = f(v);
  }
  for (const t of spec.traits ?? []) ev.model.traits[t] = f(true);
  for (const [k, v] of Object.entries(spec.flags ?? {})) setOwn(ev.flags.resolved, k, f(v as FlagValue));
  for (const [k, v] of Object.entries(spec.env ?? {})) setOwn(ev.env, k, f(v));
  for (const [k, v] of Object.entries(spec.versions ?? {})) if (typeof v === 'string') ev.versions[k as VersionKey] = f(v);
  if (spec.kvCacheDtype) ev.model.kvCacheDtype = f(spec.kvCacheDtype);
  if (spec.cudaGraph !== undefined) ev.runtime.cudaGraph = f(spec.cudaGraph);
  for (const [lib, level] of Object.entries(spec.kernels ?? {})) {
    const cc = ev.gpu.computeCapability?.value;
    const arch = cc ? `sm_${cc.replace('.', '')}` : undefined;
    const sass = level === 'native' && arch ? [arch] : ['sm_90a', 'sm_100a'];
    ev.kernels[lib as keyof Evidence['kernels']] = f({ sass, ptx: [], files: 1, complete: true, level, ...(arch ? { gpuArch: arch } : {}) });
  }
  for (const kind of spec.signatures ?? []) {
    ev.signatures[kind] = { kind, count: 1, firstLine: 1, firstText: kind, source: 'log', where: 'given' };
  }
  if (spec.probeReasons?.length) {
    ev.probes.push({
      verdict: verdictOf(spec.probeReasons),
      status: 'completed',
      reasons: [...spec.probeReasons],
      suspects: [],
      finishReason: 'stop',
      matchedStop: spec.probeReasons.includes('nan-marker') ? 'NaN happened' : null,
      source: 'probe',
    });
  }
  return ev;
}
