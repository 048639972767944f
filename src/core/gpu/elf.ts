/**
 * Minimal ELF64 little-endian section-table reader. Every read is bounds-checked and every loop
 * is bounded by the input size: a truncated or hostile file gives a FatbinError, never a
 * RangeError or a hang.
 */

export type FatbinErrorCode =
  | 'not-elf'        // no ELF magic and no fatbin magic
  | 'unsupported'    // ELF32, big-endian, ...
  | 'truncated'      // a structure runs past the end of the bytes we have
  | 'malformed'      // a field has an impossible value
  | 'too-large'      // more sections / entries than we are willing to walk
  | 'tool';          // cuobjdump failed or printed nothing we understand

/** The only error the fatbin/ELF API throws. */
export class FatbinError extends Error {
  constructor(readonly code: FatbinErrorCode, message: string) {
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
}

export interface ElfInfo {
  /** e_type: 1 REL, 2 EXEC, 3 DYN. */
  type: number;
  machine: number;
  sections: ElfSection[];
}

/** Bounds-checked little-endian reads over a byte array. */
export class Reader {
  private readonly view: DataView;
  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  get length(): number { return this.bytes.length; }

  need(off: number, len: number, what: string): void {
    if (!Number.isSafeInteger(off) || !Number.isSafeInteger(len) || off < 0 || len < 0 || off + len > this.bytes.length) {
      throw new FatbinError('truncated', `${what} at offset ${fmtOff(off)} (${len} bytes) runs past the end of the data (${this.bytes.length} bytes)`);
    }
  }
  u8(off: number, what: string): number { this.need(off, 1, what); return this.view.getUint8(off); }
  u16(off: number, what: string): number { this.need(off, 2, what); return this.view.getUint16(off, true); }
  u32(off: number, what: string): number { this.need(off, 4, what); return this.view.getUint32(off, true); }
  /** A u64 that must fit a JavaScript safe integer (sizes and offsets). */
  u64(off: number, what: string): number {
    this.need(off, 8, what);
    const lo = this.view.getUint32(off, true);
    const hi = this.view.getUint32(off + 4, true);
    if (hi > 0x1fffff) throw new FatbinError('malformed', `${what} at offset ${fmtOff(off)} is absurdly large (0x${hi.toString(16)}${lo.toString(16).padStart(8, '0')})`);
    return hi * 0x100000000 + lo;
  }
  /** Low 32 bits and high 32 bits of a u64 bit field. */
  u64parts(off: number, what: string): { lo: number; hi: number } {
    this.need(off, 8, what);
    return { lo: this.view.getUint32(off, true), hi: this.view.getUint32(off + 4, true) };
  }
  /** NUL-terminated string inside [start, end). */
  cstr(off: number, end: number, what: string): string {
    if (off < 0 || off >= end || end > this.bytes.length) throw new FatbinError('malformed', `${what}: string offset ${fmtOff(off)} is outside its table`);
    const stop = Math.min(end, off + MAX_NAME);
    let i = off;
    while (i < stop && this.bytes[i] !== 0) i++;
    if (i >= stop) throw new FatbinError('malformed', `${what}: string at ${fmtOff(off)} is not NUL-terminated within its table`);
    let s = '';
    for (let j = off; j < i; j++) s += String.fromCharCode(this.bytes[j]);
    return s;
  }
}

export function fmtOff(n: number): string {
  return Number.isFinite(n) ? `0x${n.toString(16)}` : String(n);
}

export function isElf(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x7f && bytes[1] === 0x45 && bytes[2] === 0x4c && bytes[3] === 0x46;
}

/** Parse the ELF header and section header table (names resolved through .shstrtab). */
export function readElfSections(bytes: Uint8Array): ElfInfo {
  const r = new Reader(bytes);
  if (!isElf(bytes)) throw new FatbinError('not-elf', 'not an ELF file (no \\x7fELF magic)');
  if (bytes.length < 64) throw new FatbinError('truncated', `ELF header needs 64 bytes, file has ${bytes.length}`);
  const cls = r.u8(4, 'EI_CLASS');
  const data = r.u8(5, 'EI_DATA');
  if (cls !== 2) throw new FatbinError('unsupported', `only 64-bit ELF is supported (EI_CLASS=${cls})`);
  if (data !== 1) throw new FatbinError('unsupported', `only little-endian ELF is supported (EI_DATA=${data})`);
  const type = r.u16(0x10, 'e_type');
  const machine = r.u16(0x12, 'e_machine');
  const shoff = r.u64(0x28, 'e_shoff');
  const shentsize = r.u16(0x3a, 'e_shentsize');
  let shnum = r.u16(0x3c, 'e_shnum');
  let shstrndx = r.u16(0x3e, 'e_shstrndx');
  if (shoff === 0) return { type, machine, sections: [] };
  if (shentsize < 64) throw new FatbinError('malformed', `e_shentsize is ${shentsize}, an ELF64 section header needs 64`);
  r.need(shoff, shentsize, 'section header table');
  if (shnum === 0 || shstrndx === 0xffff) {
    // Extended numbering: the real values live in section header 0.
    if (shnum === 0) shnum = r.u64(shoff + 32, 'extended e_shnum (sh_size of section 0)');
    if (shstrndx === 0xffff) shstrndx = r.u32(shoff + 40, 'extended e_shstrndx (sh_link of section 0)');
  }
  if (shnum > MAX_SECTIONS) throw new FatbinError('too-large', `ELF claims ${shnum} sections (limit ${MAX_SECTIONS})`);
  r.need(shoff, shnum * shentsize, `section header table (${shnum} × ${shentsize} bytes)`);

  const raw: ElfSection[] = [];
  const nameOffs: number[] = [];
  for (let i = 0; i < shnum; i++) {
    const h = shoff + i * shentsize;
    const what = `section header ${i}`;
    nameOffs.push(r.u32(h, `${what} sh_name`));
    const stype = r.u32(h + 4, `${what} sh_type`);
    const flags = r.u64parts(h + 8, `${what} sh_flags`).lo;
    const offset = r.u64(h + 24, `${what} sh_offset`);
    const size = r.u64(h + 32, `${what} sh_size`);
    const addralign = r.u64(h + 48, `${what} sh_addralign`);
    raw.push({ index: i, name: '', type: stype, flags, offset, size, addralign });
  }
  if (shstrndx !== 0) {
    if (shstrndx >= raw.length) throw new FatbinError('malformed', `e_shstrndx ${shstrndx} is not a valid section index (${raw.length} sections)`);
    const strtab = raw[shstrndx];
    if (strtab.type === SHT_NOBITS) throw new FatbinError('malformed', 'section name table has no file data');
    r.need(strtab.offset, strtab.size, 'section name table (.shstrtab)');
    for (const s of raw) {
      if (s.index === 0 && nameOffs[0] === 0) continue;
      s.name = r.cstr(strtab.offset + nameOffs[s.index], strtab.offset + strtab.size, `name of section ${s.index}`);
    }
  }
  return { type, machine, sections: raw };
}
