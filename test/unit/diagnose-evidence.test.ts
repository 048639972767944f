import { strict as assert } from 'node:assert';
import {
  computeCapabilityOfName,
  emptyEvidence,
  fact,
  gpuFamilyOf,
  hintsOfModelPath,
  mergeAll,
  mergeEvidence,
  normalizeQuantization,
  putSignature,
  traitsOfArchitecture,
  type Evidence,
} from '../../src/core/diagnose';

function ev(build: (e: Evidence) => void): Evidence {
  const e = emptyEvidence();
  build(e);
  return e;
}

describe('diagnose: evidence model and merge', () => {
  it('keeps the more certain fact and records the disagreement', () => {
    const a = ev((e) => {
      e.gpu.name = fact('NVIDIA H100', 'file-hint', 'guess', 'file name h100.sh');
      e.gpu.computeCapability = fact('9.0', 'file-hint', 'guess', 'file name h100.sh');
      e.flags.resolved.attention_backend = fact('fa3', 'log', 'certain', 'server log line 3');
    });
    const b = ev((e) => {
      e.gpu.name = fact('NVIDIA RTX PRO 6000 Blackwell Workstation Edition', 'discovery', 'certain', 'nvidia-smi');
      e.gpu.computeCapability = fact('12.0', 'discovery', 'certain', 'nvidia-smi');
      e.flags.resolved.attention_backend = fact('triton', 'server-info', 'certain', '/server_info');
    });
    const m = mergeEvidence(a, b);
    assert.equal(m.gpu.name?.value, 'NVIDIA RTX PRO 6000 Blackwell Workstation Edition');
    assert.equal(m.gpu.computeCapability?.source, 'discovery');
    // A tie keeps the first argument's fact.
    assert.equal(m.flags.resolved.attention_backend.value, 'fa3');
    const paths = m.conflicts.map((c) => c.path).sort();
    assert.deepEqual(paths, ['flags.resolved.attention_backend', 'gpu.computeCapability', 'gpu.name']);
    const cc = m.conflicts.find((c) => c.path === 'gpu.computeCapability')!;
    assert.equal(cc.kept.value, '12.0');
    assert.equal(cc.other.value, '9.0');
    assert.equal(cc.other.where, 'file name h100.sh');
    // Inputs are not changed.
    assert.equal(a.gpu.name?.value, 'NVIDIA H100');
    assert.equal(a.conflicts.length, 0);
  });

  it('the same value from a more certain source upgrades the fact without a conflict', () => {
    const a = ev((e) => (e.versions.flashinfer = fact('0.6.1', 'launch', 'guess')));
    const b = ev((e) => (e.versions.flashinfer = fact('0.6.1', 'check-env', 'certain', 'check_env line 9')));
    const m = mergeEvidence(a, b);
    assert.equal(m.versions.flashinfer?.certainty, 'certain');
    assert.equal(m.versions.flashinfer?.where, 'check_env line 9');
    assert.equal(m.conflicts.length, 0);
  });

  it('compares values deeply (key order, NaN) and keeps conflicts once', () => {
    const a = ev((e) => (e.flags.resolved.cfg = fact({ a: 1, b: [1, NaN] }, 'log', 'certain')));
    const b = ev((e) => (e.flags.resolved.cfg = fact({ b: [1, NaN], a: 1 }, 'server-info', 'certain')));
    assert.equal(mergeEvidence(a, b).conflicts.length, 0);
    const c = ev((e) => (e.flags.resolved.cfg = fact({ a: 2 }, 'server-info', 'certain')));
    const m = mergeAll(a, c, c, a, c);
    assert.equal(m.conflicts.length, 1);
  });

  it('merges signatures by count, probes by list, traits, kernels, env and engine', () => {
    const a = ev((e) => {
      putSignature(e, { kind: 'nan-detected', count: 2, firstLine: 10, firstText: 'x', source: 'log' });
      e.probes.push({
        verdict: 'nan',
        status: 'completed',
        reasons: ['nan-marker'],
        suspects: [],
        finishReason: 'stop',
        matchedStop: 'NaN happened',
        source: 'probe',
      });
      e.model.traits.moe = fact(true, 'launch', 'guess');
      e.engine = fact('sglang', 'launch', 'certain');
      e.env.SGLANG_SANITIZE_NAN_LOGITS = fact('1', 'launch', 'certain');
    });
    const b = ev((e) => {
      putSignature(e, { kind: 'nan-detected', count: 3, firstLine: 4, firstText: 'y', source: 'log' });
      e.probes.push({ verdict: 'ok', status: 'completed', reasons: [], suspects: [], finishReason: 'stop', matchedStop: null, source: 'probe' });
      e.model.traits.moe = fact(true, 'log', 'likely');
      e.kernels['sgl-kernel'] = fact(
        { sass: ['sm_100', 'sm_90a'], ptx: [], files: 3, complete: true, gpuArch: 'sm_120', level: 'none' },
        'discovery',
        'certain',
      );
      e.engine = fact('vllm', 'log', 'certain');
    });
    const m = mergeEvidence(a, b);
    assert.equal(m.signatures['nan-detected']?.count, 5);
    assert.equal(m.signatures['nan-detected']?.firstLine, 10);
    assert.deepEqual(
      m.probes.map((p) => p.verdict),
      ['nan', 'ok'],
    );
    assert.equal(m.model.traits.moe?.certainty, 'likely');
    assert.equal(m.kernels['sgl-kernel']?.value.level, 'none');
    assert.equal(m.env.SGLANG_SANITIZE_NAN_LOGITS.value, '1');
    assert.equal(m.engine?.value, 'sglang');
    assert.deepEqual(
      m.conflicts.map((c) => c.path),
      ['engine'],
    );
    // merge does not alias the signature object of its input
    assert.equal(a.signatures['nan-detected']?.count, 2);
  });

  it('a __proto__ flag from foreign text stays a key through merge', () => {
    const a = emptyEvidence();
    Object.defineProperty(a.flags.resolved, '__proto__', { value: fact('x', 'log', 'certain'), enumerable: true, configurable: true, writable: true });
    const m = mergeEvidence(a, emptyEvidence());
    assert.equal(Object.getPrototypeOf(m.flags.resolved), Object.prototype);
    assert.equal(Object.getOwnPropertyDescriptor(m.flags.resolved, '__proto__')?.value.value, 'x');
  });
});

describe('diagnose: GPU families and model hints', () => {
  it('maps capabilities and names to families', () => {
    assert.equal(gpuFamilyOf('8.0'), 'ampere');
    assert.equal(gpuFamilyOf('8.6'), 'ampere');
    assert.equal(gpuFamilyOf('8.9'), 'ada');
    assert.equal(gpuFamilyOf('9.0'), 'hopper');
    assert.equal(gpuFamilyOf('10.0'), 'blackwell-dc');
    assert.equal(gpuFamilyOf('10.3'), 'blackwell-dc');
    assert.equal(gpuFamilyOf('12.0'), 'blackwell-rtx');
    assert.equal(gpuFamilyOf('sm_121'), 'blackwell-rtx');
    assert.equal(gpuFamilyOf([9, 0]), 'hopper');
    assert.equal(gpuFamilyOf('7.5'), 'other');
    assert.equal(gpuFamilyOf(undefined, 'NVIDIA B300 SXM6 AC'), 'blackwell-dc');
    assert.equal(gpuFamilyOf(undefined, 'NVIDIA RTX PRO 6000 Blackwell Workstation Edition'), 'blackwell-rtx');
    assert.equal(gpuFamilyOf(undefined, 'NVIDIA RTX 6000 Ada Generation'), 'ada');
    assert.equal(gpuFamilyOf(undefined, 'NVIDIA RTX 5000 Ada Generation'), 'ada');
    assert.equal(gpuFamilyOf(undefined, 'Quadro RTX 6000'), 'other');
    assert.equal(gpuFamilyOf(undefined, 'NVIDIA RTX A6000'), 'ampere');
    assert.equal(gpuFamilyOf(undefined, 'NVIDIA GeForce RTX 4090'), 'ada');
    // torch on ROCm reports gfx942 as 9.4: the name wins.
    assert.equal(gpuFamilyOf('9.4', 'AMD Instinct MI300X'), 'rocm-cdna');
    assert.equal(gpuFamilyOf(undefined, 'AMD Radeon RX 7900 XTX'), 'rocm-rdna');
    assert.equal(gpuFamilyOf(undefined, 'something else'), 'other');
    assert.equal(computeCapabilityOfName('NVIDIA H200'), '9.0');
    assert.equal(computeCapabilityOfName('NVIDIA GB10'), '12.1');
    assert.equal(computeCapabilityOfName('AMD Instinct MI300X'), undefined);
  });

  it('reads quantization and traits from model names, as guesses', () => {
    assert.deepEqual(hintsOfModelPath('deepseek-ai/DeepSeek-V3'), { quantization: 'fp8-block', traits: { mla: true, moe: true } });
    assert.deepEqual(hintsOfModelPath('nvidia/Qwen3.5-397B-A17B-NVFP4'), { quantization: 'nvfp4', traits: { hybridLinearAttention: true, moe: true } });
    assert.deepEqual(hintsOfModelPath('Qwen/Qwen3-Next-80B-A3B-Instruct-FP8').traits, { hybridLinearAttention: true, moe: true });
    assert.equal(hintsOfModelPath('Qwen/Qwen3-30B-A3B-FP8').quantization, 'fp8');
    assert.deepEqual(hintsOfModelPath('Qwen/Qwen3-8B').traits, {});
    assert.equal(hintsOfModelPath('TheBloke/Llama-2-13B-AWQ').quantization, 'awq');
    assert.equal(hintsOfModelPath('openai/gpt-oss-120b').quantization, 'mxfp4');
    assert.equal(hintsOfModelPath('openai/gpt-oss-120b').traits.moe, true);
    // A distilled model is its student.
    assert.deepEqual(hintsOfModelPath('deepseek-ai/DeepSeek-R1-Distill-Qwen-14B'), { traits: {} });
    // The directory above the model does not count; the Hugging Face cache layout does.
    assert.equal(hintsOfModelPath('/data/fp8-models/team/llama-8b').quantization, undefined);
    assert.equal(
      hintsOfModelPath('/root/.cache/huggingface/hub/models--nvidia--DeepSeek-R1-FP4/snapshots/0123456789abcdef0123456789abcdef01234567').quantization,
      'nvfp4',
    );
    assert.deepEqual(traitsOfArchitecture('DeepseekV3ForCausalLM'), { mla: true, moe: true });
    assert.deepEqual(traitsOfArchitecture('Qwen3NextForCausalLM'), { moe: true, hybridLinearAttention: true });
    assert.deepEqual(traitsOfArchitecture('LlamaForCausalLM'), {});
    assert.equal(normalizeQuantization('modelopt_fp4'), 'nvfp4');
    assert.equal(normalizeQuantization('awq_marlin'), 'awq');
    assert.equal(normalizeQuantization('w8a8_int8'), 'w8a8');
    assert.equal(normalizeQuantization('compressed-tensors'), 'compressed-tensors');
    assert.equal(normalizeQuantization('None'), undefined);
  });
});
