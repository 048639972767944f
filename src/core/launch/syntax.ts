/**
 * Which launch-command syntax a file holds, from its editor language id and its path. The one rule
 * set behind the language server's per-document choice, the remote launch-file reader and the
 * extension's document selector, so a file the client sends is one the server can read.
 */
import { REMOTE_SCHEME } from '../remote/uris';
import type { LanguageHint } from './types';

/** systemd unit types: such a file is a unit whatever language id an editor gives it. */
export const UNIT_FILE_EXTENSIONS = ['service', 'socket', 'timer', 'mount', 'target', 'path'] as const;
const UNIT_FILE = new RegExp(`\\.(${UNIT_FILE_EXTENSIONS.join('|')})$`);
const UNIT_FILE_GLOB = `**/*.{${UNIT_FILE_EXTENSIONS.join(',')}}`;

/** Editor language ids (VS Code's and other editors') → launch syntax. A Map: ids are foreign text. */
export const LAUNCH_LANGUAGE_IDS: ReadonlyMap<string, LanguageHint> = new Map<string, LanguageHint>([
  ['shellscript', 'shellscript'],
  ['bash', 'shellscript'],
  ['sh', 'shellscript'],
  ['zsh', 'shellscript'],
  ['ini', 'systemd'],
  ['systemd', 'systemd'],
  ['systemd-unit-file', 'systemd'],
  ['yaml', 'yaml'],
  ['dockercompose', 'yaml'],
  ['docker-compose', 'yaml'],
  ['dockerfile', 'dockerfile'],
  ['python', 'python'],
  ['markdown', 'markdown'],
  ['plaintext', 'plaintext'],
]);

/** Ids too broad to select on their own: only their unit files are launch files. */
const BROAD_LANGUAGE_IDS = new Set(['ini', 'plaintext']);

/** Lower case, no URI query/fragment. */
function normalise(path: string): string {
  return path.toLowerCase().split(/[?#]/)[0];
}

/** The syntax a path's name says, or undefined when the name says nothing. */
export function launchSyntaxOfPath(path: string): LanguageHint | undefined {
  const p = normalise(path);
  const base = p.slice(Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\')) + 1);
  if (UNIT_FILE.test(base) || base.endsWith('.conf') || /[\\/]systemd[\\/]/.test(p)) return 'systemd';
  if (/^dockerfile|\.dockerfile$/.test(base)) return 'dockerfile';
  if (/\.ya?ml$/.test(base)) return 'yaml';
  if (/\.(sh|bash|zsh)$/.test(base)) return 'shellscript';
  if (/\.py$/.test(base)) return 'python';
  if (/\.(md|markdown)$/.test(base)) return 'markdown';
  return undefined;
}

/**
 * The syntax of an open document: a unit file by its extension first, else its language id, else
 * its path (a language id nobody maps, e.g. an extension's own).
 */
export function launchSyntaxOf(languageId: string | undefined, path: string): LanguageHint | undefined {
  if (UNIT_FILE.test(normalise(path))) return 'systemd';
  return (languageId !== undefined ? LAUNCH_LANGUAGE_IDS.get(languageId) : undefined) ?? launchSyntaxOfPath(path);
}

/** An LSP/VS Code document filter (at least one field set). */
export type LaunchDocumentFilter =
  | { language: string; scheme?: string; pattern?: string }
  | { language?: string; scheme: string; pattern?: string }
  | { language?: string; scheme?: string; pattern: string };

/**
 * The documents the language server reads: server_args.py (local or on a host: the catalog it
 * defines and its code lenses), every language id above (the broad ones for unit files only) and
 * unit files whatever their language id.
 */
export const LAUNCH_DOCUMENT_SELECTOR: LaunchDocumentFilter[] = [
  { scheme: 'file', language: 'python', pattern: '**/server_args.py' },
  { scheme: REMOTE_SCHEME, language: 'python', pattern: '**/server_args.py' },
  { scheme: REMOTE_SCHEME, pattern: '**/server_args.py' },
  ...[...LAUNCH_LANGUAGE_IDS.keys()].map((language) => (BROAD_LANGUAGE_IDS.has(language) ? { language, pattern: UNIT_FILE_GLOB } : { language })),
  { pattern: UNIT_FILE_GLOB },
];
