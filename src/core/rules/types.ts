/** Types mirroring rules/known-bad.schema.json. */

export type Scalar = string | number | boolean | null;
export type ValueCondition = Scalar[] | { notIn: Scalar[] };

export interface GpuCondition {
  computeCapability?: { min?: number; max?: number } | { in: number[] };
  label?: string;
}

export interface RuleMatch {
  fields?: Record<string, ValueCondition>;
  gpu?: GpuCondition;
  quantization?: { in: string[]; modelHints?: string[] };
  model?: string[];
  versions?: Record<string, string>;
  env?: Record<string, string[]>;
}

export interface FlagSet {
  flag: string;
  field: string;
  value: Scalar;
  flagAliases?: string[];
}

export interface RuleFix {
  summary: string;
  set?: FlagSet[];
  remove?: { flag: string; field: string }[];
  env?: Record<string, string | null>;
  packages?: { name: string; range?: string; action?: 'pin' | 'upgrade' | 'rebuild'; note?: string }[];
}

export interface KnownBadRule {
  id: string;
  title: string;
  symptom: string;
  engine: 'sglang' | 'vllm';
  confidence: 'confirmed' | 'likely' | 'unconfirmed';
  sources: string[];
  match: RuleMatch;
  fix: RuleFix;
  alternatives?: RuleFix[];
  notes?: string;
  /** Set by the loader: where the rule came from (`builtin` or a file path). */
  origin?: string;
}

export interface RuleError {
  /** File or label the rule came from. */
  source: string;
  /** Rule id when known, else its index. */
  rule?: string;
  /** JSON Pointer into the file. */
  path: string;
  message: string;
}

export interface RuleLoadResult {
  rules: KnownBadRule[];
  errors: RuleError[];
  /** Ids listed under `disable`. */
  disabled: string[];
}

export interface MatchContext {
  /** Server-arg values keyed by dataclass field name (`moe_runner_backend`); null = left at default. */
  fields: Record<string, unknown>;
  /** e.g. 12.0; undefined when the GPU is unknown. */
  computeCapability?: number;
  modelName?: string;
  quantization?: string;
  /** Package -> installed version (`flashinfer-python` and `flashinfer` are the same package). */
  versions?: Record<string, string>;
  /** Environment of the server process, when known. */
  env?: Record<string, string>;
  /** Only rules for this engine (default: all). */
  engine?: 'sglang' | 'vllm';
}

export type ConditionKind = 'field' | 'gpu' | 'quantization' | 'model' | 'version' | 'env';

export interface ConditionResult {
  kind: ConditionKind;
  /** Field, package or variable name, or the kind itself. */
  key: string;
  state: 'held' | 'failed' | 'unknown';
  /** One human sentence, e.g. "applies to SM 12.x GPUs; the GPU is unknown". */
  message: string;
}

export interface RuleMatchResult {
  rule: KnownBadRule;
  /** `match`: every condition held; `possible`: none failed, some unknown. */
  status: 'match' | 'possible';
  held: ConditionResult[];
  unknown: ConditionResult[];
}
