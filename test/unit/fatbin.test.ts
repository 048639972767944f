import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FatbinError, parseCuobjdumpList, parseTargetName, readFatbinTargets, readLibraryTargets, tryReadFatbinTargets } from '../../src/core/gpu/fatbin';
import type { HostLike } from '../../src/core/gpu/hostLike';
import { buildFixtures, container } from '../fixtures/elf/make-fixtures';
import { seededRandom as mulberry32 } from '../../src/core/random';

const DIR = join(__dirname, '..', 'fixtures', 'elf');
const fx = (name: string): Uint8Array => new Uint8Array(readFileSync(join(DIR, name)));

describe('fatbin reader', function () {
  this.timeout(20000);

  it('committed fixtures are exactly what make-fixtures.ts generates', () => {
    for (const [name, bytes] of Object.entries(buildFixtures())) {
      assert.deepEqual(fx(name), bytes, `${name} differs from the generator; rerun npx tsx test/fixtures/elf/make-fixtures.ts`);
    }
  });

  const exact: [string, string[], string[], number][] = [
    ['sm80_sm90a_ptx90.so', ['sm_80', 'sm_90a'], ['compute_90'], 2],
    ['sm100a_sm120_ptx120.so', ['sm_100a', 'sm_120'], ['compute_120'], 1],
    ['sm90a_sm100a.so', ['sm_90a', 'sm_100a'], [], 1],
    ['ptx80_only.so', [], ['compute_80'], 1],
    ['family_sm100f_sm120a.so', ['sm_100f', 'sm_120a'], ['compute_120f'], 1],
    ['relfatbin_sm86.so', ['sm_86'], [], 1],
    // The loadable section only: its relocatable sm_86, sm_89 and compute_120 are for a device link.
    ['relfatbin_and_fatbin.so', ['sm_80', 'sm_90'], [], 1],
    ['no_fatbin.so', [], [], 0],
  ];
  for (const [name, sass, ptx, containers] of exact) {
    it(`reads ${name}`, () => {
      const r = readFatbinTargets(fx(name));
      assert.deepEqual(r.sass, sass);
      assert.deepEqual(r.ptx, ptx);
      assert.equal(r.containers.length, containers);
      assert.equal(r.hasFatbin, containers > 0);
      assert.equal(r.complete, true);
      assert.deepEqual(r.issues, []);
      assert.equal(r.format, 'elf');
      assert.equal(r.located, 'sections');
    });
  }

  it('reports entry details: kinds, header sizes, compression, code versions', () => {
    const r = readFatbinTargets(fx('sm100a_sm120_ptx120.so'));
    const es = r.containers[0].entries;
    assert.deepEqual(
      es.map((e) => [e.kind, e.arch, e.variant, e.headerSize, e.compression]),
      [
        ['elf', 100, 'a', 96, 'none'],
        ['elf', 120, '', 96, 'none'],
        ['ptx', 120, '', 96, 'zstd'],
      ],
    );
    assert.equal(es[2].compressedSize, 13);
    assert.equal(es[2].uncompressedSize, 400);
    assert.deepEqual(es[0].codeVersion, { major: 1, minor: 8 });
    assert.equal(r.sections[0].name, '.nv_fatbin');
  });

  it('reads a raw fatbin container (no ELF around it)', () => {
    const r = readFatbinTargets(
      container([
        { kind: 'elf', arch: 89 },
        { kind: 'ptx', arch: 89 },
      ]),
    );
    assert.equal(r.format, 'fatbin');
    assert.deepEqual([r.sass, r.ptx], [['sm_89'], ['compute_89']]);
  });

  const hostile: [string, FatbinError['code'], RegExp][] = [
    ['truncated.so', 'truncated', /section header table .* runs past the end/],
    ['hostile_fatsize.so', 'truncated', /claims 549755813887 bytes of entries/],
    ['hostile_entry_loop.so', 'malformed', /header size 0/],
    ['hostile_payload.so', 'truncated', /payload running past its container end/],
    ['hostile_shoff.so', 'truncated', /section header table/],
    ['hostile_shnum.so', 'truncated', /65520 × 64 bytes/],
    ['hostile_section.so', 'truncated', /section \.nv_fatbin .* runs past the end of the file/],
    ['hostile_name.so', 'malformed', /name of section 2/],
  ];
  for (const [name, code, msg] of hostile) {
    it(`rejects ${name} with a clear FatbinError`, () => {
      const t0 = Date.now();
      const r = tryReadFatbinTargets(fx(name));
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.ok(r.error instanceof FatbinError);
      assert.equal(r.error.code, code, r.error.message);
      assert.match(r.error.message, msg);
      assert.ok(Date.now() - t0 < 1000);
    });
  }

  it('lenient + scan recovers what is readable and says the list may be incomplete', () => {
    const t = readFatbinTargets(fx('truncated.so'), { lenient: true, scan: true });
    assert.equal(t.located, 'scan');
    assert.equal(t.complete, false);
    assert.deepEqual(t.sass, ['sm_80', 'sm_90a']);
    assert.match(t.issues[0], /may be incomplete/);
    const f = readFatbinTargets(fx('hostile_fatsize.so'), { lenient: true });
    assert.deepEqual([f.sass, f.ptx, f.complete], [['sm_100a', 'sm_120'], ['compute_120'], false]);
    const l = readFatbinTargets(fx('hostile_entry_loop.so'), { lenient: true });
    assert.deepEqual([l.targets.length, l.complete], [0, false]);
  });

  it('rejects non-ELF, ELF32 and big-endian input', () => {
    const cases: [Uint8Array, string][] = [
      [new TextEncoder().encode('#!/bin/sh\necho hi\n'), 'not-elf'],
      [new Uint8Array(0), 'not-elf'],
      [Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 1, 1, 1, 0, ...new Array(56).fill(0)]), 'unsupported'],
      [Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 2, 2, 1, 0, ...new Array(56).fill(0)]), 'unsupported'],
      [Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 2, 1]), 'truncated'],
    ];
    for (const [b, code] of cases) {
      const r = tryReadFatbinTargets(b);
      assert.ok(!r.ok && r.error.code === code, `${code}: ${r.ok ? 'ok' : r.error.message}`);
    }
  });

  it('works on a subarray view with a non-zero byteOffset', () => {
    const inner = fx('sm80_sm90a_ptx90.so');
    const big = new Uint8Array(inner.length + 13);
    big.set(inner, 13);
    assert.deepEqual(readFatbinTargets(big.subarray(13)).sass, ['sm_80', 'sm_90a']);
  });

  it('fuzz: 1500 seeded mutations never throw anything but FatbinError and never hang', () => {
    const seeds = ['sm80_sm90a_ptx90.so', 'sm100a_sm120_ptx120.so', 'family_sm100f_sm120a.so'].map(fx);
    const rnd = mulberry32(0x5eed);
    const deadline = Date.now() + 15000;
    let ok = 0;
    let errors = 0;
    for (let i = 0; i < 1500; i++) {
      const src = seeds[i % seeds.length];
      let b = src.slice();
      const kind = Math.floor(rnd() * 5);
      const n = 1 + Math.floor(rnd() * 8);
      for (let k = 0; k < n; k++) {
        const at = Math.floor(rnd() * b.length);
        if (kind === 0) b[at] ^= 1 << Math.floor(rnd() * 8);
        else if (kind === 1) b[at] = Math.floor(rnd() * 256);
        else if (kind === 2 && at + 4 <= b.length)
          new DataView(b.buffer).setUint32(at & ~3, [0, 0xffffffff, 0x40, 0x10, 0x7fffffff][Math.floor(rnd() * 5)], true);
        else if (kind === 3) b = b.slice(0, at);
        else if (at + 8 <= b.length) new DataView(b.buffer).setBigUint64(at & ~7, BigInt(Math.floor(rnd() * 2 ** 52)), true);
      }
      for (const opts of [{}, { lenient: true, scan: true }]) {
        const t0 = Date.now();
        try {
          readFatbinTargets(b, opts);
          ok++;
        } catch (err) {
          assert.ok(err instanceof FatbinError, `mutation ${i}: ${String(err)}`);
          assert.doesNotMatch(err.message, /internal error/, `mutation ${i}: ${err.message}`);
          errors++;
        }
        assert.ok(Date.now() - t0 < 500, `mutation ${i} took ${Date.now() - t0} ms`);
      }
      assert.ok(Date.now() < deadline, 'fuzz ran out of time');
    }
    assert.ok(ok > 0 && errors > 0, `ok=${ok} errors=${errors}`);
  });

  it('bounded on 4 MiB of 0x50 bytes (worst case for the magic scan)', () => {
    const b = new Uint8Array(4 * 1024 * 1024).fill(0x50);
    b.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0], 0);
    const t0 = Date.now();
    const r = tryReadFatbinTargets(b, { lenient: true, scan: true });
    assert.ok(Date.now() - t0 < 5000);
    assert.ok(r.ok && r.report.targets.length === 0);
  });
});

describe('target names and cuobjdump output', () => {
  it('parses target names', () => {
    assert.deepEqual(parseTargetName('sm_90a'), { kind: 'sass', arch: 90, variant: 'a', name: 'sm_90a' });
    assert.deepEqual(parseTargetName('compute_120'), { kind: 'ptx', arch: 120, variant: '', name: 'compute_120' });
    assert.equal(parseTargetName('SM120F')?.name, 'sm_120f');
    assert.equal(parseTargetName('sm_'), undefined);
    assert.equal(parseTargetName('gfx90a'), undefined);
  });

  it('parses --list-elf / --list-ptx lines', () => {
    const out = [
      'ELF file    1: common_ops.abi3.1.sm_90a.cubin',
      'ELF file    2: common_ops.abi3.2.sm_100a.cubin',
      'ELF file    3: common_ops.abi3.3.sm_90a.cubin',
      'ELF file   10: common_ops.abi3.10.sm_80.cubin',
      'PTX file    1: common_ops.abi3.1.sm_90.ptx',
      'garbage line',
      '',
    ].join('\n');
    const r = parseCuobjdumpList(out);
    assert.deepEqual(
      r.targets.map((t) => t.name),
      ['sm_80', 'sm_90a', 'sm_100a', 'compute_90'],
    );
    assert.equal(r.noDeviceCode, false);
    assert.equal(parseCuobjdumpList("cuobjdump info    : File 'x.so' does not contain device code").noDeviceCode, true);
  });
});

describe('readLibraryTargets', function () {
  this.timeout(10000);
  const files: Record<string, Uint8Array> = {
    '/lib/a.so': fx('sm80_sm90a_ptx90.so'),
    '/lib/big.so': fx('sm100a_sm120_ptx120.so'),
  };
  function fakeHost(cuobjdump: string | null, calls: string[][] = []): HostLike {
    return {
      exec: (argv) => {
        calls.push(argv);
        if (argv[0] === 'cuobjdump' && cuobjdump !== null) return Promise.resolve({ code: 0, stdout: cuobjdump, stderr: '', truncated: false });
        return Promise.reject(new Error(`Program "${argv[0]}" was not found`));
      },
      readFile: (p, o) => {
        const b = files[p];
        return b ? Promise.resolve(b.subarray(0, o?.maxBytes ?? b.length)) : Promise.reject(new Error(`no such file: ${p}`));
      },
      stat: (p) => (files[p] ? Promise.resolve({ type: 'file' as const, size: files[p].length, mtimeMs: 0 }) : Promise.reject(new Error('no such file'))),
      readDir: () => Promise.resolve([]),
    };
  }

  it('uses the built-in reader when the file fits', async () => {
    const calls: string[][] = [];
    const r = await readLibraryTargets(fakeHost('ELF file 1: x.1.sm_70.cubin', calls), '/lib/a.so');
    assert.deepEqual([r.source, r.sass, r.ptx, r.complete], ['builtin', ['sm_80', 'sm_90a'], ['compute_90'], true]);
    assert.equal(calls.length, 0);
  });

  it('asks cuobjdump when the file is larger than maxBytes, and falls back to a prefix scan without it', async () => {
    const viaTool = await readLibraryTargets(fakeHost('ELF file    1: big.1.sm_120.cubin\nPTX file    1: big.1.sm_120.ptx\n'), '/lib/big.so', {
      maxBytes: 400,
    });
    assert.deepEqual([viaTool.source, viaTool.sass, viaTool.ptx, viaTool.complete], ['cuobjdump', ['sm_120'], ['compute_120'], true]);
    const prefix = await readLibraryTargets(fakeHost(null), '/lib/big.so', { maxBytes: 400 });
    assert.equal(prefix.source, 'builtin');
    assert.equal(prefix.complete, false);
    assert.ok(prefix.sass.includes('sm_100a'));
    assert.ok(prefix.issues.some((i) => /cuobjdump could not run/.test(i)));
    assert.ok(prefix.issues.some((i) => /first 400 of 728 bytes/.test(i)));
  });

  it('never throws: unreadable and non-ELF files become errors', async () => {
    const missing = await readLibraryTargets(fakeHost(null), '/lib/missing.so');
    assert.match(missing.error ?? '', /could not read/);
    files['/lib/text.so'] = new TextEncoder().encode('INPUT(-lfoo)\n');
    const text = await readLibraryTargets(fakeHost(null), '/lib/text.so');
    assert.match(text.error ?? '', /not an ELF/);
  });
});
