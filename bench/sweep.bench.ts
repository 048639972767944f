/**
 * Sweep overhead per combination beyond what the server itself takes: a sweep over the simulator
 * in launch mode (start time 0, unpaced) under the supervisor, beside the two costs it cannot
 * avoid, measured in the same run: the simulator's own start-to-ready time (spawned directly, no
 * supervisor, no file edit) and one Quick Health Probe on a ready server.
 * Goal (issue 11): overhead ≤ 300 ms per combination.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../scripts/lib/codeServer';
import { ScriptTarget, localSupervised, waitUntilReady } from '../src/core/fix/loop';
import { Supervisor } from '../src/core/fix/supervisor';
import { runSweep } from '../src/core/fix/sweep';
import { LocalHost } from '../src/core/hosts/local';
import { runQuickProbe } from '../src/core/probe/quick';

const ROOT = join(__dirname, '..');
const SIM = join(ROOT, 'dist', 'sim.js');
const SIM_ARGS = [
  '--model-path',
  'nvidia/Qwen3.5-397B-A17B-NVFP4',
  '--quantization',
  'modelopt_fp4',
  '--sim-gpu',
  'rtx-pro-6000',
  '--sim-start-seconds',
  '0',
  '--sim-tokens-per-second',
  '0',
];
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (n: number): number => Math.round(n);

/** Start-to-ready of the bare simulator (spawn → /health_generate and /v1/models answer), then stopped. */
async function bareStartMs(port: number): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [SIM, 'serve', ...SIM_ARGS, '--port', String(port)], { stdio: 'ignore' });
  try {
    const ready = await waitUntilReady({ baseUrl: `http://127.0.0.1:${port}` }, 30_000, 20);
    if (ready === undefined) throw new Error('the simulator did not start');
    return performance.now() - t0;
  } finally {
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
  }
}

export async function run(): Promise<Record<string, unknown>> {
  const work = mkdtempSync(join(tmpdir(), 'id-bench-sweep-'));
  const supervisor = new Supervisor(join(work, 'state'));
  try {
    const port = await freePort();
    const server = { baseUrl: `http://127.0.0.1:${port}` };
    const starts: number[] = [];
    for (let i = 0; i < 3; i++) starts.push(await bareStartMs(port));
    const script = join(work, 'run.sh');
    const bin = join(work, 'bin');
    await new Promise<void>((resolve, reject) => {
      const c = spawn(process.execPath, [SIM, 'wrapper', bin], { stdio: 'ignore' });
      c.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`sim wrapper exited ${code}`))));
    });
    writeFileSync(
      script,
      `#!/bin/sh\nexec ${join(bin, 'python3')} -m sglang.launch_server ${SIM_ARGS.join(' ')} --port ${port} --fp4-gemm-backend flashinfer_cutlass\n`,
    );
    await supervisor.start('bench', ['sh', script]);
    if ((await waitUntilReady(server, 30_000, 20)) === undefined) throw new Error('the supervised simulator did not start');
    const probes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      await runQuickProbe(server, { maxTokens: 64 });
      probes.push(performance.now() - t0);
    }
    const values = ['flashinfer_cutlass', 'flashinfer_cudnn', 'marlin', 'cutlass', 'flashinfer_trtllm', 'flashinfer_cutedsl'];
    const t0 = performance.now();
    const probe = (s: typeof server) => runQuickProbe(s, { maxTokens: 64 });
    const result = await runSweep(new ScriptTarget(new LocalHost(), script, localSupervised(supervisor, 'bench')), [{ flag: '--fp4-gemm-backend', values }], {
      server,
      probe,
      pollMs: 20,
      readyTimeoutMs: 30_000,
    });
    const perCombination = (performance.now() - t0) / values.length;
    const unavoidable = median(starts) + median(probes);
    return {
      combinations: values.length,
      rows: result.rows.map((r) => `${r.flags['--fp4-gemm-backend']}: ${r.verdict}`),
      restored: result.restored,
      perCombinationMs: round(perCombination),
      baseline: { simulatorStartToReadyMs: round(median(starts)), quickProbeMs: round(median(probes)) },
      overheadPerCombinationMs: round(perCombination - unavoidable),
      goalOverheadMs: 300,
    };
  } finally {
    await supervisor.stop('bench', { timeoutMs: 2000 }).catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  }
}
