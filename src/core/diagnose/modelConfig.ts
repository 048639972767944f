/**
 * Evidence from a model's Hugging Face `config.json` (and ModelOpt's `hf_quant_config.json`): the
 * architecture and the traits it implies, the dtype, and the quantization as the checkpoint
 * stores it — FP8 with `weight_block_size` is block-scaled, compressed-tensors names its scheme in
 * its config groups. These are `certain`: the checkpoint says so, not its name.
 */
import { emptyEvidence, fact, putSlot, type Evidence, type ModelTrait, type Quantization } from './evidence';
import { normalizeQuantization, torchDtypeName, traitsOfArchitecture } from './modelHints';
import { tryParsePyJson } from '../pyjson';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The scheme of a compressed-tensors config: `nvfp4`, `fp8`, `w4a16`, … when its groups say. */
function compressedScheme(q: Record<string, unknown>): Quantization | undefined {
  const fmt = typeof q.format === 'string' ? q.format.toLowerCase() : '';
  if (fmt.includes('nvfp4')) return 'nvfp4';
  if (fmt.includes('mxfp4')) return 'mxfp4';
  const groups = isObj(q.config_groups) ? Object.values(q.config_groups) : [];
  for (const g of groups) {
    if (!isObj(g) || !isObj(g.weights)) continue;
    const w = g.weights;
    const bits = typeof w.num_bits === 'number' ? w.num_bits : undefined;
    const type = typeof w.type === 'string' ? w.type : '';
    if (type === 'float' && bits === 8) return w.strategy === 'block' || Array.isArray(w.block_structure) ? 'fp8-block' : 'fp8';
    if (type === 'float' && bits === 4) return 'nvfp4';
    if (type === 'int' && bits === 4) return isObj(g.input_activations) ? 'int4' : 'w4a16';
    if (type === 'int' && bits === 8) return 'w8a8';
  }
  if (fmt.includes('float-quantized')) return 'fp8';
  if (fmt.includes('pack-quantized')) return 'w4a16';
  if (fmt.includes('int-quantized')) return 'w8a8';
  return undefined;
}

/** The checkpoint's quantization from a `quantization_config` (or ModelOpt's `quantization`) object. */
export function quantizationOfConfig(q: unknown): Quantization | undefined {
  if (!isObj(q)) return undefined;
  const method = typeof q.quant_method === 'string' ? q.quant_method.toLowerCase() : '';
  const algo = typeof q.quant_algo === 'string' ? q.quant_algo : '';
  if (method === 'fp8') return Array.isArray(q.weight_block_size) ? 'fp8-block' : 'fp8';
  if (method === 'compressed-tensors' || method === 'compressed_tensors') return compressedScheme(q) ?? 'compressed-tensors';
  if (method === 'modelopt' || algo) return normalizeQuantization(algo || method) ?? (algo ? undefined : 'fp8');
  return normalizeQuantization(method);
}

/** Traits the config's own fields show (expert counts, MLA's KV rank, linear-attention layers, sliding windows). */
function traitsOfFields(c: Record<string, unknown>): Partial<Record<ModelTrait, boolean>> {
  const t: Partial<Record<ModelTrait, boolean>> = {};
  const experts = [c.num_experts, c.n_routed_experts, c.num_local_experts, c.moe_num_experts].find((v) => typeof v === 'number');
  if (typeof experts === 'number') t.moe = experts > 1;
  if (typeof c.kv_lora_rank === 'number' && c.kv_lora_rank > 0) t.mla = true;
  if (Array.isArray(c.layer_types) && c.layer_types.some((x) => typeof x === 'string' && /linear|mamba|gated_delta/i.test(x))) t.hybridLinearAttention = true;
  if (typeof c.sliding_window === 'number' && c.sliding_window > 0 && c.use_sliding_window !== false) t.slidingWindow = true;
  if (typeof c.num_nextn_predict_layers === 'number' && c.num_nextn_predict_layers > 0) t.mtp = true;
  return t;
}

/**
 * Evidence from config.json text or its parsed object (a multimodal model's `text_config` is read
 * too). `quantConfig` is ModelOpt's hf_quant_config.json when the checkpoint has one.
 */
export function fromModelConfig(config: unknown, options: { where?: string; quantConfig?: unknown } = {}): Evidence {
  const ev = emptyEvidence();
  const where = options.where ?? 'config.json';
  const parse = (v: unknown): unknown => {
    if (typeof v !== 'string') return v;
    const r = tryParsePyJson(v);
    return r.ok ? r.value : undefined;
  };
  const c = parse(config);
  if (!isObj(c)) return ev;
  const f = <T>(v: T) => fact(v, 'model-config', 'certain', where);
  const arch = Array.isArray(c.architectures) && typeof c.architectures[0] === 'string' ? c.architectures[0] : undefined;
  if (arch) putSlot(ev, ev.model, 'architecture', f(arch), 'model.architecture');
  const text = isObj(c.text_config) ? c.text_config : undefined;
  const traits = { ...traitsOfArchitecture(arch), ...(text ? traitsOfFields(text) : {}), ...traitsOfFields(c) };
  if (text || Array.isArray(c.vision_config) || isObj(c.vision_config)) traits.multimodal = true;
  for (const [t, v] of Object.entries(traits)) if (typeof v === 'boolean') putSlot(ev, ev.model.traits, t as ModelTrait, f(v), `model.traits.${t}`);
  const dtype = [c.torch_dtype, c.dtype, text?.torch_dtype].find((v) => typeof v === 'string');
  if (typeof dtype === 'string') putSlot(ev, ev.model, 'dtype', f(torchDtypeName(dtype)), 'model.dtype');
  const qc = parse(options.quantConfig);
  const q =
    quantizationOfConfig(c.quantization_config) ??
    quantizationOfConfig(text?.quantization_config) ??
    (isObj(qc) ? quantizationOfConfig(qc.quantization) : undefined);
  if (q) putSlot(ev, ev.model, 'quantization', f(q), 'model.quantization');
  else if (typeof dtype === 'string') {
    const plain = normalizeQuantization(dtype);
    if (plain === 'bf16' || plain === 'fp16' || plain === 'fp32') putSlot(ev, ev.model, 'quantization', f(plain), 'model.quantization');
  }
  return ev;
}
