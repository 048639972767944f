/**
 * The symptom classes the evidence shows: from probe verdicts and their reasons, and from log
 * signatures. A user's own word (`--symptom`) is added to them, never replaces them.
 */
import type { ReasonCode } from '../../detect/types';
import type { Evidence, LogSignatureKind } from '../evidence';
import type { Symptom } from './types';

const OF_REASON: Partial<Record<ReasonCode, Symptom>> = {
  'nan-marker': 'nan',
  'nan-logprob': 'nan',
  'token0-run': 'token0-flood',
  'answer-flood': 'token0-flood',
  'char-flood': 'token0-flood',
  'token-salad': 'gibberish',
  'word-salad': 'gibberish',
  'garbled-words': 'gibberish',
  mojibake: 'gibberish',
  'special-tokens': 'gibberish',
  'short-loop': 'repetition',
  'long-loop': 'repetition',
  'seq-rep': 'repetition',
  compression: 'repetition',
  'length-repetition': 'repetition',
  'repetition-stop': 'repetition',
  'nan-counter': 'nan',
  'word-repetition': 'repetition',
  'list-cycle': 'repetition',
  empty: 'empty',
};

const OF_SIGNATURE: Partial<Record<LogSignatureKind, Symptom>> = {
  'nan-detected': 'nan',
  'nan-happened': 'nan',
  'probability-tensor-inf-nan': 'nan',
  'unsupported-arch': 'crash',
  'kernel-missing': 'crash',
  'torch-arch-missing': 'crash',
  'cuda-illegal-memory': 'crash',
  'cuda-error': 'crash',
  oom: 'crash',
  'no-valid-tactics': 'crash',
  'cuda-driver-too-old': 'crash',
  'scheduler-exception': 'crash',
  'engine-core-failed': 'crash',
};

export interface ObservedSymptom {
  symptom: Symptom;
  /** Where it was seen: "probe", "log line 40", "given". */
  from: string;
}

/** Symptoms in the evidence, each once, with where it was first seen. */
export function symptomsOf(ev: Evidence, given?: Symptom): ObservedSymptom[] {
  const out = new Map<Symptom, string>();
  if (given) out.set(given, 'given');
  for (const p of ev.probes) {
    for (const r of p.reasons) {
      const s = OF_REASON[r];
      if (s && !out.has(s)) out.set(s, p.label ? `probe ${p.label}` : 'probe');
    }
    if (p.verdict === 'nan' && !out.has('nan') && !out.has('token0-flood')) out.set('nan', p.label ? `probe ${p.label}` : 'probe');
    if (p.matchedStop === 'NaN happened' && !out.has('nan')) out.set('nan', 'probe (matched_stop "NaN happened")');
  }
  for (const sig of Object.values(ev.signatures)) {
    if (!sig) continue;
    const s = OF_SIGNATURE[sig.kind];
    if (s && !out.has(s)) out.set(s, `${sig.where ?? 'log'} line ${sig.firstLine}`);
  }
  return [...out].map(([symptom, from]) => ({ symptom, from }));
}

/**
 * Symptoms one mechanism shows as another: all-NaN logits give token 0 (`!!!!`), a NaN marker, or
 * (with NaN rows sanitised) salad.
 */
const KIN: Readonly<Record<Symptom, readonly Symptom[]>> = {
  nan: ['token0-flood'],
  'token0-flood': ['nan'],
  gibberish: [],
  repetition: [],
  'accuracy-drop': [],
  crash: [],
  empty: [],
};

/** How well a rule's symptoms fit the observed ones: 1 exact, 0.8 kin, 0 none (null: nothing observed). */
export function symptomFit(ruleSymptoms: readonly Symptom[], observed: readonly ObservedSymptom[]): number | null {
  if (!observed.length) return null;
  let best = 0;
  for (const o of observed) {
    if (ruleSymptoms.includes(o.symptom)) best = Math.max(best, 1);
    else if (KIN[o.symptom].some((k) => ruleSymptoms.includes(k))) best = Math.max(best, 0.8);
  }
  return best;
}
