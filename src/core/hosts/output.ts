/** Shared output bookkeeping for exec on any host: UTF-8 decoding across chunk edges, byte caps. */
import { StringDecoder } from 'node:string_decoder';
import type { ExecOptions } from './types';

export class OutputCollector {
  stdout = '';
  stderr = '';
  truncated = false;
  private bytes = 0;
  private readonly outDec = new StringDecoder('utf8');
  private readonly errDec = new StringDecoder('utf8');

  constructor(
    private readonly opts: ExecOptions,
    private readonly onLimit: () => void,
  ) {}

  private push(which: 'stdout' | 'stderr', data: Buffer): void {
    if (this.truncated) return;
    const max = this.opts.maxOutputBytes;
    if (max !== undefined && this.bytes + data.length > max) {
      data = data.subarray(0, Math.max(0, max - this.bytes));
      this.truncated = true;
    }
    this.bytes += data.length;
    const text = (which === 'stdout' ? this.outDec : this.errDec).write(data);
    this.emit(which, text);
    if (this.truncated) {
      this.flush();
      this.onLimit();
    }
  }

  private emit(which: 'stdout' | 'stderr', text: string): void {
    if (!text) return;
    const keep = this.opts.keepOutput !== false;
    if (which === 'stdout') {
      if (keep) this.stdout += text;
      this.opts.onStdout?.(text);
    } else {
      if (keep) this.stderr += text;
      this.opts.onStderr?.(text);
    }
  }

  out(data: Buffer): void {
    this.push('stdout', data);
  }
  err(data: Buffer): void {
    this.push('stderr', data);
  }

  /** Emit any partial UTF-8 sequence left at the end. Idempotent. */
  flush(): void {
    this.emit('stdout', this.outDec.end());
    this.emit('stderr', this.errDec.end());
  }
}
