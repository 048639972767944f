/**
 * Changes to a launch command, written through the launch-command parser (never a regex over the
 * file): each change becomes text edits at the ranges the parser found, quoted the way the command
 * is written (shell words, or list items in the quote style of their neighbours). The language
 * server's quick fixes, "Apply to Server" and the backend sweep all use these.
 *
 *   const [cmd] = findLaunchCommands(text, 'systemd');
 *   const next = applyTextEdits(text, flagEdits(cmd, text, [{ flag: '--fp4-gemm-backend', value: 'flashinfer_cudnn' }]));
 */
import { shellWord } from '../hosts/quote';
import { LineIndex } from '../lines';
import type { LaunchArg, LaunchCommand, LaunchToken, Position, Range } from './types';

export interface TextEdit {
  range: Range;
  newText: string;
}

/**
 * One flag to set: a string value (`None` for Python's None), `true` for a flag present with no
 * value (store_true), `false` to remove the flag and its values.
 */
export interface FlagChange {
  flag: string;
  /** Other spellings of the same flag (a renamed flag's old name) that count as present. */
  aliases?: string[];
  value: string | boolean;
}

export interface FlagEditOptions {
  /**
   * Finds the argument a change is about (index into `cmd.args`, the last one wins), for callers
   * that match by dataclass field; default: the last flag spelled as `flag` or one of `aliases`.
   */
  locate?: (change: FlagChange) => number | undefined;
  /** Offset of a position in `text`, when the caller has a line table already. */
  offsetOf?: (p: Position) => number;
}

/** Edits that make `cmd` (found in `text`) carry each change. Changes apply in order; later ones win. */
export function flagEdits(cmd: LaunchCommand, text: string, changes: FlagChange[], options: FlagEditOptions = {}): TextEdit[] {
  const offsetOf = options.offsetOf ?? lineOffsets(text);
  const locate = options.locate ?? ((c: FlagChange) => lastFlagIndex(cmd, [c.flag, ...(c.aliases ?? [])]));
  const edits: TextEdit[] = [];
  for (const change of changes) {
    const at = locate(change);
    const existing = at === undefined ? undefined : cmd.args[at];
    if (change.value === false) {
      if (existing && at !== undefined) edits.push(removeEdit(cmd, at));
    } else if (change.value === true) {
      if (!existing) edits.push(appendEdit(cmd, change.flag, undefined, text, offsetOf));
    } else if (existing) {
      edits.push(valueEdit(cmd, existing, change.value, text, offsetOf));
    } else {
      edits.push(appendEdit(cmd, change.flag, change.value, text, offsetOf));
    }
  }
  return edits;
}

function lineOffsets(text: string): (p: Position) => number {
  const lines = new LineIndex(text);
  return (p) => lines.offset(p);
}

/** Applies non-overlapping edits (any order) to `text`. */
export function applyTextEdits(text: string, edits: TextEdit[]): string {
  const lines = new LineIndex(text);
  const spans = edits
    .map((e, i) => ({ start: lines.offset(e.range.start), end: lines.offset(e.range.end), newText: e.newText, i }))
    // From the end backwards; inserts at one point go in the order given (the later one first).
    .sort((a, b) => b.start - a.start || b.end - a.end || b.i - a.i);
  let out = text;
  let limit = Infinity;
  for (const s of spans) {
    if (s.end > limit) throw new Error('overlapping edits');
    out = out.slice(0, s.start) + s.newText + out.slice(s.end);
    limit = s.start;
  }
  return out;
}

/** The span of a flag and its separate values (an inline `=value` is inside the flag's token). */
export function flagSpan(arg: LaunchArg): Range {
  const vs = arg.values ?? [];
  const end = vs.length && !arg.inline ? vs[vs.length - 1].range.end : arg.range.end;
  return { start: arg.range.start, end };
}

function lastFlagIndex(cmd: LaunchCommand, names: string[]): number | undefined {
  let hit: number | undefined;
  cmd.args.forEach((a, i) => {
    if (a.kind === 'flag' && a.name && names.includes(a.name)) hit = i;
  });
  return hit;
}

function quoteOf(tok: LaunchToken | undefined): string {
  const c = tok?.text[0];
  return c === '"' || c === "'" ? c : '';
}

/** A replacement value in the style of the token it replaces. */
export function formatValue(value: string, like: LaunchToken | undefined, form: LaunchCommand['form']): string {
  const q = quoteOf(like);
  if (q) return `${q}${value}${q}`;
  return form === 'shell' ? shellWord(value) : value;
}

const before = (a: Position, b: Position): boolean => a.line < b.line || (a.line === b.line && a.character < b.character);

/**
 * Index of the argument after which a new one is added: the last one, except that in an argv built
 * by calls (Python `cmd.append("--x")`) an argument closing a call takes no list items after it, so
 * the last one inside a list is used.
 */
function insertionArg(cmd: LaunchCommand, text: string, offsetOf: (p: Position) => number): number {
  const last = cmd.args.length - 1;
  if (cmd.form !== 'argv') return last;
  for (let i = last; i >= 0; i--) {
    const after = text.slice(offsetOf(cmd.args[i].range.end), offsetOf(cmd.args[i].range.end) + 200).trimStart();
    if (!after.startsWith(')')) return i;
  }
  return last;
}

/** A separator that only separates: blanks, a comma, a YAML block sequence's `- `. */
const CLEAN_SEPARATOR = /^[ \t\r\n,]*(?:-[ \t]+)?$/;

/** Separator between list items of an argv-form command (`, ` or a YAML `\n  - `), as the file writes it near `at`. */
function argvSeparator(cmd: LaunchCommand, text: string, offsetOf: (p: Position) => number, at = cmd.args.length - 1): string {
  for (let i = Math.min(at, cmd.args.length - 1); i > 0; i--) {
    const between = text.slice(offsetOf(cmd.args[i - 1].range.end), offsetOf(cmd.args[i].range.start));
    if (between.length < 200 && CLEAN_SEPARATOR.test(between) && between.length > 0) return between;
  }
  return ', ';
}

/** `--flag [value]` appended at the end of the command. */
export function appendEdit(cmd: LaunchCommand, flag: string, value: string | undefined, text: string, offsetOf: (p: Position) => number): TextEdit {
  const at = insertionArg(cmd, text, offsetOf);
  const end = at >= 0 ? cmd.args[at].range.end : cmd.entryRange.end;
  if (cmd.form === 'shell') {
    return { range: { start: end, end }, newText: ` ${flag}${value === undefined ? '' : ` ${shellWord(value)}`}` };
  }
  const sep = argvSeparator(cmd, text, offsetOf, at);
  // the quote style of the nearest quoted item (a Python expression such as str(tp) has none)
  let q = '';
  for (let i = at; i >= 0 && !q; i--) if (!cmd.args[i].dynamic) q = quoteOf(cmd.args[i]) || (i === at ? '' : q);
  if (!q && (at < 0 || cmd.args[at].dynamic)) q = quoteOf(cmd.executable);
  if (!q && at >= 0 && !cmd.args[at].dynamic) q = quoteOf(cmd.args[at]);
  const item = (s: string): string => `${q}${s}${q}`;
  return { range: { start: end, end }, newText: `${sep}${item(flag)}${value === undefined ? '' : `${sep}${item(value)}`}` };
}

/** Removes the flag at `index` and its values, with the separator before it. */
export function removeEdit(cmd: LaunchCommand, index: number): TextEdit {
  // args hold values as their own entries, so the previous entry ends where the kept text ends.
  const arg = cmd.args[index];
  let start = index > 0 ? cmd.args[index - 1].range.end : cmd.entryRange.end;
  // an argument written before the one in front of it (the first item of a bash array defined above
  // the command): only its own text goes
  if (!before(start, arg.range.start) && !(start.line === arg.range.start.line && start.character === arg.range.start.character)) start = arg.range.start;
  return { range: { start, end: flagSpan(arg).end }, newText: '' };
}

/** The flag's (first) value replaced, or a value added after a flag written without one. */
function valueEdit(cmd: LaunchCommand, arg: LaunchArg, value: string, text: string, offsetOf: (p: Position) => number): TextEdit {
  const vs = arg.values ?? [];
  if (vs.length) return { range: vs[0].range, newText: formatValue(value, vs[0], cmd.form) };
  const end = arg.range.end;
  return {
    range: { start: end, end },
    newText: cmd.form === 'shell' ? ` ${shellWord(value)}` : `${argvSeparator(cmd, text, offsetOf, cmd.args.indexOf(arg))}${formatValue(value, arg, cmd.form)}`,
  };
}

/** The engines whose commands the fix loop and the sweep change. */
export const EDITABLE_ENGINES = ['sglang', 'vllm'] as const;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A change naming an environment variable (VLLM_USE_FLASHINFER_MOE_FP4) rather than a flag (--moe-backend). */
export const isEnvChange = (c: FlagChange): boolean => ENV_NAME.test(c.flag);

/** vLLM reads `--moe_backend` as `--moe-backend`: both spellings count as the flag being there. */
function withUnderscores(c: FlagChange): FlagChange {
  const names = [c.flag, ...(c.aliases ?? [])];
  const spelled = names.map((n) => `--${n.slice(2).replace(/-/g, '_')}`).filter((n) => !names.includes(n));
  return spelled.length ? { ...c, aliases: [...(c.aliases ?? []), ...spelled] } : c;
}

/**
 * flagEdits for either engine's command: vLLM flags match their underscore spelling too, and a
 * change that names an environment variable sets it where the command's environment is written
 * (`export`, a prefix, compose `environment:`, Kubernetes `env:`); `true`/`false` become 1/0.
 */
export function launchEdits(cmd: LaunchCommand, text: string, changes: FlagChange[], options: FlagEditOptions = {}): TextEdit[] {
  const offsetOf = options.offsetOf ?? lineOffsets(text);
  const flags = changes.filter((c) => !isEnvChange(c)).map((c) => (cmd.engine === 'vllm' ? withUnderscores(c) : c));
  const env = changes.filter(isEnvChange).map((c) => envEdit(cmd, text, c.flag, typeof c.value === 'string' ? c.value : c.value ? '1' : '0', offsetOf));
  return [...flagEdits(cmd, text, flags, { ...options, offsetOf }), ...env];
}

/** The edit that gives `name` the value `value` in the command's environment; throws where the file has no place for it. */
function envEdit(cmd: LaunchCommand, text: string, name: string, value: string, offsetOf: (p: Position) => number): TextEdit {
  const same = cmd.env.filter((e) => e.name === name && !e.dynamic);
  const existing = same[same.length - 1];
  if (existing) {
    // The written value: after the name and its `=` or `: `, to the end of the assignment (quotes kept).
    const from = offsetOf(existing.nameRange.end);
    const to = offsetOf(existing.range.end);
    const sep = /^\s*[=:]\s*/.exec(text.slice(from, to))?.[0] ?? '';
    const start = from + sep.length;
    const written = text.slice(start, to);
    const q = quoteOf({ text: written } as LaunchToken);
    return { range: new LineIndex(text).range(start, to), newText: q ? `${q}${value}${q}` : existing.source === 'yaml' ? value : shellWord(value) };
  }
  // A sibling written on a line of its own (`export A=1`, `  A: "1"`, `  - A=1`): a new line like it.
  const sibling = cmd.env.filter((e) => !e.dynamic && e.source !== 'prefix').pop();
  if (sibling) {
    const lineStart = offsetOf({ line: sibling.range.start.line, character: 0 });
    const lead = text.slice(lineStart, offsetOf(sibling.nameRange.start));
    const sep = /^\s*[=:]\s*/.exec(text.slice(offsetOf(sibling.nameRange.end), offsetOf(sibling.range.end)))?.[0] ?? '=';
    if (/^\s*(export\s+|-\s+)?$/.test(lead)) {
      // `KEY: "v"` (a YAML mapping) quotes the value; `- KEY=v` is one string whose text is the value.
      const quoted = sibling.source !== 'yaml' ? shellWord(value) : sep.includes(':') ? JSON.stringify(value) : value;
      return { range: { start: sibling.range.end, end: sibling.range.end }, newText: `\n${lead}${name}${sep}${quoted}` };
    }
  }
  if (cmd.form === 'shell' && (cmd.host === 'shellscript' || cmd.host === 'plaintext')) {
    const at = { line: cmd.range.start.line, character: 0 };
    return { range: { start: at, end: at }, newText: `export ${name}=${shellWord(value)}\n` };
  }
  throw new Error(`${name} is not set next to this command and there is no environment list to add it to: set ${name}=${value} by hand`);
}
