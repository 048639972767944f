/**
 * Apply and verify over real processes: a launch script run by the supervisor starts the
 * simulator through a stand-in `python` that answers like the incident unless the FP4 GEMM
 * backend is flashinfer_cudnn (this test's own double, not the extension's rules). The loop edits
 * the script through the launch parser, restarts, waits, probes: NaN before, healthy after;
 * restore gives the script back byte for byte; a change that keeps the server from starting is
 * rolled back on its own.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/lib/codeServer';
import { applyAndVerify, ScriptTarget, localSupervised, waitUntilReady } from '../../src/core/fix/loop';
import { Supervisor } from '../../src/core/fix/supervisor';
import { LocalHost } from '../../src/core/hosts/local';
import { runQuickProbe } from '../../src/core/probe/quick';
import { writeFakePython } from '../support/fakeSglang';
import { buildBundles } from './helpers';

const FIX = [{ flag: '--fp4-gemm-backend', aliases: ['--fp4-gemm-runner-backend'], value: 'flashinfer_cudnn' }];

describe('apply and verify (supervisor + simulator)', function () {
  this.timeout(120_000);
  let work: string;
  let script: string;
  let original: string;
  let supervisor: Supervisor;
  let server: { baseUrl: string };
  const quick = { maxTokens: 48, timeoutMs: 20_000 };
  const probe = (s: { baseUrl: string }) => runQuickProbe(s, quick);

  before(async () => {
    buildBundles('sim');
    work = mkdtempSync(join(tmpdir(), 'id-fixloop-'));
    const port = await freePort();
    server = { baseUrl: `http://127.0.0.1:${port}` };
    const python = writeFakePython(work, port);
    script = join(work, 'run.sh');
    original = `#!/bin/sh\n# the incident's launch\nexec ${python} -m sglang.launch_server \\\n  --model-path nvidia/Qwen3.5-397B-A17B-NVFP4 \\\n  --fp4-gemm-backend flashinfer_cutlass --tp 2\n`;
    writeFileSync(script, original, { mode: 0o755 });
    supervisor = new Supervisor(join(work, 'state'));
    await supervisor.start('sglang', ['sh', script]);
    assert.ok((await waitUntilReady(server, 30_000, 200)) !== undefined, 'the incident server came up');
  });

  after(async () => {
    await supervisor?.stop('sglang', { timeoutMs: 3000 });
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('NaN before, healthy after the flag change; restore puts the script back byte for byte', async () => {
    const target = new ScriptTarget(new LocalHost(), script, localSupervised(supervisor, 'sglang'));
    const steps: string[] = [];
    const r = await applyAndVerify(target, FIX, { server, probe, readyTimeoutMs: 30_000, pollMs: 200, onProgress: (m) => steps.push(m) });
    assert.equal(r.before, 'nan');
    assert.equal(r.after, 'ok');
    assert.equal(r.outcome, 'healthy');
    assert.equal(r.restored, false);
    assert.ok(r.readySeconds !== undefined && r.readySeconds < 30);
    assert.equal(readFileSync(script, 'utf8'), original.replace('flashinfer_cutlass', 'flashinfer_cudnn'), 'only the value changed');
    assert.deepEqual(steps, [
      'probing before the change',
      `changing ${target.label} and restarting`,
      'waiting for the server to answer',
      'probing after the change',
    ]);

    await target.restore();
    assert.equal(readFileSync(script, 'utf8'), original);
    assert.ok((await waitUntilReady(server, 30_000, 200)) !== undefined);
    assert.equal((await probe(server)).summary.verdict, 'nan', 'the restored launch is the incident again');
  });

  it('a change that keeps the server from starting is rolled back on its own, with the log tail', async () => {
    const target = new ScriptTarget(new LocalHost(), script, localSupervised(supervisor, 'sglang'));
    const r = await applyAndVerify(target, [{ flag: '--sim-crash', value: true }], { server, probe, before: 'nan', readyTimeoutMs: 4_000, pollMs: 200 });
    assert.equal(r.outcome, 'did-not-start');
    assert.equal(r.restored, true);
    assert.match(r.logTail ?? '', /no kernel image is available/);
    assert.equal(readFileSync(script, 'utf8'), original);
    assert.ok((await waitUntilReady(server, 30_000, 200)) !== undefined, 'the original launch runs again');
  });
});
