/**
 * What is known about one deployment, as evidence for the diagnosis engine: every fact carries
 * where it came from and how sure it is, so a rule can weigh a GPU read from nvidia-smi above one
 * guessed from a file name, and two sources that disagree stay visible as a conflict instead of
 * one silently winning. Readers (fromLaunch, fromSglangLog, …) each build an Evidence; merge them
 * with mergeEvidence. Pure data, no I/O, no vscode import.
 */
import type { CompatLevel } from '../gpu/gpus';
import type { ReasonCode, VerdictKind } from '../detect/types';
import type { ProbeErrorKind, ProbeStatus } from '../probe/types';

/** Who told us. */
export type EvidenceSource =
  | 'launch' // a launch command's flags and environment
  | 'log' // a server log (SGLang or vLLM)
  | 'server-info' // SGLang's /server_info
  | 'discovery' // this project's environment discovery (nvidia-smi, the Python probe, fatbin reader)
  | 'check-env' // `python -m sglang.check_env`
  | 'collect-env' // vLLM's collect_env.py
  | 'probe' // a probe of the running server
  | 'model-config' // the model's config.json
  | 'user' // the user said so
  | 'file-hint'; // a hint around a launch command: image tag, comment, file name

/**
 * `certain`: read from the thing itself (nvidia-smi, a resolved server arg). `likely`: read, but
 * one step removed (a written flag the server may override, a count from CUDA_VISIBLE_DEVICES).
 * `guess`: inferred from names (`h100.sh`, `-FP8` in a model path).
 */
export type Certainty = 'certain' | 'likely' | 'guess';

export const CERTAINTY_RANK: Readonly<Record<Certainty, number>> = { guess: 1, likely: 2, certain: 3 };

export interface Fact<T> {
  value: T;
  source: EvidenceSource;
  certainty: Certainty;
  /** Human words for where: "server log line 12", "compose.yaml line 4", "/server_info". */
  where?: string;
}

export const GPU_FAMILIES = ['ampere', 'ada', 'hopper', 'blackwell-dc', 'blackwell-rtx', 'rocm-cdna', 'rocm-rdna', 'other'] as const;
export type GpuFamily = (typeof GPU_FAMILIES)[number];

export interface GpuEvidence {
  name?: Fact<string>;
  /** `major.minor`, e.g. "12.0" (core/gpu parseComputeCap reads it back). */
  computeCapability?: Fact<string>;
  family?: Fact<GpuFamily>;
  count?: Fact<number>;
  memoryMiB?: Fact<number>;
}

export type Engine = 'sglang' | 'vllm';

export const VERSION_KEYS = [
  'sglang',
  'sgl-kernel',
  'flashinfer',
  'torch',
  /** The CUDA that torch and the kernels were built for (`+cu130`, "CUDA used to build PyTorch"). */
  'cuda',
  /** The NVIDIA (or ROCm) driver. */
  'driver',
  /** The newest CUDA the driver supports (nvidia-smi's banner). */
  'cuda-driver',
  'nvcc',
  'vllm',
  'triton',
  'transformers',
  'python',
  'rocm',
] as const;
export type VersionKey = (typeof VERSION_KEYS)[number];

/**
 * How the weights are stored. `fp8-block`: FP8 with per-block scales (DeepSeek-V3's
 * `weight_scale_inv`); `w8a8`: int8 weights and activations; `compressed-tensors`: that format with
 * the scheme not known yet.
 */
export const QUANTIZATIONS = [
  'fp8',
  'fp8-block',
  'nvfp4',
  'mxfp4',
  'awq',
  'gptq',
  'w8a8',
  'w4a16',
  'w4afp8',
  'int4',
  'int8',
  'gguf',
  'bitsandbytes',
  'compressed-tensors',
  'bf16',
  'fp16',
  'fp32',
] as const;
export type Quantization = (typeof QUANTIZATIONS)[number];

export const MODEL_TRAITS = ['moe', 'mla', 'hybridLinearAttention', 'slidingWindow', 'multimodal', 'mtp'] as const;
export type ModelTrait = (typeof MODEL_TRAITS)[number];

export interface ModelEvidence {
  path?: Fact<string>;
  /** The model class: `DeepseekV3ForCausalLM`. */
  architecture?: Fact<string>;
  quantization?: Fact<Quantization>;
  /** Activation / weight dtype in torch's words without `torch.`: bfloat16, float16. */
  dtype?: Fact<string>;
  /** KV cache dtype in the flag's words: fp8_e4m3, fp8_e5m2, bf16, fp16. */
  kvCacheDtype?: Fact<string>;
  traits: Partial<Record<ModelTrait, Fact<boolean>>>;
}

/** A flag's value: JSON-like, as a launch command, a Python repr or /server_info gives it. */
export type FlagValue = null | boolean | number | string | FlagValue[] | { [key: string]: FlagValue };

export interface FlagsEvidence {
  /** field → value as written (launch command, vLLM's non-default args). */
  written: Record<string, Fact<FlagValue>>;
  /** field → value the server resolved (/server_info, the server_args line, backend-selection lines). */
  resolved: Record<string, Fact<FlagValue>>;
}

export interface RuntimeEvidence {
  /** CUDA graphs were captured (true) or are off (false). */
  cudaGraph?: Fact<boolean>;
  /** vLLM: the CUDA graph modes captured (`PIECEWISE`, `FULL`, `FULL_AND_PIECEWISE`). */
  cudagraphMode?: Fact<string>;
  /** vLLM: torch.compile level / mode. */
  compileMode?: Fact<string>;
  kvCacheTokens?: Fact<number>;
}

export const LOG_SIGNATURE_KINDS = [
  'nan-detected', // "Detected errors during sampling! NaN in the logits."
  'nan-happened', // matched_stop "NaN happened" in a request log
  'probability-tensor-inf-nan', // torch.multinomial on NaN/inf probabilities
  'dropped-scales', // "Parameter …weight_scale_inv not found in params_dict": scales ignored by the loader
  'dropped-params', // the same for a non-scale parameter
  'unsupported-arch', // "Unsupported architecture" (FlashInfer TRT-LLM runners, CUTLASS)
  'kernel-missing', // "no kernel image is available for execution on the device"
  'torch-arch-missing', // "… with CUDA capability sm_120 is not compatible with the current PyTorch installation"
  'cuda-illegal-memory', // "an illegal memory access was encountered"
  'cuda-error', // any other "CUDA error"
  'oom', // torch.OutOfMemoryError / "CUDA out of memory"
  'no-valid-tactics', // TRT-LLM GEMM without a kernel for this GPU
  'package-too-old', // "X is installed with version V, which is less than the minimum required version M"
  'cuda-driver-too-old', // "CUDA driver version is insufficient for CUDA runtime version"
  'jit-fallback', // FlashInfer "Prebuilt kernels not found, using JIT backend"
  'scheduler-exception', // SGLang "Scheduler hit an exception"
  'engine-core-failed', // vLLM "Engine core initialization failed"
] as const;
export type LogSignatureKind = (typeof LOG_SIGNATURE_KINDS)[number];

export interface LogSignature {
  kind: LogSignatureKind;
  count: number;
  /** 1-based line of the first occurrence in the log it was read from. */
  firstLine: number;
  /** That line, cut to 500 characters. */
  firstText: string;
  source: EvidenceSource;
  /** The log's label ("server log"). */
  where?: string;
}

export interface ProbeEvidence {
  verdict: VerdictKind;
  status: ProbeStatus;
  /** Codes of the reasons that made the verdict. */
  reasons: ReasonCode[];
  /** Codes of `suspect` reasons (shown, never part of the verdict). */
  suspects: ReasonCode[];
  finishReason: string | null;
  matchedStop: string | number | null;
  errorKind?: ProbeErrorKind;
  /** Which probe: a quick-probe prompt id, a sweep row. */
  label?: string;
  source: EvidenceSource;
  where?: string;
}

export type KernelLibrary = 'sgl-kernel' | 'flashinfer' | 'flashinfer-jit' | 'vllm' | 'torch';

/** Which GPU architectures an installed library carries code for. */
export interface KernelArchCoverage {
  /** SASS targets, sorted: `sm_90a`, `sm_100`, `sm_120`. */
  sass: string[];
  /** PTX targets, sorted: `compute_90`. */
  ptx: string[];
  /** How many files were read. */
  files: number;
  /** Every file was read to the end (no cut, no unreadable file). */
  complete: boolean;
  /** The GPU it was judged against, and the judgement (core/gpu compatibility). */
  gpuArch?: string;
  level?: CompatLevel;
}

export interface EvidenceConflict {
  /** Dotted path of the fact: `gpu.computeCapability`, `flags.resolved.attention_backend`. */
  path: string;
  kept: Fact<unknown>;
  other: Fact<unknown>;
}

export interface Evidence {
  engine?: Fact<Engine>;
  gpu: GpuEvidence;
  versions: Partial<Record<VersionKey, Fact<string>>>;
  model: ModelEvidence;
  flags: FlagsEvidence;
  /** Environment variables, name → value. */
  env: Record<string, Fact<string>>;
  runtime: RuntimeEvidence;
  signatures: Partial<Record<LogSignatureKind, LogSignature>>;
  probes: ProbeEvidence[];
  kernels: Partial<Record<KernelLibrary, Fact<KernelArchCoverage>>>;
  conflicts: EvidenceConflict[];
}

/** At most this many conflicts are kept (a log repeating one disagreement must not grow memory). */
export const MAX_CONFLICTS = 200;
/** At most this many keys per record (flags, env) from one reader. */
export const MAX_RECORD_KEYS = 4000;

export function emptyEvidence(): Evidence {
  return {
    gpu: {},
    versions: {},
    model: { traits: {} },
    flags: { written: {}, resolved: {} },
    env: {},
    runtime: {},
    signatures: {},
    probes: [],
    kernels: {},
    conflicts: [],
  };
}

export function fact<T>(value: T, source: EvidenceSource, certainty: Certainty, where?: string): Fact<T> {
  return where === undefined ? { value, source, certainty } : { value, source, certainty, where };
}

// ---------------------------------------------------------------------------------------------
// Records keyed by foreign text (flag fields, env names, dict keys): `__proto__` must stay a key.

/** The own value of `key`, never one inherited from Object.prototype. */
export function ownValue<T>(rec: Record<string, T>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(rec, key) ? rec[key] : undefined;
}

/** Sets `key` as an own data property, so `__proto__` or `constructor` from a log is just a key. */
export function setOwn<T>(rec: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(rec, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Stable text of a value for equality: object keys sorted, NaN kept apart from null. */
export function stableText(v: unknown, depth = 0): string {
  if (depth > 64) return '…';
  if (typeof v === 'number') return Number.isNaN(v) ? 'NaN' : Object.is(v, -0) ? '0' : String(v);
  if (v === null || typeof v !== 'object') return v === undefined ? 'undefined' : JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map((x) => stableText(x, depth + 1)).join(',')}]`;
  const keys = Object.keys(v).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableText((v as Record<string, unknown>)[k], depth + 1)}`).join(',')}}`;
}

export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b) return false;
  if (typeof a !== 'object' && !(typeof a === 'number' && Number.isNaN(a) && Number.isNaN(b))) return false;
  return stableText(a) === stableText(b);
}

function recordConflict(conflicts: EvidenceConflict[], c: EvidenceConflict): void {
  const otherText = stableText(c.other.value);
  const keptText = stableText(c.kept.value);
  for (const x of conflicts) {
    if (x.path !== c.path) continue;
    const xo = stableText(x.other.value);
    const xk = stableText(x.kept.value);
    // The same disagreement seen again (either way round) is one conflict.
    if ((xo === otherText && xk === keptText) || (xo === keptText && xk === otherText)) return;
  }
  if (conflicts.length < MAX_CONFLICTS) conflicts.push(c);
}

/**
 * Puts `incoming` at `key`: a new key takes it; the same value keeps the more certain of the two;
 * a different value keeps the more certain (the one already there on a tie) and records a conflict.
 * Returns false when the record is full and the key is new.
 */
export function putFact<T>(
  rec: Record<string, Fact<T>>,
  key: string,
  incoming: Fact<T>,
  conflicts: EvidenceConflict[],
  path: string,
  maxKeys = Infinity,
): boolean {
  const cur = ownValue(rec, key);
  if (!cur) {
    if (Object.keys(rec).length >= maxKeys) return false;
    setOwn(rec, key, incoming);
    return true;
  }
  const up = CERTAINTY_RANK[incoming.certainty] > CERTAINTY_RANK[cur.certainty];
  if (sameValue(cur.value, incoming.value)) {
    if (up) setOwn(rec, key, incoming);
    return true;
  }
  const kept = up ? incoming : cur;
  const other = up ? cur : incoming;
  if (up) setOwn(rec, key, incoming);
  recordConflict(conflicts, { path, kept, other });
  return true;
}

/** The typed slots of an Evidence as records, for putFact. */
type Slots = Record<string, Fact<unknown>>;

/** Adds a log signature occurrence (counts add; the first occurrence already there stays). */
export function putSignature(ev: Evidence, sig: LogSignature): void {
  const cur = ev.signatures[sig.kind];
  if (!cur) ev.signatures[sig.kind] = { ...sig };
  else cur.count += sig.count;
}

/**
 * Everything `b` knows added to what `a` knows, as a new Evidence (neither input changes). For
 * each fact the more certain one is kept; on a tie `a`'s; a different value is recorded in
 * `conflicts` (with the conflicts each side already had). Signature counts add and keep `a`'s
 * first occurrence; probes are listed `a`'s first.
 */
export function mergeEvidence(a: Evidence, b: Evidence): Evidence {
  const out = emptyEvidence();
  absorb(out, a);
  absorb(out, b);
  return out;
}

/** Merges any number of Evidence objects, left to right. */
export function mergeAll(...all: Evidence[]): Evidence {
  const out = emptyEvidence();
  for (const e of all) absorb(out, e);
  return out;
}

function absorbSlots(target: Slots, from: Slots | undefined, conflicts: EvidenceConflict[], prefix: string): void {
  if (!from) return;
  for (const key of Object.keys(from)) {
    const f = ownValue(from, key);
    if (f && typeof f === 'object' && 'certainty' in f) putFact(target, key, f, conflicts, `${prefix}${key}`);
  }
}

/** Adds `from` into `into` in place (what mergeEvidence does). */
export function absorb(into: Evidence, from: Evidence): void {
  for (const c of from.conflicts ?? []) recordConflict(into.conflicts, c);
  const conflicts = into.conflicts;
  if (from.engine) putEngine(into, from.engine);
  absorbSlots(into.gpu as Slots, from.gpu as Slots, conflicts, 'gpu.');
  absorbSlots(into.versions, from.versions, conflicts, 'versions.');
  const { traits, ...model } = from.model ?? { traits: {} };
  absorbSlots(into.model as unknown as Slots, model, conflicts, 'model.');
  absorbSlots(into.model.traits, traits, conflicts, 'model.traits.');
  absorbSlots(into.flags.written, from.flags?.written, conflicts, 'flags.written.');
  absorbSlots(into.flags.resolved, from.flags?.resolved, conflicts, 'flags.resolved.');
  absorbSlots(into.env, from.env, conflicts, 'env.');
  absorbSlots(into.runtime as Slots, from.runtime as Slots, conflicts, 'runtime.');
  absorbSlots(into.kernels, from.kernels, conflicts, 'kernels.');
  for (const s of Object.values(from.signatures ?? {})) if (s) putSignature(into, s);
  for (const p of from.probes ?? []) into.probes.push(p);
}

// ---------------------------------------------------------------------------------------------
// Small writers the readers share.

/** Writes one typed slot (`gpu.name`, `versions.torch`, …) through putFact. */
export function putSlot<R extends object, K extends keyof R & string>(ev: Evidence, rec: R, key: K, incoming: NonNullable<R[K]>, path: string): void {
  putFact(rec as unknown as Slots, key, incoming as unknown as Fact<unknown>, ev.conflicts, path);
}

export function putEngine(ev: Evidence, incoming: Fact<Engine>): void {
  const holder: Record<string, Fact<Engine>> = ev.engine ? { engine: ev.engine } : {};
  putFact(holder, 'engine', incoming, ev.conflicts, 'engine');
  ev.engine = holder.engine;
}
