/**
 * Facts that follow from server arguments, whoever read them (the server_args line, /server_info,
 * a launch command, vLLM's args): the model path and what its name hints, the quantization, the
 * dtypes, the GPU count. One place, so every reader derives the same things the same way.
 */
import { putSlot, type Certainty, type Evidence, type Fact, type FlagValue, type ModelTrait, type Quantization } from './evidence';
import { hintsOfModelPath, normalizeQuantization, torchDtypeName } from './modelHints';
import { SECRET_ENV_NAME } from '../discovery/processes';

export type MakeFact = <T>(value: T, certainty: Certainty) => Fact<T>;

const own = (o: Record<string, FlagValue>, k: string): FlagValue | undefined => (Object.prototype.hasOwnProperty.call(o, k) ? o[k] : undefined);

/** The first of `keys` that holds a non-empty string. */
export function stringArg(args: Record<string, FlagValue>, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = own(args, k);
    if (typeof v === 'string' && v.trim()) return v.trim();
  }
  return undefined;
}

export function intArg(args: Record<string, FlagValue>, ...keys: string[]): number | undefined {
  for (const k of keys) {
    const v = own(args, k);
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : undefined;
    if (n !== undefined && Number.isInteger(n) && n > 0 && n <= 65536) return n;
  }
  return undefined;
}

/** GPUs per host the parallel sizes need: tp × pp × dp (dp 1 under DP attention), over nnodes. */
export function gpuCountOfArgs(args: Record<string, FlagValue>): number | undefined {
  const tp = intArg(args, 'tp_size', 'tensor_parallel_size');
  if (!tp) return undefined;
  const pp = intArg(args, 'pp_size', 'pipeline_parallel_size') ?? 1;
  const dpAttention = own(args, 'enable_dp_attention') === true || own(args, 'enable_dp_attention') === 'true';
  const dp = dpAttention ? 1 : (intArg(args, 'dp_size', 'data_parallel_size') ?? 1);
  const nnodes = intArg(args, 'nnodes') ?? 1;
  return Math.max(1, Math.round((tp * pp * dp) / nnodes));
}

export interface DeriveOptions {
  /** Certainty of facts read straight from the args (model path, quantization, dtype). */
  direct: Certainty;
  /** Certainty of the GPU count (the args need that many; the host may have more). */
  count: Certainty;
}

/** Model path (+ name hints as guesses), quantization, dtype, KV cache dtype and GPU count from server args. */
export function deriveFromArgs(ev: Evidence, args: Record<string, FlagValue>, make: MakeFact, opts: DeriveOptions): void {
  const path = stringArg(args, 'model_path', 'model');
  if (path) {
    putSlot(ev, ev.model, 'path', make(path, opts.direct), 'model.path');
    const hints = hintsOfModelPath(path);
    if (hints.quantization) putSlot(ev, ev.model, 'quantization', make(hints.quantization, 'guess'), 'model.quantization');
    for (const [t, v] of Object.entries(hints.traits)) if (v) putSlot(ev, ev.model.traits, t as ModelTrait, make(true, 'guess'), `model.traits.${t}`);
  }
  const q = normalizeQuantization(stringArg(args, 'quantization'));
  const hinted = path ? hintsOfModelPath(path).quantization : undefined;
  // `fp8` is SGLang's and vLLM's method name for block-scaled FP8 checkpoints too: the name refines it.
  if (q === 'fp8' && hinted === 'fp8-block') putSlot(ev, ev.model, 'quantization', make<Quantization>('fp8-block', 'likely'), 'model.quantization');
  else if (q) putSlot(ev, ev.model, 'quantization', make(q, opts.direct), 'model.quantization');
  const dtype = stringArg(args, 'dtype');
  if (dtype && dtype !== 'auto') putSlot(ev, ev.model, 'dtype', make(torchDtypeName(dtype), opts.direct), 'model.dtype');
  const kv = stringArg(args, 'kv_cache_dtype');
  if (kv && kv !== 'auto') putSlot(ev, ev.model, 'kvCacheDtype', make(kv, opts.direct), 'model.kvCacheDtype');
  const count = gpuCountOfArgs(args);
  if (count) putSlot(ev, ev.gpu, 'count', make(count, opts.count), 'gpu.count');
}

/** The value to keep for an environment variable (secret-looking names are kept as a name only): `(redacted)` for secret-looking names. */
export function redactEnv(name: string, value: string): string {
  return SECRET_ENV_NAME.test(name) ? '(redacted)' : value;
}
