/**
 * The contract every `inference-doctor` subcommand implements (one module each in commands/), and
 * the conventions main.ts applies to all of them: `-h`/`--help` prints the usage and exits 0, a
 * thrown UsageError prints its message and the usage and exits 64, a missing input file exits 66.
 */
import type { Readable, Writable } from 'node:stream';
import { errorMessage } from '../core/errors';
import { normaliseBaseUrl } from '../core/servers';

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
  /** Full usage text for `inference-doctor <name> --help`; starts with the one "Usage:" line. */
  usage: string;
  /** The first operand names an input file: when it cannot be read the command exits EXIT.noInput. */
  inputFile?: boolean;
  /** Resolves the process exit code. Bad usage: throw UsageError. Help never reaches it. */
  run(argv: string[], io: CliIo): Promise<number>;
}

/** Exit codes shared by the commands. */
export const EXIT = {
  ok: 0,
  degenerate: 1,
  nan: 2,
  /** compare: the suspect server computes something else than the reference. */
  broken: 1,
  /** search: no match (as grep). */
  noMatch: 1,
  /** env: error-level findings. */
  findings: 1,
  /** supervise status: the command is not running. */
  notRunning: 1,
  error: 3,
  usage: 64,
  /** The input is readable but not usable (detect: a document too large to read whole). */
  dataError: 65,
  noInput: 66,
  interrupted: 130,
} as const;

export class UsageError extends Error {}

/** True when `-h` or `--help` comes before a `--` (after it, they are operands). */
export function wantsHelp(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '-h' || a === '--help') return true;
  }
  return false;
}

export function write(stream: Writable, text: string): Promise<void> {
  return new Promise((resolve) => {
    if (stream.write(text)) resolve();
    else stream.once('drain', resolve);
  });
}

/** The one operand of a command that talks to one server (probe, eval): its base URL, or a UsageError. */
export function serverUrlOperand(positionals: readonly string[]): string {
  if (positionals.length !== 1) throw new UsageError(positionals.length ? `Unexpected argument: ${positionals[1]}` : 'Missing the server URL');
  try {
    return normaliseBaseUrl(positionals[0]);
  } catch (error) {
    throw new UsageError(`Bad URL ${positionals[0]}: ${errorMessage(error)}`);
  }
}
