/**
 * The diagnosis engine: every rule judged on the evidence, the ones that fit ranked by how well
 * evidence and symptom fit, each with the evidence for and against it, what is missing, the fix
 * in order, and one next check that would separate the top two.
 */
import type { Engine, Evidence } from '../evidence';
import { certaintyFactor, judgeContext, judgeRule, type ConditionOutcome, type JudgeContext } from './judge';
import { symptomFit, symptomsOf, type ObservedSymptom } from './symptoms';
import type { DiagnosisRule, FixStep, Symptom } from './types';

export interface FindingEvidence {
  stance: 'for' | 'against';
  text: string;
  source?: string;
  where?: string;
  certainty?: string;
}

export interface Finding {
  id: string;
  title: string;
  /** `match`: every condition held; `possible`: a deciding one held, some are unknown. */
  confidence: 'match' | 'possible';
  /** 0–1: how well evidence and symptom fit. */
  score: number;
  engine: DiagnosisRule['engine'];
  symptoms: Symptom[];
  mechanism: string;
  evidence: FindingEvidence[];
  /** Checks that would decide the unknown conditions. */
  missing: string[];
  fix: { flags: Record<string, string | number | boolean>; env: Record<string, string | null>; steps: FixStep[] };
  ruleOut: string[];
  sources: string[];
}

export interface Diagnosis {
  symptoms: ObservedSymptom[];
  findings: Finding[];
  /** What to read or try next to tell the top two findings apart (or to confirm the only one). */
  nextCheck?: string;
  /** Rules judged. */
  rulesJudged: number;
}

export interface DiagnoseOptions {
  rules: readonly DiagnosisRule[];
  /** What the user saw, added to what the evidence shows. */
  symptom?: Symptom;
  /** At most this many findings (default 10). */
  limit?: number;
}

function fitOf(outcomes: readonly ConditionOutcome[]): number {
  let total = 0;
  let got = 0;
  for (const o of outcomes) {
    total += o.weight;
    if (o.state === 'held') got += o.weight * certaintyFactor(o.certainty);
  }
  return total === 0 ? 0 : got / total;
}

function evidenceOf(outcomes: readonly ConditionOutcome[], rule: DiagnosisRule, ev: Evidence, fit: number | null): FindingEvidence[] {
  const out: FindingEvidence[] = [];
  for (const o of outcomes) {
    if (o.state !== 'held') continue;
    const e: FindingEvidence = { stance: 'for', text: o.text };
    if (o.source) e.source = o.source;
    if (o.where) e.where = o.where;
    if (o.certainty) e.certainty = o.certainty;
    out.push(e);
    if (o.certainty === 'guess') out.push({ stance: 'against', text: `only guessed: ${o.text}` });
  }
  for (const p of ev.probes) {
    if (p.suspects.length && p.verdict === 'ok') out.push({ stance: 'for', text: `a probe answer has suspect signs (${p.suspects.join(', ')})`, source: 'probe' });
  }
  const supports = new Set(rule.supports?.signatures ?? []);
  for (const s of Object.values(ev.signatures)) if (s && supports.has(s.kind)) out.push({ stance: 'for', text: `the log shows ${s.kind} (line ${s.firstLine})`, source: s.source });
  const reasons = new Set(rule.supports?.probeReasons ?? []);
  for (const p of ev.probes) for (const r of p.reasons) if (reasons.has(r)) out.push({ stance: 'for', text: `a probe answer shows ${r}`, source: 'probe' });
  if (fit !== null && fit < 1) out.push({ stance: 'against', text: `the symptom seen is not the one this cause usually gives (${rule.symptoms.join(', ')})` });
  const healthy = ev.probes.length > 0 && ev.probes.every((p) => p.verdict === 'ok');
  if (healthy && !rule.symptoms.some((s) => s === 'accuracy-drop' || s === 'crash')) out.push({ stance: 'against', text: 'every probe answer read healthy', source: 'probe' });
  for (const c of relevantConflicts(ev, outcomes).slice(0, 3)) {
    out.push({ stance: 'against', text: `sources disagree on ${c.path}: ${shownValue(c.kept.value)} vs ${shownValue(c.other.value)}` });
  }
  return out;
}

function shownValue(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v) ?? String(v);
}

/** The evidence paths a condition reads: a disagreement elsewhere (the GPU count) says nothing about this cause. */
function pathsOf(o: ConditionOutcome): string[] {
  switch (o.kind) {
    case 'gpu':
      return ['gpu.computeCapability', 'gpu.family'];
    case 'flags': {
      const field = o.key.slice('flags.'.length).split('.')[0];
      return [`flags.resolved.${field}`, `flags.written.${field}`];
    }
    case 'kvCacheDtype':
      return ['model.kvCacheDtype', 'flags.resolved.kv_cache_dtype', 'flags.written.kv_cache_dtype'];
    case 'quantization':
      return ['model.quantization'];
    case 'architecture':
      return ['model.architecture'];
    case 'traits':
      return [`model.${o.key}`];
    case 'cudaGraph':
      return ['runtime.cudaGraph', 'flags.resolved.disable_cuda_graph', 'flags.resolved.enforce_eager'];
    case 'engine':
      return ['engine'];
    default:
      return [o.key];
  }
}

function relevantConflicts(ev: Evidence, outcomes: readonly ConditionOutcome[]): Evidence['conflicts'] {
  const paths = new Set(outcomes.filter((o) => o.state === 'held').flatMap(pathsOf));
  return ev.conflicts.filter((c) => paths.has(c.path));
}

function supportBonus(rule: DiagnosisRule, ev: Evidence): number {
  let n = 0;
  for (const s of rule.supports?.signatures ?? []) if (ev.signatures[s]) n++;
  const reasons = new Set(rule.supports?.probeReasons ?? []);
  if (ev.probes.some((p) => p.reasons.some((r) => reasons.has(r)))) n++;
  return Math.min(0.15, 0.05 * n);
}

function fixOf(rule: DiagnosisRule): Finding['fix'] {
  const first = rule.fix[0];
  return { flags: { ...(first?.flags ?? {}) }, env: { ...(first?.env ?? {}) }, steps: rule.fix.map((s) => ({ ...s })) };
}

/** A rule judged: a finding, or null when a condition failed, the symptom does not fit, or nothing decides it. */
export function judgeFinding(
  rule: DiagnosisRule,
  ev: Evidence,
  observed: readonly ObservedSymptom[],
  ctx: JudgeContext = judgeContext(ev),
): { finding: Finding; outcomes: ConditionOutcome[] } | null {
  const fit = symptomFit(rule.symptoms, observed);
  if (fit === 0) return null;
  const outcomes = judgeRule(rule, ev, ctx);
  if (outcomes.some((o) => o.state === 'failed')) return null;
  const unknown = outcomes.filter((o) => o.state === 'unknown');
  const deciding = outcomes.some((o) => o.deciding);
  if (unknown.length && !deciding) return null;
  const confidence = unknown.length ? 'possible' : 'match';
  const score = Math.min(1, fitOf(outcomes) * (fit ?? 0.7) + supportBonus(rule, ev));
  const finding: Finding = {
    id: rule.id,
    title: rule.title,
    confidence,
    score: Math.round(score * 1000) / 1000,
    engine: rule.engine,
    symptoms: [...rule.symptoms],
    mechanism: rule.mechanism,
    evidence: evidenceOf(outcomes, rule, ev, fit),
    missing: [...new Set(unknown.map((o) => o.check ?? o.text))],
    fix: fixOf(rule),
    ruleOut: [...rule.ruleOut],
    sources: [...rule.sources],
  };
  return { finding, outcomes };
}

function heldCount(outcomes: readonly ConditionOutcome[]): number {
  return outcomes.filter((o) => o.state === 'held').length;
}

function flagsText(flags: Record<string, string | number | boolean>, env: Record<string, string | null>): string {
  const parts = Object.entries(flags).map(([k, v]) => (v === true ? k : `${k} ${String(v)}`));
  for (const [k, v] of Object.entries(env)) parts.push(v === null ? `unset ${k}` : `${k}=${v}`);
  return parts.join(' ');
}

/** The check that tells the top two apart: an unknown of one that the other does not share, else a fix to try. */
function nextCheckOf(top: readonly { finding: Finding; outcomes: ConditionOutcome[] }[]): string | undefined {
  const [a, b] = top;
  if (!a) return undefined;
  const unknownA = a.outcomes.filter((o) => o.state === 'unknown');
  if (!b) {
    if (unknownA[0]?.check) return `To confirm "${a.finding.title}": ${unknownA[0].check}`;
    const step = a.finding.fix.steps[0];
    return step ? `Try "${flagsText(step.flags ?? {}, step.env ?? {}) || step.note}" and probe again: if the answers heal, this is the cause.` : undefined;
  }
  const keysB = new Map(b.outcomes.map((o) => [o.key, o.state]));
  const keysA = new Map(a.outcomes.map((o) => [o.key, o.state]));
  const separating =
    unknownA.find((o) => keysB.get(o.key) !== 'unknown' && o.check) ?? b.outcomes.find((o) => o.state === 'unknown' && keysA.get(o.key) !== 'unknown' && o.check);
  if (separating?.check) return `To tell "${a.finding.title}" from "${b.finding.title}": ${separating.check}`;
  const step = a.finding.fix.steps[0];
  if (step) {
    const what = flagsText(step.flags ?? {}, step.env ?? {}) || step.note;
    return `To tell "${a.finding.title}" from "${b.finding.title}": try "${what}" and probe again; answers that heal point at the first.`;
  }
  return undefined;
}

/** Every rule judged on the evidence; findings best first. */
export function diagnose(ev: Evidence, options: DiagnoseOptions): Diagnosis {
  const observed = symptomsOf(ev, options.symptom);
  const judged: { finding: Finding; outcomes: ConditionOutcome[] }[] = [];
  // What the evidence as a whole says (a configuration read, a log read) is the same for every rule.
  const ctx = judgeContext(ev);
  for (const rule of options.rules) {
    const j = judgeFinding(rule, ev, observed, ctx);
    if (j) judged.push(j);
  }
  judged.sort(
    (x, y) =>
      (x.finding.confidence === y.finding.confidence ? 0 : x.finding.confidence === 'match' ? -1 : 1) ||
      y.finding.score - x.finding.score ||
      heldCount(y.outcomes) - heldCount(x.outcomes) ||
      (x.finding.id < y.finding.id ? -1 : 1),
  );
  const top = judged.slice(0, options.limit ?? 10);
  const out: Diagnosis = { symptoms: observed, findings: top.map((j) => j.finding), rulesJudged: options.rules.length };
  const next = nextCheckOf(top);
  if (next) out.nextCheck = next;
  return out;
}

export type { Engine };
