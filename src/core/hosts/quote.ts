/**
 * POSIX sh quoting for argv arrays sent over SSH. The remote side always runs the command
 * through the user's login shell, so every argument is wrapped in single quotes; inside single
 * quotes nothing is special except the quote itself, which becomes '\'' (close, escaped quote,
 * reopen). NUL cannot be carried in a C string, so it is refused rather than silently cut.
 */
import { HostError, show } from './types';

export function quoteArg(arg: string): string {
  if (typeof arg !== 'string') throw new HostError('invalid-argument', `Command arguments must be strings, got ${typeof arg}`);
  if (arg.includes('\0')) {
    throw new HostError('invalid-argument', `Argument ${show(arg)} contains a NUL byte, which cannot be passed to a remote command. Remove the NUL character.`);
  }
  // Every argument is quoted, even plain words: one rule, no character-class judgement calls.
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * One word for a command line a person reads or pastes (a clipboard copy, a quick fix): left bare
 * when it has only characters no shell treats specially, else single-quoted.
 */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Quote every element and join with spaces: the result is one POSIX sh command line. */
export function quoteArgv(argv: readonly string[]): string {
  if (!Array.isArray(argv) || argv.length === 0) throw new HostError('invalid-argument', 'Empty command: argv needs at least the program name');
  return argv.map(quoteArg).join(' ');
}
