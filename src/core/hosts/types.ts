/**
 * The host abstraction: one interface for "run things and read files" on this machine or on a
 * GPU box reached over SSH. Everything above src/core/hosts talks to a `Host`, never to
 * child_process or ssh2 directly.
 */

export type EntryType = 'file' | 'dir' | 'symlink' | 'other';

export interface ExecOptions {
  signal?: AbortSignal;
  onStdout?: (chunk: string) => void;
  onStderr?: (chunk: string) => void;
  cwd?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
  /** Stop collecting (and kill the command) once stdout+stderr exceed this many bytes. */
  maxOutputBytes?: number;
  /**
   * false: only stream output to onStdout/onStderr and return empty stdout/stderr, so a
   * long-running command (log follow) does not grow memory. Default true.
   */
  keepOutput?: boolean;
}

export interface ExecResult {
  code: number | null;
  signal?: string;
  stdout: string;
  stderr: string;
  /** True when output was cut at maxOutputBytes (the command was stopped). */
  truncated: boolean;
}

/**
 * What a path names, links followed: a link to a 541 MB library is a 541 MB file (`symlink` says the path
 * itself is a link). Only a link whose target is missing keeps type `symlink` and the link's own size.
 */
export interface StatResult { type: EntryType; size: number; mtimeMs: number; symlink?: boolean }
export interface DirEntry { name: string; type: EntryType }
export interface ForwardedPort { localPort: number; close(): Promise<void> }

export interface Host {
  readonly id: string;
  readonly label: string;
  exec(argv: string[], opts?: ExecOptions): Promise<ExecResult>;
  readFile(path: string, opts?: { maxBytes?: number; signal?: AbortSignal }): Promise<Uint8Array>;
  stat(path: string): Promise<StatResult>;
  readDir(path: string): Promise<DirEntry[]>;
  forwardPort(remotePort: number, remoteHost?: string): Promise<ForwardedPort>;
  close(): Promise<void>;
}

export type HostErrorKind =
  | 'aborted'
  | 'timeout'
  | 'invalid-argument'
  | 'not-found'
  | 'connect'
  | 'auth'
  | 'host-key-unknown'
  | 'host-key-changed'
  | 'host-key-revoked'
  | 'disconnected'
  | 'io'
  | 'config';

/** An error whose message says what happened and what to do about it. */
export class HostError extends Error {
  constructor(readonly kind: HostErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'HostError';
  }
}

export function abortError(reason?: unknown): HostError {
  const why = reason instanceof Error ? `: ${reason.message}` : typeof reason === 'string' ? `: ${reason}` : '';
  return new HostError('aborted', `Cancelled${why}`);
}

export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw abortError(signal.reason);
}

/** Quote a string for error messages (JSON style; keeps control characters visible). */
export function show(s: string): string {
  return JSON.stringify(s.length > 200 ? `${s.slice(0, 200)}…` : s);
}
