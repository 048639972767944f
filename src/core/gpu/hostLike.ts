/**
 * The part of a Host that GPU inspection and environment discovery use. Any `Host` from
 * src/core/hosts is one; tests pass small fakes.
 */
import type { Host } from '../hosts/types';

/** `openFile` (ranged reads) is optional: without it, libraries are read from their start with `readFile`. */
export type HostLike = Pick<Host, 'exec' | 'readFile' | 'readDir' | 'stat' | 'openFile'> & { readonly label?: string };

export type HostExecResult = Awaited<ReturnType<Host['exec']>>;
