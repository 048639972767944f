/**
 * Diagnosis rules: conditions on mechanisms (kernel path × GPU family × dtype × version range ×
 * model traits) over Evidence, each with the symptoms it explains, the fix in the order to try,
 * what would rule it out, its public sources and cases built from those sources' facts.
 * Rules are data (rules/diagnosis/*.json, checked by rules/diagnosis/rule.schema.json); this is
 * their type. No vscode import.
 */
import type { CompatLevel } from '../../gpu/gpus';
import type { GpuFamily, KernelLibrary, LogSignatureKind, ModelTrait, Quantization, VersionKey } from '../evidence';
import type { ReasonCode } from '../../detect/types';

/** What the user sees. `token0-flood`: `!!!!` (or another token 0) up to max_tokens. */
export const SYMPTOMS = ['nan', 'token0-flood', 'gibberish', 'repetition', 'accuracy-drop', 'crash', 'empty'] as const;
export type Symptom = (typeof SYMPTOMS)[number];

export type RuleEngine = 'sglang' | 'vllm' | 'any';

export type Scalar = string | number | boolean | null;

/**
 * A flag or environment variable's value. `unset` says what it means when no source gives the
 * value (the rule author knows the default for the GPU and versions the rule covers):
 * `held` (the default is one of `in`), `failed` (the default is safe), `unknown` (the default
 * depends on things we may not know). Default `unknown`.
 */
export interface ValueTest {
  in?: Scalar[];
  notIn?: Scalar[];
  unset?: 'held' | 'failed' | 'unknown';
}

export interface RuleWhen {
  gpu?: {
    family?: GpuFamily[];
    /** Compute capability range, inclusive, as "12.0". */
    cc?: { min?: string; max?: string };
  };
  quantization?: Quantization[];
  /** Model traits that must be true (true) or false (false). */
  traits?: Partial<Record<ModelTrait, boolean>>;
  /** Flags by field: SGLang's dataclass field (`moe_runner_backend`), vLLM's EngineArgs name (`kv_cache_dtype`). */
  flags?: Record<string, ValueTest>;
  env?: Record<string, ValueTest>;
  /** PEP 440 specifiers: `{"flashinfer": ">=0.6.16.post4,<0.6.18"}`. */
  versions?: Partial<Record<VersionKey, string>>;
  /** The KV cache dtype, in the flag's words (fp8_e4m3, fp8_e5m2, fp8, bf16, auto). */
  kvCacheDtype?: ValueTest;
  /** At least one of these log signatures was seen (crash rules key on them). */
  signatures?: LogSignatureKind[];
  /** CUDA graphs on (true) or off (false). */
  cudaGraph?: boolean;
  /**
   * What an installed library carries for the GPU (discovery's fatbin reader): held when its
   * level is one of `levels` (`none`, `no-device-code`, `ptx-jit`: no native code for the GPU).
   * `unread: 'held'`: a rule that stands on other evidence (a GPU family and a crash line) keeps
   * standing while the library was not read, but fails once its targets show native code.
   */
  kernels?: Partial<Record<KernelLibrary, { levels: CompatLevel[]; unread?: 'held' }>>;
  /**
   * The model's architecture class matches one of these regular expressions. Only where the
   * mechanism is tied to one model family's code (a model file's bug), never as a stand-in for a
   * trait.
   */
  architecture?: string[];
}

export interface FixStep {
  /** CLI flag → value, spelled as the engine's CLI names; `true` for a bare switch. */
  flags?: Record<string, string | number | boolean>;
  /** Variable → value, or null to unset it. */
  env?: Record<string, string | null>;
  packages?: { name: string; specifier?: string; action: 'pin' | 'upgrade' | 'rebuild' }[];
  /** One sentence: what this step does and why it is the next to try. */
  note: string;
}

/** A case built from a source's facts: the evidence it reports, and what the rule must say. */
export interface RuleCase {
  name: string;
  given: EvidenceSpec;
  expect: 'match' | 'possible' | 'none';
}

/**
 * Compact evidence for rule cases, the CLI's --gpu/--model/… options and tests. Every fact is
 * `certain` unless `certainty` says otherwise.
 */
export interface EvidenceSpec {
  engine?: 'sglang' | 'vllm';
  /** A device name ("NVIDIA RTX PRO 6000 Blackwell") or a compute capability ("12.0"). */
  gpu?: string;
  quantization?: Quantization;
  traits?: ModelTrait[];
  architecture?: string;
  model?: string;
  /** Flags by field, as resolved (what the server runs with). */
  flags?: Record<string, Scalar>;
  env?: Record<string, string>;
  versions?: Partial<Record<VersionKey, string>>;
  kvCacheDtype?: string;
  signatures?: LogSignatureKind[];
  cudaGraph?: boolean;
  /** Libraries with no native code for the GPU: their fatbin level (`none`, `ptx-jit`, …). */
  kernels?: Partial<Record<KernelLibrary, CompatLevel>>;
  /** Probe reason codes seen in the answers (the verdict follows from them). */
  probeReasons?: ReasonCode[];
  symptom?: Symptom;
  certainty?: 'certain' | 'likely' | 'guess';
}

export interface DiagnosisRule {
  /** Kebab case, engine first: `sglang-fp4-moe-cutlass-sm120`. */
  id: string;
  title: string;
  engine: RuleEngine;
  symptoms: Symptom[];
  /** Why it happens, in one to three sentences. */
  mechanism: string;
  when: RuleWhen;
  /** Evidence that raises the score when present, never required. */
  supports?: { signatures?: LogSignatureKind[]; probeReasons?: ReasonCode[] };
  /** Steps in the order to try them. */
  fix: FixStep[];
  /** What would show this is not the cause. */
  ruleOut: string[];
  /** Public issue / PR / release-note links the rule is built from. */
  sources: string[];
  cases: RuleCase[];
}
