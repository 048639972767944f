/**
 * `npm run demo` to a usable URL (code-server installed): the whole script as a user runs it —
 * build and package, the incident's server under the supervisor, code-server with the extension —
 * until the printed URL answers, once packaging the .vsix on the way and once with it up to date (the
 * demo skips vsce then). Beside it, in the same run, the part no demo can skip: code-server
 * alone starting with the same .vsix on an empty workspace. Then Ctrl-C, and whether the demo's temp
 * folders are gone. Goal (issue 11): ≤ 15 s to the URL.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { codeServerBin, freePort, repoRoot, startCodeServer } from '../scripts/lib/codeServer';

const DEMO_TEMP = /^inference-doctor-demo-/;
const demoTemps = (): string[] => readdirSync(tmpdir()).filter((n) => DEMO_TEMP.test(n));

async function answers(url: string): Promise<boolean> {
  try {
    const r = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(5_000) });
    return r.status < 500;
  } catch {
    return false;
  }
}

async function codeServerAloneMs(): Promise<number> {
  const workspace = mkdtempSync(join(tmpdir(), 'id-bench-cs-'));
  try {
    const t0 = performance.now();
    const cs = await startCodeServer({ workspace, port: await freePort() });
    const ms = performance.now() - t0;
    await cs.close();
    return ms;
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

/** Runs the demo; resolves when its URL answers (ms), then stops it with SIGINT. */
async function demo(env: Record<string, string> = {}): Promise<{ toUrlMs: number; stopMs: number; tempRemoved: boolean }> {
  const before = new Set(demoTemps());
  const t0 = performance.now();
  const child = spawn('bash', ['scripts/demo.sh'], {
    cwd: repoRoot,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env, DEMO_PORT: String(await freePort()) },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let out = '';
  child.stderr.resume();
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL after 180 s: ${out.slice(-500)}`)), 180_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Open VS Code in your browser: (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`the demo exited (${code}) before its URL: ${out.slice(-500)}`)));
  });
  while (!(await answers(url))) await new Promise((r) => setTimeout(r, 50));
  const toUrlMs = performance.now() - t0;
  const s0 = performance.now();
  process.kill(-child.pid!, 'SIGINT');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
  const stopMs = performance.now() - s0;
  const tempRemoved = demoTemps().every((n) => before.has(n));
  return { toUrlMs, stopMs, tempRemoved };
}

export async function run(): Promise<Record<string, unknown>> {
  if (!existsSync(codeServerBin)) return { skipped: 'code-server is not installed: bash scripts/install-code-server.sh' };
  const alone = await codeServerAloneMs();
  // Packaging the .vsix on the way (a first run, or sources changed since), then with it up to date.
  const first = await demo({ DEMO_REPACKAGE: '1' });
  const second = await demo();
  return {
    demoToUrlWithPackagingMs: Math.round(first.toUrlMs),
    demoToUrlMs: Math.round(second.toUrlMs),
    baselineCodeServerAloneMs: Math.round(alone),
    goalMs: 15_000,
    stopMs: Math.round(first.stopMs),
    tempRemoved: first.tempRemoved && second.tempRemoved,
  };
}
