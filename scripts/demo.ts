/**
 * `npm run demo`: the incident, from the first `!!!!` to a healthy answer. The simulator plays the
 * SGLang server of the seed (Qwen3.5-397B-A17B-NVFP4 on a simulated RTX PRO 6000, SM 12.0),
 * started by `inference-doctor supervise` from a launch script in the demo workspace; a stub
 * `nvidia-smi` on the PATH reports that GPU to discovery. code-server opens the workspace with the
 * packaged extension. Loopback only; Ctrl+C stops everything and removes the temp folders.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, repoRoot, startCodeServer } from './lib/codeServer';
import { startSimulator } from '../src/sim/server';
import { Supervisor } from '../src/core/fix/supervisor';
import { waitUntilReady } from '../src/core/fix/loop';

async function main(): Promise<void> {
  const port = Number(process.env.DEMO_PORT ?? 8080);
  const temp = mkdtempSync(join(tmpdir(), 'inference-doctor-demo-'));
  const workspace = join(temp, 'workspace');
  const bin = join(temp, 'bin');
  mkdirSync(join(workspace, 'deploy'), { recursive: true });
  mkdirSync(join(workspace, 'sglang', 'srt'), { recursive: true });
  mkdirSync(join(workspace, '.vscode'));
  mkdirSync(bin);
  // The GPU host: a stub nvidia-smi (SM 12.0) and a `python3` that runs the simulator for -m sglang.launch_server.
  copyFileSync(join(repoRoot, 'test/fixtures/fake-install/bin/nvidia-smi'), join(bin, 'nvidia-smi'));
  chmodSync(join(bin, 'nvidia-smi'), 0o755);
  execFileSync(process.execPath, [join(repoRoot, 'dist/sim.js'), 'wrapper', bin]);
  process.env.PATH = `${bin}:${process.env.PATH ?? ''}`;
  // A server_args.py of the era the launch uses, so every flag hovers.
  copyFileSync(join(repoRoot, 'test/fixtures/server_args/dataclass_main.py'), join(workspace, 'sglang/srt/server_args.py'));
  copyFileSync(join(repoRoot, 'test/fixtures/launch/sglang.service'), join(workspace, 'deploy/sglang.service'));
  const serverPort = await freePort();
  const script = join(workspace, 'deploy', 'run.sh');
  writeFileSync(
    script,
    [
      '#!/bin/sh',
      '# The incident: an NVFP4 MoE model on an RTX PRO 6000 (SM 12.0). It answers "!!!!" and NaN.',
      `exec ${join(bin, 'python3')} -m sglang.launch_server \\`,
      '  --model-path nvidia/Qwen3.5-397B-A17B-NVFP4 --quantization modelopt_fp4 --tp 2 \\',
      `  --sim-gpu rtx-pro-6000 --sim-start-seconds 4 --port ${serverPort} \\`,
      '  --moe-runner-backend flashinfer_cutlass --fp4-gemm-backend flashinfer_cutlass',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  const stateDir = join(temp, 'supervise');
  const supervisor = new Supervisor(stateDir);
  await supervisor.start('sglang', ['sh', script], { cwd: join(workspace, 'deploy') });
  const all = await startSimulator({ port: 0, scenario: join(repoRoot, 'test/fixtures/scenarios/all.json') });
  const incident = `http://127.0.0.1:${serverPort}`;
  writeFileSync(
    join(workspace, '.vscode', 'settings.json'),
    JSON.stringify(
      {
        'inferenceDoctor.servers': [
          { name: 'SM120 NVFP4 box (the incident)', url: incident },
          { name: 'Simulator: every failure mode (pick a model)', url: all.url },
        ],
      },
      null,
      2,
    ),
  );
  const codeServer = await startCodeServer({ workspace, port, settings: { 'inferenceDoctor.fix.superviseStateDir': stateDir } });
  const ready = await waitUntilReady({ baseUrl: incident }, 60_000, 250);
  console.log(`\nThe incident's server: ${incident}${ready === undefined ? ' (still starting)' : ''}; its log: ${supervisor.status('sglang').logFile}`);
  console.log(`Simulator (every failure mode): ${all.url}`);
  console.log(`\nOpen VS Code in your browser: ${codeServer.url}`);
  console.log(
    [
      '1. Inference Doctor icon → "SM120 NVFP4 box" → Run: the answer streams "!!!!" and the verdict says NaN.',
      '2. Open deploy/run.sh: the warning on --fp4-gemm-backend names the known issue (hover it).',
      '3. Light bulb → "Apply to Server and Re-probe: Run the MoE layers…" → pick "sglang" → Apply: NaN → OK.',
      '   Or in a terminal: inference-doctor sweep --launch deploy/run.sh --supervise sglang --vary fp4-gemm-backend=flashinfer_cutlass,flashinfer_cudnn,marlin',
      'Ctrl+C stops everything.',
    ].join('\n'),
  );
  const stop = async (): Promise<void> => {
    await codeServer.close();
    await all.close();
    await supervisor.stop('sglang', { timeoutMs: 3000 }).catch(() => undefined);
    rmSync(temp, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
