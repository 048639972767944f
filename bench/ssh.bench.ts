/**
 * SSH search benchmark: a seeded tree shaped like SGLang's python/ (~2,500 .py files, ~40 MB)
 * behind a loopback sshd; live search through searchHost over ssh2 beside OpenSSH's
 * `ssh … rg --json` on the same tree in the same run. Cold = including the SSH handshake; warm =
 * over an open connection (OpenSSH warm uses a ControlMaster). Also connect / reconnect time and
 * the heap held by 10,000 results. Goals: first match ≤ 1.2×, total ≤ 1.1× OpenSSH.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { connectSsh, type SshHost } from '../src/core/hosts/ssh';
import { resolveSshTarget } from '../src/core/hosts/sshConfig';
import { searchHost, type SearchMatch } from '../src/core/hosts/search';
import { seededRandom as mulberry32 } from '../src/core/random';
import { startSshd, type Sshd } from '../test/support/sshd';

const PATTERN = 'attention_backend';
const RUNS = 5;

function makeTree(root: string, seed = 42): { files: number; bytes: number } {
  const rnd = mulberry32(seed);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)];
  const dirs = [
    'sglang/srt/layers',
    'sglang/srt/layers/attention',
    'sglang/srt/models',
    'sglang/srt/managers',
    'sglang/srt/model_executor',
    'sglang/srt/distributed',
    'sglang/srt/entrypoints',
    'sglang/srt/mem_cache',
    'sglang/srt/sampling',
    'sglang/lang',
    'sglang/test',
    'sglang/srt/configs',
  ];
  const words = ['self', 'tensor', 'forward', 'batch', 'hidden_states', 'config', 'kv_cache', 'torch', 'layer', 'num_heads', 'dtype', 'device', 'rank'];
  let bytes = 0;
  let files = 0;
  for (const d of dirs) mkdirSync(join(root, d), { recursive: true });
  for (let i = 0; i < 2500; i++) {
    const lines: string[] = ['import torch', 'from typing import Optional', ''];
    const target = 12_000 + Math.floor(rnd() * 8_000);
    let size = 0;
    while (size < target) {
      let l: string;
      const r = rnd();
      if (r < 0.004) l = `        attention_backend = server_args.attention_backend  # ${pick(words)}`;
      else if (r < 0.05) l = `class ${pick(words)}_${Math.floor(rnd() * 1e6)}(nn.Module):`;
      else if (r < 0.15) l = `    def ${pick(words)}_${Math.floor(rnd() * 1000)}(self, ${pick(words)}: Optional[int] = None):`;
      else l = `        ${pick(words)} = ${pick(words)}.${pick(words)}(${pick(words)}, ${Math.floor(rnd() * 4096)})`;
      lines.push(l);
      size += l.length + 1;
    }
    const text = `${lines.join('\n')}\n`;
    writeFileSync(join(root, pick(dirs), `mod_${i}.py`), text);
    bytes += text.length;
    files++;
  }
  return { files, bytes };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
}

async function timeOurs(host: SshHost, dir: string): Promise<{ first: number; total: number; matches: number }> {
  const t0 = performance.now();
  let first = 0;
  let matches = 0;
  await searchHost(host, {
    pattern: PATTERN,
    paths: [dir],
    onMatch: () => {
      if (!matches++) first = performance.now() - t0;
    },
  });
  return { first, total: performance.now() - t0, matches };
}

function timeOpenSsh(d: Sshd, kh: string, dir: string, extra: string[]): Promise<{ first: number; total: number; matches: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let first = 0;
    let matches = 0;
    let pending = '';
    const child = spawn(
      'ssh',
      [
        '-i',
        d.clientKey,
        '-p',
        String(d.port),
        '-o',
        `UserKnownHostsFile=${kh}`,
        '-o',
        'BatchMode=yes',
        '-o',
        'IdentitiesOnly=yes',
        '-F',
        '/dev/null',
        ...extra,
        `${d.user}@127.0.0.1`,
        'rg',
        '--json',
        PATTERN,
        dir,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (c: string) => {
      pending += c;
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        if (line.startsWith('{"type":"match"')) {
          if (!matches++) first = performance.now() - t0;
        }
      }
    });
    let err = '';
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0 && code !== 1) reject(new Error(`ssh exited ${code}: ${err}`));
      else resolve({ first, total: performance.now() - t0, matches });
    });
  });
}

function gcNow(): void {
  setFlagsFromString('--expose-gc');
  const gc = (globalThis as { gc?: () => void }).gc ?? (runInNewContext('gc') as () => void);
  gc();
  gc();
}

export async function run(): Promise<Record<string, unknown>> {
  const root = mkdtempSync(join(tmpdir(), 'id-bench-ssh-'));
  const tree = join(root, 'python');
  const home = join(root, 'home');
  mkdirSync(home);
  let d: Sshd | undefined;
  let host: SshHost | undefined;
  const deadline = setTimeout(() => {
    throw new Error('ssh bench exceeded 10 minutes');
  }, 600_000);
  deadline.unref();
  try {
    const shape = makeTree(tree);
    d = await startSshd();
    const kh = d.writeKnownHosts(join(root, 'known_hosts'));
    const target = resolveSshTarget({ host: '127.0.0.1', user: d.user, port: d.port }, { configFile: '/dev/null', home });
    const opts = { knownHostsFiles: [kh], identityFiles: [d.clientKey], agentSocket: null };

    // Connect / reconnect.
    const connectMs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      const h = await connectSsh(target, {}, opts);
      connectMs.push(performance.now() - t0);
      await h.close();
    }
    host = await connectSsh(target, {}, opts);
    const reconnectMs: number[] = [];
    for (let i = 0; i < 3; i++) {
      await host.disconnect();
      const t0 = performance.now();
      await host.exec(['true']);
      reconnectMs.push(performance.now() - t0);
    }

    // Warm-up (page cache, rg availability check).
    await timeOurs(host, tree);
    await timeOpenSsh(d, kh, tree, []);

    const ours = { cold: [] as { first: number; total: number; matches: number }[], warm: [] as { first: number; total: number; matches: number }[] };
    const openssh = { cold: [] as typeof ours.cold, warm: [] as typeof ours.cold };
    const cp = join(root, 'cm');
    const master = ['-o', 'ControlMaster=auto', '-o', `ControlPath=${cp}`, '-o', 'ControlPersist=60'];
    await timeOpenSsh(d, kh, tree, master); // start the master
    for (let i = 0; i < RUNS; i++) {
      // Interleave so machine load hits both alike.
      const t0 = performance.now();
      const cold = await connectSsh(target, {}, opts);
      const r = await timeOurs(cold, tree);
      const extra = performance.now() - t0 - r.total;
      ours.cold.push({ first: r.first + extra, total: r.total + extra, matches: r.matches });
      await cold.close();
      openssh.cold.push(await timeOpenSsh(d, kh, tree, []));
      ours.warm.push(await timeOurs(host, tree));
      openssh.warm.push(await timeOpenSsh(d, kh, tree, master));
    }
    await new Promise<void>((r) => {
      spawn('ssh', ['-o', `ControlPath=${cp}`, '-O', 'exit', 'x'], { stdio: 'ignore' }).on('close', () => r());
    });

    // Heap held by 10,000 results.
    gcNow();
    const before = process.memoryUsage().heapUsed;
    const held: SearchMatch[] = [];
    await searchHost(host, { pattern: 'self', paths: [tree], maxResults: 10_000, onMatch: (m) => held.push(m) });
    gcNow();
    const heapDelta = process.memoryUsage().heapUsed - before;

    const sum = (xs: { first: number; total: number; matches: number }[]): Record<string, number> => ({
      firstMatchMs: Math.round(median(xs.map((x) => x.first))),
      totalMs: Math.round(median(xs.map((x) => x.total))),
      matches: xs[0]?.matches ?? 0,
    });
    const o = { cold: sum(ours.cold), warm: sum(ours.warm) };
    const s = { cold: sum(openssh.cold), warm: sum(openssh.warm) };
    const ratio = (a: number, b: number): number => Math.round((a / b) * 100) / 100;
    return {
      tree: { files: shape.files, megabytes: Math.round(shape.bytes / 1e5) / 10 },
      pattern: PATTERN,
      runs: RUNS,
      connectMs: Math.round(median(connectMs)),
      reconnectMs: Math.round(median(reconnectMs)),
      searchHost: o,
      openssh: s,
      ratios: {
        coldFirstMatch: ratio(o.cold.firstMatchMs, s.cold.firstMatchMs),
        coldTotal: ratio(o.cold.totalMs, s.cold.totalMs),
        warmFirstMatch: ratio(o.warm.firstMatchMs, s.warm.firstMatchMs),
        warmTotal: ratio(o.warm.totalMs, s.warm.totalMs),
        goals: { firstMatch: 1.2, total: 1.1 },
      },
      heldResults: held.length,
      heapDeltaBytesFor10kResults: heapDelta,
      bytesPerResult: Math.round(heapDelta / Math.max(1, held.length)),
    };
  } finally {
    clearTimeout(deadline);
    await host?.close();
    await d?.close();
    rmSync(root, { recursive: true, force: true });
  }
}
