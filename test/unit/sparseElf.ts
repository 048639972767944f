/**
 * Writes ELF64 shared-object-shaped files with a fatbin section whose payloads are holes: a
 * "500 MB" library costs a few KB of disk. Only the headers are real bytes (ELF header, section
 * table, section names, container and entry headers, a 4-byte marker at each payload's start),
 * laid out as nvcc and the linker do. Used by the ranged-read tests and the envreport bench.
 */
import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import type { HostLike } from '../../src/core/gpu/hostLike';

export interface SparseEntry {
  kind: 'elf' | 'ptx';
  arch: number;
  variant?: '' | 'a' | 'f';
  /** Payload bytes (a hole). Default 1024. */
  payload?: number;
  /** Entry header size; nvcc writes 64, 80, 96 or 112. Default 64. */
  header?: number;
  /** Flag the payload Zstandard-compressed (0x8000), as CUDA 13 libraries are. */
  compressed?: boolean;
}

export interface SparseElfSpec {
  /** One array per fatbin container; none at all = no fatbin section. */
  containers: SparseEntry[][];
  section?: '.nv_fatbin' | '__nv_relfatbin';
  /** Offset of the fatbin section (multiple of 8). Default 0x100. */
  fatbinAt?: number;
  /** Zero bytes between containers (multiple of 8). Default 0. */
  gap?: number;
  /** Section header table: after the names (default), at the very end of the file, or before the fatbin. */
  table?: 'after' | 'end' | 'before';
  /** The file is at least this large (a hole at its end, or before an `end` table). */
  size?: number;
  /**
   * A `.nvFatBinSegment` with one wrapper per container, as linked libraries have: 'right'
   * addresses, or 'wrong' ones (each 8 bytes past its container) for a reader that must not trust them.
   */
  segment?: 'right' | 'wrong';
}

export interface SparseElfLayout {
  size: number;
  shoff: number;
  fatbin?: { offset: number; size: number };
  /** Where each entry header starts, in order. */
  entries: number[];
  /** Bytes the headers take (ELF header, table, names, container and entry fields): the least a reader can read. */
  headerBytes: number;
  /** Bytes of the `.nvFatBinSegment` wrappers (0 without). */
  segmentBytes: number;
}

const enc = new TextEncoder();
const align8 = (n: number): number => Math.ceil(n / 8) * 8;

function le(width: 2 | 4 | 8, v: number): Uint8Array {
  const b = new Uint8Array(width);
  const dv = new DataView(b.buffer);
  if (width === 2) dv.setUint16(0, v, true);
  else if (width === 4) dv.setUint32(0, v >>> 0, true);
  else dv.setBigUint64(0, BigInt(v), true);
  return b;
}

function cat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function entryHeader(e: SparseEntry): Uint8Array {
  const size = e.header ?? 64;
  let flags = 0x11; // 64-bit, Linux host
  if (e.variant === 'a') flags |= 0x100000;
  if (e.variant === 'f') flags |= 0x200000;
  if (e.compressed) flags |= 0x8000;
  const payload = e.payload ?? 1024;
  const fields = cat([
    le(2, e.kind === 'ptx' ? 1 : 2),
    le(2, 0x0101),
    le(4, size),
    le(8, payload),
    le(4, e.compressed ? payload : 0),
    le(4, size > 64 ? 64 : 0),
    le(2, e.kind === 'ptx' ? 7 : 8),
    le(2, e.kind === 'ptx' ? 8 : 1),
    le(4, e.arch),
    le(4, 0),
    le(4, 0),
    le(8, flags),
    le(8, 0),
    le(8, e.compressed ? payload * 3 : 0),
  ]);
  const out = new Uint8Array(size);
  out.set(fields);
  return out;
}

/** Size of a container's entries (headers and payloads). */
function entriesSize(c: SparseEntry[]): number {
  return c.reduce((n, e) => n + (e.header ?? 64) + (e.payload ?? 1024), 0);
}

export function writeSparseElf(path: string, spec: SparseElfSpec): SparseElfLayout {
  const writes: { at: number; bytes: Uint8Array }[] = [];
  const put = (at: number, bytes: Uint8Array): void => {
    writes.push({ at, bytes });
  };
  const hasFatbin = spec.containers.length > 0;
  const segment = hasFatbin && spec.segment !== undefined;
  const names = ['', '.text', ...(hasFatbin ? [spec.section ?? '.nv_fatbin'] : []), ...(segment ? ['.nvFatBinSegment'] : []), '.shstrtab'];
  const nameOff: number[] = [];
  const strtab: Uint8Array[] = [];
  let n = 0;
  for (const name of names) {
    nameOff.push(n);
    const b = enc.encode(`${name}\0`);
    strtab.push(b);
    n += b.length;
  }
  const strtabBytes = cat(strtab);
  const shnum = names.length;
  const tableSize = shnum * 64;

  const textAt = 64;
  const text = Uint8Array.from([0xf3, 0x0f, 0x1e, 0xfa, 0xc3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  let shoff = spec.table === 'before' ? 0x80 : 0;
  let fatbinAt = spec.fatbinAt ?? 0x100;
  if (spec.table === 'before') fatbinAt = Math.max(fatbinAt, align8(shoff + tableSize + strtabBytes.length));
  let strtabAt = spec.table === 'before' ? shoff + tableSize : 0;

  // Fatbin: containers back to back (with `gap` zero bytes between), headers written, payloads left as holes.
  const entries: number[] = [];
  const starts: number[] = [];
  let p = fatbinAt;
  let headerBytes = 64 + tableSize + strtabBytes.length;
  spec.containers.forEach((c, ci) => {
    if (ci > 0) p += spec.gap ?? 0;
    starts.push(p);
    const body = entriesSize(c);
    put(p, cat([le(4, 0xba55ed50), le(2, 1), le(2, 16), le(8, body)]));
    headerBytes += 16;
    let q = p + 16;
    for (const e of c) {
      entries.push(q);
      put(q, entryHeader(e));
      headerBytes += 64;
      const h = e.header ?? 64;
      if ((e.payload ?? 1024) >= 4) put(q + h, e.compressed ? Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd]) : Uint8Array.from([0x7f, 0x45, 0x4c, 0x46]));
      q += h + (e.payload ?? 1024);
    }
    p = q;
  });
  const fatbinSize = p - fatbinAt;
  let end = hasFatbin ? p : fatbinAt;
  // Wrappers: magic, version, the container's address (= its offset here), 0.
  const wrappers = cat(starts.map((at) => cat([le(4, 0x466243b1), le(4, 1), le(8, spec.segment === 'wrong' ? at + 8 : at), le(8, 0)])));
  const segmentAt = align8(end);
  if (segment) {
    put(segmentAt, wrappers);
    end = segmentAt + wrappers.length;
  }
  if (spec.table !== 'before') {
    strtabAt = align8(end);
    end = strtabAt + strtabBytes.length;
    shoff = spec.table === 'end' ? align8(Math.max(end, (spec.size ?? 0) - tableSize)) : align8(end);
    end = shoff + tableSize;
  }
  const size = Math.max(end, spec.size ?? 0);

  const section = (i: number, type: number, flags: number, offset: number, sz: number, align: number): Uint8Array =>
    cat([le(4, nameOff[i]), le(4, type), le(8, flags), le(8, flags & 2 ? offset : 0), le(8, offset), le(8, sz), le(4, 0), le(4, 0), le(8, align), le(8, 0)]);
  const table = [new Uint8Array(64), section(1, 1, 6, textAt, text.length, 16)];
  if (hasFatbin) table.push(section(2, 1, 2, fatbinAt, fatbinSize, 8));
  if (segment) table.push(section(3, 1, 3, segmentAt, wrappers.length, 8));
  table.push(section(shnum - 1, 3, 0, strtabAt, strtabBytes.length, 1));

  put(
    0,
    cat([
      Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
      le(2, 3),
      le(2, 62),
      le(4, 1),
      le(8, 0),
      le(8, 0),
      le(8, shoff),
      le(4, 0),
      le(2, 64),
      le(2, 56),
      le(2, 0),
      le(2, 64),
      le(2, shnum),
      le(2, shnum - 1),
    ]),
  );
  put(textAt, text);
  put(strtabAt, strtabBytes);
  put(shoff, cat(table));

  const fd = openSync(path, 'w');
  try {
    for (const w of writes) writeSync(fd, w.bytes, 0, w.bytes.length, w.at);
    ftruncateSync(fd, size);
  } finally {
    closeSync(fd);
  }
  return {
    size,
    shoff,
    ...(hasFatbin ? { fatbin: { offset: fatbinAt, size: fatbinSize } } : {}),
    entries,
    headerBytes,
    segmentBytes: segment ? wrappers.length : 0,
  };
}

/** Entries with the given targets (`sm_90a`, `compute_120f`), each with a payload of `payload` bytes. */
export function entriesFor(names: string[], payload = 1024, extra: Partial<SparseEntry> = {}): SparseEntry[] {
  return names.map((name) => {
    const m = /^(sm|compute)_(\d+)([af]?)$/.exec(name);
    if (!m) throw new Error(`bad target name ${name}`);
    return { kind: m[1] === 'sm' ? 'elf' : 'ptx', arch: Number(m[2]), variant: m[3] as '' | 'a' | 'f', payload, ...extra };
  });
}

/** Counts what a host reads, per path: `readFile` bytes and `openFile` reads (bytes and calls). */
export interface ReadCounts {
  bytes: number;
  reads: number;
  wholeReads: number;
}

export function countingHost<H extends HostLike>(
  inner: H,
  cuobjdump?: (path: string) => string | null,
): { host: HostLike; counts: Map<string, ReadCounts>; tool: string[][] } {
  const counts = new Map<string, ReadCounts>();
  const tool: string[][] = [];
  const of = (p: string): ReadCounts => {
    let c = counts.get(p);
    if (!c) {
      c = { bytes: 0, reads: 0, wholeReads: 0 };
      counts.set(p, c);
    }
    return c;
  };
  const host: HostLike = {
    label: inner.label,
    exec: (argv, opts) => {
      if (argv[0] === 'cuobjdump' && cuobjdump) {
        tool.push(argv);
        const text = cuobjdump(argv[argv.length - 1]);
        if (text === null) return Promise.reject(new Error('Program "cuobjdump" was not found'));
        return Promise.resolve({ code: 0, stdout: text, stderr: '', truncated: false });
      }
      return inner.exec(argv, opts);
    },
    readFile: async (p, o) => {
      const b = await inner.readFile(p, o);
      of(p).bytes += b.length;
      of(p).wholeReads++;
      return b;
    },
    stat: (p) => inner.stat(p),
    readDir: (p) => inner.readDir(p),
    ...(inner.openFile
      ? {
          openFile: async (p: string, o?: { signal?: AbortSignal }) => {
            const f = await inner.openFile!(p, o);
            return {
              size: f.size,
              read: async (position: number, length: number, signal?: AbortSignal) => {
                const b = await f.read(position, length, signal);
                of(p).bytes += b.length;
                of(p).reads++;
                return b;
              },
              close: () => f.close(),
            };
          },
        }
      : {}),
  };
  return { host, counts, tool };
}
