/**
 * CUDA fat binary reader: which GPU architectures a shared library carries code for.
 *
 * A CUDA `.so` keeps its device code in ELF sections named `.nv_fatbin` (or `__nv_relfatbin` in
 * relocatable objects). A library can hold both (nvshmem, PyTorch's libtorch_nvshmem.so): the
 * driver loads `.nv_fatbin`, while `__nv_relfatbin` is relocatable code for a program's own device
 * link, with targets of its own (sm_89 and compute_120 that the loadable code lacks, seen on CUDA
 * 13). So `__nv_relfatbin` is read only where no `.nv_fatbin` exists, as cuobjdump lists them.
 * Each section holds one or more fatbin containers laid end to end:
 *
 *   container header (16 bytes): u32 magic 0xBA55ED50, u16 version (1), u16 header size (16),
 *                                u64 size of the entries that follow
 *   entry header (>= 64 bytes):  u16 kind (1 PTX, 2 ELF cubin), u16 version, u32 header size,
 *                                u64 payload size (padded), u32 compressed size, u32 (unused here),
 *                                u16 code version minor, u16 major, u32 arch (80, 90, 120, ...),
 *                                u32 name offset, u32 name size, u64 flags, u64, u64 uncompressed size
 *   payload                      right after the entry header; next entry follows the payload.
 *
 * Flag bits used here: 0x100000 arch-specific target (`sm_90a`), 0x200000 family target
 * (`sm_100f`), 0x2000 / 0x8000 payload compressed (LZ4 / Zstandard). Payloads are never
 * decompressed: the headers alone say which targets exist.
 *
 * The parser never trusts a size: every read is bounds-checked, every entry advances by at least
 * 64 bytes and the number of entries is capped, so hostile input ends in a FatbinError.
 */
import { FatbinError, Reader, SHT_NOBITS, fmtOff, isElf, readElfSections, readElfSectionsFrom, type ElfSection } from './elf';
import type { HostLike } from './hostLike';
import { BudgetedReads, type ReadAt } from './rangeReads';
import { errorMessage } from '../errors';

export { FatbinError } from './elf';
export type { FatbinErrorCode } from './elf';

export const FATBIN_MAGIC = 0xba55ed50;
export const FATBIN_SECTIONS = ['.nv_fatbin', '__nv_relfatbin'] as const;

/** The fatbin sections whose targets count: `.nv_fatbin` where the file has one, else `__nv_relfatbin` (see above). */
function loadedSections<T extends { name: string; type: number; size: number }>(all: readonly T[]): T[] {
  const fatbins = all.filter((s) => (FATBIN_SECTIONS as readonly string[]).includes(s.name) && s.type !== SHT_NOBITS && s.size > 0);
  return fatbins.some((s) => s.name === '.nv_fatbin') ? fatbins.filter((s) => s.name === '.nv_fatbin') : fatbins;
}
export const FLAG_ARCH_SPECIFIC = 0x100000;
export const FLAG_FAMILY_SPECIFIC = 0x200000;
export const FLAG_COMPRESSED_LZ4 = 0x2000;
export const FLAG_COMPRESSED_ZSTD = 0x8000;

const MIN_ENTRY_HEADER = 64;
const MAX_ENTRY_HEADER = 4096;
const DEFAULT_MAX_ENTRIES = 200_000;

export type TargetVariant = '' | 'a' | 'f';

/** One compilation target: SASS (`sm_120`, runs as is) or PTX (`compute_90`, JIT-compiled by the driver). */
export interface CudaTarget {
  kind: 'sass' | 'ptx';
  /** major*10+minor: 80, 90, 100, 120, ... */
  arch: number;
  /** 'a' = arch-specific (runs only on exactly this arch), 'f' = family-specific. */
  variant: TargetVariant;
  name: string;
}

export interface FatbinEntryInfo {
  /** Offset of the entry header inside the bytes given to the reader. */
  offset: number;
  kind: 'elf' | 'ptx' | 'other';
  kindCode: number;
  headerSize: number;
  payloadSize: number;
  compressedSize: number;
  uncompressedSize: number;
  compression: 'none' | 'lz4' | 'zstd';
  codeVersion: { major: number; minor: number };
  arch: number;
  variant: TargetVariant;
  /** Low 32 bits of the entry flags. */
  flags: number;
  target?: CudaTarget;
}

export interface FatbinContainer {
  offset: number;
  /** Section it was found in, or '' for a raw fatbin file or a scan. */
  section: string;
  version: number;
  headerSize: number;
  fatSize: number;
  entries: FatbinEntryInfo[];
}

export interface FatbinReport {
  format: 'elf' | 'fatbin';
  /** Fatbin sections found in the ELF section table. */
  sections: { name: string; offset: number; size: number }[];
  containers: FatbinContainer[];
  /** Unique targets, SASS first, then by arch. */
  targets: CudaTarget[];
  sass: string[];
  ptx: string[];
  hasFatbin: boolean;
  /** False when the data was cut short or a damaged part was skipped (lenient mode). */
  complete: boolean;
  /** How the containers were located. */
  located: 'sections' | 'scan' | 'raw';
  issues: string[];
}

export interface FatbinReadOptions {
  /** Record damage in `issues` and keep what was readable, instead of throwing. Default false. */
  lenient?: boolean;
  /** When the ELF section table is missing or damaged (e.g. only a prefix was read), scan for container magic. Default false. */
  scan?: boolean;
  maxEntries?: number;
}

export function targetName(kind: CudaTarget['kind'], arch: number, variant: TargetVariant): string {
  return `${kind === 'sass' ? 'sm' : 'compute'}_${arch}${variant}`;
}

export function makeTarget(kind: CudaTarget['kind'], arch: number, variant: TargetVariant = ''): CudaTarget {
  return { kind, arch, variant, name: targetName(kind, arch, variant) };
}

/** `sm_90a` → SASS 90 'a'; `compute_120` → PTX 120; also accepts `sm90`, `SM_120F`. */
export function parseTargetName(s: string): CudaTarget | undefined {
  const m = /^(sm|compute)_?(\d{2,3})([af]?)$/i.exec(s.trim());
  if (!m) return undefined;
  return makeTarget(m[1].toLowerCase() === 'sm' ? 'sass' : 'ptx', Number(m[2]), m[3].toLowerCase() as TargetVariant);
}

export function compareTargets(a: CudaTarget, b: CudaTarget): number {
  if (a.kind !== b.kind) return a.kind === 'sass' ? -1 : 1;
  if (a.arch !== b.arch) return a.arch - b.arch;
  return a.variant.localeCompare(b.variant);
}

export function uniqueTargets(ts: Iterable<CudaTarget>): CudaTarget[] {
  const m = new Map<string, CudaTarget>();
  for (const t of ts) if (!m.has(t.name)) m.set(t.name, t);
  return [...m.values()].sort(compareTargets);
}

interface Ctx {
  r: Reader;
  lenient: boolean;
  maxEntries: number;
  /** Shared by the contexts of one read (a scan's candidates, a ranged read's containers). */
  counted: { entries: number };
  issues: string[];
  complete: boolean;
}

/** In lenient mode note the problem and return false; in strict mode throw. */
function problem(ctx: Ctx, err: FatbinError): false {
  if (!ctx.lenient) throw err;
  ctx.issues.push(err.message);
  ctx.complete = false;
  return false;
}

/**
 * One entry header at `p`. The fields read end at byte 64 even where the header is longer (nvcc
 * writes 64, 80, 96 and 112): `wholeHeader` false asks only for those 64 bytes (a ranged read).
 */
function parseEntry(ctx: Ctx, r: Reader, p: number, wholeHeader = true): FatbinEntryInfo {
  const kindCode = r.u16(p, 'fatbin entry kind');
  const headerSize = r.u32(p + 4, 'fatbin entry header size');
  if (headerSize < MIN_ENTRY_HEADER || headerSize > MAX_ENTRY_HEADER) {
    throw new FatbinError('malformed', `fatbin entry at ${fmtOff(p)} has header size ${headerSize} (expected ${MIN_ENTRY_HEADER}..${MAX_ENTRY_HEADER})`);
  }
  r.need(p, wholeHeader ? headerSize : MIN_ENTRY_HEADER, 'fatbin entry header');
  const payloadSize = r.u64(p + 8, 'fatbin entry payload size');
  const compressedSize = r.u32(p + 16, 'fatbin entry compressed size');
  const minor = r.u16(p + 24, 'fatbin entry version minor');
  const major = r.u16(p + 26, 'fatbin entry version major');
  const arch = r.u32(p + 28, 'fatbin entry arch');
  const flags = r.u64parts(p + 40, 'fatbin entry flags').lo;
  const uncompressed = r.u64parts(p + 56, 'fatbin entry uncompressed size');
  const uncompressedSize = uncompressed.hi === 0 ? uncompressed.lo : -1;
  const kind = kindCode === 1 ? 'ptx' : kindCode === 2 || kindCode === 0x10 ? 'elf' : 'other';
  const variant: TargetVariant = flags & FLAG_ARCH_SPECIFIC ? 'a' : flags & FLAG_FAMILY_SPECIFIC ? 'f' : '';
  const compression = flags & FLAG_COMPRESSED_ZSTD ? 'zstd' : flags & FLAG_COMPRESSED_LZ4 ? 'lz4' : 'none';
  const e: FatbinEntryInfo = {
    offset: p,
    kind,
    kindCode,
    headerSize,
    payloadSize,
    compressedSize,
    uncompressedSize,
    compression,
    codeVersion: { major, minor },
    arch,
    variant,
    flags,
  };
  if (kind !== 'other') {
    if (arch >= 10 && arch <= 999) e.target = makeTarget(kind === 'elf' ? 'sass' : 'ptx', arch, variant);
    else problem(ctx, new FatbinError('malformed', `fatbin entry at ${fmtOff(p)} names an implausible arch ${arch}`));
  }
  return e;
}

/** The 16-byte container header at `start` and where its entries end (cut at `limit`, noted). */
function parseContainerHeader(ctx: Ctx, r: Reader, start: number, limit: number, section: string): { c: FatbinContainer; end: number } {
  r.need(start, 16, 'fatbin container header');
  const magic = r.u32(start, 'fatbin magic');
  if (magic !== FATBIN_MAGIC) throw new FatbinError('malformed', `expected fatbin magic 0xba55ed50 at ${fmtOff(start)}, found 0x${magic.toString(16)}`);
  const version = r.u16(start + 4, 'fatbin version');
  const headerSize = r.u16(start + 6, 'fatbin header size');
  const fatSize = r.u64(start + 8, 'fatbin size');
  if (headerSize < 16) throw new FatbinError('malformed', `fatbin container at ${fmtOff(start)} has header size ${headerSize} (at least 16)`);
  const c: FatbinContainer = { offset: start, section, version, headerSize, fatSize, entries: [] };
  let end = start + headerSize + fatSize;
  if (end > limit) {
    problem(
      ctx,
      new FatbinError(
        'truncated',
        `fatbin container at ${fmtOff(start)} claims ${fatSize} bytes of entries but only ${Math.max(0, limit - start - headerSize)} remain`,
      ),
    );
    end = limit;
  }
  return { c, end };
}

function strayBytes(c: FatbinContainer, p: number, end: number): FatbinError {
  return new FatbinError('truncated', `fatbin container at ${fmtOff(c.offset)}: ${end - p} stray bytes at ${fmtOff(p)} are too few for an entry header`);
}

function countEntry(ctx: Ctx): void {
  if (++ctx.counted.entries > ctx.maxEntries) throw new FatbinError('too-large', `more than ${ctx.maxEntries} fatbin entries; giving up`);
}

/** Add entry `e` at `p` to `c`; returns where the next entry starts, or undefined when the payload runs past `end` (noted). */
function addEntry(ctx: Ctx, c: FatbinContainer, e: FatbinEntryInfo, p: number, end: number): number | undefined {
  const next = p + e.headerSize + e.payloadSize;
  // Past the end, the header itself is intact: keep its target, but the container is damaged or cut.
  c.entries.push(e);
  if (next <= end) return next;
  problem(
    ctx,
    new FatbinError(
      'truncated',
      `fatbin entry at ${fmtOff(p)} (${e.target?.name ?? `kind ${e.kindCode}`}) has a ${e.payloadSize}-byte payload running past its container end ${fmtOff(end)}`,
    ),
  );
  return undefined;
}

/**
 * Parse one container at `start`; entries may not go past `limit`. Returns the container and the
 * offset just after it. Throws in strict mode; in lenient mode returns what was readable.
 */
function parseContainer(ctx: Ctx, start: number, limit: number, section: string): { c: FatbinContainer; end: number } {
  const { c, end } = parseContainerHeader(ctx, ctx.r, start, limit, section);
  let p = start + c.headerSize;
  while (p < end) {
    if (end - p < MIN_ENTRY_HEADER) {
      problem(ctx, strayBytes(c, p, end));
      break;
    }
    let e: FatbinEntryInfo;
    try {
      e = parseEntry(ctx, ctx.r, p);
    } catch (err) {
      if (err instanceof FatbinError) {
        problem(ctx, err);
        break;
      }
      throw err;
    }
    countEntry(ctx);
    const next = addEntry(ctx, c, e, p, end);
    if (next === undefined) break;
    p = next;
  }
  return { c, end };
}

function newCtx(bytes: Uint8Array, opts: FatbinReadOptions): Ctx {
  return {
    r: new Reader(bytes),
    lenient: !!opts.lenient,
    maxEntries: opts.maxEntries ?? DEFAULT_MAX_ENTRIES,
    counted: { entries: 0 },
    issues: [],
    complete: true,
  };
}

/** Walk consecutive containers in [start, limit), skipping zero padding between them. */
function parseRegion(ctx: Ctx, start: number, limit: number, section: string, out: FatbinContainer[]): void {
  const b = ctx.r.bytes;
  let p = start;
  while (p < limit) {
    while (p < limit && b[p] === 0) p++;
    if (p >= limit) break;
    if (limit - p < 16 || ctx.r.u32(p, 'fatbin magic') !== FATBIN_MAGIC) {
      problem(ctx, new FatbinError('malformed', `${section || 'fatbin data'}: unexpected bytes at ${fmtOff(p)} where a fatbin container should start`));
      return;
    }
    let res: { c: FatbinContainer; end: number };
    try {
      res = parseContainer(ctx, p, limit, section);
    } catch (err) {
      if (err instanceof FatbinError && err.code !== 'too-large') {
        problem(ctx, err);
        return;
      }
      throw err;
    }
    out.push(res.c);
    if (res.end <= p) return; // cannot happen (header >= 16), but never loop in place
    p = res.end;
  }
}

/** Look for containers anywhere in the bytes (used when the section table is not available). */
function scanForContainers(ctx: Ctx, out: FatbinContainer[]): void {
  const b = ctx.r.bytes;
  let from = 0;
  while (from + 16 <= b.length) {
    const i = b.indexOf(0x50, from);
    if (i < 0 || i + 16 > b.length) break;
    if (
      b[i + 1] !== 0xed ||
      b[i + 2] !== 0x55 ||
      b[i + 3] !== 0xba ||
      (i & 3) !== 0 ||
      ctx.r.u16(i + 4, 'fatbin version') !== 1 ||
      ctx.r.u16(i + 6, 'fatbin header size') !== 16
    ) {
      from = i + 1;
      continue;
    }
    // A candidate: parse it leniently in a private context so a false positive costs nothing.
    const sub: Ctx = { ...ctx, lenient: true, issues: [], complete: true };
    let res: { c: FatbinContainer; end: number };
    try {
      res = parseContainer(sub, i, b.length, '');
    } catch (err) {
      if (err instanceof FatbinError && err.code === 'too-large') throw err;
      from = i + 1;
      continue;
    }
    const plausible = res.c.entries.length > 0 && res.c.entries.every((e) => e.kind !== 'other');
    if (!plausible) {
      from = i + 1;
      continue;
    }
    out.push(res.c);
    if (!sub.complete) {
      ctx.complete = false;
      ctx.issues.push(...sub.issues);
    }
    from = Math.max(i + 16, res.end);
  }
}

function finish(
  format: FatbinReport['format'],
  located: FatbinReport['located'],
  sections: FatbinReport['sections'],
  containers: FatbinContainer[],
  ctx: Ctx,
): FatbinReport {
  const targets = uniqueTargets(containers.flatMap((c) => c.entries.flatMap((e) => (e.target ? [e.target] : []))));
  return {
    format,
    located,
    sections,
    containers,
    targets,
    sass: targets.filter((t) => t.kind === 'sass').map((t) => t.name),
    ptx: targets.filter((t) => t.kind === 'ptx').map((t) => t.name),
    hasFatbin: containers.length > 0,
    complete: ctx.complete,
    issues: ctx.issues,
  };
}

function readInner(bytes: Uint8Array, opts: FatbinReadOptions): FatbinReport {
  const ctx = newCtx(bytes, opts);
  const containers: FatbinContainer[] = [];
  if (bytes.length >= 4 && new Reader(bytes).u32(0, 'magic') === FATBIN_MAGIC) {
    parseRegion(ctx, 0, bytes.length, '', containers);
    return finish('fatbin', 'raw', [], containers, ctx);
  }
  if (!isElf(bytes)) throw new FatbinError('not-elf', 'not an ELF shared object or fatbin file (no \\x7fELF or 0xba55ed50 magic)');
  let sectionsAll;
  try {
    sectionsAll = readElfSections(bytes).sections;
  } catch (err) {
    if (opts.scan && err instanceof FatbinError && err.code !== 'unsupported') {
      ctx.complete = false;
      ctx.issues.push(`ELF section table unreadable (${err.message}); scanned the bytes for fatbin containers instead, so the list may be incomplete`);
      scanForContainers(ctx, containers);
      return finish('elf', 'scan', [], containers, ctx);
    }
    throw err;
  }
  const sections = loadedSections(sectionsAll).map((s) => ({ name: s.name, offset: s.offset, size: s.size }));
  for (const s of sections) {
    let limit = s.offset + s.size;
    if (limit > bytes.length) {
      problem(
        ctx,
        new FatbinError('truncated', `section ${s.name} at ${fmtOff(s.offset)} (${s.size} bytes) runs past the end of the file (${bytes.length} bytes)`),
      );
      limit = bytes.length;
    }
    parseRegion(ctx, s.offset, limit, s.name, containers);
  }
  return finish('elf', 'sections', sections, containers, ctx);
}

/**
 * Read the CUDA targets of an ELF shared object (or a raw `.fatbin`). Throws only FatbinError.
 * A file without fatbin sections is not an error: `hasFatbin` is false.
 */
export function readFatbinTargets(bytes: Uint8Array, opts: FatbinReadOptions = {}): FatbinReport {
  try {
    return readInner(bytes, opts);
  } catch (err) {
    if (err instanceof FatbinError) throw err;
    // Safety net: a bug here must not take the caller down with a RangeError.
    throw new FatbinError('malformed', `internal error while reading fatbin: ${errorMessage(err)}`);
  }
}

export type FatbinResult = { ok: true; report: FatbinReport } | { ok: false; error: FatbinError };

export function tryReadFatbinTargets(bytes: Uint8Array, opts: FatbinReadOptions = {}): FatbinResult {
  try {
    return { ok: true, report: readFatbinTargets(bytes, opts) };
  } catch (err) {
    return { ok: false, error: err as FatbinError };
  }
}

// ---------------------------------------------------------------------------------------------
// Ranged reads: the headers only

/** What the ranged reader reads at most from one file, whatever its size. */
export const DEFAULT_MAX_READ_BYTES = 2 * 1024 * 1024;
/** Bytes read at a container's start: its header and the fields of its first entry header. */
const CONTAINER_PEEK = 16 + MIN_ENTRY_HEADER;
/** Zero padding between containers tolerated before giving up on a section (nvcc pads to 8). */
const MAX_ZERO_RUN = 64 * 1024;
/** Containers whose entries are read at once (over SSH, requests in flight together). */
const PARALLEL_CONTAINERS = 64;
/**
 * `.nvFatBinSegment` holds one 24-byte wrapper per container the host code registers: u32 magic
 * 0x466243b1, u32 version, u64 address of the container, u64 unused. Linked libraries carry the
 * link-time addresses, so the section says where the containers start before any is read.
 */
const SEGMENT_SECTION = '.nvFatBinSegment';
const WRAPPER_MAGIC = 0x466243b1;
const WRAPPER_SIZE = 24;

export interface RangedFile {
  readonly size: number;
  read(position: number, length: number): Promise<Uint8Array>;
}

export interface RangedReadOptions extends Omit<FatbinReadOptions, 'scan'> {
  /** Read at most this many bytes in all. Default DEFAULT_MAX_READ_BYTES. */
  maxReadBytes?: number;
}

export interface RangedFatbinReport extends FatbinReport {
  bytesRead: number;
  reads: number;
}

function budgetStop(src: BudgetedReads, err: unknown): boolean {
  return src.exhausted && err instanceof FatbinError && err.code === 'too-large';
}

/** The entries of container `c`, [start, end), one header at a time; payloads are skipped. */
async function entriesFrom(src: BudgetedReads, ctx: Ctx, c: FatbinContainer, start: number, end: number): Promise<void> {
  let p = start;
  while (p < end) {
    if (end - p < MIN_ENTRY_HEADER) {
      problem(ctx, strayBytes(c, p, end));
      return;
    }
    let e: FatbinEntryInfo;
    try {
      e = parseEntry(ctx, await src.read(p, MIN_ENTRY_HEADER, 'fatbin entry header'), p, false);
      // As the whole-file reader: a header cut by the end of the file is damage, not an entry.
      if (p + e.headerSize > src.size)
        throw new FatbinError(
          'truncated',
          `fatbin entry header at offset ${fmtOff(p)} (${e.headerSize} bytes) runs past the end of the file (${src.size} bytes)`,
        );
    } catch (err) {
      if (budgetStop(src, err)) {
        ctx.complete = false;
        return;
      }
      if (err instanceof FatbinError && err.code !== 'io') {
        problem(ctx, err);
        return;
      }
      throw err;
    }
    countEntry(ctx);
    const next = addEntry(ctx, c, e, p, end);
    if (next === undefined) return;
    p = next;
  }
}

/**
 * parseRegion over ranged reads. Containers are found one after the other (each header says where
 * the next starts); their entries are read alongside, so that over SSH many requests are in flight.
 * Issues keep the order of the containers.
 */
async function regionFrom(src: BudgetedReads, ctx: Ctx, start: number, limit: number, section: string, out: FatbinContainer[]): Promise<void> {
  const jobs: { sub: Ctx; done: Promise<void> }[] = [];
  let failure: Error | undefined;
  const drain = async (keep: number): Promise<void> => {
    while (jobs.length > keep) {
      const j = jobs.shift()!;
      await j.done;
      ctx.issues.push(...j.sub.issues);
      if (!j.sub.complete) ctx.complete = false;
    }
  };
  // The issues of earlier containers come first.
  const stopWith = async (err: FatbinError): Promise<void> => {
    await drain(0);
    problem(ctx, err);
  };
  let p = start;
  let zeros = 0;
  try {
    while (p < limit && failure === undefined) {
      let r: Reader;
      try {
        r = await src.readAhead(p, 1, Math.min(zeros ? 4096 : CONTAINER_PEEK, limit - p), 'fatbin container header');
      } catch (err) {
        if (budgetStop(src, err)) {
          ctx.complete = false;
          return;
        }
        throw err;
      }
      // Zero padding between containers: skip it, but not without end.
      let i = p - r.base;
      const stop = Math.min(r.length, limit - r.base);
      while (i < stop && r.bytes[i] === 0) i++;
      if (i > p - r.base) {
        zeros += i - (p - r.base);
        p = r.base + i;
        if (zeros > MAX_ZERO_RUN) {
          await stopWith(
            new FatbinError(
              'malformed',
              `${section || 'fatbin data'}: more than ${MAX_ZERO_RUN} zero bytes before ${fmtOff(p)} where a fatbin container should start`,
            ),
          );
          return;
        }
        continue;
      }
      zeros = 0;
      const unexpected = (): Promise<void> =>
        stopWith(new FatbinError('malformed', `${section || 'fatbin data'}: unexpected bytes at ${fmtOff(p)} where a fatbin container should start`));
      if (limit - p < 16) {
        await unexpected();
        return;
      }
      let h = r;
      if (p + 16 > r.base + r.length) {
        try {
          h = await src.readAhead(p, 16, Math.min(CONTAINER_PEEK, limit - p), 'fatbin container header');
        } catch (err) {
          if (budgetStop(src, err)) {
            ctx.complete = false;
            return;
          }
          throw err;
        }
      }
      if (h.u32(p, 'fatbin magic') !== FATBIN_MAGIC) {
        await unexpected();
        return;
      }
      const sub: Ctx = { ...ctx, issues: [], complete: true };
      let head: { c: FatbinContainer; end: number };
      try {
        head = parseContainerHeader(sub, h, p, limit, section);
      } catch (err) {
        if (err instanceof FatbinError) {
          await stopWith(err);
          return;
        }
        throw err;
      }
      out.push(head.c);
      const done = entriesFrom(src, sub, head.c, p + head.c.headerSize, head.end).catch((err: unknown) => {
        failure ??= err instanceof Error ? err : new Error(String(err));
      });
      jobs.push({ sub, done });
      if (jobs.length >= PARALLEL_CONTAINERS) await drain(PARALLEL_CONTAINERS / 2);
      if (head.end <= p) return; // cannot happen (header >= 16), but never loop in place
      p = head.end;
    }
  } finally {
    await drain(0);
  }
  if (failure !== undefined) throw failure;
}

/**
 * Where the containers of the fatbin sections start, by `.nvFatBinSegment`: only a guess, used to
 * read container headers ahead (the walk itself still goes header to header and checks each).
 * Offsets inside the given sections only; none when the segment is missing, odd or large.
 */
async function containerHints(src: BudgetedReads, all: ElfSection[], fatbins: ElfSection[]): Promise<number[]> {
  const seg = all.find((s) => s.name === SEGMENT_SECTION && s.type !== SHT_NOBITS);
  if (!seg || seg.size < WRAPPER_SIZE || seg.size > src.budget / 8 || fatbins.every((s) => s.addr === undefined)) return [];
  let r: Reader;
  try {
    r = await src.read(seg.offset, seg.size - (seg.size % WRAPPER_SIZE), `section ${SEGMENT_SECTION}`);
  } catch (err) {
    if (err instanceof FatbinError && err.code !== 'io') return [];
    throw err;
  }
  const out = new Set<number>();
  for (let at = seg.offset; at + WRAPPER_SIZE <= r.base + r.length; at += WRAPPER_SIZE) {
    if (r.u32(at, 'fatbin wrapper magic') !== WRAPPER_MAGIC) continue;
    const ptr = r.u64parts(at + 8, 'fatbin wrapper address');
    if (ptr.hi > 0x1fffff) continue;
    const addr = ptr.hi * 0x100000000 + ptr.lo;
    const s = fatbins.find((f) => f.addr !== undefined && addr >= f.addr && addr < f.addr + f.size);
    if (s) out.add(addr - s.addr! + s.offset);
  }
  return [...out].sort((a, b) => a - b);
}

async function rangedInner(src: BudgetedReads, opts: RangedReadOptions): Promise<FatbinReport> {
  const ctx = newCtx(new Uint8Array(0), opts);
  const containers: FatbinContainer[] = [];
  const head = await src.readAhead(0, Math.min(4, src.size), 64, 'file header');
  const stopped = (): void => {
    if (src.exhausted) {
      ctx.complete = false;
      ctx.issues.push(`stopped after reading ${src.bytesRead} bytes of headers (the limit for one file is ${src.budget}); the target list may be incomplete`);
    }
  };
  if (head.length >= 4 && head.u32(0, 'magic') === FATBIN_MAGIC) {
    await regionFrom(src, ctx, 0, src.size, '', containers);
    stopped();
    return finish('fatbin', 'raw', [], containers, ctx);
  }
  if (!isElf(head.bytes)) throw new FatbinError('not-elf', 'not an ELF shared object or fatbin file (no \\x7fELF or 0xba55ed50 magic)');
  const all = (await readElfSectionsFrom(src)).sections;
  const fatbins = loadedSections(all);
  const sections = fatbins.map((s) => ({ name: s.name, offset: s.offset, size: s.size }));
  // Container headers read ahead, many at once; a quarter of the budget at most goes to guesses.
  const stopPrefetch = src.prefetch(await containerHints(src, all, fatbins), CONTAINER_PEEK, src.budget / 4);
  try {
    for (const s of sections) {
      let limit = s.offset + s.size;
      if (limit > src.size) {
        problem(
          ctx,
          new FatbinError('truncated', `section ${s.name} at ${fmtOff(s.offset)} (${s.size} bytes) runs past the end of the file (${src.size} bytes)`),
        );
        limit = src.size;
      }
      if (s.offset < limit) await regionFrom(src, ctx, s.offset, limit, s.name, containers);
    }
  } finally {
    await stopPrefetch();
  }
  stopped();
  return finish('elf', 'sections', sections, containers, ctx);
}

/**
 * The targets of an ELF shared object (or raw fatbin) read by ranges: the ELF header, the section
 * table, the section names and each fatbin container and entry header, never a payload. At most
 * `maxReadBytes` (2 MiB) in all, whatever the file's size; a file with more headers than that is
 * reported incomplete. Throws only FatbinError (`io` when the host's reads fail). Unlike the
 * whole-file reader it cannot scan a file whose section table is damaged: the caller reads the
 * file instead.
 */
export async function readFatbinTargetsFrom(file: RangedFile, opts: RangedReadOptions = {}): Promise<RangedFatbinReport> {
  const readAt: ReadAt = (position, length) => file.read(position, length);
  const src = new BudgetedReads(readAt, file.size, Math.max(64, opts.maxReadBytes ?? DEFAULT_MAX_READ_BYTES));
  try {
    const report = await rangedInner(src, opts);
    return { ...report, bytesRead: src.bytesRead, reads: src.reads };
  } catch (err) {
    if (err instanceof FatbinError) throw err;
    throw new FatbinError('malformed', `internal error while reading fatbin: ${errorMessage(err)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// cuobjdump

/**
 * Parse `cuobjdump --list-elf` / `--list-ptx` output: lines like
 * `ELF file    1: common_ops.1.sm_90a.cubin` and `PTX file    1: common_ops.1.sm_90.ptx`.
 */
export function parseCuobjdumpList(text: string): { targets: CudaTarget[]; noDeviceCode: boolean } {
  const found: CudaTarget[] = [];
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(ELF|PTX) file\s+\d+:\s*(\S+)\s*$/.exec(line);
    if (!m) continue;
    const a = /(?:^|[._])sm_(\d{2,3})([af]?)(?:\.[^.]*)?$/.exec(m[2]);
    if (!a) continue;
    found.push(makeTarget(m[1] === 'ELF' ? 'sass' : 'ptx', Number(a[1]), a[2] as TargetVariant));
  }
  return { targets: uniqueTargets(found), noDeviceCode: /does not contain device code/i.test(text) };
}

// ---------------------------------------------------------------------------------------------
// Reading a library on a host

export interface LibraryTargets {
  path: string;
  size?: number;
  /**
   * How the targets were obtained: 'builtin' when the built-in reader gave them (cuobjdump may have
   * added some, see issues); 'cuobjdump' when only cuobjdump did; undefined when nothing worked (see error).
   */
  source?: 'builtin' | 'cuobjdump';
  targets: CudaTarget[];
  sass: string[];
  ptx: string[];
  hasFatbin: boolean;
  complete: boolean;
  issues: string[];
  error?: string;
}

export interface LibraryReadOptions {
  /**
   * Hosts without ranged reads (no `openFile`): read at most this many bytes of the file.
   * Default 256 MiB. Hosts with them read only headers, at most `maxReadBytes`.
   */
  maxBytes?: number;
  /** Ranged reads: at most this many bytes of headers per file. Default DEFAULT_MAX_READ_BYTES (2 MiB). */
  maxReadBytes?: number;
  /**
   * 'auto' (default): the built-in reader; cuobjdump on the host as well when its answer is
   * incomplete or it failed on a damaged file. On a host without ranged reads, a file larger
   * than maxBytes is asked of cuobjdump first (its answer alone, when it works).
   * 'never': built-in only. 'prefer': cuobjdump as well, every time.
   * When both ran, the built-in reader's answer wins (see mergeCuobjdumpTargets).
   */
  cuobjdump?: 'auto' | 'never' | 'prefer';
  signal?: AbortSignal;
  timeoutMs?: number;
}

export const DEFAULT_LIBRARY_MAX_BYTES = 256 * 1024 * 1024;

async function viaCuobjdump(host: HostLike, path: string, opts: LibraryReadOptions): Promise<{ targets: CudaTarget[]; hasFatbin: boolean }> {
  let res;
  try {
    res = await host.exec(['cuobjdump', '--list-elf', '--list-ptx', path], {
      timeoutMs: opts.timeoutMs ?? 120_000,
      maxOutputBytes: 8 * 1024 * 1024,
      signal: opts.signal,
    });
  } catch (err) {
    throw new FatbinError('tool', `cuobjdump could not run: ${errorMessage(err)}`);
  }
  const parsed = parseCuobjdumpList(`${res.stdout}\n${res.stderr}`);
  if (parsed.noDeviceCode) return { targets: [], hasFatbin: false };
  if (res.code !== 0 && parsed.targets.length === 0) {
    const first = (res.stderr || res.stdout).trim().split('\n')[0] ?? '';
    throw new FatbinError('tool', `cuobjdump exited with ${res.code ?? 'a signal'}${first ? `: ${first}` : ''}`);
  }
  if (parsed.targets.length === 0) throw new FatbinError('tool', 'cuobjdump listed no ELF or PTX files');
  return { targets: parsed.targets, hasFatbin: true };
}

/**
 * The built-in reader's targets with cuobjdump's added. cuobjdump names a family target without
 * its `f` (`sm_120.cubin` for an `sm_120f` build), so its `sm_120` is taken to be the reader's
 * `sm_120f` (or `sm_120`) when the reader saw either; its `a` names are exact. What cuobjdump
 * listed that the reader did not see at all is kept (`added`).
 */
export function mergeCuobjdumpTargets(reader: CudaTarget[], tool: CudaTarget[]): { targets: CudaTarget[]; added: CudaTarget[] } {
  const seen = (t: CudaTarget): boolean =>
    reader.some((r) => r.kind === t.kind && r.arch === t.arch && (r.variant === t.variant || (t.variant === '' && r.variant === 'f')));
  const added = uniqueTargets(tool.filter((t) => !seen(t)));
  return { targets: uniqueTargets([...reader, ...added]), added };
}

type RangedHost = HostLike & Required<Pick<HostLike, 'openFile'>>;

type BuiltinAnswer = { ok: true; report: FatbinReport; size: number } | { ok: false; error: string; code?: FatbinError['code'] };

/**
 * Headers only, through `openFile`; undefined when the file must be read whole instead (its
 * section table is damaged). Notes for the report go to `notes`.
 */
async function builtinRanged(host: RangedHost, path: string, opts: LibraryReadOptions, notes: string[]): Promise<BuiltinAnswer | undefined> {
  let f;
  try {
    f = await host.openFile(path, { signal: opts.signal });
  } catch (err) {
    return { ok: false, error: `could not read ${path}: ${errorMessage(err)}`, code: 'io' };
  }
  try {
    const file = f;
    const report = await readFatbinTargetsFrom(
      { size: file.size, read: (position, length) => file.read(position, length, opts.signal) },
      { lenient: true, maxReadBytes: opts.maxReadBytes },
    );
    return { ok: true, report, size: file.size };
  } catch (err) {
    const e = err instanceof FatbinError ? err : new FatbinError('malformed', errorMessage(err));
    if (e.code === 'io') return { ok: false, error: `could not read ${path}: ${e.message}`, code: 'io' };
    if (e.code === 'not-elf' || e.code === 'unsupported') return { ok: false, error: `${path}: ${e.message}`, code: e.code };
    // Truncated or damaged: the whole-file reader can still scan what is there.
    notes.push(`the ELF section table could not be read (${e.message}), so the file was read whole`);
    return undefined;
  } finally {
    await f.close().catch(() => undefined);
  }
}

/** The old way: the first maxBytes of the file, scanned when its section table is gone. */
async function builtinWhole(
  host: HostLike,
  path: string,
  size: number | undefined,
  maxBytes: number,
  opts: LibraryReadOptions,
  notes: string[],
): Promise<BuiltinAnswer> {
  let bytes: Uint8Array;
  try {
    bytes = await host.readFile(path, { maxBytes, signal: opts.signal });
  } catch (err) {
    return { ok: false, error: `could not read ${path}: ${errorMessage(err)}`, code: 'io' };
  }
  const res = tryReadFatbinTargets(bytes, { lenient: true, scan: true });
  if (!res.ok) return { ok: false, error: `${path}: ${res.error.message}`, code: res.error.code };
  const cut = (size !== undefined && bytes.length < size) || (size === undefined && bytes.length >= maxBytes);
  if (cut) {
    res.report.complete = false;
    notes.push(`read only the first ${bytes.length} of ${size ?? 'unknown'} bytes; the target list may be incomplete`);
  }
  return { ok: true, report: res.report, size: size ?? bytes.length };
}

/** Targets of one library on a host. Never throws: failures end up in `error`. */
export async function readLibraryTargets(host: HostLike, path: string, opts: LibraryReadOptions = {}): Promise<LibraryTargets> {
  const maxBytes = Math.max(64, opts.maxBytes ?? DEFAULT_LIBRARY_MAX_BYTES);
  const mode = opts.cuobjdump ?? 'auto';
  const out: LibraryTargets = { path, targets: [], sass: [], ptx: [], hasFatbin: false, complete: false, issues: [] };
  const setTargets = (ts: CudaTarget[]): void => {
    out.targets = ts;
    out.sass = ts.filter((t) => t.kind === 'sass').map((t) => t.name);
    out.ptx = ts.filter((t) => t.kind === 'ptx').map((t) => t.name);
  };
  try {
    const st = await host.stat(path);
    out.size = st.size;
  } catch {
    /* size unknown: read up to maxBytes */
  }
  const ranged = typeof host.openFile === 'function';

  let tool: { targets: CudaTarget[]; hasFatbin: boolean } | undefined;
  let toolAsked = false;
  const askTool = async (): Promise<void> => {
    toolAsked = true;
    try {
      tool = await viaCuobjdump(host, path, opts);
    } catch (err) {
      out.issues.push(errorMessage(err));
    }
  };
  const fromTool = (t: { targets: CudaTarget[]; hasFatbin: boolean }): LibraryTargets => {
    setTargets(t.targets);
    out.hasFatbin = t.hasFatbin;
    out.complete = true;
    out.source = 'cuobjdump';
    return out;
  };

  if (mode === 'prefer') await askTool();
  else if (mode === 'auto' && !ranged && out.size !== undefined && out.size > maxBytes) {
    // Without ranged reads, checking cuobjdump's names would mean reading maxBytes of the file.
    await askTool();
    if (tool) return fromTool(tool);
  }

  const notes: string[] = [];
  const own =
    (ranged ? await builtinRanged(host as RangedHost, path, opts, notes) : undefined) ?? (await builtinWhole(host, path, out.size, maxBytes, opts, notes));
  // A damaged or cut file, or more headers than the budget: cuobjdump may see the rest.
  const worthAsking = own.ok ? !own.report.complete : own.code !== 'not-elf' && own.code !== 'unsupported';
  if (mode === 'auto' && !toolAsked && worthAsking) await askTool();

  if (!own.ok) {
    if (tool) {
      out.issues.push(`built-in reader: ${own.error}`);
      return fromTool(tool);
    }
    out.error = own.error;
    return out;
  }
  out.size ??= own.size;
  out.source = 'builtin';
  out.hasFatbin = own.report.hasFatbin;
  out.complete = own.report.complete;
  out.issues.push(...notes, ...own.report.issues);
  let targets = own.report.targets;
  if (tool) {
    const merged = mergeCuobjdumpTargets(targets, tool.targets);
    targets = merged.targets;
    if (merged.added.length) out.issues.push(`cuobjdump also listed ${merged.added.map((t) => t.name).join(', ')}, which the built-in reader did not find`);
    out.hasFatbin ||= tool.hasFatbin;
    out.complete = true; // cuobjdump read the whole file
  }
  setTargets(targets);
  return out;
}
