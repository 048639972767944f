/** Guarded command execution: a missing tool or a failing command is a normal outcome, not a throw. */
import type { HostLike } from '../gpu/hostLike';
import { errorMessage } from '../errors';

export interface RunOptions {
  timeoutMs?: number;
  maxOutputBytes?: number;
  env?: Record<string, string>;
  signal?: AbortSignal;
}

export interface Ran {
  ok: boolean;
  code: number | null;
  stdout: string;
  stderr: string;
  /** The program does not exist on the host. */
  missing: boolean;
  /** Why it did not run or failed, for notes. */
  error?: string;
}

export async function runGuarded(host: HostLike, argv: string[], opts: RunOptions = {}): Promise<Ran> {
  if (opts.signal?.aborted) return { ok: false, code: null, stdout: '', stderr: '', missing: false, error: 'cancelled' };
  try {
    const r = await host.exec(argv, {
      timeoutMs: opts.timeoutMs ?? 15_000,
      maxOutputBytes: opts.maxOutputBytes ?? 2 * 1024 * 1024,
      ...(opts.env ? { env: opts.env } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    const missing = r.code === 127 && /not found|no such file/i.test(r.stderr + r.stdout);
    const ok = r.code === 0;
    const firstErr = (r.stderr.trim().split('\n')[0] ?? '').slice(0, 300);
    return { ok, code: r.code, stdout: r.stdout, stderr: r.stderr, missing, ...(ok ? {} : { error: firstErr || `exit code ${r.code ?? 'signal'}` }) };
  } catch (err) {
    const msg = errorMessage(err);
    const kind = (err as { kind?: string }).kind;
    const missing = kind === 'not-found' || /not found|ENOENT/i.test(msg);
    return { ok: false, code: null, stdout: '', stderr: '', missing, error: msg.slice(0, 300) };
  }
}

/** Run async jobs with at most `limit` in flight, keeping input order in the results. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}
