/** The contract every `inference-doctor` subcommand module implements. */
import type { Readable, Writable } from 'node:stream';

export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  /** Fires when the user presses Ctrl-C. */
  signal: AbortSignal;
}

export interface Command {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** Full usage text for `inference-doctor <name> --help`. */
  usage: string;
  /** Resolves the process exit code. */
  run(argv: string[], io: CliIo): Promise<number>;
}

/** Exit codes shared by the commands. */
export const EXIT = {
  ok: 0,
  degenerate: 1,
  nan: 2,
  error: 3,
  usage: 64,
  noInput: 66,
  interrupted: 130,
} as const;

export class UsageError extends Error {}

export function write(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve) => {
    if (stream.write(text)) resolve();
    else stream.once('drain', resolve);
  });
}
