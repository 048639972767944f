import { connect } from 'node:net';

/**
 * Polls `probe` until it gives something other than `undefined` or `false`, and returns that.
 * Bounded: throws after `timeoutMs`, naming what it waited for.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 20_000,
  intervalMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Whether something accepts TCP connections on 127.0.0.1 at `port` or at a loopback URL's port (a refused connection is false). */
export function listening(where: number | string): Promise<boolean> {
  const port = typeof where === 'number' ? where : Number(new URL(where).port);
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
