/**
 * Ranged reads of one file with a byte budget, for the fatbin and ELF readers: every byte asked
 * for is counted, and a read that would pass the budget fails (FatbinError 'too-large') instead of
 * quietly reading more. A small cache answers reads inside a recent read (a container header and
 * its first entry header come in one request), and `prefetch` reads ahead at offsets a reader
 * expects to need, many requests at once, so that a walk from header to header does not wait a
 * round trip for each.
 */
import { FatbinError, Reader, fmtOff, type RangeReads } from './elf';
import { errorMessage } from '../errors';

export type ReadAt = (position: number, length: number) => Promise<Uint8Array>;

const CACHED = 16;

export class BudgetedReads implements RangeReads {
  bytesRead = 0;
  reads = 0;
  /** Set once a read was refused for the budget: later reads are refused too. */
  exhausted = false;
  private readonly recent: Reader[] = [];
  /** Prefetched reads by offset, taken (once) by the read at exactly that offset. */
  private readonly pending = new Map<number, Promise<Reader | undefined>>();

  constructor(
    private readonly readAt: ReadAt,
    readonly size: number,
    readonly budget: number,
  ) {}

  read(off: number, len: number, what: string): Promise<Reader> {
    return this.readAhead(off, len, len, what);
  }

  /**
   * Like read, but fetches up to `ahead` bytes (at least `len`, cut at the end of the file and at
   * what the budget has left) so that nearby reads come from the cache.
   */
  async readAhead(off: number, len: number, ahead: number, what: string): Promise<Reader> {
    if (!Number.isSafeInteger(off) || !Number.isSafeInteger(len) || off < 0 || len < 0 || off + len > this.size) {
      throw new FatbinError('truncated', `${what} at offset ${fmtOff(off)} (${len} bytes) runs past the end of the file (${this.size} bytes)`);
    }
    const hit = this.recent.find((r) => off >= r.base && off + len <= r.base + r.length) ?? (await this.prefetched(off, len));
    if (hit) return hit;
    const want = Math.max(len, Math.min(ahead, this.size - off, this.budget - this.bytesRead));
    return this.fetch(off, len, want, what);
  }

  /**
   * Read `len` bytes at each offset ahead of need, `parallel` requests in flight, spending at most
   * `maxBytes` and never the budget's last bytes (a wrong guess must not starve the real reads).
   * The returned function stops issuing more and waits for those in flight: call it before the
   * file is closed.
   */
  prefetch(offsets: readonly number[], len: number, maxBytes: number, parallel = 64): () => Promise<void> {
    let stop = false;
    const task = (async (): Promise<void> => {
      const inFlight = new Set<Promise<unknown>>();
      let spent = 0;
      for (const off of offsets) {
        if (stop) break;
        const want = Math.min(len, this.size - off);
        if (want <= 0 || this.pending.has(off)) continue;
        if (spent + want > maxBytes || this.bytesRead + want > this.budget) break;
        spent += want;
        const p = this.fetch(off, want, want, 'prefetch', false).catch(() => undefined);
        this.pending.set(off, p);
        const done = p.then(() => {
          inFlight.delete(done);
        });
        inFlight.add(done);
        if (inFlight.size >= parallel) await Promise.race(inFlight);
      }
      await Promise.all(inFlight);
    })();
    return () => {
      stop = true;
      return task;
    };
  }

  private async prefetched(off: number, len: number): Promise<Reader | undefined> {
    const p = this.pending.get(off);
    if (!p) return undefined;
    this.pending.delete(off);
    const r = await p;
    if (!r || off + len > r.base + r.length) return undefined;
    this.remember(r);
    return r;
  }

  private remember(r: Reader): void {
    this.recent.push(r);
    if (this.recent.length > CACHED) this.recent.shift();
  }

  private async fetch(off: number, len: number, want: number, what: string, keep = true): Promise<Reader> {
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
      throw new FatbinError('io', `could not read ${what} at offset ${fmtOff(off)}: ${errorMessage(err)}`);
    }
    if (bytes.length < len) {
      throw new FatbinError(
        'truncated',
        `${what} at offset ${fmtOff(off)} (${len} bytes) runs past the end of the file (it ended after ${bytes.length} bytes there)`,
      );
    }
    const r = new Reader(bytes, off);
    if (keep) this.remember(r);
    return r;
  }
}
