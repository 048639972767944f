/**
 * `inference-doctor sweep` end to end: the simulator in launch mode (through its `python3` wrapper,
 * as a GPU host would run SGLang) on a simulated RTX PRO 6000, started by `supervise` from a
 * launch script. The simulator's own rules decide which combination answers well; the sweep finds
 * it, reports every row (a backend that crashes at start included), and puts the script back byte
 * for byte — also when interrupted.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../../scripts/lib/codeServer';
import { waitUntilReady } from '../../src/core/fix/loop';
import { buildBundles } from './helpers';

const ROOT = resolve(__dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const SIM = join(ROOT, 'dist', 'sim.js');

interface Row {
  flags: Record<string, string>;
  started: boolean;
  verdict: string;
  logLines?: string[];
}

describe('inference-doctor sweep (simulator launch mode under supervise)', function () {
  this.timeout(180_000);
  let work: string;
  let state: string;
  let script: string;
  let original: string;
  let port: number;
  const node = (args: string[]) =>
    spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 150_000, env: { ...process.env, INFERENCE_DOCTOR_STATE_DIR: state } });

  before(async () => {
    buildBundles('cli,sim');
    work = mkdtempSync(join(tmpdir(), 'id-sweep-'));
    state = join(work, 'state');
    port = await freePort();
    const wrapper = spawnSync(process.execPath, [SIM, 'wrapper', join(work, 'bin')], { encoding: 'utf8' });
    assert.equal(wrapper.status, 0, wrapper.stderr);
    script = join(work, 'run.sh');
    original = [
      '#!/bin/sh',
      '# The incident: NVFP4 MoE on an SM 12.0 card.',
      `exec ${join(work, 'bin', 'python3')} -m sglang.launch_server \\`,
      '  --model-path nvidia/Qwen3.5-397B-A17B-NVFP4 --quantization modelopt_fp4 \\',
      `  --sim-gpu rtx-pro-6000 --sim-start-seconds 0.2 --sim-tokens-per-second 0 --port ${port} \\`,
      '  --moe-runner-backend triton --fp4-gemm-backend flashinfer_cutlass',
      '',
    ].join('\n');
    writeFileSync(script, original, { mode: 0o755 });
    const started = node(['supervise', 'start', 'sglang', '--', 'sh', script]);
    assert.equal(started.status, 0, started.stderr);
    assert.ok((await waitUntilReady({ baseUrl: `http://127.0.0.1:${port}` }, 30_000, 200)) !== undefined, 'the incident server came up');
  });

  after(() => {
    if (state) node(['supervise', 'stop', 'sglang', '--timeout', '2']);
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('finds the one healthy combination, records a crash at start as a row, restores the script, writes the reports', () => {
    const r = node([
      'sweep',
      '--launch',
      script,
      '--supervise',
      'sglang',
      '--json',
      '--ready-timeout',
      '20',
      '--vary',
      'moe_runner_backend=triton,flashinfer_cutlass',
      '--vary',
      'fp4-gemm-backend=flashinfer_cutlass,flashinfer_cudnn',
      '--vary',
      '--attention-backend=flashinfer,trtllm_mha',
    ]);
    assert.equal(r.status, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { rows: Row[]; restored: boolean; complete: boolean };
    assert.equal(report.rows.length, 8);
    assert.equal(report.complete, true);
    assert.equal(report.restored, true);
    const healthy = report.rows.filter((x) => x.verdict === 'ok');
    assert.deepEqual(
      healthy.map((x) => x.flags),
      [{ '--moe-runner-backend': 'flashinfer_cutlass', '--fp4-gemm-backend': 'flashinfer_cudnn', '--attention-backend': 'flashinfer' }],
    );
    const crashed = report.rows.filter((x) => !x.started);
    assert.ok(crashed.length >= 1 && crashed.every((x) => x.flags['--attention-backend'] === 'trtllm_mha'), 'trtllm attention does not start on SM 12.0');
    assert.ok(
      crashed.some((x) => (x.logLines ?? []).some((l) => /error/i.test(l))),
      'the failed start keeps the log line that says why',
    );
    assert.ok(
      report.rows.some((x) => x.verdict === 'nan'),
      'the incident shows as nan',
    );
    assert.equal(readFileSync(script, 'utf8'), original, 'the launch script is back byte for byte');
    const files = readdirSync(work).filter((f) => f.startsWith('run.sh.sweep-'));
    assert.deepEqual(files.map((f) => f.replace(/.*\./, '')).sort(), ['json', 'md']);
    const md = readFileSync(join(work, files.find((f) => f.endsWith('.md')) ?? ''), 'utf8');
    assert.match(md, /\| `flashinfer_cutlass` \| `flashinfer_cudnn` \| `flashinfer` \| yes \| ok \|/);
    assert.match(md, /\| `trtllm_mha` \| no \| error \| exited during start-up/);
  });

  it('exits 1 when no combination is healthy', () => {
    const r = node([
      'sweep',
      '--launch',
      script,
      '--supervise',
      'sglang',
      '--json',
      '--ready-timeout',
      '20',
      '--vary',
      'fp4-gemm-backend=flashinfer_cutlass,marlin',
    ]);
    assert.equal(r.status, 1, r.stderr);
    assert.equal(readFileSync(script, 'utf8'), original);
  });

  it('--prompt probes each combination with the given prompts instead of the three quick ones', () => {
    const log = (): string => node(['supervise', 'log', 'sglang', '--lines', '100000']).stdout;
    const chats = (): number => (log().match(/"POST \/v1\/chat\/completions/g) ?? []).length;
    const before = chats();
    const r = node([
      'sweep',
      '--launch',
      script,
      '--supervise',
      'sglang',
      '--json',
      '--ready-timeout',
      '20',
      '--prompt',
      'Name one colour.',
      '--vary',
      'moe-runner-backend=flashinfer_cutlass',
      '--vary',
      'fp4-gemm-backend=flashinfer_cudnn',
    ]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { rows: Row[] }).rows[0].verdict, 'ok');
    assert.equal(readFileSync(script, 'utf8'), original);
    // The supervisor's log runs on across restarts: one chat request for the one combination (the quick probe sends three).
    assert.equal(chats() - before, 1);
    assert.equal(
      node(['sweep', '--launch', script, '--supervise', 'sglang', '--prompt', ' ', '--vary', 'tp=1']).status,
      64,
      'an empty prompt is a usage error',
    );
  });

  it('Ctrl-C stops after the current combination and still restores the launch (exit 130)', async () => {
    const child = spawn(
      process.execPath,
      [
        CLI,
        'sweep',
        '--launch',
        script,
        '--supervise',
        'sglang',
        '--ready-timeout',
        '20',
        '--vary',
        'fp4-gemm-backend=flashinfer_cudnn,flashinfer_cutlass,marlin,cutlass',
      ],
      {
        env: { ...process.env, INFERENCE_DOCTOR_STATE_DIR: state },
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) child.kill('SIGINT');
    });
    const code = await new Promise<number | null>((done) => child.once('exit', (c) => done(c)));
    assert.equal(code, 130);
    assert.ok(out.split('\n').filter(Boolean).length < 4, 'it stopped early');
    assert.equal(readFileSync(script, 'utf8'), original);
  });

  it('says what is wrong before touching anything', () => {
    assert.equal(node(['sweep', '--launch', script, '--vary', 'tp=1,2']).status, 64, 'no restart target');
    assert.equal(node(['sweep', '--launch', script, '--supervise', 'sglang']).status, 64, 'nothing to vary');
    assert.equal(node(['sweep', '--launch', join(work, 'missing.sh'), '--supervise', 'sglang', '--vary', 'tp=1,2']).status, 66);
    assert.equal(readFileSync(script, 'utf8'), original);
  });
});
