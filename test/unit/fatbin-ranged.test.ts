/**
 * Ranged reads: LocalHost.openFile, the header-only fatbin reader (same answers as the whole-file
 * reader, at most 2 MiB read whatever the file's size), and readLibraryTargets' use of both and
 * of cuobjdump. The ELF files are written by the tests (sparse: payloads are holes).
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_MAX_READ_BYTES,
  FatbinError,
  mergeCuobjdumpTargets,
  parseTargetName,
  readFatbinTargets,
  readFatbinTargetsFrom,
  readLibraryTargets,
  tryReadFatbinTargets,
  type CudaTarget,
  type FatbinReport,
  type RangedFile,
} from '../../src/core/gpu/fatbin';
import { LocalHost } from '../../src/core/hosts/local';
import { HostError, MAX_RANGE_READ } from '../../src/core/hosts/types';
import { seededRandom as mulberry32 } from '../../src/core/random';
import { buildFixtures } from '../fixtures/elf/make-fixtures';
import { countingHost, entriesFor, writeSparseElf, type SparseEntry } from './sparseElf';

const MiB = 1024 * 1024;
const names = (ts: CudaTarget[]): string[] => ts.map((t) => t.name);
const targets = (...ns: string[]): CudaTarget[] => ns.map((n) => parseTargetName(n)!);

/** An in-memory file for the ranged reader, counting what it is asked for. */
function memFile(bytes: Uint8Array): RangedFile & { asked: number } {
  const f = {
    size: bytes.length,
    asked: 0,
    read: (position: number, length: number): Promise<Uint8Array> => {
      f.asked += length;
      return Promise.resolve(bytes.subarray(Math.min(position, bytes.length), Math.min(position + length, bytes.length)));
    },
  };
  return f;
}

async function rangedResult(bytes: Uint8Array, lenient: boolean): Promise<{ ok: true; report: FatbinReport } | { ok: false; error: FatbinError }> {
  try {
    return { ok: true, report: await readFatbinTargetsFrom(memFile(bytes), { lenient }) };
  } catch (err) {
    assert.ok(err instanceof FatbinError, String(err));
    return { ok: false, error: err };
  }
}

/** What both readers must agree on. */
function shape(r: FatbinReport): unknown {
  return {
    targets: names(r.targets),
    hasFatbin: r.hasFatbin,
    complete: r.complete,
    sections: r.sections,
    containers: r.containers.map((c) => ({ ...c, entries: c.entries.map((e) => ({ ...e })) })),
  };
}

describe('LocalHost.openFile', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'id-ranged-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads at any offset, short at the end of the file, nothing past it', async () => {
    const data = Buffer.alloc(10_000);
    for (let i = 0; i < data.length; i++) data[i] = (i * 7) & 0xff;
    writeFileSync(join(dir, 'a.bin'), data);
    const f = await new LocalHost().openFile(join(dir, 'a.bin'));
    try {
      assert.equal(f.size, 10_000);
      assert.deepEqual(Buffer.from(await f.read(1234, 100)), data.subarray(1234, 1334));
      assert.deepEqual(Buffer.from(await f.read(0, 8)), data.subarray(0, 8));
      assert.equal((await f.read(9_990, 100)).length, 10);
      assert.equal((await f.read(10_000, 100)).length, 0);
      assert.equal((await f.read(50_000, 100)).length, 0);
      assert.equal((await f.read(5, 0)).length, 0);
      // Reads in flight together each get their own bytes.
      const many = await Promise.all([0, 3000, 6000, 9000].map((o) => f.read(o, 500)));
      many.forEach((b, i) => assert.deepEqual(Buffer.from(b), data.subarray(i * 3000, Math.min(i * 3000 + 500, data.length))));
      for (const [pos, len] of [
        [-1, 4],
        [0, -1],
        [0.5, 4],
        [0, MAX_RANGE_READ + 1],
        [Number.MAX_SAFE_INTEGER + 2, 1],
      ]) {
        await assert.rejects(f.read(pos, len), (e: unknown) => e instanceof HostError && e.kind === 'invalid-argument', `${pos},${len}`);
      }
    } finally {
      await f.close();
    }
    await f.close(); // twice is fine
    await assert.rejects(f.read(0, 4), /after it was closed/);
    await assert.rejects(new LocalHost().openFile(join(dir, 'missing.so')), (e: unknown) => e instanceof HostError && e.kind === 'not-found');
  });

  it('follows a symlink to a sparse 300 MB file and reads its last bytes', async () => {
    const big = join(dir, 'libbig.so.13');
    writeFileSync(big, 'head');
    truncateSync(big, 300 * MiB);
    writeFileSync(join(dir, 'tail.bin'), ''); // unrelated file: the handle is the link's target
    symlinkSync('libbig.so.13', join(dir, 'libbig.so'));
    const f = await new LocalHost().openFile(join(dir, 'libbig.so'));
    try {
      assert.equal(f.size, 300 * MiB);
      assert.equal(new TextDecoder().decode(await f.read(0, 4)), 'head');
      assert.deepEqual([...(await f.read(300 * MiB - 2, 8))], [0, 0]);
    } finally {
      await f.close();
    }
  });
});

describe('ranged fatbin reader', function () {
  this.timeout(30_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'id-ranged-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** readFatbinTargetsFrom over LocalHost.openFile. */
  async function readRanged(path: string, maxReadBytes?: number): ReturnType<typeof readFatbinTargetsFrom> {
    const f = await new LocalHost().openFile(path);
    try {
      return await readFatbinTargetsFrom(f, { lenient: true, ...(maxReadBytes ? { maxReadBytes } : {}) });
    } finally {
      await f.close();
    }
  }

  it("gives the whole-file reader's answer (or its error) on every committed fixture", async () => {
    for (const [name, bytes] of Object.entries(buildFixtures())) {
      for (const lenient of [false, true]) {
        const whole = tryReadFatbinTargets(bytes, { lenient });
        const ranged = await rangedResult(bytes, lenient);
        const what = `${name} (lenient ${lenient})`;
        if (whole.ok) {
          assert.ok(ranged.ok, `${what}: ${ranged.ok ? '' : ranged.error.message}`);
          assert.deepEqual(shape(ranged.report), shape(whole.report), what);
          assert.equal(ranged.report.issues.length, whole.report.issues.length, `${what}: ${ranged.report.issues.join('; ')}`);
        } else {
          assert.ok(!ranged.ok, `${what}: ranged read succeeded where the whole-file reader said ${whole.error.message}`);
          assert.equal(ranged.error.code, whole.error.code, `${what}: ${ranged.error.message} vs ${whole.error.message}`);
        }
      }
    }
  });

  it('fuzz: 1000 seeded mutations give the same targets, completeness and errors as the whole-file reader', async () => {
    const seeds = ['sm80_sm90a_ptx90.so', 'sm100a_sm120_ptx120.so', 'family_sm100f_sm120a.so'].map((n) => buildFixtures()[n]);
    const rnd = mulberry32(0xf00d);
    const deadline = Date.now() + 20_000;
    let agreed = 0;
    for (let i = 0; i < 1000; i++) {
      let b = seeds[i % seeds.length].slice();
      const n = 1 + Math.floor(rnd() * 6);
      for (let k = 0; k < n; k++) {
        const at = Math.floor(rnd() * b.length);
        const kind = Math.floor(rnd() * 4);
        if (kind === 0) b[at] ^= 1 << Math.floor(rnd() * 8);
        else if (kind === 1) b[at] = Math.floor(rnd() * 256);
        else if (kind === 2 && at + 4 <= b.length) new DataView(b.buffer).setUint32(at & ~3, [0, 0xffffffff, 0x40, 0x10, 0x70][Math.floor(rnd() * 5)], true);
        else b = b.slice(0, at);
      }
      const whole = tryReadFatbinTargets(b, { lenient: true });
      const ranged = await rangedResult(b, true);
      if (whole.ok) {
        assert.ok(ranged.ok, `mutation ${i}: ${ranged.ok ? '' : ranged.error.message}`);
        assert.deepEqual([names(ranged.report.targets), ranged.report.complete], [names(whole.report.targets), whole.report.complete], `mutation ${i}`);
      } else {
        assert.ok(!ranged.ok && ranged.error.code === whole.error.code, `mutation ${i}: ${whole.error.message} / ${ranged.ok ? 'ok' : ranged.error.message}`);
        assert.doesNotMatch(ranged.error.message, /internal error/);
      }
      agreed++;
      assert.ok(Date.now() < deadline, 'fuzz ran out of time');
    }
    assert.equal(agreed, 1000);
  });

  it('reads several containers with real header sizes and padding, header bytes only', async () => {
    const path = join(dir, 'several.so');
    const spec: SparseEntry[][] = [
      entriesFor(['sm_80', 'sm_90a'], 4096),
      [
        { kind: 'elf', arch: 100, variant: 'f', header: 112, payload: 70_000, compressed: true },
        { kind: 'elf', arch: 120, variant: 'f', header: 80, payload: 8 },
        { kind: 'ptx', arch: 120, variant: 'f', header: 96, payload: 3000 },
      ],
      entriesFor(['sm_86'], 24),
    ];
    const layout = writeSparseElf(path, { containers: spec, gap: 8 });
    const r = await readRanged(path);
    assert.deepEqual([r.sass, r.ptx, r.complete, r.issues], [['sm_80', 'sm_86', 'sm_90a', 'sm_100f', 'sm_120f'], ['compute_120f'], true, []]);
    assert.deepEqual(
      r.containers.map((c) => c.entries.map((e) => [e.target?.name, e.headerSize, e.compression])),
      [
        [
          ['sm_80', 64, 'none'],
          ['sm_90a', 64, 'none'],
        ],
        [
          ['sm_100f', 112, 'zstd'],
          ['sm_120f', 80, 'none'],
          ['compute_120f', 96, 'none'],
        ],
        [['sm_86', 64, 'none']],
      ],
    );
    assert.deepEqual(
      r.containers.flatMap((c) => c.entries.map((e) => e.offset)),
      layout.entries,
    );
    // The whole-file reader agrees on the same bytes.
    assert.deepEqual(shape(r), shape(readFatbinTargets(new Uint8Array(readFileSync(path)))));
    assert.ok(r.bytesRead <= layout.headerBytes + 256, `read ${r.bytesRead} bytes; headers are ${layout.headerBytes}`);
  });

  it('a 64 MiB payload and a 600 MB file with its section table at the end: complete, ≤ 2 MiB read', async () => {
    const path = join(dir, 'huge.so');
    const layout = writeSparseElf(path, {
      containers: [
        entriesFor(['sm_90a'], 64 * MiB),
        entriesFor(['sm_100a', 'sm_120'], 100 * MiB, { header: 112, compressed: true }),
        entriesFor(['compute_120'], 10),
      ],
      table: 'end',
      size: 600 * 1024 * 1024,
    });
    assert.equal(layout.size, 600 * MiB);
    assert.ok(layout.shoff > 599 * MiB, 'section table at the end');
    const { host, counts } = countingHost(new LocalHost());
    const r = await readLibraryTargets(host, path);
    assert.deepEqual(
      [r.source, r.sass, r.ptx, r.complete, r.error, r.size],
      ['builtin', ['sm_90a', 'sm_100a', 'sm_120'], ['compute_120'], true, undefined, 600 * MiB],
    );
    assert.deepEqual(r.issues, []);
    const c = counts.get(path)!;
    assert.equal(c.wholeReads, 0, 'never read from the start with readFile');
    assert.ok(c.bytes <= DEFAULT_MAX_READ_BYTES, `${c.bytes} bytes read`);
    assert.ok(c.bytes < 1024, `${c.bytes} bytes read for ${layout.headerBytes} bytes of headers`);
  });

  it('.nvFatBinSegment: container headers are read ahead, many at once; wrong addresses change nothing', async () => {
    const containers = Array.from({ length: 200 }, (_, i) => entriesFor([i === 150 ? 'sm_120f' : 'sm_90a'], 3000 + i * 8, { header: i % 2 ? 112 : 64 }));
    const results: Record<string, { names: string[]; complete: boolean; bytes: number; maxInFlight: number; ms: number; issues: string[] }> = {};
    for (const segment of [undefined, 'right', 'wrong'] as const) {
      const path = join(dir, `segment-${segment ?? 'none'}.so`);
      const layout = writeSparseElf(path, { containers, segment, table: 'end', size: 300 * MiB });
      // A slow host: each read answers after 3 ms, as over a network.
      const f = await new LocalHost().openFile(path);
      let inFlight = 0;
      let maxInFlight = 0;
      const slow: RangedFile = {
        size: f.size,
        read: async (position, length) => {
          maxInFlight = Math.max(maxInFlight, ++inFlight);
          await new Promise((r) => setTimeout(r, 3));
          try {
            return await f.read(position, length);
          } finally {
            inFlight--;
          }
        },
      };
      const t0 = Date.now();
      try {
        const r = await readFatbinTargetsFrom(slow, { lenient: true });
        results[segment ?? 'none'] = { names: names(r.targets), complete: r.complete, bytes: r.bytesRead, maxInFlight, ms: Date.now() - t0, issues: r.issues };
        assert.ok(r.bytesRead <= layout.headerBytes + layout.segmentBytes + (segment === 'wrong' ? 200 * 80 : 0), `${segment}: ${r.bytesRead}`);
      } finally {
        await f.close();
      }
    }
    for (const k of ['none', 'right', 'wrong'])
      assert.deepEqual([results[k].names, results[k].complete, results[k].issues], [['sm_90a', 'sm_120f'], true, []], k);
    // Without the segment the walk goes one container at a time; with it, dozens of reads are in flight.
    assert.ok(results.none.maxInFlight <= 2, JSON.stringify(results.none));
    assert.ok(results.right.maxInFlight >= 32, JSON.stringify(results.right));
    assert.ok(results.right.ms * 3 < results.none.ms, `with the segment ${results.right.ms} ms, without ${results.none.ms} ms`);
  });

  it('more headers than the budget: stops there, says the list may be incomplete', async () => {
    const path = join(dir, 'many.so');
    const archs = ['sm_75', 'sm_80', 'sm_86', 'sm_89', 'sm_90', 'sm_90a', 'sm_100', 'sm_120'];
    // The other architectures come only in the last containers, as in a library built arch by arch.
    writeSparseElf(path, { containers: Array.from({ length: 400 }, (_, i) => entriesFor([i < 392 ? 'sm_80' : archs[i - 392], 'sm_80'], 5000)) });
    const full = await readRanged(path);
    assert.equal(full.complete, true);
    assert.equal(full.sass.length, archs.length);
    const cut = await readRanged(path, 4096);
    assert.equal(cut.complete, false);
    assert.ok(cut.bytesRead <= 4096, `${cut.bytesRead}`);
    assert.deepEqual(cut.sass, ['sm_80']);
    assert.deepEqual(
      cut.issues.filter((i) => /stopped after reading \d+ bytes of headers \(the limit for one file is 4096\); the target list may be incomplete/.test(i))
        .length,
      1,
      cut.issues.join('\n'),
    );
  });

  it('no fatbin section: no CUDA code, complete, a few hundred bytes read', async () => {
    const path = join(dir, 'plain.so');
    writeSparseElf(path, { containers: [], size: 50 * MiB, table: 'end' });
    const r = await readRanged(path);
    assert.deepEqual([r.hasFatbin, r.targets, r.complete, r.issues, r.located], [false, [], true, [], 'sections']);
    assert.ok(r.bytesRead < 512, `${r.bytesRead}`);
  });

  it('a file cut inside its fatbin keeps the targets before the cut and says where', async () => {
    const path = join(dir, 'cut.so');
    const layout = writeSparseElf(path, { containers: [entriesFor(['sm_80', 'sm_90a'], 10_000), entriesFor(['sm_120'], 10_000)], table: 'before' });
    truncateSync(path, layout.entries[1] + 500); // inside sm_90a's payload
    const r = await readRanged(path);
    assert.deepEqual([r.sass, r.complete], [['sm_80', 'sm_90a'], false]);
    assert.match(r.issues.join('\n'), /section \.nv_fatbin at 0x[0-9a-f]+ \(\d+ bytes\) runs past the end of the file/);
    const lib = await readLibraryTargets(new LocalHost(), path, { cuobjdump: 'never' });
    assert.deepEqual([lib.sass, lib.complete, lib.error], [['sm_80', 'sm_90a'], false, undefined]);
  });

  it('a file whose section table was cut off: a clear error by ranges; the library read falls back to a scan', async () => {
    const path = join(dir, 'notable.so');
    const layout = writeSparseElf(path, { containers: [entriesFor(['sm_80', 'sm_90a'], 2000)] });
    truncateSync(path, layout.shoff + 10);
    await assert.rejects(
      readRanged(path),
      (e: unknown) => e instanceof FatbinError && e.code === 'truncated' && /section header table .*runs past the end of the file/.test(e.message),
    );
    const lib = await readLibraryTargets(new LocalHost(), path, { cuobjdump: 'never' });
    assert.deepEqual([lib.source, lib.sass, lib.complete, lib.error], ['builtin', ['sm_80', 'sm_90a'], false, undefined]);
    assert.match(lib.issues[0], /the ELF section table could not be read \(.*\), so the file was read whole/);
    assert.ok(lib.issues.some((i) => /may be incomplete/.test(i)));
  });

  it('a long run of zero bytes where a container should start ends the section with a note', async () => {
    const path = join(dir, 'zeros.so');
    writeSparseElf(path, { containers: [entriesFor(['sm_80'], 100), entriesFor(['sm_90'], 100)], gap: 200_000 });
    const r = await readRanged(path);
    assert.deepEqual([r.sass, r.complete], [['sm_80'], false]);
    assert.match(r.issues[0], /\.nv_fatbin: more than 65536 zero bytes before 0x[0-9a-f]+ where a fatbin container should start/);
    assert.ok(r.bytesRead < 80_000, `${r.bytesRead}`);
  });

  it('a host whose reads fail: FatbinError io, and readLibraryTargets reports it without throwing', async () => {
    const bytes = buildFixtures()['sm80_sm90a_ptx90.so'];
    let n = 0;
    const flaky: RangedFile = {
      size: bytes.length,
      read: (p, l) => (++n > 3 ? Promise.reject(new Error('Connection lost.')) : Promise.resolve(bytes.subarray(p, p + l))),
    };
    await assert.rejects(readFatbinTargetsFrom(flaky), (e: unknown) => e instanceof FatbinError && e.code === 'io' && /Connection lost/.test(e.message));
    const host = {
      ...countingHost(new LocalHost()).host,
      stat: () => Promise.resolve({ type: 'file' as const, size: bytes.length, mtimeMs: 0 }),
      openFile: () => {
        n = 0;
        return Promise.resolve({ ...flaky, close: () => Promise.resolve() });
      },
    };
    const r = await readLibraryTargets(host, '/gpu/lib.so', { cuobjdump: 'never' });
    assert.match(r.error ?? '', /could not read \/gpu\/lib\.so: could not read .*Connection lost/);
  });
});

describe('readLibraryTargets: cuobjdump beside the built-in reader', function () {
  this.timeout(30_000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'id-ranged-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("merge: cuobjdump's variant-less names never replace or duplicate the reader's family targets", () => {
    const m = mergeCuobjdumpTargets(targets('sm_100f', 'sm_120f', 'sm_90', 'compute_120f'), targets('sm_100', 'sm_120', 'sm_90a', 'sm_86', 'compute_120'));
    // sm_90a is not the reader's sm_90 (cuobjdump prints `a` names in full), sm_86 the reader did not see.
    assert.deepEqual(names(m.targets), ['sm_86', 'sm_90', 'sm_90a', 'sm_100f', 'sm_120f', 'compute_120f']);
    assert.deepEqual(names(m.added), ['sm_86', 'sm_90a']);
    // A plain sm_120 beside an `a` build is a build of its own.
    assert.deepEqual(names(mergeCuobjdumpTargets(targets('sm_120a'), targets('sm_120a', 'sm_120')).added), ['sm_120']);
    assert.deepEqual(names(mergeCuobjdumpTargets(targets('sm_120', 'sm_120f'), targets('sm_120')).targets), ['sm_120', 'sm_120f']);
  });

  // What cuobjdump 13 prints for an sm_100f / sm_120a / compute_120f build: no `f`.
  const familyListing = ['ELF file    1: x.1.sm_100.cubin', 'ELF file    2: x.2.sm_120a.cubin', 'PTX file    1: x.1.sm_120.ptx', ''].join('\n');

  it("prefer: both run, and the family targets are the built-in reader's", async () => {
    const path = join(dir, 'family.so');
    writeSparseElf(path, { containers: [entriesFor(['sm_100f', 'sm_120a', 'compute_120f'], 3 * MiB)], size: 300 * MiB });
    const { host, tool } = countingHost(new LocalHost(), () => familyListing);
    const r = await readLibraryTargets(host, path, { cuobjdump: 'prefer' });
    assert.equal(tool.length, 1);
    assert.deepEqual([r.source, r.sass, r.ptx, r.complete, r.issues], ['builtin', ['sm_100f', 'sm_120a'], ['compute_120f'], true, []]);

    const { host: h2 } = countingHost(new LocalHost(), () => `${familyListing}ELF file    3: x.3.sm_86.cubin\n`);
    const extra = await readLibraryTargets(h2, path, { cuobjdump: 'prefer' });
    assert.deepEqual(extra.sass, ['sm_86', 'sm_100f', 'sm_120a']);
    assert.deepEqual(extra.issues, ['cuobjdump also listed sm_86, which the built-in reader did not find']);
  });

  it('auto: a complete built-in answer does not ask cuobjdump; an incomplete one does, and is merged', async () => {
    const path = join(dir, 'auto.so');
    const layout = writeSparseElf(path, { containers: [entriesFor(['sm_100f'], 1000), entriesFor(['sm_120a'], 1000), entriesFor(['compute_120f'], 1000)] });
    const a = countingHost(new LocalHost(), () => familyListing);
    const full = await readLibraryTargets(a.host, path);
    assert.deepEqual([a.tool.length, full.sass, full.complete], [0, ['sm_100f', 'sm_120a'], true]);

    // A read budget too small for the three containers: cuobjdump fills in, the reader's names stay.
    const b = countingHost(new LocalHost(), () => familyListing);
    const cut = await readLibraryTargets(b.host, path, { maxReadBytes: layout.headerBytes - 100 });
    assert.equal(b.tool.length, 1);
    assert.deepEqual([cut.source, cut.complete], ['builtin', true]);
    assert.ok(cut.sass.includes('sm_100f') && !cut.sass.includes('sm_100'), cut.sass.join(' '));
    assert.ok(
      cut.issues.some((i) => /stopped after reading/.test(i)),
      cut.issues.join('\n'),
    );

    // Without cuobjdump the incomplete answer stays incomplete.
    const c = countingHost(new LocalHost(), () => null);
    const alone = await readLibraryTargets(c.host, path, { maxReadBytes: layout.headerBytes - 100 });
    assert.deepEqual([alone.complete, alone.error], [false, undefined]);
    assert.ok(alone.issues.some((i) => /cuobjdump could not run/.test(i)));
  });

  it("prefer on a file the reader cannot parse: cuobjdump's answer, with the reader's error as a note", async () => {
    const path = join(dir, 'script.so');
    writeFileSync(path, 'INPUT(-lfoo)\n');
    const { host } = countingHost(new LocalHost(), () => 'ELF file    1: y.1.sm_90.cubin\n');
    const r = await readLibraryTargets(host, path, { cuobjdump: 'prefer' });
    assert.deepEqual([r.source, r.sass, r.error], ['cuobjdump', ['sm_90'], undefined]);
    assert.match(r.issues[0], /^built-in reader: .*not an ELF/);
    // auto does not ask cuobjdump about a file that is not ELF at all.
    const auto = countingHost(new LocalHost(), () => 'ELF file    1: y.1.sm_90.cubin\n');
    const e = await readLibraryTargets(auto.host, path);
    assert.deepEqual([auto.tool.length, /not an ELF/.test(e.error ?? '')], [0, true]);
  });
});
