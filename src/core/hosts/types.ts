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
export interface StatResult {
  type: EntryType;
  size: number;
  mtimeMs: number;
  symlink?: boolean;
}
export interface DirEntry {
  name: string;
  type: EntryType;
}
export interface ForwardedPort {
  localPort: number;
  close(): Promise<void>;
}

/**
 * A file opened for reads at any position (ranged reads: the headers of a 500 MB library without
 * its payloads). Close it in `finally`; reads after close are refused.
 */
export interface RandomAccessFile {
  /** Size when opened, links followed. */
  readonly size: number;
  /**
   * Up to `length` bytes from `position`; fewer only where the file ends (none at or past its end).
   * At most MAX_RANGE_READ bytes per call.
   */
  read(position: number, length: number, signal?: AbortSignal): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** The largest single ranged read: headers are small, and a caller that wants more reads the file. */
export const MAX_RANGE_READ = 64 * 1024 * 1024;

/** Checks a ranged read's arguments (shared by the hosts). */
export function checkRange(position: number, length: number): void {
  if (!Number.isSafeInteger(position) || position < 0) throw new HostError('invalid-argument', `Bad read position ${position}`);
  if (!Number.isSafeInteger(length) || length < 0 || length > MAX_RANGE_READ) {
    throw new HostError('invalid-argument', `Bad read length ${length} (0..${MAX_RANGE_READ})`);
  }
}

export interface Host {
  readonly id: string;
  readonly label: string;
  exec(argv: string[], opts?: ExecOptions): Promise<ExecResult>;
  readFile(path: string, opts?: { maxBytes?: number; signal?: AbortSignal }): Promise<Uint8Array>;
  /**
   * Open a file for ranged reads (one SFTP handle on an SSH host). Optional so that small hosts
   * (tests, wrappers) need not have it; readers fall back to `readFile` without it.
   */
  openFile?(path: string, opts?: { signal?: AbortSignal }): Promise<RandomAccessFile>;
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
  constructor(
    readonly kind: HostErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
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
