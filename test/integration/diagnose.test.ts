/**
 * `inference-doctor diagnose` as a user runs it: against the simulator over real HTTP (the
 * incident's server), on a launch file and a server log on disk, on a (fake) vLLM host whose
 * discovery runs for real, and with bad input.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, scenarioPath, SimPool } from './helpers';

interface JsonFinding {
  id: string;
  confidence: string;
  score: number;
  evidence: { stance: string; text: string }[];
  missing: string[];
  fix: { flags: Record<string, unknown>; env: Record<string, unknown>; steps: unknown[] };
  sources: string[];
}

describe('inference-doctor diagnose', function () {
  this.timeout(120_000);
  const pool = new SimPool();
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'id-diagnose-'));
  });
  after(async () => {
    await pool.closeAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it('ranks the FP4 GEMM backend first for the incident server on an SM 12.0 GPU, from /server_info and a probe', async () => {
    const sim = await pool.start(scenarioPath('nan'));
    const r = await runCli(['diagnose', '--url', sim.url, '--gpu', 'rtx-pro-6000', '--json'], { timeoutMs: 90_000 });
    assert.equal(r.code, 1, r.stderr);
    const out = JSON.parse(r.stdout) as { symptoms: { symptom: string }[]; findings: JsonFinding[]; nextCheck?: string };
    assert.ok(
      out.symptoms.some((s) => s.symptom === 'nan'),
      JSON.stringify(out.symptoms),
    );
    const top = out.findings[0];
    assert.equal(top.id, 'sglang-fp4-gemm-cutlass-sm120-zero-output', JSON.stringify(out.findings.map((f) => f.id)));
    assert.equal(top.confidence, 'match');
    assert.deepEqual(top.fix.flags, { '--fp4-gemm-backend': 'flashinfer_cudnn' });
    assert.ok(top.evidence.some((e) => e.stance === 'for' && /fp4_gemm_runner_backend/.test(e.text) && /server_info/.test(e.text)));
    assert.ok(top.sources.every((s) => s.startsWith('https://github.com/')));
    // The sgl-kernel rule needs the library's targets: it is only possible, and says what to read.
    const kernels = out.findings.find((f) => f.id === 'sglang-nvfp4-sm120-sgl-kernel-without-sm120');
    assert.equal(kernels?.confidence, 'possible');
    assert.ok(kernels.missing.some((m) => /inference-doctor env/.test(m)));
  });

  it('reads a launch file and a server log from disk and prints the causes as text', async () => {
    const launch = join(dir, 'serve.sh');
    writeFileSync(
      launch,
      '#!/bin/sh\n# RTX PRO 6000\npython -m sglang.launch_server --model-path nvidia/Qwen3-30B-A3B-NVFP4 --quantization modelopt_fp4 --tp 2 --fp4-gemm-backend flashinfer_cutlass\n',
    );
    const log = join(dir, 'server.log');
    writeFileSync(
      log,
      [
        "[2026-06-01 10:00:01] server_args=ServerArgs(model_path='nvidia/Qwen3-30B-A3B-NVFP4', quantization='modelopt_fp4', fp4_gemm_runner_backend='flashinfer_cutlass', tp_size=2)",
        '[2026-06-01 10:02:05] The server is fired up and ready to roll!',
        '',
      ].join('\n'),
    );
    const r = await runCli(['diagnose', '--launch', launch, '--log', log, '--gpu', '12.0', '--symptom', 'empty']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^Symptoms: empty \(given\)/m);
    assert.match(r.stdout, /1\. \[match [0-9.]+\] Dense NVFP4 GEMM through FlashInfer CUTLASS returns zeros on SM120/);
    assert.match(r.stdout, /Fix, in order:\n\s+1\. --fp4-gemm-backend flashinfer_cudnn/);
    assert.match(r.stdout, /Next check: /);
  });

  it('says what to give when nothing fits, and exits 0', async () => {
    const r = await runCli(['diagnose', '--gpu', 'h100', '--symptom', 'crash', '--engine', 'sglang']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /No cause in the \d+ rules fits/);
  });

  it('refuses bad usage with 64 and a missing file with 66, and reports an unreachable server as a note', async () => {
    assert.equal((await runCli(['diagnose'])).code, 64);
    assert.equal((await runCli(['diagnose', '--symptom', 'sadness'])).code, 64);
    assert.equal((await runCli(['diagnose', '--gpu', 'no-such-gpu'])).code, 64);
    assert.equal((await runCli(['diagnose', '--version', '0.5.6'])).code, 64);
    assert.equal((await runCli(['diagnose', '--url', 'file:///etc/passwd'])).code, 64);
    const missing = await runCli(['diagnose', '--log', join(dir, 'nope.log')]);
    assert.equal(missing.code, 66);
    assert.match(missing.stderr, /Cannot read .*nope\.log/);
    const down = await runCli(['diagnose', '--url', 'http://127.0.0.1:9', '--no-probe', '--json'], { timeoutMs: 40_000 });
    assert.equal(down.code, 0, down.stderr);
    const out = JSON.parse(down.stdout) as { notes: string[] };
    assert.ok(
      out.notes.some((n) => /\/v1\/models/.test(n)),
      out.notes.join('|'),
    );
  });
});

describe('inference-doctor diagnose on a vLLM host', function () {
  this.timeout(120_000);
  const fixtures = join(__dirname, '..', 'fixtures');
  let dir: string;
  let env: NodeJS.ProcessEnv;
  before(function () {
    dir = mkdtempSync(join(tmpdir(), 'id-diagnose-vllm-'));
    // test/fixtures/fake-vllm: ps, ss and systemctl stubs, a vLLM package whose _C and _moe_C have no sm_120 code.
    cpSync(join(fixtures, 'fake-vllm'), join(dir, 'fake'), { recursive: true });
    for (const f of readdirSync(join(dir, 'fake', 'bin'))) chmodSync(join(dir, 'fake', 'bin', f), 0o755);
    const pkg = join(dir, 'fake', 'site-packages', 'vllm');
    copyFileSync(join(fixtures, 'elf', 'sm90a_sm100a.so'), join(pkg, '_C.abi3.so'));
    copyFileSync(join(fixtures, 'elf', 'relfatbin_sm86.so'), join(pkg, '_moe_C.abi3.so'));
    writeFileSync(join(dir, 'vllm'), '#!/usr/bin/env python3\n', { mode: 0o755 });
    env = {
      ...process.env,
      // The fake nvidia-smi (an RTX PRO 6000, compute 12.0) and which come from fake-install.
      PATH: `${join(dir, 'fake', 'bin')}:${join(fixtures, 'fake-install', 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      PYTHONPATH: join(dir, 'fake', 'site-packages'),
      FAKE_PYTHON: execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8', timeout: 10_000 }).trim(),
      FAKE_VLLM_SCRIPT: join(dir, 'vllm'),
      PYTHONDONTWRITEBYTECODE: '1',
    };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("ranks vLLM's missing SM120 kernels first, from the host's fatbins, its launch file and its log", async () => {
    const launch = join(dir, 'serve.sh');
    writeFileSync(launch, '#!/bin/sh\nexec vllm serve /models/Qwen3-8B --port 8100 --max-model-len 16384 -tp 1\n');
    const log = join(dir, 'vllm.log');
    writeFileSync(log, readFileSync(join(fixtures, 'diagnose', 'vllm-rtx5090-no-kernel.log')));
    const r = await runCli(['diagnose', '--host', 'local', '--launch', launch, '--log', log, '--json'], { env, timeoutMs: 100_000 });
    assert.equal(r.code, 1, r.stderr);
    const out = JSON.parse(r.stdout) as { symptoms: { symptom: string }[]; findings: JsonFinding[] };
    assert.ok(
      out.symptoms.some((s) => s.symptom === 'crash'),
      JSON.stringify(out.symptoms),
    );
    const ranked = out.findings.map((f) => [f.id, f.confidence]);
    // The RTX Blackwell rule first, then the general one: both now stand on what vLLM's libraries carry.
    assert.deepEqual(ranked.slice(0, 2), [
      ['vllm-no-sm120-kernel-image', 'match'],
      ['vllm-kernel-missing-arch-crash', 'match'],
    ]);
    for (const f of out.findings.slice(0, 2)) {
      // The fatbin reader's targets, judged against the GPU nvidia-smi reported, and the log line.
      assert.ok(
        f.evidence.some((e) => e.stance === 'for' && /vllm carries .*sm_100a.*sm_86.*sm_90a.*none for sm_120/.test(e.text) && /fatbin targets/.test(e.text)),
        JSON.stringify(f.evidence),
      );
      assert.ok(f.evidence.some((e) => e.stance === 'for' && /no kernel image/.test(e.text)));
    }
    // The SGLang rule on the same signature needs sgl-kernel, which is not on this host.
    assert.ok(!out.findings.some((f) => f.id === 'sglang-sgl-kernel-missing-arch-crash' && f.confidence === 'match'));
  });
  it("rules both out once vLLM's libraries carry sm_120 code: the missing kernel is another library's", async () => {
    const pkg = join(dir, 'fake', 'site-packages', 'vllm');
    for (const lib of ['_C.abi3.so', '_moe_C.abi3.so']) copyFileSync(join(fixtures, 'elf', 'sm100a_sm120_ptx120.so'), join(pkg, lib));
    const log = join(dir, 'vllm.log');
    writeFileSync(log, readFileSync(join(fixtures, 'diagnose', 'vllm-rtx5090-no-kernel.log')));
    const r = await runCli(['diagnose', '--host', 'local', '--log', log, '--json'], { env, timeoutMs: 100_000 });
    const out = JSON.parse(r.stdout) as { findings: JsonFinding[] };
    const kernelRules = out.findings.filter((f) => f.id === 'vllm-no-sm120-kernel-image' || f.id === 'vllm-kernel-missing-arch-crash');
    assert.deepEqual(kernelRules, [], JSON.stringify(out.findings.map((f) => [f.id, f.confidence])));
  });
});
