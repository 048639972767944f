import { strict as assert } from 'node:assert';
import { createReadStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fromSglangLog, fromVllmLog, lineStream, SglangLogReader, VllmLogReader, type Evidence } from '../../src/core/diagnose';
import { writeSglangLog } from './diagnose-loggen';

const fixture = (name: string): string => readFileSync(join(__dirname, '../fixtures/diagnose', name), 'utf8');
const lines = (name: string): string[] => fixture(name).split('\n');

describe('diagnose: SGLang log reader', () => {
  it('reads a B200 NVFP4 start-up: resolved args, backend lines, dtypes, graphs, NaN signatures', async () => {
    const ev = await fromSglangLog(lines('sglang-b200-nvfp4.log'), { label: 'startup log' });
    assert.equal(ev.engine?.value, 'sglang');
    assert.equal(ev.engine?.certainty, 'certain');
    const r = ev.flags.resolved;
    assert.equal(r.attention_backend.value, 'trtllm_mha');
    assert.equal(r.moe_runner_backend.value, 'flashinfer_trtllm');
    assert.equal(r.fp4_gemm_runner_backend.value, 'flashinfer_cutedsl');
    assert.equal(r.tp_size.value, 4);
    assert.equal(r.disable_cuda_graph.value, false);
    assert.equal(r.decode_attention_backend.value, null);
    assert.equal(r.watchdog_timeout.value, 300);
    assert.deepEqual(r.mm_process_config.value, {});
    assert.equal(r.json_model_override_args.value, '{"rope_scaling": {"type": "yarn", "factor": 2.0}}');
    assert.equal(r.moe_runner_backend.where, 'startup log line 3');
    assert.equal(r.tp_size.where, 'startup log line 4');
    assert.equal(ev.model.quantization?.value, 'nvfp4');
    assert.equal(ev.model.quantization?.certainty, 'certain');
    assert.equal(ev.model.kvCacheDtype?.value, 'fp8_e4m3');
    assert.equal(ev.model.architecture?.value, 'Qwen3_5MoeForCausalLM');
    assert.equal(ev.model.dtype?.value, 'bfloat16');
    assert.equal(ev.model.traits.moe?.value, true);
    assert.equal(ev.model.traits.hybridLinearAttention?.value, true);
    assert.equal(ev.runtime.cudaGraph?.value, true);
    assert.equal(ev.runtime.kvCacheTokens?.value, 1482104);
    assert.equal(ev.gpu.count?.value, 4);
    assert.equal(ev.gpu.count?.certainty, 'likely');
    assert.equal(ev.versions.transformers?.value, '4.57.3');
    assert.equal(ev.signatures['nan-detected']?.count, 2);
    assert.equal(ev.signatures['nan-detected']?.firstLine, 19);
    assert.equal(ev.signatures['nan-happened']?.count, 1);
    // enable_nan_detection=False in the args dump (line 4) is not a NaN: the first one is line 19.
    assert.deepEqual(ev.conflicts, []);
  });

  it('reads an SGLang crash: dropped scales, kernel missing, illegal memory access, fp8 block checkpoint, quotes in values', async () => {
    const ev = await fromSglangLog(lines('sglang-sm120-crash.log'));
    const s = ev.signatures;
    assert.equal(s['dropped-scales']?.count, 3);
    assert.equal(s['dropped-scales']?.firstLine, 5);
    assert.equal(s['dropped-params']?.count, 1);
    assert.equal(s['kernel-missing']?.count, 1);
    assert.equal(s['cuda-illegal-memory']?.count, 1);
    assert.equal(s['cuda-error'], undefined, 'a CUDA error line counts once, under its most specific kind');
    assert.equal(s['scheduler-exception']?.count, 2);
    assert.equal(ev.flags.resolved.chat_template.value, 'it\'s a "template" {{ x }}');
    assert.equal(ev.flags.resolved.attention_backend.value, 'flashinfer');
    assert.equal(ev.model.quantization?.value, 'fp8-block');
    assert.equal(ev.model.traits.mla?.value, true);
    assert.equal(ev.model.architecture?.value, 'DeepseekV32ForCausalLM');
    assert.equal(ev.runtime.kvCacheTokens?.value, 204800);
  });

  it('reads an old log: unprefixed server_args, "not set" default line, probability tensor, package too old', async () => {
    const ev = await fromSglangLog(fixture('sglang-old-nanprob.log'));
    assert.equal(ev.flags.resolved.attention_backend.value, 'flashinfer');
    assert.deepEqual(ev.flags.resolved.additional_ports.value, [30001, 30002]);
    assert.equal(ev.model.quantization?.value, 'awq');
    assert.equal(ev.signatures['probability-tensor-inf-nan']?.count, 1);
    assert.equal(ev.signatures['package-too-old']?.count, 1);
    assert.equal(ev.versions['sgl-kernel']?.value, '0.0.8');
  });

  it("reads the project simulator's backend lines (GPU and capability included)", async () => {
    const ev = await fromSglangLog([
      "[2026-01-01 00:00:00] server_args=ServerArgs(model_path='acme/Model-FP8', attention_backend='triton')",
      '[2026-01-01 00:00:00] Attention backend not set explicitly: using triton on NVIDIA RTX PRO 6000 Blackwell Workstation Edition (compute capability 12.0).',
      '[2026-01-01 00:00:00] FP4 GEMM runner backend not set explicitly: using flashinfer_cutlass on NVIDIA RTX PRO 6000 Blackwell Workstation Edition (compute capability 12.0).',
    ]);
    assert.equal(ev.gpu.computeCapability?.value, '12.0');
    assert.equal(ev.gpu.family?.value, 'blackwell-rtx');
    assert.equal(ev.flags.resolved.fp4_gemm_runner_backend.value, 'flashinfer_cutlass');
  });

  it('reads torch arch warnings and two launches in one log as a conflict', async () => {
    const ev = await fromSglangLog([
      'UserWarning: NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.',
      "server_args=ServerArgs(model_path='a', attention_backend='fa3')",
      "server_args=ServerArgs(model_path='a', attention_backend='triton')",
    ]);
    assert.equal(ev.gpu.name?.value, 'NVIDIA GeForce RTX 5090');
    assert.equal(ev.gpu.computeCapability?.value, '12.0');
    assert.equal(ev.signatures['torch-arch-missing']?.count, 1);
    const c = ev.conflicts.find((x) => x.path === 'flags.resolved.attention_backend');
    assert.ok(c);
    assert.equal(c.kept.value, 'fa3');
    assert.equal(c.other.value, 'triton');
    assert.equal(c.other.where, 'server log line 3');
  });

  it('takes an async iterable, a whole text and the reader class alike', async () => {
    const text = fixture('sglang-old-nanprob.log');
    async function* gen(): AsyncGenerator<string> {
      for (const l of text.split('\n')) yield await Promise.resolve(l);
    }
    const a = await fromSglangLog(gen());
    const b = await fromSglangLog(text);
    const r = new SglangLogReader();
    for (const l of text.split('\n')) r.line(l);
    assert.deepEqual(a, b);
    assert.deepEqual(r.result(), b);
  });
});

describe('diagnose: vLLM log reader', () => {
  it('reads a V1 start-up: version, non-default args, engine config, backends, graphs, crash', async () => {
    const ev = await fromVllmLog(lines('vllm-rtxpro-nvfp4.log'));
    assert.equal(ev.engine?.value, 'vllm');
    assert.equal(ev.versions.vllm?.value, '0.11.2');
    const w = ev.flags.written;
    assert.equal(w.tensor_parallel_size.value, 2);
    assert.equal(w.kv_cache_dtype.value, 'fp8');
    assert.deepEqual(w.served_model_name.value, ['qwen36']);
    assert.deepEqual(w.lora_modules.value, [{ $call: 'LoRAModulePath', name: 'sql', path: '/adapters/sql', base_model_name: null }]);
    const r = ev.flags.resolved;
    assert.equal(r.quantization.value, 'modelopt_fp4');
    assert.equal(r.quantization.certainty, 'certain');
    assert.equal(r.enforce_eager.value, false);
    assert.equal(r.attention_backend.value, 'FLASHINFER');
    assert.equal(r.moe_backend.value, 'FLASHINFER_CUTLASS');
    assert.equal(r.nvfp4_gemm_backend.value, 'FlashInferCutlassNvFp4LinearKernel');
    assert.equal(r['linear_kernel.ModelOptFp8LinearMethod'].value, 'FlashInferFP8ScaledMMLinearKernel');
    assert.deepEqual(r.structured_outputs_config.value, { $call: 'StructuredOutputsConfig', backend: 'auto', disable_fallback: false });
    assert.equal(ev.model.quantization?.value, 'nvfp4');
    assert.equal(ev.model.architecture?.value, 'Qwen3_5MoeForCausalLM');
    assert.equal(ev.model.dtype?.value, 'bfloat16');
    assert.equal(ev.model.traits.hybridLinearAttention?.value, true);
    assert.equal(ev.runtime.cudaGraph?.value, true);
    assert.equal(ev.runtime.cudagraphMode?.value, 'FULL_AND_PIECEWISE');
    assert.equal(ev.runtime.compileMode?.value, '3');
    assert.equal(ev.runtime.kvCacheTokens?.value, 301056);
    assert.equal(ev.signatures['cuda-illegal-memory']?.count, 1);
    assert.equal(ev.gpu.count?.value, 2);
  });

  it('reads a V0 log: Namespace args with enum and function reprs, device warning, XFormers, eager', async () => {
    const ev = await fromVllmLog(lines('vllm-v06-namespace.log'));
    assert.equal(ev.versions.vllm?.value, '0.6.3.post1');
    assert.equal(ev.flags.written.config_format.value, 'auto');
    assert.equal(ev.flags.written.dispatch_function.value, '<function serve at 0x7f3a2c1e0d30>');
    assert.equal(ev.flags.written.quantization.value, 'awq');
    assert.equal(ev.flags.resolved.attention_backend.value, 'XFORMERS');
    assert.equal(ev.gpu.name?.value, 'Tesla T4');
    assert.equal(ev.gpu.computeCapability?.value, '7.5');
    assert.equal(ev.runtime.cudaGraph?.value, false);
    assert.equal(ev.model.quantization?.value, 'awq');
  });

  it('keeps the vision encoder backend apart from the language model backend', () => {
    const r = new VllmLogReader();
    r.line('INFO [cuda.py:433] Using backend AttentionBackendEnum.FLASH_ATTN for vit attention');
    r.line('INFO [layer.py:500] Using AttentionBackendEnum.TORCH_SDPA for MMEncoderAttention.');
    r.line('INFO [cuda.py:257] Using AttentionBackendEnum.TRITON_ATTN backend.');
    const ev = r.result();
    assert.equal(ev.flags.resolved.attention_backend.value, 'TRITON_ATTN');
    assert.equal(ev.flags.resolved.mm_encoder_attn_backend.value, 'FLASH_ATTN');
  });
});

describe('diagnose: streaming, bounded memory, hostile input', function () {
  this.timeout(180_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'diagnose-log-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a generated 50 MB log line by line with heap growth under 64 MB', async () => {
    const path = join(dir, 'big.log');
    const gen = writeSglangLog(path, 50 * 1024 * 1024);
    assert.ok(gen.bytes >= 50 * 1024 * 1024);
    (globalThis as { gc?: () => void }).gc?.();
    const base = process.memoryUsage().heapUsed;
    let peak = base;
    let n = 0;
    const rl = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
    async function* sampled(): AsyncGenerator<string> {
      for await (const l of rl) {
        if (++n % 5000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
        yield l;
      }
    }
    const ev: Evidence = await fromSglangLog(sampled());
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    assert.equal(n, gen.lines);
    assert.equal(ev.signatures['nan-detected']?.count, gen.nan);
    assert.equal(ev.signatures['nan-detected']?.firstLine, gen.firstNanLine);
    assert.equal(ev.signatures['dropped-scales']?.count, gen.droppedScales);
    assert.equal(ev.signatures['cuda-illegal-memory']?.count, gen.illegalMemory);
    assert.equal(ev.flags.resolved.attention_backend.value, 'trtllm_mla');
    assert.equal(ev.model.traits.mla?.value, true);
    const growthMiB = (peak - base) / (1024 * 1024);
    assert.ok(growthMiB < 64, `heap grew ${growthMiB.toFixed(1)} MiB`);
  });

  it('never throws on binary junk, 1 MB lines, NULs and lone surrogates', async () => {
    const junk: string[] = [];
    let seed = 7;
    const rnd = (): number => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
    for (let i = 0; i < 200; i++)
      junk.push(Array.from({ length: 200 + Math.floor(rnd() * 2000) }, () => String.fromCharCode(Math.floor(rnd() * 0xffff))).join(''));
    junk.push('x'.repeat(1024 * 1024));
    junk.push(`server_args=ServerArgs(${"a='".repeat(200_000)}`);
    junk.push(`server_args=ServerArgs(${'['.repeat(300_000)}`);
    junk.push(`non-default args: {${'{'.repeat(100_000)}`);
    junk.push(`Initializing a V1 LLM engine (v1) with config: ${'a=('.repeat(100_000)}`);
    junk.push(`KV Cache is allocated. #tokens: ${'9'.repeat(400)}`);
    junk.push('\u0000\ud800\udfff\ud800 CUDA error: '.repeat(50_000));
    const a = await fromSglangLog(junk);
    const b = await fromVllmLog(junk);
    assert.ok(a.signatures['cuda-error']);
    assert.ok(b);
    // bytes, split with a cap
    const bytes = new Uint8Array(3 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(rnd() * 256);
    let count = 0;
    for await (const l of lineStream([bytes.subarray(0, 1_000_001), bytes.subarray(1_000_001)], 64 * 1024)) {
      assert.ok(l.length <= 64 * 1024);
      count++;
    }
    assert.ok(count > 0);
  });

  it('lineStream cuts a line without newlines and decodes UTF-8 across chunks', async () => {
    const enc = new TextEncoder().encode('añb\nc€d\n');
    const parts = [enc.subarray(0, 2), enc.subarray(2, 6), enc.subarray(6)];
    const out: string[] = [];
    for await (const l of lineStream(parts)) out.push(l);
    assert.deepEqual(out, ['añb', 'c€d']);
    const long: string[] = [];
    for await (const l of lineStream(['x'.repeat(100), 'y'.repeat(100), '\nz'], 50)) long.push(l);
    assert.deepEqual(long, ['x'.repeat(50), 'z']);
  });
});
