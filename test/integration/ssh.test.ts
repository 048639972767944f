/**
 * SshHost against a real loopback OpenSSH server: exec, SFTP, search, quoting, reconnect,
 * ProxyJump and port forwarding. Fails (does not skip) when sshd is missing.
 */
import { strict as assert } from 'node:assert';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectSsh, SshHost } from '../../src/core/hosts/ssh';
import { resolveSshTarget } from '../../src/core/hosts/sshConfig';
import { searchHost, type SearchMatch, type SearchOptions } from '../../src/core/hosts/search';
import { HostError } from '../../src/core/hosts/types';
import { LocalHost } from '../../src/core/hosts/local';
import { hostileStrings } from '../support/hostile';
import { startSshd, targetFor, type Sshd } from '../support/sshd';

async function collect(host: SshHost, o: Omit<Parameters<typeof searchHost>[1], 'onMatch'>): Promise<SearchMatch[]> {
  const out: SearchMatch[] = [];
  await searchHost(host, { ...o, onMatch: (m) => out.push(m) });
  return out;
}

describe('SshHost over a real sshd', function () {
  this.timeout(120_000);
  let d: Sshd;
  let work: string;
  let host: SshHost;
  let knownHosts: string;

  before(async () => {
    d = await startSshd();
    work = mkdtempSync(join(tmpdir(), 'id-ssh-work-'));
    knownHosts = d.writeKnownHosts();
    host = await connectSsh(targetFor(d, work), {}, { knownHostsFiles: [knownHosts], identityFiles: [d.clientKey], agentSocket: null });
  });
  after(async () => {
    await host?.close();
    await d?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  describe('exec', () => {
    it('runs argv and returns code, stdout, stderr', async () => {
      const r = await host.exec(['sh', '-c', 'echo out; echo err >&2; exit 3']);
      assert.deepEqual(r, { code: 3, stdout: 'out\n', stderr: 'err\n', truncated: false });
    });

    it('streams stdout chunks as they arrive', async () => {
      const chunks: string[] = [];
      const t0 = Date.now();
      let firstAt = 0;
      await host.exec(['sh', '-c', 'echo one; sleep 0.5; echo two'], {
        onStdout: (c) => {
          chunks.push(c);
          firstAt ||= Date.now() - t0;
        },
      });
      assert.equal(chunks.join(''), 'one\ntwo\n');
      assert.ok(firstAt < 450, `first chunk after ${firstAt} ms`);
    });

    it('honours cwd and env (as data, not code)', async () => {
      const dir = join(work, '-odd dir $(x)');
      mkdirSync(dir, { recursive: true });
      const r = await host.exec(['sh', '-c', 'pwd; printf %s "$ODD"'], { cwd: dir, env: { ODD: "$(touch x) 'q' `y`" } });
      assert.equal(r.stdout, `${dir}\n$(touch x) 'q' \`y\``);
    });

    it('times out, truncates, and cancels', async () => {
      await assert.rejects(host.exec(['sleep', '10'], { timeoutMs: 300 }), (e: unknown) => e instanceof HostError && e.kind === 'timeout');
      const big = await host.exec(['sh', '-c', 'yes | head -c 1000000'], { maxOutputBytes: 1000 });
      assert.equal(big.truncated, true);
      assert.equal(big.stdout.length, 1000);
      const ac = new AbortController();
      setTimeout(() => ac.abort(), 200);
      const t0 = Date.now();
      await assert.rejects(host.exec(['sleep', '10'], { signal: ac.signal }), (e: unknown) => e instanceof HostError && e.kind === 'aborted');
      assert.ok(Date.now() - t0 < 3000);
    });

    it('reports a missing program as exit 127', async () => {
      const r = await host.exec(['definitely-not-a-program-xyz']);
      assert.equal(r.code, 127);
    });

    it('shares one connection between 25 parallel commands', async () => {
      const before = host.connections;
      const rs = await Promise.all(Array.from({ length: 25 }, (_, i) => host.exec(['printf', '%s', String(i)])));
      assert.deepEqual(
        rs.map((r) => r.stdout),
        Array.from({ length: 25 }, (_, i) => String(i)),
      );
      assert.equal(host.connections, before);
    });
  });

  describe('SFTP', () => {
    it('readFile, readDir, stat', async () => {
      const dir = join(work, 'sftp');
      mkdirSync(join(dir, 'sub'), { recursive: true });
      const data = Buffer.alloc(300_000, 7);
      data.write('héllo', 0);
      writeFileSync(join(dir, 'a.bin'), data);
      const got = await host.readFile(join(dir, 'a.bin'));
      assert.ok(Buffer.from(got).equals(data));
      const head = await host.readFile(join(dir, 'a.bin'), { maxBytes: 10 });
      assert.ok(Buffer.from(head).equals(data.subarray(0, 10)));
      const st = await host.stat(join(dir, 'a.bin'));
      assert.equal(st.type, 'file');
      assert.equal(st.size, 300_000);
      assert.ok(Math.abs(st.mtimeMs - Date.now()) < 120_000);
      assert.equal((await host.stat(join(dir, 'sub'))).type, 'dir');
      const entries = (await host.readDir(dir)).sort((a, b) => a.name.localeCompare(b.name));
      assert.deepEqual(entries, [
        { name: 'a.bin', type: 'file' },
        { name: 'sub', type: 'dir' },
      ]);
      await assert.rejects(host.readFile(join(dir, 'missing')), (e: unknown) => e instanceof HostError && e.kind === 'not-found');
      await assert.rejects(host.stat(join(dir, 'missing')), (e: unknown) => e instanceof HostError && e.kind === 'not-found');
    });

    it("stat follows symlinks: a linked library has its target's size; a broken link stays a link", async () => {
      const dir = join(work, 'links');
      mkdirSync(dir, { recursive: true });
      // Sparse: 300 MB on paper, nothing on disk (the size a linked libcublasLt has).
      const lib = join(dir, 'libbig.so.13.0');
      writeFileSync(lib, '');
      truncateSync(lib, 300 * 1024 * 1024);
      symlinkSync('libbig.so.13.0', join(dir, 'libbig.so'));
      symlinkSync('gone.so', join(dir, 'broken.so'));
      const linked = await host.stat(join(dir, 'libbig.so'));
      assert.deepEqual({ type: linked.type, size: linked.size, symlink: linked.symlink }, { type: 'file', size: 300 * 1024 * 1024, symlink: true });
      assert.equal((await host.stat(lib)).symlink, undefined);
      const broken = await host.stat(join(dir, 'broken.so'));
      assert.equal(broken.type, 'symlink');
      assert.equal(broken.symlink, true);
      // This machine's host answers the same.
      const local = await new LocalHost().stat(join(dir, 'libbig.so'));
      assert.deepEqual({ type: local.type, size: local.size, symlink: local.symlink }, { type: 'file', size: 300 * 1024 * 1024, symlink: true });
      assert.equal((await new LocalHost().stat(join(dir, 'broken.so'))).type, 'symlink');
    });
  });

  describe('quoting: hostile arguments, paths, file names and patterns', () => {
    let canary: string;
    let strings: string[];
    before(() => {
      canary = join(work, 'CANARY');
      strings = hostileStrings(20240611, 520, canary);
    });
    afterEach(() => assert.equal(existsSync(canary), false, 'an injected command ran on the server'));

    it('520 hostile argv elements round-trip exactly through exec (printf as echo)', async () => {
      let batch: string[] = [];
      let size = 0;
      const flush = async (): Promise<void> => {
        if (!batch.length) return;
        const r = await host.exec(['printf', '%s\\0', ...batch]);
        const parts = r.stdout.split('\0');
        parts.pop();
        assert.deepEqual(parts, batch);
        batch = [];
        size = 0;
      };
      for (const s of strings) {
        if (size + s.length > 120_000) await flush();
        batch.push(s);
        size += s.length * 2 + 4;
      }
      await flush();
      // One argument each, through echo as well (skip ones echo would treat as options/escapes).
      for (const s of strings.slice(0, 60).filter((x) => !x.startsWith('-') && !x.includes('\\'))) {
        const r = await host.exec(['echo', s]);
        assert.equal(r.stdout, `${s}\n`);
      }
    });

    it('NUL bytes are refused with a clear error before anything is sent', async () => {
      await assert.rejects(host.exec(['echo', 'a\0b']), /NUL byte/);
      await assert.rejects(searchHost(host, { pattern: 'a\0', paths: [work], onMatch: () => undefined }), /NUL/);
    });

    it('hostile file names are listed, stat-ed, read and searched exactly', async () => {
      const dir = join(work, 'names');
      mkdirSync(dir);
      const names = [...new Set(strings.map((s) => s.replaceAll('/', '_').slice(0, 200)).filter((s) => s && s !== '.' && s !== '..'))].slice(0, 200);
      names.forEach((n, i) => writeFileSync(join(dir, n), `line for ${i}\nneedle-${i}\n`));
      const listed = (await host.readDir(dir)).map((e) => e.name).sort();
      assert.deepEqual(listed, [...names].sort());
      for (const n of names.slice(0, 40)) {
        assert.equal((await host.stat(join(dir, n))).type, 'file');
        assert.match(Buffer.from(await host.readFile(join(dir, n))).toString(), /needle-/);
      }
      for (const tool of ['rg', 'grep'] as const) {
        const found = await collect(host, { pattern: 'needle-', paths: [dir], fixedStrings: true, tool });
        assert.equal(found.length, names.length, tool);
        assert.deepEqual(new Set(found.map((m) => m.path.slice(dir.length + 1))), new Set(names), tool);
        // Each hostile name passed as a search path, exactly.
        const one = await collect(host, { pattern: 'needle', paths: names.slice(0, 30).map((n) => join(dir, n)), tool });
        assert.equal(one.length, 30, tool);
      }
    });

    it('500+ hostile patterns are searched as data with rg and grep; nothing executes', async function () {
      this.timeout(300_000);
      const dir = join(work, 'patterns');
      mkdirSync(dir);
      // 100 KB patterns get their own test below (they take seconds each on a busy machine).
      const patterns = strings.filter((s) => s.length > 0 && s.length <= 10_000);
      const searchable = new Set(patterns.filter((s) => !/[\n\r]/.test(s)));
      writeFileSync(join(dir, 'corpus.txt'), `${[...searchable].map((s, i) => `${i}:${s}`).join('\n')}\n`);
      // Option look-alikes among the paths must stay paths.
      const paths = [dir, '--pre=sh', `--pre=touch ${canary}`, '-e'];
      const jobs: { tool: 'rg' | 'grep'; s: string; fixed: boolean }[] = [];
      patterns.forEach((s, i) => {
        jobs.push({ tool: 'rg', s, fixed: true });
        if (i % 4 === 0) jobs.push({ tool: 'grep', s, fixed: true });
        // Regex mode: the pattern may be invalid; an error is fine, execution is not.
        if (i % 4 === 1) jobs.push({ tool: i % 8 === 1 ? 'rg' : 'grep', s, fixed: false });
      });
      let checked = 0;
      const worker = async (): Promise<void> => {
        for (let j = jobs.shift(); j; j = jobs.shift()) {
          const found: SearchMatch[] = [];
          try {
            await searchHost(host, { pattern: j.s, paths, tool: j.tool, fixedStrings: j.fixed, onMatch: (m) => found.push(m), timeoutMs: 120_000 });
          } catch (e) {
            if (!(e instanceof HostError) || j.fixed) throw e;
          }
          if (j.fixed && searchable.has(j.s)) {
            assert.ok(
              found.some((m) => m.text.includes(j.s)),
              `${j.tool} did not find ${JSON.stringify(j.s.slice(0, 80))}`,
            );
          }
          assert.ok(
            found.every((m) => m.path === join(dir, 'corpus.txt')),
            'a hostile path was taken as a file to search',
          );
          checked++;
        }
      };
      await Promise.all(Array.from({ length: 8 }, worker));
      assert.ok(patterns.length >= 500 && checked >= 700, `patterns ${patterns.length}, searches ${checked}`);
    });

    it('100 KB patterns and paths go through intact', async function () {
      this.timeout(120_000);
      const dir = join(work, 'huge');
      mkdirSync(dir);
      const big = strings.filter((s) => s.length > 10_000);
      assert.ok(big.length >= 2);
      big.forEach((s, i) => writeFileSync(join(dir, `h${i}.txt`), `before\n${s}\nafter\n`));
      for (const [i, s] of big.entries()) {
        const found = await collect(host, { pattern: s, paths: [join(dir, `h${i}.txt`)], fixedStrings: true, tool: 'rg', timeoutMs: 100_000 });
        assert.deepEqual(
          found.map((m) => [m.line, m.text.length]),
          [[2, s.length]],
        );
        // As a path: a missing file, reported by rg, never an option or a command.
        const r = await searchHost(host, { pattern: 'x', paths: [s.slice(0, 4000)], tool: 'rg', onMatch: () => undefined });
        assert.equal(r.code, 2);
      }
    });
  });

  describe('search', () => {
    it('rg and grep give the same matches, with flags', async () => {
      const dir = join(work, 'srch');
      mkdirSync(join(dir, 'pkg'), { recursive: true });
      writeFileSync(join(dir, 'pkg', 'server_args.py'), 'attention_backend = "fa3"\nATTENTION_BACKEND_CHOICES = []\nsampling_backend: str\nbackend\n');
      writeFileSync(join(dir, 'pkg', 'notes.md'), 'attention_backend in docs\n');
      for (const [opts, expect] of [
        [{ pattern: '_backend', fixedStrings: true }, 3],
        [{ pattern: '_BACKEND', caseSensitive: false }, 4],
        [{ pattern: 'backend', wordRegexp: true }, 1],
        [{ pattern: '_backend', globs: ['*.py'] }, 2],
        [{ pattern: '_backend', globs: ['!*.md'] }, 2],
        [{ pattern: '^[a-z]+_backend' }, 3],
      ] as [Omit<SearchOptions, 'onMatch' | 'paths'>, number][]) {
        const a = await collect(host, { ...opts, paths: [dir], tool: 'rg' });
        const b = await collect(host, { ...opts, paths: [dir], tool: 'grep' });
        const key = (m: SearchMatch): string => `${m.path}:${m.line}:${m.text}`;
        assert.equal(a.length, expect, JSON.stringify(opts));
        assert.deepEqual(a.map(key).sort(), b.map(key).sort(), JSON.stringify(opts));
      }
    });

    it('maxResults stops early; a bad regex is an error', async () => {
      const dir = join(work, 'many');
      mkdirSync(dir);
      writeFileSync(join(dir, 'f.txt'), 'hit\n'.repeat(5000));
      const got: SearchMatch[] = [];
      const s = await searchHost(host, { pattern: 'hit', paths: [dir], maxResults: 10, onMatch: (m) => got.push(m) });
      assert.equal(got.length, 10);
      assert.equal(s.limited, true);
      const bad = await searchHost(host, { pattern: '(', paths: [dir], onMatch: () => undefined });
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /regex|parse|unclosed/i);
    });

    it('connection killed mid-search: clear error, partial results kept, next search reconnects', async () => {
      const dir = join(work, 'big');
      mkdirSync(dir);
      const body = 'needle in a haystack line with some padding text\n'.repeat(400);
      for (let i = 0; i < 400; i++) writeFileSync(join(dir, `f${i}.py`), body);
      const before = host.connections;
      const got: SearchMatch[] = [];
      let killed = 0;
      const err = await searchHost(host, {
        pattern: 'needle',
        paths: [dir],
        fixedStrings: true,
        onMatch: (m) => {
          got.push(m);
          if (got.length === 2000) killed = d.killSessions();
        },
      }).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(killed > 0, 'no sshd session process was found to kill');
      assert.ok(err instanceof HostError, `expected a HostError, got ${String(err)}`);
      assert.equal(err.kind, 'disconnected');
      assert.match(err.message, /lost|dropped|reset|interrupted/i);
      assert.ok(got.length >= 2000 && got.length < 160_000, `partial results: ${got.length}`);
      const again = await collect(host, { pattern: 'needle', paths: [join(dir, 'f1.py')], fixedStrings: true });
      assert.equal(again.length, 400);
      assert.equal(host.connections, before + 1);
    });
  });

  describe('port forwarding', () => {
    let http: Server;
    let httpPort = 0;
    before(async () => {
      http = createServer((req, res) => {
        setTimeout(() => res.end(`hello ${req.url}`), 5 + Math.random() * 20);
      });
      await new Promise<void>((r) => http.listen(0, '127.0.0.1', () => r()));
      const a = http.address();
      httpPort = typeof a === 'object' && a ? a.port : 0;
    });
    after(
      () =>
        new Promise<void>((r) => {
          http.closeAllConnections();
          http.close(() => r());
        }),
    );

    it('forwards to a remote HTTP server and survives 60 parallel requests', async () => {
      const fwd = await host.forwardPort(httpPort);
      try {
        assert.notEqual(fwd.localPort, httpPort);
        const bodies = await Promise.all(
          Array.from({ length: 60 }, async (_, i) => {
            const r = await fetch(`http://127.0.0.1:${fwd.localPort}/r${i}`, { headers: { connection: 'close' } });
            return r.text();
          }),
        );
        assert.deepEqual(
          bodies,
          Array.from({ length: 60 }, (_, i) => `hello /r${i}`),
        );
        const again = await (await fetch(`http://127.0.0.1:${fwd.localPort}/after`)).text();
        assert.equal(again, 'hello /after');
      } finally {
        await fwd.close();
      }
      await assert.rejects(fetch(`http://127.0.0.1:${fwd.localPort}/closed`));
    });
  });

  describe('port forwarding when the connection dies', () => {
    let slow: Server;
    let slowPort = 0;
    before(async () => {
      // Streams 100 lines over 2 s on /stream; answers at once elsewhere.
      slow = createServer((req, res) => {
        if (req.url !== '/stream') {
          res.end('quick');
          return;
        }
        res.writeHead(200, { 'content-type': 'text/plain' });
        let i = 0;
        const t = setInterval(() => {
          res.write(`chunk ${i++}\n`);
          if (i === 100) {
            clearInterval(t);
            res.end();
          }
        }, 20);
        res.on('close', () => clearInterval(t));
      });
      await new Promise<void>((r) => slow.listen(0, '127.0.0.1', () => r()));
      const a = slow.address();
      slowPort = typeof a === 'object' && a ? a.port : 0;
    });
    after(
      () =>
        new Promise<void>((r) => {
          slow.closeAllConnections();
          slow.close(() => r());
        }),
    );

    it('connection killed mid-forward: the open response fails (not a clean end), the log says why, the next request reconnects', async () => {
      const logs: string[] = [];
      const h = await connectSsh(
        targetFor(d, work),
        { log: (m) => logs.push(m) },
        { knownHostsFiles: [knownHosts], identityFiles: [d.clientKey], agentSocket: null },
      );
      const fwd = await h.forwardPort(slowPort);
      try {
        const res = await fetch(`http://127.0.0.1:${fwd.localPort}/stream`);
        const reader = res.body!.getReader();
        const decoder = new TextDecoder();
        let got = '';
        let killed = 0;
        const err = await (async () => {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return undefined;
            got += decoder.decode(value, { stream: true });
            if (!killed && got.includes('chunk 5\n')) killed = d.killSessions();
          }
        })().then(
          () => undefined,
          (e: unknown) => e,
        );
        assert.ok(killed > 0, 'no sshd session process was found to kill');
        assert.ok(err, `the cut response ended cleanly after ${got.length} bytes`);
        assert.match(got, /chunk 5\n/, 'what arrived before the cut is kept');
        assert.doesNotMatch(got, /chunk 99/);
        assert.ok(
          logs.some((l) => /cut mid-transfer/.test(l) && /lost/.test(l)),
          logs.join('\n'),
        );
        // Same local port, fresh SSH connection.
        assert.equal(await (await fetch(`http://127.0.0.1:${fwd.localPort}/after`)).text(), 'quick');
        assert.equal(h.connections, 2);
      } finally {
        await fwd.close();
        await h.close();
      }
    });
  });

  describe('ProxyJump', () => {
    let jump: Sshd;
    before(async () => {
      jump = await startSshd();
    });
    after(async () => {
      await jump?.close();
    });

    it('reaches the target through a jump sshd (each hop host-key checked)', async () => {
      const home = mkdtempSync(join(tmpdir(), 'id-pj-'));
      try {
        const cfg = join(home, 'config');
        writeFileSync(
          cfg,
          [
            'Host jumpbox',
            '  HostName 127.0.0.1',
            `  Port ${jump.port}`,
            `  User ${jump.user}`,
            `  IdentityFile ${jump.clientKey}`,
            'Host target',
            '  HostName 127.0.0.1',
            `  Port ${d.port}`,
            `  User ${d.user}`,
            '  ProxyJump jumpbox',
            '',
          ].join('\n'),
        );
        const kh = join(home, 'known_hosts');
        writeFileSync(kh, `${d.knownHostsLine()}\n`);
        const target = resolveSshTarget({ host: 'target' }, { configFile: cfg, home });
        assert.equal(target.proxyJump.length, 1);
        // Jump host key unknown → refused.
        await assert.rejects(
          connectSsh(target, {}, { knownHostsFiles: [kh], identityFiles: [d.clientKey], agentSocket: null }),
          (e: unknown) => e instanceof HostError && e.kind === 'host-key-unknown' && e.message.includes(`[127.0.0.1]:${jump.port}`),
        );
        writeFileSync(kh, `${d.knownHostsLine()}\n${jump.knownHostsLine()}\n`);
        const jumpLogBefore = jump.log().length;
        const h = await connectSsh(target, {}, { knownHostsFiles: [kh], identityFiles: [d.clientKey], agentSocket: null });
        try {
          const r = await h.exec(['printf', '%s', 'through the jump']);
          assert.equal(r.stdout, 'through the jump');
          const jl = jump.log().slice(jumpLogBefore);
          assert.match(jl, /Accepted publickey/);
        } finally {
          await h.close();
        }
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    });
  });
});
