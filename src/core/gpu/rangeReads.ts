/**
 * Ranged reads of one file with a byte budget, for the fatbin and ELF readers: every byte asked
 * for is counted, and a read that would pass the budget fails (FatbinError 'too-large') instead of
 * quietly reading more. A small cache answers reads inside a recent read (a container header and
 * its first entry header come in one request).
 */
import { FatbinError, Reader, fmtOff, type RangeReads } from './elf';

export type ReadAt = (position: number, length: number) => Promise<Uint8Array>;

const CACHED = 16;

export class BudgetedReads implements RangeReads {
  bytesRead = 0;
  reads = 0;
  /** Set once a read was refused for the budget: later reads are refused too. */
  exhausted = false;
  private readonly recent: Reader[] = [];

  constructor(private readonly readAt: ReadAt, readonly size: number, readonly budget: number) {}

  async read(off: number, len: number, what: string): Promise<Reader> {
    if (!Number.isSafeInteger(off) || !Number.isSafeInteger(len) || off < 0 || len < 0 || off + len > this.size) {
      throw new FatbinError('truncated', `${what} at offset ${fmtOff(off)} (${len} bytes) runs past the end of the file (${this.size} bytes)`);
    }
    const hit = this.recent.find((r) => off >= r.base && off + len <= r.base + r.length);
    if (hit) return hit;
    return this.fetch(off, len, len, what);
  }

  /**
   * Like read, but fetches up to `ahead` bytes (at least `len`, cut at the end of the file and at
   * what the budget has left) so that nearby reads come from the cache.
   */
  async readAhead(off: number, len: number, ahead: number, what: string): Promise<Reader> {
    if (!Number.isSafeInteger(off) || off < 0 || off + len > this.size) return this.read(off, len, what);
    const hit = this.recent.find((r) => off >= r.base && off + len <= r.base + r.length);
    if (hit) return hit;
    const want = Math.max(len, Math.min(ahead, this.size - off, this.budget - this.bytesRead));
    return this.fetch(off, len, want, what);
  }

  private async fetch(off: number, len: number, want: number, what: string): Promise<Reader> {
    if (this.exhausted || this.bytesRead + want > this.budget) {
      this.exhausted = true;
      throw new FatbinError('too-large', `stopped at ${what} (offset ${fmtOff(off)}): reading it would pass the ${this.budget}-byte read budget for one file`);
    }
    this.bytesRead += want;
    this.reads++;
    let bytes: Uint8Array;
    try {
      bytes = await this.readAt(off, want);
    } catch (err) {
      throw new FatbinError('io', `could not read ${what} at offset ${fmtOff(off)}: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (bytes.length < len) {
      throw new FatbinError('truncated', `${what} at offset ${fmtOff(off)} (${len} bytes) runs past the end of the file (it ended after ${bytes.length} bytes there)`);
    }
    const r = new Reader(bytes, off);
    this.recent.push(r);
    if (this.recent.length > CACHED) this.recent.shift();
    return r;
  }
}
