/**
 * fromModelConfig on config.json shapes written for these tests after the public layouts: block-FP8
 * (weight_block_size), ModelOpt NVFP4 (hf_quant_config.json), compressed-tensors groups, a hybrid
 * linear-attention model, a multimodal model with its text_config, and bad input.
 */
import assert from 'node:assert/strict';
import { fromModelConfig, quantizationOfConfig } from '../../src/core/diagnose';

describe('model config.json as evidence', () => {
  it('tells block-scaled FP8 from per-tensor FP8 and reads MLA and MoE from the fields', () => {
    const ev = fromModelConfig({
      architectures: ['DeepseekV3ForCausalLM'],
      torch_dtype: 'bfloat16',
      kv_lora_rank: 512,
      n_routed_experts: 256,
      quantization_config: { quant_method: 'fp8', fmt: 'e4m3', activation_scheme: 'dynamic', weight_block_size: [128, 128] },
    });
    assert.equal(ev.model.quantization?.value, 'fp8-block');
    assert.equal(ev.model.quantization?.certainty, 'certain');
    assert.equal(ev.model.traits.mla?.value, true);
    assert.equal(ev.model.traits.moe?.value, true);
    assert.equal(ev.model.architecture?.value, 'DeepseekV3ForCausalLM');
    assert.equal(quantizationOfConfig({ quant_method: 'fp8', activation_scheme: 'static' }), 'fp8');
  });

  it('reads ModelOpt NVFP4 from hf_quant_config.json when config.json has no quantization_config', () => {
    const ev = fromModelConfig(JSON.stringify({ architectures: ['Qwen3MoeForCausalLM'], num_experts: 128, torch_dtype: 'bfloat16' }), {
      quantConfig: JSON.stringify({ producer: { name: 'modelopt' }, quantization: { quant_algo: 'NVFP4', kv_cache_quant_algo: null, group_size: 16 } }),
    });
    assert.equal(ev.model.quantization?.value, 'nvfp4');
    assert.equal(ev.model.traits.moe?.value, true);
  });

  it('names the scheme of compressed-tensors from its config groups', () => {
    const fp8 = {
      quant_method: 'compressed-tensors',
      format: 'float-quantized',
      config_groups: { g0: { weights: { num_bits: 8, type: 'float', strategy: 'channel' } } },
    };
    const block = {
      quant_method: 'compressed-tensors',
      config_groups: { g0: { weights: { num_bits: 8, type: 'float', strategy: 'block', block_structure: [128, 128] } } },
    };
    const w4 = { quant_method: 'compressed-tensors', format: 'pack-quantized', config_groups: { g0: { weights: { num_bits: 4, type: 'int' } } } };
    const fp4 = { quant_method: 'compressed-tensors', format: 'nvfp4-pack-quantized' };
    assert.deepEqual([fp8, block, w4, fp4].map(quantizationOfConfig), ['fp8', 'fp8-block', 'w4a16', 'nvfp4']);
    assert.equal(quantizationOfConfig({ quant_method: 'compressed-tensors' }), 'compressed-tensors');
  });

  it('finds hybrid linear attention in layer_types and a multimodal model in text_config', () => {
    const hybrid = fromModelConfig({ architectures: ['SomeNewHybridForCausalLM'], layer_types: ['linear_attention', 'linear_attention', 'full_attention'] });
    assert.equal(hybrid.model.traits.hybridLinearAttention?.value, true);
    const mm = fromModelConfig({
      architectures: ['SomeVlmForConditionalGeneration'],
      text_config: { num_local_experts: 16, torch_dtype: 'bfloat16' },
      vision_config: {},
    });
    assert.equal(mm.model.traits.multimodal?.value, true);
    assert.equal(mm.model.traits.moe?.value, true);
    assert.equal(mm.model.quantization?.value, 'bf16');
  });

  it('gives empty evidence for text that is not a config, and never takes __proto__ as a trait', () => {
    assert.deepEqual(fromModelConfig('not json').model, { traits: {} });
    assert.deepEqual(fromModelConfig([1, 2]).model, { traits: {} });
    const ev = fromModelConfig('{"__proto__": {"polluted": true}, "architectures": ["X"]}');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(ev.model.architecture?.value, 'X');
  });
});
