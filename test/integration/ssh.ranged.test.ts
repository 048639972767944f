/**
 * Ranged reads over a real loopback OpenSSH server: SshHost.openFile (one SFTP handle, reads at
 * offsets) and the library target reader on sparse ELF files the test writes, counting what
 * crosses the connection. Fails (does not skip) when sshd is missing.
 */
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MAX_READ_BYTES, readLibraryTargets } from '../../src/core/gpu/fatbin';
import { connectSsh, type SshHost } from '../../src/core/hosts/ssh';
import { resolveSshTarget } from '../../src/core/hosts/sshConfig';
import { HostError } from '../../src/core/hosts/types';
import { startSshd, type Sshd } from '../support/sshd';
import { countingHost, entriesFor, writeSparseElf } from '../unit/sparseElf';

const MiB = 1024 * 1024;

describe('ranged reads over a real sshd', function () {
  this.timeout(120_000);
  let d: Sshd;
  let work: string;
  let host: SshHost;

  before(async () => {
    d = await startSshd();
    work = mkdtempSync(join(tmpdir(), 'id-ssh-ranged-'));
    const target = resolveSshTarget({ host: '127.0.0.1', user: d.user, port: d.port }, { configFile: '/dev/null', home: work });
    host = await connectSsh(target, {}, { knownHostsFiles: [d.writeKnownHosts()], identityFiles: [d.clientKey], agentSocket: null });
  });
  after(async () => {
    await host?.close();
    await d?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('openFile: size, reads at offsets (also larger than one SFTP packet), end of file, close', async () => {
    const data = Buffer.alloc(700_000);
    for (let i = 0; i < data.length; i++) data[i] = (i * 13 + (i >> 9)) & 0xff;
    const path = join(work, 'a.bin');
    writeFileSync(path, data);
    const f = await host.openFile(path);
    try {
      assert.equal(f.size, 700_000);
      assert.deepEqual(Buffer.from(await f.read(123_457, 64)), data.subarray(123_457, 123_521));
      assert.deepEqual(Buffer.from(await f.read(1000, 400_000)), data.subarray(1000, 401_000), 'split over several SFTP reads');
      assert.equal((await f.read(699_990, 64)).length, 10);
      assert.equal((await f.read(700_000, 64)).length, 0);
      assert.equal((await f.read(9_000_000, 64)).length, 0);
      const many = await Promise.all(Array.from({ length: 50 }, (_, i) => f.read(i * 13_000, 100)));
      many.forEach((b, i) => assert.deepEqual(Buffer.from(b), data.subarray(i * 13_000, i * 13_000 + 100), `read ${i}`));
      await assert.rejects(f.read(-1, 4), (e: unknown) => e instanceof HostError && e.kind === 'invalid-argument');
    } finally {
      await f.close();
    }
    await assert.rejects(f.read(0, 4), /after it was closed/);
    await assert.rejects(host.openFile(join(work, 'missing.so')), (e: unknown) => e instanceof HostError && e.kind === 'not-found');
    // Handles are closed: many opens in a row keep working.
    for (let i = 0; i < 200; i++) {
      const g = await host.openFile(path);
      try {
        assert.equal((await g.read(i, 1))[0], data[i]);
      } finally {
        await g.close();
      }
    }
  });

  it('a symlinked 600 MB library with its section table at the end: complete targets, ≤ 2 MiB over the connection', async () => {
    // Its .nvFatBinSegment lets the reader ask for the 300-odd container headers together.
    const dir = join(work, 'libs');
    mkdirSync(dir, { recursive: true });
    const real = join(dir, 'libcublasLt.so.13.1');
    const layout = writeSparseElf(real, {
      containers: [
        entriesFor(['sm_80', 'sm_90a'], 40 * MiB),
        [
          { kind: 'elf', arch: 100, variant: 'f', header: 112, payload: 150 * MiB, compressed: true },
          { kind: 'elf', arch: 120, variant: 'f', header: 80, payload: 2000, compressed: true },
        ],
        ...Array.from({ length: 300 }, () => entriesFor(['sm_90a'], 5000, { compressed: true })),
        entriesFor(['compute_120f'], 10_000),
      ],
      table: 'end',
      size: 600 * MiB,
      segment: 'right',
    });
    symlinkSync('libcublasLt.so.13.1', join(dir, 'libcublasLt.so'));
    const { host: counted, counts } = countingHost(host);
    const t0 = Date.now();
    const r = await readLibraryTargets(counted, join(dir, 'libcublasLt.so'));
    assert.deepEqual(
      [r.source, r.size, r.sass, r.ptx, r.complete, r.issues, r.error],
      ['builtin', 600 * MiB, ['sm_80', 'sm_90a', 'sm_100f', 'sm_120f'], ['compute_120f'], true, [], undefined],
    );
    const c = counts.get(join(dir, 'libcublasLt.so'))!;
    assert.equal(c.wholeReads, 0);
    assert.ok(c.bytes <= DEFAULT_MAX_READ_BYTES, `${c.bytes} bytes`);
    assert.ok(c.bytes <= layout.headerBytes + layout.segmentBytes + 1024, `${c.bytes} bytes for ${layout.headerBytes} bytes of headers`);
    assert.ok(Date.now() - t0 < 20_000, `${Date.now() - t0} ms`);
  });

  it('damaged files over SSH: a cut fatbin keeps what precedes the cut; no fatbin section; not an ELF', async () => {
    const cut = join(work, 'cut.so');
    const layout = writeSparseElf(cut, { containers: [entriesFor(['sm_80', 'sm_90a'], 10_000), entriesFor(['sm_120'], 10_000)], table: 'before' });
    truncateSync(cut, layout.entries[1] + 500);
    const a = await readLibraryTargets(host, cut, { cuobjdump: 'never' });
    assert.deepEqual([a.sass, a.complete, a.error], [['sm_80', 'sm_90a'], false, undefined]);
    assert.ok(
      a.issues.some((i) => /runs past the end of the file/.test(i)),
      a.issues.join('\n'),
    );

    const plain = join(work, 'plain.so');
    writeSparseElf(plain, { containers: [], size: 300 * MiB, table: 'end' });
    const { host: counted, counts } = countingHost(host);
    const b = await readLibraryTargets(counted, plain, { cuobjdump: 'never' });
    assert.deepEqual([b.hasFatbin, b.targets, b.complete, b.error], [false, [], true, undefined]);
    assert.ok(counts.get(plain)!.bytes < 1024);

    const script = join(work, 'script.so');
    writeFileSync(script, 'INPUT(-lfoo)\n');
    const c = await readLibraryTargets(host, script, { cuobjdump: 'never' });
    assert.match(c.error ?? '', /not an ELF/);

    // Section table cut off: the reader falls back to reading the (small) file and scanning it.
    const notable = join(work, 'notable.so');
    const l2 = writeSparseElf(notable, { containers: [entriesFor(['sm_86'], 3000)] });
    truncateSync(notable, l2.shoff + 3);
    const e = await readLibraryTargets(host, notable, { cuobjdump: 'never' });
    assert.deepEqual([e.sass, e.complete, e.error], [['sm_86'], false, undefined]);
  });
});
