/**
 * One rule's conditions judged on Evidence: each `held`, `failed` or `unknown`, with the fact
 * that decided it and, when unknown, the check that would decide it. See rules/diagnosis/README.md
 * for the table this implements.
 */
import { satisfies } from '../../release/version';
import { CERTAINTY_RANK, ownValue, type Certainty, type Evidence, type Fact, type FlagValue, type GpuFamily } from '../evidence';
import { ccString, computeCapabilityOfName, gpuFamilyOf } from '../gpuFamily';
import type { DiagnosisRule, Scalar, ValueTest } from './types';

export type ConditionKind = 'engine' | 'gpu' | 'quantization' | 'traits' | 'flags' | 'env' | 'versions' | 'kvCacheDtype' | 'signatures' | 'cudaGraph' | 'architecture' | 'kernels';

export interface ConditionOutcome {
  kind: ConditionKind;
  /** `gpu`, `flags.moe_runner_backend`, `versions.flashinfer`, … */
  key: string;
  state: 'held' | 'failed' | 'unknown';
  /** One sentence on what was seen (or not). */
  text: string;
  /** When unknown: what to read or try to decide it. */
  check?: string;
  /** How sure the deciding fact is (held/failed only). */
  certainty?: Certainty;
  source?: string;
  where?: string;
  /** Held on something a rule can rest a finding on (not a GPU or trait alone). */
  deciding: boolean;
  weight: number;
}

/** How much a condition kind says about a mechanism: a kernel path or a log line more than a trait. */
export const WEIGHT: Readonly<Record<ConditionKind, number>> = {
  engine: 0.5,
  gpu: 2,
  quantization: 2,
  traits: 1,
  flags: 3,
  env: 2,
  versions: 2,
  kvCacheDtype: 2,
  signatures: 3,
  cudaGraph: 1,
  architecture: 2,
  kernels: 3,
};

const DECIDING: ReadonlySet<ConditionKind> = new Set(['flags', 'env', 'versions', 'quantization', 'kvCacheDtype', 'signatures', 'architecture', 'cudaGraph', 'kernels']);

/** What is known about the deployment's configuration as a whole. */
export interface JudgeContext {
  /** A launch command, a server_args line or /server_info was read: an absent flag is at its default. */
  haveConfig: boolean;
  /** A server log was read: an absent signature did not happen. */
  logRead: boolean;
}

export function judgeContext(ev: Evidence): JudgeContext {
  const haveConfig = Object.keys(ev.flags.written).length + Object.keys(ev.flags.resolved).length > 0;
  let logRead = Object.keys(ev.signatures).length > 0;
  if (!logRead) {
    const facts: unknown[] = [ev.engine];
    for (const rec of [ev.gpu, ev.versions, ev.flags.resolved, ev.runtime] as object[]) facts.push(...(Object.values(rec) as unknown[]));
    logRead = facts.some((f) => typeof f === 'object' && f !== null && (f as Fact<unknown>).source === 'log');
  }
  return { haveConfig, logRead };
}

function whereOf(f: Fact<unknown>): string {
  return f.where ? `${f.source}, ${f.where}` : f.source;
}

function shown(v: unknown): string {
  if (typeof v === 'string') return v;
  try {
    const s = JSON.stringify(v);
    return s.length > 80 ? `${s.slice(0, 79)}…` : s;
  } catch {
    return String(v);
  }
}

/** Values compare case-insensitively as text; booleans also match "true"/"false", numbers their digits. */
function norm(v: unknown): string {
  if (v === null || v === undefined) return 'none';
  if (typeof v === 'string') {
    const t = v.trim().toLowerCase();
    return t === 'null' ? 'none' : t;
  }
  if (typeof v === 'number' || typeof v === 'boolean') return String(v).toLowerCase();
  return shown(v).toLowerCase();
}

/** KV cache dtypes in one spelling: vLLM's `fp8` is E4M3, torch's names are the flag's. */
function kvNorm(v: unknown): string {
  const t = norm(v).replace(/^torch\./, '');
  if (t === 'fp8' || t === 'fp8_e4m3fn' || t === 'float8_e4m3fn' || t === 'fp8_e4m3') return 'fp8_e4m3';
  if (t === 'float8_e5m2' || t === 'fp8_e5m2') return 'fp8_e5m2';
  if (t === 'bfloat16') return 'bf16';
  if (t === 'float16' || t === 'half') return 'fp16';
  return t;
}

function passes(value: unknown, test: ValueTest, n: (v: unknown) => string = norm): boolean {
  const v = n(value);
  if (test.in && !test.in.some((x: Scalar) => n(x) === v)) return false;
  if (test.notIn && test.notIn.some((x: Scalar) => n(x) === v)) return false;
  return true;
}

function describeTest(test: ValueTest): string {
  const parts: string[] = [];
  if (test.in) parts.push(`one of ${test.in.map(shown).join(', ')}`);
  if (test.notIn) parts.push(`not ${test.notIn.map(shown).join(', ')}`);
  return parts.join(' and ') || 'any value';
}

/** A flag's value: the resolved one first, a dotted key read inside a dict or JSON string (`compilation_config.cudagraph_mode`). */
export function flagValue(ev: Evidence, field: string): Fact<FlagValue> | undefined {
  for (const rec of [ev.flags.resolved, ev.flags.written]) {
    const direct = ownValue(rec, field);
    if (direct) return direct;
  }
  const dot = field.indexOf('.');
  if (dot <= 0) return undefined;
  const parent = flagValue(ev, field.slice(0, dot));
  if (!parent) return undefined;
  let obj: unknown = parent.value;
  if (typeof obj === 'string') {
    try {
      obj = JSON.parse(obj);
    } catch {
      return undefined;
    }
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return undefined;
  const inner = ownValue(obj as Record<string, FlagValue>, field.slice(dot + 1));
  return inner === undefined ? undefined : { ...parent, value: inner };
}

function outcome(kind: ConditionKind, key: string, state: ConditionOutcome['state'], text: string, extra: Partial<ConditionOutcome> = {}): ConditionOutcome {
  return { kind, key, state, text, deciding: state === 'held' && DECIDING.has(kind), weight: WEIGHT[kind], ...extra };
}

function fromFact(f: Fact<unknown>): Partial<ConditionOutcome> {
  return { certainty: f.certainty, source: f.source, ...(f.where ? { where: f.where } : {}) };
}

function judgeValue(
  kind: 'flags' | 'env' | 'kvCacheDtype',
  key: string,
  label: string,
  f: Fact<unknown> | undefined,
  test: ValueTest,
  ctx: JudgeContext,
  check: string,
  n?: (v: unknown) => string,
): ConditionOutcome {
  if (f) {
    const ok = passes(f.value, test, n);
    return outcome(kind, key, ok ? 'held' : 'failed', `${label} is ${shown(f.value)} (${whereOf(f)})${ok ? '' : `; the rule needs ${describeTest(test)}`}`, fromFact(f));
  }
  const unset = test.unset ?? 'unknown';
  if (ctx.haveConfig && unset !== 'unknown') {
    const text = unset === 'held' ? `${label} is not set, and its default here is ${describeTest(test)}` : `${label} is not set, and its default here is safe`;
    return outcome(kind, key, unset, text, { certainty: 'likely', source: 'default' });
  }
  return outcome(kind, key, 'unknown', `${label} is not known (the rule needs ${describeTest(test)})`, { check });
}

const CHECK = {
  gpu: 'Find the GPU: `nvidia-smi --query-gpu=name,compute_cap --format=csv`, a discovery report, or --gpu.',
  quantization: "Read the model's config.json (`quantization_config.quant_method`) or the --quantization flag.",
  traits: "Read the model's config.json (`architectures`): it says whether the model is MoE, MLA or hybrid linear attention.",
  flag: (f: string) => `Read the resolved \`${f}\`: load the startup log (its server_args line) or /server_info.`,
  env: (n: string) => `Read the server's environment for ${n} (its unit file, compose environment, or /proc/PID/environ).`,
  version: (p: string) => `Read the installed ${p} version (\`pip show ${p}\`, or paste check_env / collect_env output).`,
  kv: 'Read the KV cache dtype from the startup log ("KV Cache is allocated … dtype") or --kv-cache-dtype.',
  signatures: 'Load the server log: the rule is confirmed by lines the engine prints at start-up or on failure.',
  cudaGraph: 'Probe once with CUDA graphs off (SGLang --disable-cuda-graph, vLLM --enforce-eager): answers that heal point at graph capture.',
  architecture: "Read the model's config.json (`architectures`).",
  kernels: (lib: string) => `Read which GPU architectures ${lib} carries: \`inference-doctor env HOST\` (its fatbin reader) or \`cuobjdump --list-elf\` on the library.`,
  engine: 'Say which engine serves the model (--engine, or load its log or /server_info).',
} as const;

function familyAndCc(ev: Evidence): { family?: GpuFamily; cc?: string; f?: Fact<unknown>; label: string } {
  const ccFact = ev.gpu.computeCapability;
  const nameFact = ev.gpu.name;
  const cc = ccString(ccFact?.value) ?? computeCapabilityOfName(nameFact?.value);
  let family = ev.gpu.family?.value;
  if (!family && (cc || nameFact)) {
    const g = gpuFamilyOf(cc, nameFact?.value);
    if (g !== 'other' || cc) family = g;
  }
  const f = ev.gpu.family ?? ccFact ?? nameFact;
  const name = nameFact?.value;
  const label = [name, cc && !name?.includes(`capability ${cc}`) ? `compute capability ${cc}` : undefined, family].filter(Boolean).join(', ');
  return { family, cc, f, label };
}

function ccNum(text: string): number {
  const [maj, min] = text.split('.').map(Number);
  return (maj ?? 0) * 10 + (min ?? 0);
}

function judgeGpu(ev: Evidence, when: NonNullable<DiagnosisRule['when']['gpu']>): ConditionOutcome {
  const g = familyAndCc(ev);
  const wanted = [when.family?.join('/'), when.cc ? `compute capability ${when.cc.min ?? '…'}–${when.cc.max ?? '…'}` : undefined].filter(Boolean).join(', ');
  if (!g.family && !g.cc) return outcome('gpu', 'gpu', 'unknown', `the GPU is not known (the rule covers ${wanted})`, { check: CHECK.gpu });
  const extra = g.f ? fromFact(g.f) : {};
  if (when.family && g.family && !when.family.includes(g.family)) return outcome('gpu', 'gpu', 'failed', `GPU ${g.label} is not ${when.family.join('/')}`, extra);
  if (when.cc) {
    if (!g.cc) {
      if (!when.family) return outcome('gpu', 'gpu', 'unknown', `the GPU's compute capability is not known (the rule covers ${wanted})`, { check: CHECK.gpu });
    } else {
      const n = ccNum(g.cc);
      if ((when.cc.min && n < ccNum(when.cc.min)) || (when.cc.max && n > ccNum(when.cc.max))) return outcome('gpu', 'gpu', 'failed', `GPU ${g.label} is outside ${wanted}`, extra);
    }
  }
  return outcome('gpu', 'gpu', 'held', `GPU ${g.label} (${g.f ? whereOf(g.f) : 'given'})`, extra);
}

function judgeQuantization(ev: Evidence, wanted: readonly string[]): ConditionOutcome {
  const q = ev.model.quantization;
  if (!q) return outcome('quantization', 'quantization', 'unknown', `the model's quantization is not known (the rule covers ${wanted.join(', ')})`, { check: CHECK.quantization });
  const v = q.value;
  // `fp8` and `fp8-block` are apart: per-tensor and per-block scales take different kernels. A rule
  // for any FP8 lists both.
  const held = wanted.includes(v);
  // Plain `fp8` may be block-scaled, and compressed-tensors may be any scheme: neither decides.
  const open = !held && ((v === 'fp8' && wanted.includes('fp8-block')) || v === 'compressed-tensors');
  if (open) return outcome('quantization', 'quantization', 'unknown', `quantization ${v} (${whereOf(q)}) may or may not be ${wanted.join(', ')}`, { check: CHECK.quantization });
  return outcome('quantization', 'quantization', held ? 'held' : 'failed', `quantization ${v} (${whereOf(q)})`, fromFact(q));
}

function judgeSignatures(ev: Evidence, kinds: readonly string[], ctx: JudgeContext): ConditionOutcome {
  for (const k of kinds) {
    const s = ev.signatures[k as keyof Evidence['signatures']];
    if (s) {
      const where = `${s.where ?? s.source} line ${s.firstLine}`;
      return outcome('signatures', 'signatures', 'held', `the log shows ${k} ${s.count > 1 ? `${s.count} times ` : ''}(${where}): ${s.firstText.slice(0, 160)}`, {
        certainty: 'certain',
        source: s.source,
        where,
      });
    }
  }
  if (ctx.logRead) return outcome('signatures', 'signatures', 'failed', `the log read shows none of ${kinds.join(', ')}`, { certainty: 'likely', source: 'log' });
  return outcome('signatures', 'signatures', 'unknown', `no server log was read (the rule is confirmed by ${kinds.join(', ')})`, { check: CHECK.signatures });
}

function cudaGraphFact(ev: Evidence, ctx: JudgeContext): Fact<boolean> | undefined {
  if (ev.runtime.cudaGraph) return ev.runtime.cudaGraph;
  for (const field of ['disable_cuda_graph', 'enforce_eager']) {
    const f = flagValue(ev, field);
    if (f) return { ...f, value: !(f.value === true || norm(f.value) === 'true') };
  }
  return ctx.haveConfig ? { value: true, source: 'launch', certainty: 'likely', where: 'default (CUDA graphs are on unless turned off)' } : undefined;
}

/** Every condition of the rule, in the order they are written. */
export function judgeRule(rule: DiagnosisRule, ev: Evidence, ctx: JudgeContext = judgeContext(ev)): ConditionOutcome[] {
  const out: ConditionOutcome[] = [];
  const w = rule.when;
  if (rule.engine !== 'any') {
    const e = ev.engine;
    if (!e) out.push(outcome('engine', 'engine', 'unknown', `the engine is not known (the rule is about ${rule.engine})`, { check: CHECK.engine }));
    else out.push(outcome('engine', 'engine', e.value === rule.engine ? 'held' : 'failed', `engine ${e.value} (${whereOf(e)})`, fromFact(e)));
  }
  if (w.gpu) out.push(judgeGpu(ev, w.gpu));
  if (w.quantization) out.push(judgeQuantization(ev, w.quantization));
  for (const [trait, want] of Object.entries(w.traits ?? {})) {
    const f = ev.model.traits[trait as keyof typeof ev.model.traits];
    if (!f) out.push(outcome('traits', `traits.${trait}`, 'unknown', `whether the model is ${trait} is not known`, { check: CHECK.traits }));
    else out.push(outcome('traits', `traits.${trait}`, f.value === want ? 'held' : 'failed', `the model is ${f.value ? '' : 'not '}${trait} (${whereOf(f)})`, fromFact(f)));
  }
  for (const [field, test] of Object.entries(w.flags ?? {})) {
    out.push(judgeValue('flags', `flags.${field}`, `\`${field}\``, flagValue(ev, field), test, ctx, CHECK.flag(field)));
  }
  for (const [name, test] of Object.entries(w.env ?? {})) {
    const envCtx = { ...ctx, haveConfig: ctx.haveConfig || Object.keys(ev.env).length > 0 };
    out.push(judgeValue('env', `env.${name}`, name, ownValue(ev.env, name), test, envCtx, CHECK.env(name)));
  }
  for (const [pkg, spec] of Object.entries(w.versions ?? {})) {
    if (!spec) continue;
    const f = ev.versions[pkg as keyof Evidence['versions']];
    if (!f) out.push(outcome('versions', `versions.${pkg}`, 'unknown', `the ${pkg} version is not known (the rule covers ${spec})`, { check: CHECK.version(pkg) }));
    else {
      const ok = satisfies(f.value, spec);
      out.push(outcome('versions', `versions.${pkg}`, ok ? 'held' : 'failed', `${pkg} ${f.value} (${whereOf(f)})${ok ? ` is in ${spec}` : ` is outside ${spec}`}`, fromFact(f)));
    }
  }
  if (w.kvCacheDtype) {
    const f = ev.model.kvCacheDtype ?? flagValue(ev, 'kv_cache_dtype');
    out.push(judgeValue('kvCacheDtype', 'kvCacheDtype', 'the KV cache dtype', f, w.kvCacheDtype, ctx, CHECK.kv, kvNorm));
  }
  if (w.signatures?.length) out.push(judgeSignatures(ev, w.signatures, ctx));
  if (w.cudaGraph !== undefined) {
    const f = cudaGraphFact(ev, ctx);
    if (!f) out.push(outcome('cudaGraph', 'cudaGraph', 'unknown', 'whether CUDA graphs are on is not known', { check: CHECK.cudaGraph }));
    else
      out.push(
        outcome('cudaGraph', 'cudaGraph', f.value === w.cudaGraph ? 'held' : 'failed', `CUDA graphs are ${f.value ? 'on' : 'off'} (${whereOf(f)})`, fromFact(f)),
      );
  }
  if (w.architecture?.length) {
    const f = ev.model.architecture;
    if (!f) out.push(outcome('architecture', 'architecture', 'unknown', "the model's architecture is not known", { check: CHECK.architecture }));
    else {
      const ok = w.architecture.some((re) => safeRegex(re)?.test(f.value) ?? false);
      out.push(outcome('architecture', 'architecture', ok ? 'held' : 'failed', `architecture ${f.value} (${whereOf(f)})`, fromFact(f)));
    }
  }
  for (const [lib, want] of Object.entries(w.kernels ?? {})) {
    if (!want) continue;
    const f = ev.kernels[lib as keyof Evidence['kernels']];
    const level = f?.value.level;
    if ((!f || !level) && want.unread === 'held')
      out.push(
        outcome('kernels', `kernels.${lib}`, 'held', `which GPU architectures ${lib} carries is not known; the rule stands on the rest`, {
          deciding: false,
          certainty: 'guess',
          check: CHECK.kernels(lib),
        }),
      );
    else if (!f || !level) out.push(outcome('kernels', `kernels.${lib}`, 'unknown', `which GPU architectures ${lib} carries is not known`, { check: CHECK.kernels(lib) }));
    else {
      const targets = [...f.value.sass, ...f.value.ptx].join(' ') || 'no device code';
      const text = `${lib} carries ${targets} (${whereOf(f)}): ${level === 'native' ? 'native code' : level} for ${f.value.gpuArch ?? 'this GPU'}`;
      out.push(outcome('kernels', `kernels.${lib}`, want.levels.includes(level) ? 'held' : 'failed', text, fromFact(f)));
    }
  }
  return out;
}

const regexCache = new Map<string, RegExp | null>();

/** A rule's architecture pattern, compiled once, case-insensitive; null when it does not compile. */
export function safeRegex(src: string): RegExp | null {
  let re = regexCache.get(src);
  if (re === undefined) {
    try {
      re = new RegExp(src, 'i');
    } catch {
      re = null;
    }
    regexCache.set(src, re);
  }
  return re;
}

/** 1 for certain, less for facts one step removed or guessed. */
export function certaintyFactor(c: Certainty | undefined): number {
  if (!c) return 1;
  return CERTAINTY_RANK[c] === 3 ? 1 : CERTAINTY_RANK[c] === 2 ? 0.85 : 0.6;
}
