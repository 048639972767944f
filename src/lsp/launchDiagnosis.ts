/**
 * The diagnosis engine in launch files: a command's flags and environment, with the GPU the host
 * reports (or, failing that, what the file itself says it is for: image tags, comments, the file
 * name), judged by the diagnosis rules. Only causes whose every condition holds become
 * diagnostics; the GPU the file names also silences known-bad rules written for another GPU.
 */
import { ccText } from '../core/gpu/gpus';
import { deriveFromArgs } from '../core/diagnose/derive';
import { emptyEvidence, fact, mergeAll, setOwn, type Certainty, type Evidence, type FlagValue, type GpuFamily } from '../core/diagnose/evidence';
import { hintsOfFile } from '../core/diagnose/launch';
import { bundledDiagnosisRules, judgeContext, judgeFinding, type ConditionOutcome, type DiagnosisRule, type Finding } from '../core/diagnose/rules';
import { parseComputeCap } from '../core/gpu/gpus';
import { ccNumber } from '../core/gpu/names';

/** What the file says about the GPU it is for. */
export interface FileGpuHint {
  /** Compute capability as the known-bad rules read it (12.0 → 12). */
  cc?: number;
  family?: GpuFamily;
  label: string;
  where: string;
  evidence: Evidence;
}

/** The GPU a launch file names (image tag, comment, file name), or undefined. */
export function fileGpuHint(text: string, fileName: string | undefined): FileGpuHint | undefined {
  if (!fileName) return undefined;
  const ev = hintsOfFile(text, fileName);
  const ccFact = ev.gpu.computeCapability;
  const family = ev.gpu.family?.value;
  const parsed = parseComputeCap(ccFact?.value);
  if (!parsed && !family) return undefined;
  const where = (ccFact ?? ev.gpu.family ?? ev.gpu.name)?.where ?? 'the file';
  const label = ev.gpu.name?.value ?? (parsed ? `compute capability ${ccText(parsed)}` : (family ?? 'GPU'));
  return { ...(parsed ? { cc: ccNumber(parsed) } : {}), ...(family ? { family } : {}), label, where, evidence: ev };
}

export interface CommandFinding {
  finding: Finding;
  /** Fields of the flags whose values decided it (where the diagnostic goes). */
  fields: string[];
}

export interface LaunchDiagnosisInput {
  fields: Record<string, unknown>;
  env: Record<string, string>;
  /** The host's GPU (certain) when one is selected. */
  computeCapability?: number;
  versions?: Record<string, string>;
  hint?: FileGpuHint;
}

function evidenceOf(input: LaunchDiagnosisInput): Evidence {
  const ev = emptyEvidence();
  ev.engine = fact('sglang', 'launch', 'certain');
  const args: Record<string, FlagValue> = {};
  for (const [field, v] of Object.entries(input.fields)) {
    if (v === null || v === undefined) continue;
    const value = v as FlagValue;
    setOwn(args, field, value);
    setOwn(ev.flags.written, field, fact(value, 'launch', 'certain'));
  }
  for (const [k, v] of Object.entries(input.env)) setOwn(ev.env, k, fact(v, 'launch', 'certain'));
  deriveFromArgs(ev, args, <T>(value: T, certainty: Certainty) => fact(value, 'launch', certainty), { direct: 'certain', count: 'likely' });
  if (input.computeCapability !== undefined) {
    const major = Math.floor(input.computeCapability);
    const minor = Math.round((input.computeCapability - major) * 10);
    ev.gpu.computeCapability = fact(`${major}.${minor}`, 'discovery', 'certain', 'the selected host');
  }
  for (const [k, v] of Object.entries(input.versions ?? {})) {
    const key = k === 'flashinfer-python' ? 'flashinfer' : k;
    if (key === 'sglang' || key === 'flashinfer' || key === 'sgl-kernel' || key === 'torch') ev.versions[key] = fact(v, 'discovery', 'likely');
  }
  return input.computeCapability === undefined && input.hint ? mergeAll(ev, input.hint.evidence) : ev;
}

let byField: Map<string, DiagnosisRule[]> | undefined;

/**
 * SGLang rules that can stand on a launch file, by the flag fields they test: a rule is judged
 * only when the command writes one of its flags, so a file with no backend flag costs a lookup.
 * A launch file shows no symptom, so rules that need a log line or a library's targets are out.
 */
function rulesByField(): Map<string, DiagnosisRule[]> {
  if (!byField) {
    byField = new Map();
    for (const rule of bundledDiagnosisRules().rules) {
      if (rule.engine === 'vllm' || rule.when.signatures?.length || rule.when.kernels) continue;
      for (const field of Object.keys(rule.when.flags ?? {})) {
        const base = field.split('.')[0];
        const list = byField.get(base) ?? [];
        if (!list.includes(rule)) list.push(rule);
        byField.set(base, list);
      }
    }
  }
  return byField;
}

/** Causes whose every condition holds on this command, best first (at most `limit`). */
export function launchFindings(input: LaunchDiagnosisInput, limit = 3): CommandFinding[] {
  const index = rulesByField();
  const candidates = new Set<DiagnosisRule>();
  for (const [field, v] of Object.entries(input.fields)) if (v !== null && v !== undefined) for (const r of index.get(field) ?? []) candidates.add(r);
  if (!candidates.size) return [];
  const ev = evidenceOf(input);
  const out: { finding: Finding; outcomes: ConditionOutcome[] }[] = [];
  const ctx = judgeContext(ev);
  for (const rule of candidates) {
    const j = judgeFinding(rule, ev, [], ctx);
    if (j?.finding.confidence === 'match' && j.outcomes.some((o) => o.kind === 'flags' && o.state === 'held' && o.source !== 'default')) out.push(j);
  }
  out.sort((a, b) => b.finding.score - a.finding.score || (a.finding.id < b.finding.id ? -1 : 1));
  return out.slice(0, limit).map((j) => ({
    finding: j.finding,
    fields: j.outcomes.filter((o) => o.kind === 'flags' && o.state === 'held' && o.source !== 'default').map((o) => o.key.slice('flags.'.length)),
  }));
}
