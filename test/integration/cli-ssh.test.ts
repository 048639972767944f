/**
 * `inference-doctor search` and `env` against a real sshd on 127.0.0.1, through the built CLI:
 * host keys are refused unless accepted, a changed key is always refused (with the server's
 * SHA256 fingerprint) before authentication, and matches come out as JSON lines.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startSshd, type Sshd } from '../support/sshd';

const root = resolve(__dirname, '../..');
const cli = join(root, 'dist/cli.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runCli(args: string[], timeoutMs = 60_000): Promise<Run> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, SSH_AUTH_SOCK: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`cli timed out: ${args.join(' ')}\n${stderr}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

const fingerprint = (pubFile: string) => execFileSync('/usr/bin/ssh-keygen', ['-lf', pubFile], { encoding: 'utf8' }).split(/\s+/)[1];

describe('inference-doctor search/env over SSH (dist/cli.js + real sshd)', function () {
  this.timeout(120_000);
  let sshd: Sshd;
  let dir: string;
  let knownHosts: string;
  let host: string;
  let hostArgs: string[];

  before(async () => {
    execFileSync(process.execPath, [join(root, 'scripts/build.mjs'), '--only', 'cli'], { stdio: 'inherit' });
    sshd = await startSshd();
    dir = mkdtempSync(join(tmpdir(), 'id-cli-ssh-'));
    mkdirSync(join(dir, 'srt'));
    writeFileSync(join(dir, 'srt', 'server_args.py'), 'FP4_GEMM_RUNNER_BACKEND_CHOICES = ["auto", "flashinfer_cutlass"]\nattention_backend = None\n');
    writeFileSync(join(dir, 'srt', '-notes.txt'), 'a file name that looks like an option: fp4 here\n');
    knownHosts = join(dir, 'known_hosts');
    writeFileSync(knownHosts, '');
    host = `ssh://${sshd.user}@127.0.0.1:${sshd.port}`;
    hostArgs = ['--identity', sshd.clientKey, '--known-hosts', knownHosts, '--ssh-config', join(dir, 'no-config')];
  });

  after(async () => {
    await sshd?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses an unknown host key without --accept-new-host-key, naming its fingerprint', async () => {
    const r = await runCli(['search', host, 'FP4', '--path', join(dir, 'srt'), '--json', ...hostArgs]);
    assert.notEqual(r.code, 0);
    assert.ok(r.stderr.includes(fingerprint(`${sshd.hostKeyFile}.pub`)), r.stderr);
    assert.doesNotMatch(sshd.log(), /Accepted publickey/);
  });

  it('with --accept-new-host-key remembers the key and prints matches as JSON lines', async () => {
    const r = await runCli(['search', host, 'FP4', '--path', join(dir, 'srt'), '--json', '--accept-new-host-key', ...hostArgs]);
    assert.equal(r.code, 0, r.stderr);
    const matches = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { path: string; line: number; text: string });
    assert.ok(
      matches.some((m) => m.path.endsWith('server_args.py') && m.line === 1 && m.text.startsWith('FP4_GEMM')),
      r.stdout,
    );
    // Next time the remembered key is enough.
    const again = await runCli(['search', host, '-e', '-notes', '--path', join(dir, 'srt'), '--fixed-strings', '--json', ...hostArgs]);
    assert.equal(again.code, 1, 'no match: "-notes" is a pattern, not an option, and no file contains it');
  });

  it('env over SSH prints a JSON report', async () => {
    const r = await runCli(['env', host, '--json', '--no-torch', ...hostArgs]);
    assert.ok(r.code === 0 || r.code === 1, r.stderr);
    const report = JSON.parse(r.stdout) as { host: string; interpreters: { path: string }[]; gpus: unknown[] };
    assert.match(report.host, /127\.0\.0\.1/);
    assert.ok(report.interpreters.length >= 1, 'the sshd host has python3 on PATH');
    assert.ok(Array.isArray(report.gpus));
  });

  it('refuses a changed host key before authenticating, with the new fingerprint', async () => {
    await sshd.restartWithNewHostKey();
    const before = sshd.log().length;
    const r = await runCli(['search', host, 'FP4', '--path', join(dir, 'srt'), '--json', '--accept-new-host-key', ...hostArgs]);
    assert.notEqual(r.code, 0);
    assert.ok(r.stderr.includes(fingerprint(`${sshd.hostKeyFile}.pub`)), r.stderr);
    assert.match(r.stderr, /ssh-keygen -R|changed/i);
    assert.doesNotMatch(sshd.log().slice(before), /Accepted publickey/);
  });
});
