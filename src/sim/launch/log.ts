/**
 * The launched server's log, in the shape of SGLang's: `[date time] message` lines (with ` TP0` for
 * scheduler lines), uvicorn's `INFO:     …` lines, and a `server_args=ServerArgs(…)` dump in
 * Python's repr. Written synchronously so a crash's last line is out before the process exits.
 */
import { closeSync, openSync, writeSync } from 'node:fs';

function stamp(date = new Date()): string {
  const p = (n: number): string => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())} ${p(date.getHours())}:${p(date.getMinutes())}:${p(date.getSeconds())}`;
}

/** Python's repr of a JSON-like value: 'strings', None, True/False, [lists], {dicts}. */
export function pyRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : value > 0 ? 'inf' : value < 0 ? '-inf' : 'nan';
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  if (typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`)
      .join(', ')}}`;
  }
  return `'${typeof value}'`;
}

export const serverArgsLine = (args: Record<string, unknown>): string =>
  `server_args=ServerArgs(${Object.entries(args)
    .map(([k, v]) => `${k}=${pyRepr(v)}`)
    .join(', ')})`;

export class LaunchLog {
  private readonly fd: number;
  private readonly own: boolean;

  /** `file`: append there; else stderr, where SGLang's logging goes. */
  constructor(file?: string) {
    this.own = !!file;
    this.fd = file ? openSync(file, 'a') : 2;
  }

  private write(text: string): void {
    try {
      writeSync(this.fd, text.endsWith('\n') ? text : `${text}\n`);
    } catch {
      // A closed stderr or a full disk must not stop the simulated server.
    }
  }

  /** A main-process line. */
  info(message: string): void {
    this.write(`[${stamp()}] ${message}`);
  }

  /** A scheduler line of tensor-parallel rank `rank`. */
  rank(message: string, rank = 0): void {
    this.write(`[${stamp()} TP${rank}] ${message}`);
  }

  /** A uvicorn line (`INFO:     Uvicorn running on …`). */
  uvicorn(message: string, level = 'INFO'): void {
    this.write(`${`${level}:`.padEnd(10)}${message}`);
  }

  raw(text: string): void {
    this.write(text);
  }

  close(): void {
    if (this.own) closeSync(this.fd);
  }
}
