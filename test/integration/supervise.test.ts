/**
 * `inference-doctor supervise` with real processes: the simulator started from a launch script,
 * restarted after the script changed, stopped; a stale pid file never kills someone else's
 * process; a command that ignores SIGTERM is killed after the timeout. Every child is stopped.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../../scripts/lib/codeServer';
import { waitFor } from '../support/wait';
import { buildBundles } from './helpers';

const ROOT = resolve(__dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const SIM = join(ROOT, 'dist', 'sim.js');
const SCENARIO = join(ROOT, 'test', 'fixtures', 'scenarios', 'e2e.json');

function cli(dir: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, 'supervise', ...args, ...(args.includes('--') ? [] : ['--dir', dir])], { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** start/restart take the command after `--`, so --dir goes before it. */
function cliCmd(dir: string, own: string[], command: string[]): { code: number | null; stdout: string; stderr: string } {
  return cli(dir, ...own, '--dir', dir, '--', ...command);
}

/** Alive and not a zombie (an orphan's zombie lingers where PID 1 does not reap, as in containers). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return !existsSync('/proc/self');
  }
}

async function healthy(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1000) })).ok;
  } catch {
    return false;
  }
}

describe('inference-doctor supervise (real processes)', function () {
  this.timeout(120_000);
  let dir: string;
  let work: string;
  const strays: ChildProcess[] = [];

  before(() => {
    buildBundles('cli,sim');
    dir = mkdtempSync(join(tmpdir(), 'id-supervise-'));
    work = mkdtempSync(join(tmpdir(), 'id-supervise-work-'));
  });

  after(() => {
    for (const name of ['sim', 'stubborn', 'stale']) cli(dir, 'stop', name, '--timeout', '2');
    for (const c of strays) c.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it('starts a launch script, restarts it with what the script now says, and stops it', async () => {
    const port = await freePort();
    const script = join(work, 'run.sh');
    const write = (tag: string): void =>
      writeFileSync(script, `#!/bin/sh\necho "launch ${tag}"\nexec "${process.execPath}" "${SIM}" --port ${port} --scenario "${SCENARIO}"\n`, { mode: 0o755 });
    write('one');
    const started = cliCmd(dir, ['start', 'sim', '--cwd', work], ['sh', script]);
    assert.equal(started.code, 0, started.stderr);
    assert.match(started.stdout, /sim started \(pid \d+\)/);
    await waitFor('the simulator to answer /health', () => healthy(port), 30_000);
    const first = JSON.parse(cli(dir, 'status', 'sim', '--json').stdout) as { running: boolean; pid: number };
    assert.equal(first.running, true);

    const again = cliCmd(dir, ['start', 'sim'], ['sh', script]);
    assert.equal(again.code, 3, 'a second start is refused');
    assert.match(again.stderr, /already running/);

    write('two');
    const restarted = cli(dir, 'restart', 'sim');
    assert.equal(restarted.code, 0, restarted.stderr);
    const second = JSON.parse(cli(dir, 'status', 'sim', '--json').stdout) as { running: boolean; pid: number };
    assert.notEqual(second.pid, first.pid);
    assert.equal(alive(first.pid), false, 'the old server is gone');
    await waitFor('the restarted simulator', () => healthy(port), 30_000);
    assert.match(cli(dir, 'log', 'sim').stdout, /launch one[\s\S]*launch two/, 'the log holds both runs, the second from the edited script');

    assert.match(cli(dir, 'stop', 'sim').stdout, /sim stopped/);
    assert.equal(alive(second.pid), false);
    assert.equal(await healthy(port), false);
    const status = cli(dir, 'status', 'sim');
    assert.equal(status.code, 1);
    assert.match(status.stdout, /not running/);
    assert.match(cli(dir, 'stop', 'sim').stdout, /was not running/);
  });

  it('never believes a stale pid file that names another program', async () => {
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    strays.push(other);
    await new Promise((r) => other.once('spawn', r));
    assert.equal(cliCmd(dir, ['start', 'stale'], ['sh', '-c', 'exit 0']).code, 0);
    // The pid file now points at an unrelated live process (a reused pid).
    writeFileSync(join(dir, 'stale', 'pid'), `${other.pid}\n`);
    assert.equal(cli(dir, 'status', 'stale').code, 1);
    assert.match(cli(dir, 'stop', 'stale').stdout, /was not running/);
    assert.equal(alive(other.pid ?? -1), true, 'the unrelated process was not killed');
  });

  it('kills a command that ignores SIGTERM after --timeout', async () => {
    const started = cliCmd(dir, ['start', 'stubborn'], ['sh', '-c', "trap '' TERM; while true; do sleep 0.1; done"]);
    assert.equal(started.code, 0, started.stderr);
    const { pid } = JSON.parse(cli(dir, 'status', 'stubborn', '--json').stdout) as { pid: number };
    const t0 = Date.now();
    assert.match(cli(dir, 'stop', 'stubborn', '--timeout', '1').stdout, /stubborn stopped/);
    assert.ok(Date.now() - t0 < 10_000);
    await waitFor('the stubborn process to be gone', () => !alive(pid), 5_000);
    assert.equal(existsSync(join(dir, 'stubborn', 'pid')), false);
    assert.ok(readFileSync(join(dir, 'stubborn', 'command.json'), 'utf8').includes('trap'), 'the command stays for a later restart');
  });

  it('says what is wrong: usage (64), a program that does not exist (3)', () => {
    assert.equal(cli(dir, 'start', 'x').code, 64);
    assert.equal(cli(dir, 'frobnicate', 'x').code, 64);
    assert.equal(cli(dir, 'status', '../evil').code, 3);
    const missing = cliCmd(dir, ['start', 'nothing'], ['/definitely/not/a/program']);
    assert.equal(missing.code, 3);
    assert.match(missing.stderr, /Cannot start/);
  });
});
