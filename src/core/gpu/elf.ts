/**
 * Minimal ELF64 little-endian section-table reader. Every read is bounds-checked and every loop
 * is bounded by the input size: a truncated or hostile file gives a FatbinError, never a
 * RangeError or a hang.
 */

export type FatbinErrorCode =
  | 'not-elf' // no ELF magic and no fatbin magic
  | 'unsupported' // ELF32, big-endian, ...
  | 'truncated' // a structure runs past the end of the bytes we have
  | 'malformed' // a field has an impossible value
  | 'too-large' // more sections / entries than we are willing to walk
  | 'tool' // cuobjdump failed or printed nothing we understand
  | 'io'; // the host could not read the file (ranged reads)

/** The only error the fatbin/ELF API throws. */
export class FatbinError extends Error {
  constructor(
    readonly code: FatbinErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'FatbinError';
  }
}

export const SHT_NOBITS = 8;
const MAX_SECTIONS = 65536;
const MAX_NAME = 4096;

export interface ElfSection {
  index: number;
  name: string;
  type: number;
  flags: number;
  offset: number;
  size: number;
  addralign: number;
  /** sh_addr, where the section is loaded; absent when it does not fit a safe integer. */
  addr?: number;
}

export interface ElfInfo {
  /** e_type: 1 REL, 2 EXEC, 3 DYN. */
  type: number;
  machine: number;
  sections: ElfSection[];
}

/**
 * Bounds-checked little-endian reads over a byte array. Offsets are file offsets: `base` is where
 * the bytes sit in the file (a ranged read of a header), 0 for a whole file.
 */
export class Reader {
  private readonly view: DataView;
  constructor(
    readonly bytes: Uint8Array,
    readonly base = 0,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  get length(): number {
    return this.bytes.length;
  }

  need(off: number, len: number, what: string): void {
    const at = off - this.base;
    if (!Number.isSafeInteger(off) || !Number.isSafeInteger(len) || at < 0 || len < 0 || at + len > this.bytes.length) {
      const have = this.base ? `${this.bytes.length} bytes read at ${fmtOff(this.base)}` : `${this.bytes.length} bytes`;
      throw new FatbinError('truncated', `${what} at offset ${fmtOff(off)} (${len} bytes) runs past the end of the data (${have})`);
    }
  }
  u8(off: number, what: string): number {
    this.need(off, 1, what);
    return this.view.getUint8(off - this.base);
  }
  u16(off: number, what: string): number {
    this.need(off, 2, what);
    return this.view.getUint16(off - this.base, true);
  }
  u32(off: number, what: string): number {
    this.need(off, 4, what);
    return this.view.getUint32(off - this.base, true);
  }
  /** A u64 that must fit a JavaScript safe integer (sizes and offsets). */
  u64(off: number, what: string): number {
    this.need(off, 8, what);
    const lo = this.view.getUint32(off - this.base, true);
    const hi = this.view.getUint32(off - this.base + 4, true);
    if (hi > 0x1fffff)
      throw new FatbinError('malformed', `${what} at offset ${fmtOff(off)} is absurdly large (0x${hi.toString(16)}${lo.toString(16).padStart(8, '0')})`);
    return hi * 0x100000000 + lo;
  }
  /** Low 32 bits and high 32 bits of a u64 bit field. */
  u64parts(off: number, what: string): { lo: number; hi: number } {
    this.need(off, 8, what);
    return { lo: this.view.getUint32(off - this.base, true), hi: this.view.getUint32(off - this.base + 4, true) };
  }
  /** NUL-terminated string inside [start, end) (file offsets). */
  cstr(off: number, end: number, what: string): string {
    const b = this.base;
    if (off < b || off >= end || end - b > this.bytes.length) throw new FatbinError('malformed', `${what}: string offset ${fmtOff(off)} is outside its table`);
    const stop = Math.min(end, off + MAX_NAME) - b;
    let i = off - b;
    while (i < stop && this.bytes[i] !== 0) i++;
    if (i >= stop) throw new FatbinError('malformed', `${what}: string at ${fmtOff(off)} is not NUL-terminated within its table`);
    let s = '';
    for (let j = off - b; j < i; j++) s += String.fromCharCode(this.bytes[j]);
    return s;
  }
}

export function fmtOff(n: number): string {
  return Number.isFinite(n) ? `0x${n.toString(16)}` : String(n);
}

export function isElf(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x7f && bytes[1] === 0x45 && bytes[2] === 0x4c && bytes[3] === 0x46;
}

/** What the ELF header says about the section header table. */
interface ElfHeader {
  type: number;
  machine: number;
  shoff: number;
  shentsize: number;
  /** 0 or 0xffff mean "see section header 0" (extended numbering); resolved by sectionCounts. */
  shnum: number;
  shstrndx: number;
}

/** The 64-byte ELF header (the first bytes of the file). */
function parseElfHeader(r: Reader, fileSize: number): ElfHeader {
  if (!isElf(r.bytes)) throw new FatbinError('not-elf', 'not an ELF file (no \\x7fELF magic)');
  if (r.length < 64) throw new FatbinError('truncated', `ELF header needs 64 bytes, file has ${fileSize}`);
  const cls = r.u8(4, 'EI_CLASS');
  const data = r.u8(5, 'EI_DATA');
  if (cls !== 2) throw new FatbinError('unsupported', `only 64-bit ELF is supported (EI_CLASS=${cls})`);
  if (data !== 1) throw new FatbinError('unsupported', `only little-endian ELF is supported (EI_DATA=${data})`);
  const h: ElfHeader = {
    type: r.u16(0x10, 'e_type'),
    machine: r.u16(0x12, 'e_machine'),
    shoff: r.u64(0x28, 'e_shoff'),
    shentsize: r.u16(0x3a, 'e_shentsize'),
    shnum: r.u16(0x3c, 'e_shnum'),
    shstrndx: r.u16(0x3e, 'e_shstrndx'),
  };
  if (h.shoff !== 0 && h.shentsize < 64) throw new FatbinError('malformed', `e_shentsize is ${h.shentsize}, an ELF64 section header needs 64`);
  return h;
}

/** Extended numbering: with e_shnum 0 or e_shstrndx 0xffff the real values live in section header 0 (`r` holds it). */
function sectionCounts(h: ElfHeader, r: Reader): { shnum: number; shstrndx: number } {
  let { shnum, shstrndx } = h;
  if (shnum === 0) shnum = r.u64(h.shoff + 32, 'extended e_shnum (sh_size of section 0)');
  if (shstrndx === 0xffff) shstrndx = r.u32(h.shoff + 40, 'extended e_shstrndx (sh_link of section 0)');
  if (shnum > MAX_SECTIONS) throw new FatbinError('too-large', `ELF claims ${shnum} sections (limit ${MAX_SECTIONS})`);
  return { shnum, shstrndx };
}

/** The section header table (`r` holds all of it), names not yet resolved. */
function parseSectionHeaders(r: Reader, h: ElfHeader, shnum: number): { raw: ElfSection[]; nameOffs: number[] } {
  const raw: ElfSection[] = [];
  const nameOffs: number[] = [];
  for (let i = 0; i < shnum; i++) {
    const at = h.shoff + i * h.shentsize;
    const what = `section header ${i}`;
    nameOffs.push(r.u32(at, `${what} sh_name`));
    const stype = r.u32(at + 4, `${what} sh_type`);
    const flags = r.u64parts(at + 8, `${what} sh_flags`).lo;
    const offset = r.u64(at + 24, `${what} sh_offset`);
    const size = r.u64(at + 32, `${what} sh_size`);
    const addralign = r.u64(at + 48, `${what} sh_addralign`);
    const a = r.u64parts(at + 16, `${what} sh_addr`);
    raw.push({ index: i, name: '', type: stype, flags, offset, size, addralign, ...(a.hi <= 0x1fffff ? { addr: a.hi * 0x100000000 + a.lo } : {}) });
  }
  return { raw, nameOffs };
}

/** The section-name table to read, or undefined when the file names no sections. */
function nameTable(raw: ElfSection[], shstrndx: number): ElfSection | undefined {
  if (shstrndx === 0) return undefined;
  if (shstrndx >= raw.length) throw new FatbinError('malformed', `e_shstrndx ${shstrndx} is not a valid section index (${raw.length} sections)`);
  const strtab = raw[shstrndx];
  if (strtab.type === SHT_NOBITS) throw new FatbinError('malformed', 'section name table has no file data');
  return strtab;
}

/** Resolve section names through .shstrtab (`r` holds the whole table). */
function nameSections(raw: ElfSection[], nameOffs: number[], strtab: ElfSection, r: Reader): void {
  for (const s of raw) {
    if (s.index === 0 && nameOffs[0] === 0) continue;
    s.name = r.cstr(strtab.offset + nameOffs[s.index], strtab.offset + strtab.size, `name of section ${s.index}`);
  }
}

/** Parse the ELF header and section header table (names resolved through .shstrtab). */
export function readElfSections(bytes: Uint8Array): ElfInfo {
  const r = new Reader(bytes);
  const h = parseElfHeader(r, bytes.length);
  if (h.shoff === 0) return { type: h.type, machine: h.machine, sections: [] };
  r.need(h.shoff, h.shentsize, 'section header table');
  const { shnum, shstrndx } = sectionCounts(h, r);
  r.need(h.shoff, shnum * h.shentsize, `section header table (${shnum} × ${h.shentsize} bytes)`);
  const { raw, nameOffs } = parseSectionHeaders(r, h, shnum);
  const strtab = nameTable(raw, shstrndx);
  if (strtab) {
    r.need(strtab.offset, strtab.size, 'section name table (.shstrtab)');
    nameSections(raw, nameOffs, strtab, r);
  }
  return { type: h.type, machine: h.machine, sections: raw };
}

/** Where ranged reads come from: `read` gives the bytes at [off, off+len) as a Reader, or throws. */
export interface RangeReads {
  readonly size: number;
  /** Exactly `len` bytes at `off`, or a FatbinError ('truncated' past the end of the file). */
  read(off: number, len: number, what: string): Promise<Reader>;
}

/**
 * readElfSections over ranged reads: the ELF header, the section header table and the name table,
 * nothing else. The same checks and messages as the whole-file reader.
 */
export async function readElfSectionsFrom(src: RangeReads): Promise<ElfInfo> {
  const head = await src.read(0, Math.min(64, src.size), 'ELF header');
  const h = parseElfHeader(head, src.size);
  if (h.shoff === 0) return { type: h.type, machine: h.machine, sections: [] };
  // Extended numbering needs section header 0 first; otherwise the whole table comes in one read.
  const extended = h.shnum === 0 || h.shstrndx === 0xffff;
  const first = await src.read(
    h.shoff,
    extended ? h.shentsize : h.shnum * h.shentsize,
    extended ? 'section header table' : `section header table (${h.shnum} × ${h.shentsize} bytes)`,
  );
  const { shnum, shstrndx } = sectionCounts(h, first);
  const table =
    shnum * h.shentsize <= first.length ? first : await src.read(h.shoff, shnum * h.shentsize, `section header table (${shnum} × ${h.shentsize} bytes)`);
  const { raw, nameOffs } = parseSectionHeaders(table, h, shnum);
  const strtab = nameTable(raw, shstrndx);
  if (strtab) nameSections(raw, nameOffs, strtab, await src.read(strtab.offset, strtab.size, 'section name table (.shstrtab)'));
  return { type: h.type, machine: h.machine, sections: raw };
}
