/**
 * The fix loop and the sweep on a vLLM launch: a script that runs `vllm serve` (the simulator's
 * vLLM launch mode through its `vllm` stand-in) on a simulated RTX PRO 6000 with an NVFP4 MoE
 * checkpoint answers '!!!!' with NaN logits, which vLLM's corrupted-requests counter shows. The
 * loop changes the flag as vLLM spells it (--moe-backend) or, as before that flag existed, the
 * variable it replaced (VLLM_USE_FLASHINFER_MOE_FP4), restarts, and the server is healthy.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../../scripts/lib/codeServer';
import { applyAndVerify, launchServerUrl, localSupervised, ScriptTarget, waitUntilReady } from '../../src/core/fix/loop';
import { runSweep } from '../../src/core/fix/sweep';
import { Supervisor } from '../../src/core/fix/supervisor';
import { LocalHost } from '../../src/core/hosts/local';
import { runQuickProbe } from '../../src/core/probe/quick';
import { buildBundles, runCli } from './helpers';

const ROOT = resolve(__dirname, '..', '..');
const SIM = join(ROOT, 'dist', 'sim.js');

describe('apply and verify on a vLLM launch (supervisor + simulator in vLLM launch mode)', function () {
  this.timeout(120_000);
  let work: string;
  let script: string;
  let original: string;
  let supervisor: Supervisor;
  let server: { baseUrl: string };
  const probe = (s: { baseUrl: string }) => runQuickProbe(s, { maxTokens: 48, timeoutMs: 20_000 });

  before(async () => {
    buildBundles('sim');
    work = mkdtempSync(join(tmpdir(), 'id-fixloop-vllm-'));
    const wrapper = spawnSync(process.execPath, [SIM, 'vllm', 'wrapper', join(work, 'bin'), '--sim-start-seconds', '0', '--sim-tokens-per-second', '0'], {
      encoding: 'utf8',
    });
    assert.equal(wrapper.status, 0, wrapper.stderr);
    const port = await freePort();
    script = join(work, 'run.sh');
    original = `#!/bin/sh\nexport VLLM_COMPUTE_NANS_IN_LOGITS=1\nexec ${join(work, 'bin', 'vllm')} serve nvidia/Qwen3-30B-A3B-NVFP4 \\\n  --port ${port} --max_model_len 8192\n`;
    writeFileSync(script, original, { mode: 0o755 });
    server = { baseUrl: launchServerUrl(original, script) };
    assert.equal(server.baseUrl, `http://127.0.0.1:${port}`);
    supervisor = new Supervisor(join(work, 'state'));
    await supervisor.start('vllm', ['sh', script]);
    assert.ok((await waitUntilReady(server, 30_000, 200)) !== undefined, 'the incident server came up (vLLM has no /health_generate)');
  });

  after(async () => {
    await supervisor?.stop('vllm', { timeoutMs: 3000 });
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("the incident on vLLM: '!!!!' and the NaN counter moving, and its log names the FlashInfer FP4 MoE backend", async () => {
    const q = await probe(server);
    assert.equal(q.summary.verdict, 'nan');
    assert.equal(q.server?.engine, 'vllm');
    assert.ok(q.server?.corruptedRequests && q.server.corruptedRequests.after > q.server.corruptedRequests.before, JSON.stringify(q.server));
    assert.ok(q.items.every((i) => i.result.verdict.reasons.some((r) => r.code === 'nan-counter')));
    const log = supervisor.logTail('vllm', 200);
    assert.match(log, /Using 'FLASHINFER_CUTLASS' NvFp4 MoE backend/);
    assert.match(log, /NaN in the logits/);
  });

  it('--moe-backend cutlass makes it healthy; restore puts the script back byte for byte', async () => {
    const target = new ScriptTarget(new LocalHost(), script, localSupervised(supervisor, 'vllm'));
    const r = await applyAndVerify(target, [{ flag: '--moe-backend', value: 'cutlass' }], { server, probe, readyTimeoutMs: 30_000, pollMs: 200 });
    assert.equal(r.before, 'nan');
    assert.equal(r.after, 'ok', JSON.stringify(r.probe?.summary));
    assert.equal(r.outcome, 'healthy');
    assert.equal(readFileSync(script, 'utf8'), original.replace('--max_model_len 8192', '--max_model_len 8192 --moe-backend cutlass'));
    assert.deepEqual(r.probe?.server?.corruptedRequests, { before: 0, after: 0 });
    await target.restore();
    assert.equal(readFileSync(script, 'utf8'), original);
    assert.ok((await waitUntilReady(server, 30_000, 200)) !== undefined);
  });

  it('the environment variable the flag replaced works too: VLLM_USE_FLASHINFER_MOE_FP4=0 is exported before the command', async () => {
    const target = new ScriptTarget(new LocalHost(), script, localSupervised(supervisor, 'vllm'));
    const r = await applyAndVerify(target, [{ flag: 'VLLM_USE_FLASHINFER_MOE_FP4', value: false }], {
      server,
      probe,
      before: 'nan',
      readyTimeoutMs: 30_000,
      pollMs: 200,
    });
    assert.equal(r.outcome, 'healthy', r.error ?? JSON.stringify(r.probe?.summary));
    assert.match(readFileSync(script, 'utf8'), /\nexport VLLM_USE_FLASHINFER_MOE_FP4=0\nexec /);
    await target.restore();
    assert.equal(readFileSync(script, 'utf8'), original);
  });

  it('a sweep over --moe-backend finds the healthy and the crashing choices, then restores the launch', async () => {
    await waitUntilReady(server, 30_000, 200);
    const target = new ScriptTarget(new LocalHost(), script, localSupervised(supervisor, 'vllm'));
    const result = await runSweep(target, [{ flag: '--moe-backend', values: ['flashinfer_cutlass', 'marlin', 'deep_gemm'] }], {
      server,
      probe,
      readyTimeoutMs: 20_000,
      pollMs: 200,
    });
    assert.deepEqual(
      result.rows.map((r) => [r.flags['--moe-backend'], r.started, r.verdict]),
      [
        ['flashinfer_cutlass', true, 'nan'],
        ['marlin', true, 'ok'],
        ['deep_gemm', false, 'error'],
      ],
    );
    assert.ok(result.rows[0].reasons.includes('nan-counter'));
    assert.equal(result.restored, true);
    assert.equal(readFileSync(script, 'utf8'), original);
  });

  it('inference-doctor sweep --vary over the environment variable the flag replaced (needs dist/cli.js)', async () => {
    await waitUntilReady(server, 30_000, 200);
    // The CLI restarts through its own supervisor state: hand the running server over to it.
    await supervisor.stop('vllm', { timeoutMs: 3000 });
    const state = join(work, 'cli-state');
    const env = { ...process.env, INFERENCE_DOCTOR_STATE_DIR: state };
    assert.equal((await runCli(['supervise', 'start', 'vllm', '--', 'sh', script], { env })).code, 0);
    try {
      assert.ok((await waitUntilReady(server, 30_000, 200)) !== undefined);
      const r = await runCli(['sweep', '--launch', script, '--supervise', 'vllm', '--vary', 'VLLM_USE_FLASHINFER_MOE_FP4=1,0', '--json'], {
        env,
        timeoutMs: 90_000,
      });
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout) as { rows: { flags: Record<string, string>; verdict: string }[]; restored: boolean };
      assert.deepEqual(
        out.rows.map((x) => [x.flags.VLLM_USE_FLASHINFER_MOE_FP4, x.verdict]),
        [
          ['1', 'nan'],
          ['0', 'ok'],
        ],
      );
      assert.equal(out.restored, true);
      assert.equal(readFileSync(script, 'utf8'), original);
    } finally {
      await runCli(['supervise', 'stop', 'vllm'], { env });
      await supervisor.start('vllm', ['sh', script]);
    }
  });
});
