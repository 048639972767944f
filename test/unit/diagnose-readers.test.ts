import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EnvReport } from '../../src/core/discovery/report';
import type { ProbeResult } from '../../src/core/probe/types';
import type { QuickProbeResult } from '../../src/core/probe/quick';
import { fromCheckEnv, fromCollectEnv, fromDiscovery, fromLaunch, fromProbe, fromServerInfo, fromSglangLog, mergeAll } from '../../src/core/diagnose';

const fixture = (name: string): string => readFileSync(join(__dirname, '../fixtures/diagnose', name), 'utf8');

describe('diagnose: launch file reader', () => {
  it('reads flags, env and the hints of an 8x H100 script', () => {
    const ev = fromLaunch(fixture('h100.sh'), 'deploy/h100.sh');
    assert.equal(ev.engine?.value, 'sglang');
    const w = ev.flags.written;
    assert.equal(w.model_path.value, 'deepseek-ai/DeepSeek-V3');
    assert.equal(w.tp_size.value, '8');
    assert.equal(w.attention_backend.value, 'fa3');
    assert.equal(w.attention_backend.where, 'h100.sh line 8');
    assert.equal(w.trust_remote_code.value, true);
    assert.equal(ev.env.SGLANG_ENABLE_JIT_DEEPGEMM.value, '1');
    assert.equal(ev.gpu.count?.value, 8);
    assert.equal(ev.gpu.count?.certainty, 'likely'); // CUDA_VISIBLE_DEVICES
    assert.equal(ev.gpu.name?.value, 'NVIDIA H100');
    assert.equal(ev.gpu.name?.certainty, 'guess');
    assert.equal(ev.gpu.family?.value, 'hopper');
    assert.equal(ev.model.quantization?.value, 'fp8-block');
    assert.equal(ev.model.traits.mla?.value, true);
    assert.equal(ev.model.traits.moe?.value, true);
    assert.equal(ev.model.kvCacheDtype?.value, 'fp8_e4m3');
    assert.deepEqual(ev.conflicts, []);
  });

  it('reads a compose service: image tag (b200, cu130, version), reserved GPUs, renamed flag, secret env redacted', () => {
    const ev = fromLaunch(fixture('compose.yaml'), 'compose.yaml');
    assert.equal(ev.flags.written.fp4_gemm_runner_backend.value, 'flashinfer_cutlass');
    assert.equal(ev.flags.written.moe_runner_backend.value, 'flashinfer_trtllm');
    assert.equal(ev.gpu.name?.value, 'NVIDIA B200');
    assert.equal(ev.gpu.family?.value, 'blackwell-dc');
    assert.match(ev.gpu.name?.where ?? '', /image tag lmsysorg\/sglang:v0\.5\.6-cu130-b200 in compose\.yaml line 3/);
    assert.equal(ev.gpu.count?.value, 4);
    assert.equal(ev.versions.cuda?.value, '13.0');
    assert.equal(ev.versions.sglang?.value, '0.5.6');
    assert.equal(ev.env.HF_TOKEN.value, '(redacted)');
    assert.equal(ev.env.SGLANG_SANITIZE_NAN_LOGITS.value, '1');
    assert.equal(ev.model.quantization?.value, 'nvfp4');
    assert.equal(ev.model.traits.hybridLinearAttention?.value, true);
  });

  it('reads a vllm serve command: the positional model, fields as EngineArgs names them, aliases, --no-x, env', () => {
    const ev = fromLaunch(
      [
        '#!/bin/sh',
        'export VLLM_USE_FLASHINFER_MOE_FP4=1',
        'vllm serve nvidia/Qwen3-30B-A3B-NVFP4 -tp 2 --kv_cache_dtype fp8 --attention-backend FLASHINFER \\',
        '  --no-enable-prefix-caching --compilation-config.cudagraph_mode FULL -O3',
        '',
      ].join('\n'),
      'serve.sh',
    );
    assert.equal(ev.engine?.value, 'vllm');
    const w = ev.flags.written;
    assert.deepEqual(
      Object.fromEntries(Object.entries(w).map(([k, f]) => [k, f.value])),
      { model: 'nvidia/Qwen3-30B-A3B-NVFP4', tensor_parallel_size: '2', kv_cache_dtype: 'fp8', attention_backend: 'FLASHINFER', enable_prefix_caching: false },
      'a dotted config key and -O (whose field changed in 0.12) are left out',
    );
    assert.equal(w.attention_backend.where, 'serve.sh line 3');
    assert.equal(ev.env.VLLM_USE_FLASHINFER_MOE_FP4.value, '1');
    assert.equal(ev.model.path?.value, 'nvidia/Qwen3-30B-A3B-NVFP4');
    assert.equal(ev.model.quantization?.value, 'nvfp4');
    assert.equal(ev.model.kvCacheDtype?.value, 'fp8');
    assert.equal(ev.gpu.count?.value, 2);
  });

  it('records hints that disagree (file name vs ROCm image) and keeps dynamic values as guesses', () => {
    const ev = fromLaunch(fixture('serve-rtx5090.sh'), 'serve-rtx5090.sh');
    assert.equal(ev.gpu.name?.value, 'NVIDIA GeForce RTX 5090');
    assert.equal(ev.gpu.family?.value, 'blackwell-rtx');
    assert.ok(ev.conflicts.some((c) => c.path === 'gpu.family' && c.other.value === 'rocm-cdna'));
    assert.equal(ev.flags.written.model_path.certainty, 'guess');
    assert.equal(ev.model.path, undefined);
    assert.equal(ev.gpu.count?.value, 1); // docker run --gpus 1
    assert.equal(ev.versions.rocm?.value, '7.0.0');
  });

  it('never throws on junk and a file without a command still gives its hints', () => {
    assert.doesNotThrow(() => fromLaunch('\u0000'.repeat(10000) + 'sglang'.repeat(1000), 'x.sh'));
    assert.doesNotThrow(() => fromLaunch(`python -m sglang.launch_server ${'--x '.repeat(100000)}`, 'x.sh'));
    const ev = fromLaunch('# for 2x B300\necho hi\n', 'notes.sh');
    assert.equal(ev.gpu.name?.value, 'NVIDIA B300');
    assert.equal(ev.gpu.count?.value, 2);
    assert.equal(ev.engine, undefined);
  });
});

describe('diagnose: /server_info reader', () => {
  it('reads resolved fields and version, tolerates NaN/Infinity, prefers what rank 0 runs, drops secrets', () => {
    const ev = fromServerInfo(fixture('server-info.json'));
    const r = ev.flags.resolved;
    assert.equal(ev.versions.sglang?.value, '0.5.6');
    assert.equal(ev.engine?.certainty, 'certain');
    assert.equal(r.attention_backend.value, 'triton');
    assert.equal(r.attention_backend.where, '/server_info internal_states[0]');
    assert.ok(ev.conflicts.some((c) => c.path === 'flags.resolved.attention_backend' && c.other.value === 'flashinfer'));
    assert.ok(Number.isNaN(r.speculative_accept_threshold_single.value));
    assert.equal(r.ratio_cap.value, Infinity);
    assert.equal(r.api_key, undefined);
    assert.equal(r.fp4_gemm_runner_backend.value, 'flashinfer_cutlass');
    assert.equal(ev.model.quantization?.value, 'nvfp4');
    assert.equal(ev.model.kvCacheDtype?.value, 'bf16');
    const o = r.json_model_override_args.value as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(o), Object.prototype);
    assert.deepEqual(Object.keys(o), ['__proto__']);
    // the parsed object is accepted as well as its text
    assert.equal(fromServerInfo(JSON.parse(fixture('server-info.json').replace(/NaN|Infinity/g, '0'))).versions.sglang?.value, '0.5.6');
    for (const junk of ['', 'not json', '[1,2]', 'null', '{"version": 5}', '\u0000'.repeat(100)]) assert.doesNotThrow(() => fromServerInfo(junk));
  });
});

describe('diagnose: check_env and collect_env readers', () => {
  it('reads check_env of a 4x GB300 host', () => {
    const ev = fromCheckEnv(fixture('check-env-gb300.txt'));
    assert.equal(ev.gpu.name?.value, 'NVIDIA GB300');
    assert.equal(ev.gpu.computeCapability?.value, '10.3');
    assert.equal(ev.gpu.count?.value, 4);
    assert.equal(ev.gpu.family?.value, 'blackwell-dc');
    const v = ev.versions;
    assert.equal(v.sglang?.value, '0.5.6.post1');
    assert.equal(v['sgl-kernel']?.value, '0.3.19');
    assert.equal(v.flashinfer?.value, '0.6.1');
    assert.equal(v.torch?.value, '2.9.0+cu130');
    assert.equal(v.cuda?.value, '13.0');
    assert.equal(v.nvcc?.value, '13.0');
    assert.equal(v.driver?.value, '580.65.06');
    assert.equal(v.triton?.value, '3.5.0');
    assert.equal(v.python?.value, '3.12.11');
    assert.equal(v.vllm, undefined, '"Module Not Found" is no version');
    assert.equal(v.sglang?.where, 'check_env line 11');
  });

  it('reads an older check_env with one line per GPU', () => {
    const ev = fromCheckEnv(fixture('check-env-a40-2024.txt'));
    assert.equal(ev.gpu.count?.value, 2);
    assert.equal(ev.gpu.family?.value, 'ampere');
    assert.equal(ev.versions.flashinfer?.value, '0.1.6+cu121torch2.4');
    assert.equal(ev.versions.vllm?.value, '0.5.5');
  });

  it('reads collect_env, old layout: GPU list, driver, versions, pip list', () => {
    const ev = fromCollectEnv(fixture('collect-env-old.txt'));
    assert.equal(ev.gpu.name?.value, 'NVIDIA L40S');
    assert.equal(ev.gpu.count?.value, 2);
    assert.equal(ev.gpu.computeCapability?.certainty, 'likely');
    assert.equal(ev.gpu.family?.value, 'ada');
    assert.equal(ev.versions.vllm?.value, '0.7.0');
    assert.equal(ev.versions.torch?.value, '2.5.1+cu124');
    assert.equal(ev.versions.cuda?.value, '12.4');
    assert.equal(ev.versions.driver?.value, '550.90.07');
    assert.equal(ev.versions.flashinfer?.value, '0.2.0.post1');
    assert.deepEqual(ev.conflicts, []);
  });

  it('reads collect_env, new padded layout: sections, the CUDA Archs line as TORCH_CUDA_ARCH_LIST, environment variables', () => {
    const ev = fromCollectEnv(fixture('collect-env-new.txt'));
    assert.equal(ev.gpu.name?.value, 'NVIDIA RTX PRO 6000 Blackwell Workstation Edition');
    assert.equal(ev.gpu.family?.value, 'blackwell-rtx');
    assert.equal(ev.versions.vllm?.value, '0.10.2');
    assert.equal(ev.versions.cuda?.value, '12.8');
    assert.equal(ev.env.VLLM_ATTENTION_BACKEND.value, 'FLASHINFER');
    // "CUDA Archs" is the shell's TORCH_CUDA_ARCH_LIST, not what vLLM was compiled for: a variable, never kernel coverage.
    assert.equal(ev.kernels.vllm, undefined);
    assert.equal(ev.env.TORCH_CUDA_ARCH_LIST.value, '8.0 9.0 10.0 12.0+PTX');
    assert.match(
      ev.env.TORCH_CUDA_ARCH_LIST.where ?? '',
      /^collect_env line 42 \(.*TORCH_CUDA_ARCH_LIST variable of the shell that ran it, not what vLLM was compiled for/,
    );
  });

  it('never throws on junk', () => {
    const junk = Array.from({ length: 2000 }, (_, i) => String.fromCharCode((i * 7919) % 0xffff).repeat(i % 50)).join('\n');
    assert.doesNotThrow(() => fromCheckEnv(junk + 'GPU 0,1,,,: \nGPU x Compute Capability: 99.99\n' + 'y'.repeat(1 << 20)));
    assert.doesNotThrow(() => fromCollectEnv(junk + 'GPU models and configuration:\nGPU 0:\n'));
  });
});

describe('diagnose: discovery and probe readers', () => {
  const report = (): EnvReport => ({
    host: 'gpu-box',
    generatedAt: '2026-01-01T00:00:00Z',
    gpus: [
      {
        index: 0,
        name: 'NVIDIA RTX PRO 6000 Blackwell Workstation Edition',
        computeCap: { major: 12, minor: 0 },
        driverVersion: '580.95.05',
        memoryMiB: 97887,
      },
      {
        index: 1,
        name: 'NVIDIA RTX PRO 6000 Blackwell Workstation Edition',
        computeCap: { major: 12, minor: 0 },
        driverVersion: '580.95.05',
        memoryMiB: 97887,
      },
    ],
    driverVersion: '580.95.05',
    driverCudaVersion: '13.0',
    nvccVersion: '12.9',
    servers: [
      {
        engine: 'sglang',
        kind: 'launch_server',
        argv: [],
        interpreter: '/opt/sgl/bin/python3',
        port: 30000,
        portIsDefault: true,
        host: '127.0.0.1',
        modelPath: 'acme/Qwen3.5-27B-FP8',
        source: 'process',
        pid: 42,
      },
    ],
    listening: [],
    interpreters: [
      {
        path: '/usr/bin/python3',
        sources: ['PATH'],
        probe: {
          python: { version: '3.10.12', executable: '/usr/bin/python3', prefix: '/usr' },
          packages: {
            sglang: { found: false },
            sgl_kernel: { found: false },
            flashinfer: { found: false },
            torch: { found: false },
            triton: { found: false },
            transformers: { found: false },
            vllm: { found: false },
          },
          caches: {},
          errors: [],
        },
        libraries: [],
        verdicts: [],
      },
      {
        path: '/opt/sgl/bin/python3',
        sources: ['server'],
        probe: {
          python: { version: '3.12.3', executable: '/opt/sgl/bin/python3', prefix: '/opt/sgl' },
          packages: {
            sglang: { found: true, version: '0.5.6' },
            sgl_kernel: { found: true, version: '0.3.19' },
            flashinfer: { found: true, version: '0.6.1' },
            torch: {
              found: true,
              version: '2.9.1+cu130',
              imported: true,
              cudaVersion: '13.0',
              archList: ['sm_80', 'sm_90', 'sm_100', 'sm_120', 'compute_120'],
            },
            triton: { found: true, version: '3.5.1' },
            transformers: { found: true, version: '4.57.1' },
            vllm: { found: false },
          },
          caches: {},
          errors: [],
        },
        libraries: [
          {
            package: 'sgl_kernel',
            path: '/opt/sgl/sgl_kernel/sm100/common_ops.so',
            targets: [],
            sass: ['sm_100a', 'sm_90a'],
            ptx: [],
            hasFatbin: true,
            complete: true,
            issues: [],
          },
          {
            package: 'sgl_kernel',
            path: '/opt/sgl/sgl_kernel/sm90/common_ops.so',
            targets: [],
            sass: ['sm_90a'],
            ptx: ['compute_90a'],
            hasFatbin: true,
            complete: false,
            issues: [],
          },
          { package: 'flashinfer', path: '/opt/sgl/flashinfer/libx.so', targets: [], sass: ['sm_120f'], ptx: [], hasFatbin: true, complete: true, issues: [] },
        ],
        verdicts: [
          { package: 'sgl-kernel', gpuArch: 'sm_120', level: 'none', message: 'sgl-kernel has no sm_120 code' },
          { package: 'flashinfer', gpuArch: 'sm_120', level: 'native', message: 'ok' },
        ],
      },
    ],
    warnings: [],
    notes: [],
  });

  it('reads GPUs, versions of the server interpreter and kernel coverage with the verdict', () => {
    const ev = fromDiscovery(report());
    assert.equal(ev.gpu.count?.value, 2);
    assert.equal(ev.gpu.computeCapability?.value, '12.0');
    assert.equal(ev.gpu.family?.value, 'blackwell-rtx');
    assert.equal(ev.gpu.memoryMiB?.value, 97887);
    assert.equal(ev.versions.sglang?.value, '0.5.6');
    assert.equal(ev.versions['sgl-kernel']?.value, '0.3.19');
    assert.equal(ev.versions.cuda?.value, '13.0');
    assert.equal(ev.versions['cuda-driver']?.value, '13.0');
    assert.equal(ev.versions.driver?.value, '580.95.05');
    assert.equal(ev.versions.python?.value, '3.12.3');
    const sk = ev.kernels['sgl-kernel'];
    assert.deepEqual(sk?.value.sass, ['sm_100a', 'sm_90a']);
    assert.equal(sk?.value.files, 2);
    assert.equal(sk?.value.complete, false);
    assert.equal(sk?.certainty, 'likely');
    assert.equal(sk?.value.level, 'none');
    assert.equal(ev.kernels.flashinfer?.value.level, 'native');
    assert.deepEqual(ev.kernels.torch?.value.ptx, ['compute_120']);
    assert.equal(ev.model.path?.value, 'acme/Qwen3.5-27B-FP8');
    assert.deepEqual(ev.conflicts, []);
  });

  it("reads a vLLM server's engine, model and backend environment, the one the chosen interpreter runs", () => {
    const r = report();
    r.servers = [
      { ...r.servers[0], engine: 'sglang', interpreter: '/usr/bin/python3', pid: 7, modelPath: '/models/other' },
      {
        engine: 'vllm',
        kind: 'vllm_serve',
        argv: [],
        interpreter: '/opt/sgl/bin/python3',
        port: 8000,
        portIsDefault: true,
        host: '0.0.0.0',
        modelPath: '/models/Qwen3-8B',
        source: 'process',
        pid: 42,
        env: { VLLM_ATTENTION_BACKEND: 'FLASHINFER', CUDA_VISIBLE_DEVICES: '0,1' },
      },
    ];
    const ev = fromDiscovery(r, { interpreter: '/opt/sgl/bin/python3' });
    assert.equal(ev.engine?.value, 'vllm');
    assert.equal(ev.model.path?.value, '/models/Qwen3-8B');
    assert.equal(ev.env.VLLM_ATTENTION_BACKEND.value, 'FLASHINFER');
    assert.match(ev.env.VLLM_ATTENTION_BACKEND.where ?? '', /discovery on gpu-box \(pid 42\) \/proc environment/);
    // A report saved before servers had an engine held SGLang's only.
    const old = report();
    delete (old.servers[0] as Partial<(typeof old.servers)[0]>).engine;
    assert.equal(fromDiscovery(old).engine?.value, 'sglang');
  });

  it('tolerates a bare report', () => {
    assert.doesNotThrow(() => fromDiscovery({} as EnvReport));
    assert.doesNotThrow(() => fromDiscovery(null as unknown as EnvReport));
  });

  const verdictNan = {
    kind: 'nan' as const,
    onset: 0,
    reasons: [
      { code: 'token0-run' as const, kind: 'nan' as const, message: 'm', offset: 0 },
      { code: 'spliced-token' as const, kind: 'suspect' as const, message: 'm', offset: 3 },
    ],
  };
  const result = (over: Partial<ProbeResult>): ProbeResult => ({
    status: 'completed',
    content: '!!!!',
    reasoning: '',
    contentDroppedChars: 0,
    totalChars: 4,
    finishReason: 'stop',
    matchedStop: 'NaN happened',
    verdict: verdictNan,
    ttftMs: 10,
    durationMs: 100,
    completionTokens: 4,
    tokensPerSecond: 40,
    chunkCount: 4,
    ...over,
  });

  it('reads probe results, quick probes and bare verdicts', () => {
    const one = fromProbe(result({}), { label: 'manual' });
    assert.deepEqual(one.probes[0], {
      status: 'completed',
      finishReason: 'stop',
      matchedStop: 'NaN happened',
      source: 'probe',
      label: 'manual',
      verdict: 'nan',
      reasons: ['token0-run'],
      suspects: ['spliced-token'],
    });
    const quick: QuickProbeResult = {
      items: [
        { id: 'greeting', label: 'Greeting', prompt: 'p', result: result({}) },
        {
          id: 'code',
          label: 'Code',
          prompt: 'p',
          result: result({ status: 'error', error: { kind: 'timeout', message: 't' }, verdict: { kind: 'ok', reasons: [], onset: null } }),
        },
      ],
      summary: { verdict: 'nan', errors: 1, message: 'm' },
    };
    const q = fromProbe(quick);
    assert.deepEqual(
      q.probes.map((p) => [p.label, p.verdict, p.errorKind]),
      [
        ['greeting', 'nan', undefined],
        ['code', 'ok', 'timeout'],
      ],
    );
    assert.equal(fromProbe(verdictNan).probes[0].verdict, 'nan');
    assert.equal(fromProbe([result({}), verdictNan]).probes.length, 2);
    assert.equal(fromProbe({} as ProbeResult).probes.length, 0);
  });

  it('merges every reader into one evidence with its conflicts', async () => {
    const all = mergeAll(
      fromDiscovery(report()),
      fromLaunch(fixture('h100.sh'), 'h100.sh'),
      await fromSglangLog(fixture('sglang-b200-nvfp4.log')),
      fromCheckEnv(fixture('check-env-gb300.txt')),
      fromProbe(result({})),
    );
    assert.equal(all.gpu.family?.value, 'blackwell-rtx'); // nvidia-smi beats the file name and check_env ties lose to the first
    assert.ok(all.conflicts.some((c) => c.path === 'gpu.family' && c.other.value === 'hopper'));
    assert.ok(all.conflicts.some((c) => c.path === 'gpu.computeCapability' && c.other.value === '10.3'));
    assert.equal(all.probes.length, 1);
    assert.equal(all.signatures['nan-detected']?.count, 2);
  });
});
