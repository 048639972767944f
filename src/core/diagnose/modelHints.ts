/**
 * What a model's name or class says about it: the quantization (`-FP8`, `-NVFP4`, `-AWQ`) and the
 * traits kernel rules key on (MoE, MLA, hybrid linear attention). Names are hints, so readers file
 * path guesses as `guess`; a model class from a log (`DeepseekV3ForCausalLM`) is `likely`.
 */
import type { ModelTrait, Quantization } from './evidence';

export interface ModelHints {
  quantization?: Quantization;
  traits: Partial<Record<ModelTrait, boolean>>;
}

/** The last two path segments (`org/name`), so `/data/fp8-models/llama-8b` is not read as FP8. */
function modelName(path: string): string {
  const parts = path
    .replace(/\\/g, '/')
    .replace(/\/+$/, '')
    .split('/')
    .filter((p) => p && p !== 'snapshots' && !/^[0-9a-f]{40}$/.test(p));
  // Hugging Face cache: …/models--Org--Name/snapshots/<sha> → Org/Name.
  const hub = parts.find((p) => p.startsWith('models--'));
  if (hub) return hub.slice('models--'.length).replace(/--/g, '/');
  return parts.slice(-2).join('/');
}

const QUANT_IN_NAME: readonly [RegExp, Quantization][] = [
  [/nvfp4|modelopt[-_]?fp4|(?<![a-z])fp4(?![a-z0-9])/i, 'nvfp4'],
  [/mxfp4/i, 'mxfp4'],
  [/w4a?fp8|w4afp8/i, 'w4afp8'],
  [/fp8[-_]?block|block[-_]?fp8/i, 'fp8-block'],
  [/(?<![a-z])fp8|float8|f8e4m3/i, 'fp8'],
  [/(?<![a-z])awq(?![a-z])/i, 'awq'],
  [/(?<![a-z])gptq(?![a-z])/i, 'gptq'],
  [/w8a8|int8[-_]?w8a8/i, 'w8a8'],
  [/w4a16/i, 'w4a16'],
  [/(?<![a-z])int4(?![a-z])|(?<![a-z0-9])4bit(?![a-z])/i, 'int4'],
  [/(?<![a-z])int8(?![a-z])|(?<![a-z0-9])8bit(?![a-z])/i, 'int8'],
  [/\.gguf$|(?<![a-z])gguf(?![a-z])/i, 'gguf'],
  [/bnb|bitsandbytes/i, 'bitsandbytes'],
  [/(?<![a-z])bf16(?![a-z0-9])/i, 'bf16'],
  [/(?<![a-z])fp16(?![a-z0-9])/i, 'fp16'],
];

/** DeepSeek-V2/V3/R1 and models built on them (Kimi K2, Moonlight): MLA attention + MoE. */
const DEEPSEEK_MLA = /deepseek[-_]?(?:v2|v3|r1|coder[-_]?v2|prover[-_]?v2)|kimi[-_]?k2|moonlight|minicpm3/i;
const HYBRID_LINEAR =
  /qwen3[-_.]?next|qwen3\.[5-9]|kimi[-_]?linear|minimax[-_]?(?:m1|text[-_]?01)|nemotron[-_]?(?:h|3(?![0-9])|nano[-_]?(?:9b|12b))|falcon[-_]?h1|jamba|granite[-_]?4\.\d[-_]?h|mamba|zamba/i;
const MOE_NAME =
  /(?<![a-z0-9])A\d+(?:\.\d+)?B(?![a-z])|moe|mixtral|deepseek[-_]?(?:v2|v3|r1)|qwen3[-_.]?next|gpt[-_]?oss|kimi[-_]?k2|glm[-_]?4\.[5-9]|minimax[-_]?m[12]|llama[-_]?4|dbrx|grok|jamba|ernie[-_]?4\.5[-_]?\d+b[-_]?a/i;

/**
 * Hints from a model path or Hugging Face id. Distilled models (`DeepSeek-R1-Distill-Qwen-14B`)
 * are their student's architecture: no MLA, no MoE from the teacher's name.
 */
export function hintsOfModelPath(path: string | undefined | null): ModelHints {
  const out: ModelHints = { traits: {} };
  if (typeof path !== 'string' || !path.trim()) return out;
  const name = modelName(path.slice(0, 2000));
  for (const [re, q] of QUANT_IN_NAME) {
    if (re.test(name)) {
      out.quantization = q;
      break;
    }
  }
  const distill = /distill/i.test(name);
  if (!out.quantization && /gpt[-_]?oss/i.test(name)) out.quantization = 'mxfp4'; // gpt-oss ships MXFP4 experts
  if (!distill && out.quantization === 'fp8' && /deepseek[-_]?(?:v3|r1)|kimi[-_]?k2/i.test(name)) out.quantization = 'fp8-block';
  if (!out.quantization && !distill && /^deepseek-ai\/deepseek-(?:v3|r1)(?:[-.]\d+)?(?:-\d+)?$/i.test(name)) out.quantization = 'fp8-block';
  if (!distill && DEEPSEEK_MLA.test(name)) {
    out.traits.mla = true;
    if (!/minicpm3/i.test(name)) out.traits.moe = true;
  }
  if (HYBRID_LINEAR.test(name)) out.traits.hybridLinearAttention = true;
  if (!distill && MOE_NAME.test(name)) out.traits.moe = true;
  if (/(?<![a-z])(?:vl|vision|omni)(?![a-z])|llava|pixtral|-vl-/i.test(name)) out.traits.multimodal = true;
  return out;
}

/** Traits of a model class as SGLang and vLLM log it (`Qwen3NextForCausalLM`, `DeepseekV3ForCausalLM`). */
export function traitsOfArchitecture(arch: string | undefined | null): Partial<Record<ModelTrait, boolean>> {
  const t: Partial<Record<ModelTrait, boolean>> = {};
  if (typeof arch !== 'string' || !arch) return t;
  const a = arch.slice(0, 200);
  if (/^Deepseek(?:V2|V3|V32)|^KimiK2|^DeepseekVL2|^MiniCPM3/i.test(a)) t.mla = true;
  if (
    /Moe|^Mixtral|^Deepseek(?:V2|V3|V32)|^Qwen3Next|^Qwen3_?5Moe|^GptOss|^Llama4|^Glm4Moe|^MiniMaxM[12]|^Dbrx|^Grok|^Jamba|^Ernie4_5_Moe|^KimiK2|^Step3/i.test(
      a,
    )
  )
    t.moe = true;
  if (/^Qwen3Next|^Qwen3_?5|^KimiLinear|^MiniMaxM1|^MiniMaxText01|^NemotronH|^FalconH1|^Jamba|^GraniteMoeHybrid|^Mamba|^Zamba|^Plamo2/i.test(a))
    t.hybridLinearAttention = true;
  if (/VL|Vision|Llava|Omni|ConditionalGeneration|Pixtral|Mllama/.test(a)) t.multimodal = true;
  if (/MTP|Eagle|NextN/i.test(a)) t.mtp = true;
  return t;
}

/**
 * A quantization method as servers name it (`modelopt_fp4`, `compressed-tensors`, `awq_marlin`,
 * `fp8`, `w8a8_int8`, `mxfp4`, a torch dtype) in this model's words, or undefined for `auto`,
 * None and unknown names.
 */
export function normalizeQuantization(v: unknown): Quantization | undefined {
  if (typeof v !== 'string') return undefined;
  const s = v.trim().toLowerCase();
  if (!s || s === 'none' || s === 'auto') return undefined;
  if (/modelopt_?fp4|nvfp4|^fp4$|w4a4_nvfp4/.test(s)) return 'nvfp4';
  if (/mxfp4|quark_mxfp4/.test(s)) return 'mxfp4';
  if (/w4afp8|w4a8_fp8/.test(s)) return 'w4afp8';
  if (/blockwise|fp8[-_]?block/.test(s)) return 'fp8-block';
  if (/fp8|float8/.test(s)) return 'fp8';
  if (/^awq/.test(s)) return 'awq';
  if (/^gptq/.test(s)) return 'gptq';
  if (/w8a8/.test(s)) return 'w8a8';
  if (/w4a16|wna16/.test(s)) return 'w4a16';
  if (/^int4|^qoq/.test(s)) return 'int4';
  if (/^int8/.test(s)) return 'int8';
  if (s === 'gguf') return 'gguf';
  if (/bitsandbytes|bnb/.test(s)) return 'bitsandbytes';
  if (s === 'compressed-tensors' || s === 'compressed_tensors') return 'compressed-tensors';
  if (/bfloat16|^bf16$/.test(s)) return 'bf16';
  if (/float16|^fp16$|^half$/.test(s)) return 'fp16';
  if (/float32|^fp32$/.test(s)) return 'fp32';
  return undefined;
}

/** A torch dtype as logged (`torch.float8_e4m3fn`, `torch.bfloat16`) in the KV-cache flag's words (`fp8_e4m3`, `bf16`). */
export function kvDtypeOfTorch(v: string): string {
  const s = v.trim().replace(/^torch\./, '');
  switch (s) {
    case 'float8_e4m3fn':
    case 'float8_e4m3fnuz':
      return 'fp8_e4m3';
    case 'float8_e5m2':
    case 'float8_e5m2fnuz':
      return 'fp8_e5m2';
    case 'bfloat16':
      return 'bf16';
    case 'float16':
    case 'half':
      return 'fp16';
    case 'float32':
      return 'fp32';
    case 'float4_e2m1fn_x2':
      return 'fp4_e2m1';
    default:
      return s;
  }
}

/** `torch.bfloat16` → `bfloat16`. */
export function torchDtypeName(v: string): string {
  return v.trim().replace(/^torch\./, '');
}
