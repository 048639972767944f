/**
 * The sweep's faults on real processes: a backend that hangs at start, one that dies under the
 * probe, and an SSH connection that drops in the middle of a sweep run on a host over a real sshd.
 * Each leaves a row that says what happened, and the original launch is put back byte for byte.
 * The simulator (launch mode, through its python3 wrapper) decides what each combination does from a
 * behaviour file of this test's own.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../../scripts/lib/codeServer';
import { connectSsh, type SshHost } from '../../src/core/hosts/ssh';
import type { ExecOptions, Host } from '../../src/core/hosts/types';
import { LocalHost } from '../../src/core/hosts/local';
import { hostSupervised, localSupervised, ScriptTarget, waitUntilReady } from '../../src/core/fix/loop';
import { Supervisor } from '../../src/core/fix/supervisor';
import { runSweep, type SweepRow } from '../../src/core/fix/sweep';
import { runQuickProbe } from '../../src/core/probe/quick';
import { startSshd, targetFor, type Sshd } from '../support/sshd';
import { buildBundles } from './helpers';

const ROOT = resolve(__dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const SIM = join(ROOT, 'dist', 'sim.js');

const BEHAVIOURS = {
  rules: [
    { name: 'waits-for-peers', when: { args: { nnodes: { min: 2 } } }, behaviour: 'hang-at-start' },
    {
      name: 'dies-under-load',
      when: { args: { attention_backend: ['triton'] } },
      behaviour: 'crash-mid-answer',
      crashAfterChunks: 3,
      error: 'RuntimeError: CUDA error: an illegal memory access was encountered',
    },
  ],
};

const row = (rows: SweepRow[], flags: Record<string, string>): SweepRow | undefined =>
  rows.find((r) => Object.entries(flags).every(([k, v]) => r.flags[k] === v));

describe('sweep faults (simulator launch mode under supervise, real sshd)', function () {
  this.timeout(240_000);
  let work: string;
  let state: string;
  let script: string;
  let original: string;
  let server: { baseUrl: string };
  let supervisor: Supervisor;

  before(async () => {
    buildBundles('cli,sim');
    work = mkdtempSync(join(tmpdir(), 'id-sweep-faults-'));
    state = join(work, 'state');
    const port = await freePort();
    server = { baseUrl: `http://127.0.0.1:${port}` };
    const wrapper = spawnSync(process.execPath, [SIM, 'wrapper', join(work, 'bin')], { encoding: 'utf8' });
    assert.equal(wrapper.status, 0, wrapper.stderr);
    const behaviours = join(work, 'behaviours.json');
    writeFileSync(behaviours, JSON.stringify(BEHAVIOURS));
    script = join(work, 'run.sh');
    original = [
      '#!/bin/sh',
      `exec ${join(work, 'bin', 'python3')} -m sglang.launch_server --model-path Qwen/Qwen3-8B \\`,
      `  --sim-gpu h100 --sim-start-seconds 0.2 --sim-tokens-per-second 0 --sim-scenario ${behaviours} --port ${port} \\`,
      '  --attention-backend flashinfer --nnodes 1',
      '',
    ].join('\n');
    writeFileSync(script, original, { mode: 0o755 });
    supervisor = new Supervisor(state);
    await supervisor.start('sglang', ['sh', script]);
    assert.ok((await waitUntilReady(server, 30_000, 200)) !== undefined, 'the server came up');
  });

  after(async () => {
    await supervisor?.stop('sglang', { timeoutMs: 3000 });
    if (work) rmSync(work, { recursive: true, force: true });
  });

  async function assertRestored(): Promise<void> {
    assert.equal(readFileSync(script, 'utf8'), original, 'the launch script is back byte for byte');
    assert.equal(statSync(script).mode & 0o777, 0o755, 'and still executable');
    assert.ok((await waitUntilReady(server, 30_000, 200)) !== undefined, 'the restored server answers');
    assert.equal((await runQuickProbe(server, {})).summary.verdict, 'ok');
  }

  it('a hang at start and a death under the probe are rows that say so; the launch is restored', async () => {
    const target = new ScriptTarget(new LocalHost(), script, localSupervised(supervisor, 'sglang'));
    const result = await runSweep(
      target,
      [
        { flag: '--attention-backend', values: ['flashinfer', 'triton'] },
        { flag: '--nnodes', values: ['1', '2'] },
      ],
      { server, readyTimeoutMs: 3_000, pollMs: 200 },
    );
    assert.equal(result.rows.length, 4);
    assert.equal(result.complete, true);
    assert.equal(result.restored, true);
    const healthy = row(result.rows, { '--attention-backend': 'flashinfer', '--nnodes': '1' });
    assert.equal(healthy?.verdict, 'ok', JSON.stringify(healthy));
    for (const backend of ['flashinfer', 'triton']) {
      const hung = row(result.rows, { '--attention-backend': backend, '--nnodes': '2' });
      assert.equal(hung?.started, false, JSON.stringify(hung));
      assert.match(hung?.error ?? '', /not ready within 3 s/);
    }
    const died = row(result.rows, { '--attention-backend': 'triton', '--nnodes': '1' });
    assert.equal(died?.started, true, JSON.stringify(died));
    assert.equal(died?.verdict, 'error');
    assert.match(died?.error ?? '', /exited during the probe/);
    assert.ok(
      died?.logLines?.some((l) => l.includes('illegal memory access')),
      `the log line that says why: ${JSON.stringify(died?.logLines)}`,
    );
    await assertRestored();
  });

  describe('over SSH', () => {
    let sshd: Sshd;
    let ssh: SshHost;

    before(async () => {
      sshd = await startSshd();
      const home = join(work, 'ssh-home');
      ssh = await connectSsh(targetFor(sshd, home), {}, { knownHostsFiles: [sshd.writeKnownHosts()], identityFiles: [sshd.clientKey], agentSocket: null });
    });
    after(async () => {
      await ssh?.close();
      await sshd?.close();
    });

    it('the connection drops during a restart: that row says so, the sweep goes on after reconnecting, the launch is restored', async () => {
      let restarts = 0;
      let killed = 0;
      // The host as the sweep sees it; the second restart loses its connection half way.
      const flaky: Host = Object.assign(Object.create(ssh) as Host, {
        exec: (argv: string[], opts?: ExecOptions) => {
          const pending = ssh.exec(argv, opts);
          if (argv.includes('restart') && ++restarts === 2) setTimeout(() => (killed = sshd.killSessions()), 60);
          return pending;
        },
      });
      const cli = ['env', `INFERENCE_DOCTOR_STATE_DIR=${state}`, process.execPath, CLI];
      const target = new ScriptTarget(flaky, script, hostSupervised(flaky, cli, 'sglang'));
      assert.match(target.label, /under supervise sglang on /);
      const result = await runSweep(target, [{ flag: '--attention-backend', values: ['flashinfer', 'fa3', 'flashinfer_trtllm'] }], {
        server,
        readyTimeoutMs: 15_000,
        pollMs: 200,
      });
      assert.ok(killed > 0, 'an sshd session was cut');
      assert.equal(result.rows.length, 3, JSON.stringify(result.rows));
      const cut = result.rows[1];
      assert.equal(cut.started, false, JSON.stringify(cut));
      assert.match(cut.error ?? '', /lost|dropped|closed|disconnected/i);
      assert.equal(result.rows[0].verdict, 'ok', JSON.stringify(result.rows[0]));
      assert.equal(result.rows[2].verdict, 'ok', `the sweep went on after the drop: ${JSON.stringify(result.rows[2])}`);
      assert.equal(result.restored, true, result.restoreError);
      assert.ok(ssh.connections > 1, 'it reconnected');
      await assertRestored();
    });

    it('inference-doctor sweep --host: the launch file, supervisor and server on the SSH host (server reached through a tunnel)', () => {
      const r = spawnSync(
        process.execPath,
        [
          CLI,
          'sweep',
          '--host',
          `ssh://${sshd.user}@127.0.0.1:${sshd.port}`,
          '--identity',
          sshd.clientKey,
          '--known-hosts',
          sshd.writeKnownHosts(),
          '--ssh-config',
          join(work, 'no-ssh-config'),
          '--launch',
          script,
          '--supervise',
          'sglang',
          '--remote-cli',
          `env INFERENCE_DOCTOR_STATE_DIR=${state} ${process.execPath} ${CLI}`,
          '--ready-timeout',
          '15',
          '--json',
          '--vary',
          'attention-backend=triton,fa3',
        ],
        { encoding: 'utf8', timeout: 120_000, cwd: work },
      );
      assert.equal(r.status, 0, r.stderr);
      const json = JSON.parse(r.stdout) as { rows: SweepRow[]; restored: boolean; host: string; server: string };
      assert.deepEqual(
        json.rows.map((x) => [x.flags['--attention-backend'], x.verdict]),
        [
          ['triton', 'error'],
          ['fa3', 'ok'],
        ],
      );
      assert.match(json.rows[0].error ?? '', /exited during the probe/);
      assert.equal(json.restored, true);
      assert.doesNotMatch(json.server, new RegExp(`:${new URL(server.baseUrl).port}$`), 'probed through the tunnel, not the port itself');
      assert.equal(readFileSync(script, 'utf8'), original);
    });
  });
});
