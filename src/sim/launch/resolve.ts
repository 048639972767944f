/**
 * What `auto` (or an unset backend flag) becomes on each GPU architecture, in the simulator's own
 * small table, and the model traits the behaviour rules look at. The values are a plausible
 * per-architecture default set, close to what SGLang picks; they are not read from SGLang.
 */
import type { SimGpu } from './gpus';

export interface ModelTraits {
  /** The effective quantization: the flag, else guessed from the model path; null: none. */
  quantization: string | null;
  moe: boolean;
}

/** Quantization guessed from a checkpoint name when --quantization is not given. */
const QUANT_BY_NAME: readonly [RegExp, string][] = [
  [/mxfp4/i, 'mxfp4'],
  [/nvfp4|(?<![a-z])fp4(?![a-z])/i, 'modelopt_fp4'],
  [/(?<![a-z])fp8(?![a-z])/i, 'fp8'],
  [/(?<![a-z])awq(?![a-z])/i, 'awq'],
  [/(?<![a-z])gptq(?![a-z])/i, 'gptq'],
];

/** Mixture-of-experts checkpoints by name: "-A17B" active-parameter suffixes, MoE in the name, known families. */
const MOE_NAME = /-A\d+(\.\d+)?B(?![a-z])|(?<![a-z])moe(?![a-z])|mixtral|deepseek-(v2|v3|r1)|qwen3-next|gpt-oss|kimi-k2|minimax-m|glm-4\.[5-7]|glm-5/i;

export function modelTraits(given: Record<string, unknown>, moeOverride: boolean | undefined): ModelTraits {
  const path = typeof given.model_path === 'string' ? given.model_path : '';
  const flag = typeof given.quantization === 'string' && given.quantization !== 'none' ? given.quantization : null;
  const guessed = QUANT_BY_NAME.find(([re]) => re.test(path))?.[1] ?? null;
  return { quantization: flag ?? guessed, moe: moeOverride ?? MOE_NAME.test(path) };
}

/** Is this quantization an FP4 or FP8 one, as the tables below need to know. */
export const isFp4 = (q: string | null): boolean => q !== null && /fp4/.test(q);
export const isFp8 = (q: string | null): boolean => q !== null && /fp8/.test(q);

interface ArchDefaults {
  attention: string;
  /** MoE runner for FP4 MoE checkpoints, and for the others. */
  moeFp4: string;
  moe: string;
  fp4Gemm: string;
  fp8Gemm: string;
}

/** By compute capability major. */
const DEFAULTS: Record<number, ArchDefaults> = {
  8: { attention: 'flashinfer', moeFp4: 'triton', moe: 'triton', fp4Gemm: 'marlin', fp8Gemm: 'triton' },
  9: { attention: 'fa3', moeFp4: 'triton', moe: 'triton', fp4Gemm: 'marlin', fp8Gemm: 'deep_gemm' },
  10: { attention: 'trtllm_mha', moeFp4: 'flashinfer_trtllm', moe: 'triton', fp4Gemm: 'flashinfer_cutedsl', fp8Gemm: 'deep_gemm' },
  12: { attention: 'flashinfer', moeFp4: 'cutlass', moe: 'triton', fp4Gemm: 'flashinfer_cutlass', fp8Gemm: 'cutlass' },
};

export interface Resolution {
  field: string;
  /** What the command line said (undefined: not given). */
  given: unknown;
  value: unknown;
}

const unset = (v: unknown): boolean => v === undefined || v === null || v === 'auto';

/** Decides every auto backend; returns the decisions (for the log) and the resolved fields. */
export function resolveBackends(gpu: SimGpu, given: Record<string, unknown>, traits: ModelTraits): Resolution[] {
  const d = DEFAULTS[gpu.major] ?? DEFAULTS[8];
  const pick = (field: string, value: string): Resolution => ({ field, given: given[field], value: unset(given[field]) ? value : given[field] });
  return [
    pick('attention_backend', d.attention),
    pick('sampling_backend', 'flashinfer'),
    pick('moe_runner_backend', traits.moe ? (isFp4(traits.quantization) ? d.moeFp4 : d.moe) : 'auto'),
    pick('fp4_gemm_runner_backend', d.fp4Gemm),
    pick('fp8_gemm_runner_backend', d.fp8Gemm),
  ];
}

/** The server args as /server_info and the server_args= line show them: defaults, the command line, then the resolved backends. */
export function resolvedServerArgs(defaults: Record<string, unknown>, given: Record<string, unknown>, resolutions: Resolution[]): Record<string, unknown> {
  const args: Record<string, unknown> = { ...defaults, ...given };
  args.tokenizer_path = given.tokenizer_path ?? args.model_path;
  args.served_model_name = given.served_model_name ?? args.model_path;
  for (const r of resolutions) args[r.field] = r.value;
  return args;
}
