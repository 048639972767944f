/**
 * Finds SGLang launch commands (`python -m sglang.launch_server …`, `sglang serve …`) and vLLM ones
 * (`vllm serve …`, `python -m vllm.entrypoints.openai.api_server …`, the vllm/vllm-openai image's
 * entrypoint arguments) in shell scripts, systemd units, compose/Kubernetes YAML, Dockerfiles,
 * Python and Markdown. No `vscode` import: shared by the language server, the extension and the CLI.
 */
import type { Ctx } from './analyze';
import { findInDockerfile, findInMarkdown, findInShell, findInSystemd } from './hosts';
import { findInPython } from './python';
import { LineIndex } from '../lines';
import { findInYaml } from './yaml';
import type { FindOptions, LanguageHint, LaunchArg, LaunchCommand } from './types';

export type * from './types';
export { launchSyntaxOf, launchSyntaxOfPath, LAUNCH_DOCUMENT_SELECTOR, LAUNCH_LANGUAGE_IDS, UNIT_FILE_EXTENSIONS, type LaunchDocumentFilter } from './syntax';

function dispatch(ctx: Ctx, hint: LanguageHint, from: number, to: number, depth: number): void {
  switch (hint) {
    case 'systemd':
      return findInSystemd(ctx, hint, from, to);
    case 'yaml':
      return findInYaml(ctx, hint, from, to);
    case 'dockerfile':
      return findInDockerfile(ctx, hint, from, to);
    case 'python':
      return findInPython(ctx, hint, from, to);
    case 'markdown':
      return findInMarkdown(ctx, hint, from, to, depth, dispatch);
    case 'shellscript':
    case 'plaintext':
    default:
      return findInShell(ctx, hint, from, to);
  }
}

/**
 * All launch commands in `text`, in document order. Never throws: on an internal error it returns what
 * it found so far. Time is linear in the text (10 MB lines and unbalanced quotes included).
 */
export function findLaunchCommands(text: string, languageHint: LanguageHint, options: FindOptions = {}): LaunchCommand[] {
  const engines = options.engines ?? ['sglang'];
  if (typeof text !== 'string' || !engines.some((e) => text.includes(e))) return [];
  const ctx: Ctx = { text, lines: new LineIndex(text), opts: options, out: [], max: options.maxCommands ?? 1000 };
  try {
    dispatch(ctx, languageHint, 0, text.length, 0);
  } catch {
    // fall through with what was found
  }
  const seen = new Map<string, number>();
  const out: LaunchCommand[] = [];
  for (const c of ctx.out) {
    if (!engines.includes(c.engine)) continue;
    // one command read twice (a nested script, an alias of a whole command) is kept once, with the
    // most environment (an anchored template has none, the service using it has its own); an alias
    // of the entry with arguments of its own (`command: *cmd` beside its own `args:`) is another one
    const key = [c.entryRange.start, ...c.args.map((a) => a.range.start)].map((p) => `${p.line}:${p.character}`).join(',');
    const at = seen.get(key);
    if (at !== undefined) {
      if (c.env.length > out[at].env.length) out[at] = c;
      continue;
    }
    seen.set(key, out.length);
    out.push(c);
  }
  return out.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
}

/** The flag arguments of a command, last occurrence wins, keyed by flag name (`--tp`). */
export function flagMap(cmd: LaunchCommand): Map<string, LaunchArg> {
  const m = new Map<string, LaunchArg>();
  for (const a of cmd.args) if (a.kind === 'flag' && a.name) m.set(a.name, a);
  return m;
}

/** The value of the last occurrence of any of `names` (aliases), or undefined; `true` for a bare flag. */
export function flagValue(cmd: LaunchCommand, ...names: string[]): string | string[] | true | undefined {
  let found: LaunchArg | undefined;
  for (const a of cmd.args) if (a.kind === 'flag' && a.name && names.includes(a.name)) found = a;
  if (!found) return undefined;
  const vs = found.values ?? [];
  if (vs.length === 0) return true;
  return vs.length === 1 ? vs[0].value : vs.map((v) => v.value);
}
