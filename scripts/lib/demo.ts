/**
 * The demo's world, shared by `npm run demo` (scripts/demo.ts) and the demo e2e test: the incident's
 * server (the simulator in launch mode as Qwen3.5-397B-A17B-NVFP4 on a simulated RTX PRO 6000, SM
 * 12.0) started by the supervisor from a launch script in a demo workspace, a stub `nvidia-smi` on
 * the PATH so discovery reports that GPU, an sgl-kernel built without SM 12.x code, a second simulator with every failure mode, and
 * code-server with the packaged extension. Loopback only; `stop()` ends it all and removes its temp
 * folders.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, repoRoot, startCodeServer, type RunningCodeServer } from './codeServer';
import { startSimulator } from '../../src/sim/server';
import { Supervisor } from '../../src/core/fix/supervisor';
import { waitUntilReady } from '../../src/core/fix/loop';
import { shellWord } from '../../src/core/hosts/quote';

export interface DemoOptions {
  /** code-server's port (0: any free one). */
  port?: number;
  /** Seconds the incident's server takes to load (default 4: long enough to see it start). */
  startSeconds?: number;
  /** Streaming pace of the incident's server (default 40 tokens/s, as a real one). */
  tokensPerSecond?: number;
  /** Package dist/inference-doctor.vsix (vsce) while the incident's server starts; else use the one there. */
  packageVsix?: boolean;
  /** Also the incident on vLLM: `vllm serve` of an NVFP4 MoE checkpoint on the same GPU (deploy/vllm.sh). */
  vllm?: boolean;
}

/** The packaging half of `npm run package` (its one definition is package.json's `package:vsix`). */
function packageVsix(): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('npm', ['run', '-s', 'package:vsix'], { cwd: repoRoot, timeout: 180_000 }, (error, _stdout, stderr) =>
      error ? reject(new Error(`vsce package failed: ${stderr || error.message}`)) : resolve(),
    );
  });
}

export interface RunningDemo {
  codeServer: RunningCodeServer;
  workspace: string;
  /** The incident's launch script, as written at the start. */
  script: string;
  scriptText: string;
  incidentUrl: string;
  /** Whether the incident's server answered before code-server was ready. */
  incidentReady: boolean;
  allUrl: string;
  /** The vLLM incident's server and launch script (with `vllm`). */
  vllm?: { url: string; script: string };
  supervisor: Supervisor;
  stateDir: string;
  temp: string;
  stop(): Promise<void>;
}

/** The incident on vLLM: FlashInfer's FP4 MoE on SM 12.0 answers "!!!!", and vLLM counts the NaN. */
function vllmIncidentScript(vllm: string, port: number): string {
  return [
    '#!/bin/sh',
    '# The incident on vLLM: an NVFP4 MoE model on an RTX PRO 6000 (SM 12.0). It answers "!!!!".',
    '# VLLM_COMPUTE_NANS_IN_LOGITS=1 makes vLLM count requests with NaN logits in /metrics.',
    'export VLLM_COMPUTE_NANS_IN_LOGITS=1',
    `exec ${vllm} serve nvidia/Qwen3-30B-A3B-NVFP4 --port ${port} --max-model-len 32768 \\`,
    '  --moe-backend flashinfer_cutlass',
    '',
  ].join('\n');
}

/**
 * The seed's launch, as a script the supervisor runs: a plain SGLang command. The simulated machine
 * (GPU, load time, pace) lives in the python3 wrapper, as a real box's GPU lives in the box.
 */
function incidentScript(python: string, port: number): string {
  return [
    '#!/bin/sh',
    '# The incident: an NVFP4 MoE model on an RTX PRO 6000 (SM 12.0). It answers "!!!!" and NaN.',
    // The interpreter by its path, as units and scripts name a venv's python (the supervisor may
    // restart it from VS Code, whose PATH comes from the login shell).
    `exec ${python} -m sglang.launch_server \\`,
    `  --model-path nvidia/Qwen3.5-397B-A17B-NVFP4 --quantization modelopt_fp4 --tp 2 --port ${port} \\`,
    '  --moe-runner-backend flashinfer_cutlass --fp4-gemm-backend flashinfer_cutlass',
    '',
  ].join('\n');
}

/**
 * The box's sgl-kernel: a wheel built for sm_90a and sm_100a only (the incident's), in a
 * site-packages that the wrapper's real python3 sees, so host discovery reads its fatbin targets
 * and finds no sm_120 code. The package itself is never imported.
 */
function installSglKernel(temp: string, wrapper: string): void {
  const sitePackages = join(temp, 'site-packages');
  const pkg = join(sitePackages, 'sgl_kernel');
  mkdirSync(pkg, { recursive: true });
  for (const f of ['__init__.py', 'version.py']) copyFileSync(join(repoRoot, 'test/fixtures/fake-install/site-packages/sgl_kernel', f), join(pkg, f));
  copyFileSync(join(repoRoot, 'test/fixtures/elf/sm90a_sm100a.so'), join(pkg, 'common_ops.abi3.so'));
  const text = readFileSync(wrapper, 'utf8');
  const at = text.indexOf('self=$(');
  if (at < 0) throw new Error('the simulator wrapper changed: no place for PYTHONPATH');
  const line = `PYTHONPATH=${shellWord(sitePackages)}\${PYTHONPATH:+:\$PYTHONPATH}; export PYTHONPATH\n`;
  writeFileSync(wrapper, text.slice(0, at) + line + text.slice(at));
}

export async function startDemo(o: DemoOptions = {}): Promise<RunningDemo> {
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
  const machine = ['--sim-gpu', 'rtx-pro-6000', '--sim-start-seconds', String(o.startSeconds ?? 4), '--sim-tokens-per-second', String(o.tokensPerSecond ?? 40)];
  execFileSync(process.execPath, [join(repoRoot, 'dist/sim.js'), 'wrapper', bin, ...machine]);
  if (o.vllm) execFileSync(process.execPath, [join(repoRoot, 'dist/sim.js'), 'vllm', 'wrapper', bin, ...machine]);
  installSglKernel(temp, join(bin, 'python3'));
  process.env.PATH = `${bin}:${process.env.PATH ?? ''}`;
  // A server_args.py of the era the launch uses, so every flag hovers.
  copyFileSync(join(repoRoot, 'test/fixtures/server_args/dataclass_main.py'), join(workspace, 'sglang/srt/server_args.py'));
  copyFileSync(join(repoRoot, 'test/fixtures/launch/sglang.service'), join(workspace, 'deploy/sglang.service'));
  const serverPort = await freePort();
  const script = join(workspace, 'deploy', 'run.sh');
  const scriptText = incidentScript(join(bin, 'python3'), serverPort);
  writeFileSync(script, scriptText, { mode: 0o755 });
  const stateDir = join(temp, 'supervise');
  const supervisor = new Supervisor(stateDir);
  const cleanups: (() => Promise<unknown>)[] = [];
  const stop = async (): Promise<void> => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    rmSync(temp, { recursive: true, force: true });
  };
  try {
    await supervisor.start('sglang', ['sh', script], { cwd: join(workspace, 'deploy') });
    cleanups.push(() => supervisor.stop('sglang', { timeoutMs: 3000 }));
    let vllm: RunningDemo['vllm'];
    if (o.vllm) {
      const port = await freePort();
      vllm = { url: `http://127.0.0.1:${port}`, script: join(workspace, 'deploy', 'vllm.sh') };
      writeFileSync(vllm.script, vllmIncidentScript(join(bin, 'vllm'), port), { mode: 0o755 });
      await supervisor.start('vllm', ['sh', vllm.script], { cwd: join(workspace, 'deploy') });
      cleanups.push(() => supervisor.stop('vllm', { timeoutMs: 3000 }));
    }
    const packaged = o.packageVsix ? packageVsix() : Promise.resolve();
    // Awaited below; a failure before then must not count as unhandled.
    packaged.catch(() => undefined);
    const all = await startSimulator({ port: 0, scenario: join(repoRoot, 'test/fixtures/scenarios/all.json') });
    cleanups.push(() => all.close());
    const incidentUrl = `http://127.0.0.1:${serverPort}`;
    writeFileSync(
      join(workspace, '.vscode', 'settings.json'),
      JSON.stringify(
        {
          'inferenceDoctor.servers': [
            { name: 'SM120 NVFP4 box (the incident)', url: incidentUrl },
            { name: 'Simulator: every failure mode (pick a model)', url: all.url },
            ...(vllm ? [{ name: 'vLLM SM120 NVFP4 box (the incident on vLLM)', url: vllm.url }] : []),
          ],
        },
        null,
        2,
      ),
    );
    await packaged;
    const codeServer = await startCodeServer({
      workspace,
      ...(o.port ? { port: o.port } : {}),
      settings: {
        'inferenceDoctor.fix.superviseStateDir': stateDir,
        // VS Code's server takes PATH from the login shell, so the stub is named where it is.
        'inferenceDoctor.gpu.nvidiaSmiPath': join(bin, 'nvidia-smi'),
      },
    });
    cleanups.push(() => codeServer.close());
    const incidentReady = (await waitUntilReady({ baseUrl: incidentUrl }, 60_000, 250)) !== undefined;
    return {
      codeServer,
      workspace,
      script,
      scriptText,
      incidentUrl,
      incidentReady,
      allUrl: all.url,
      ...(vllm ? { vllm } : {}),
      supervisor,
      stateDir,
      temp,
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
