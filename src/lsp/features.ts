/**
 * Hover, completion, document symbols and definition over an Analysis. Pure functions (no
 * connection), so they can be benchmarked in process.
 */
import {
  CompletionItemKind,
  CompletionItemTag,
  MarkupKind,
  SymbolKind,
  type CompletionItem,
  type CompletionList,
  type DocumentSymbol,
  type Hover,
  type Location,
  type Position,
  type Range,
} from 'vscode-languageserver';
import { choiceText, fieldFromFlag, type FlagEntry } from '../core/flags';
import type { LaunchToken } from '../core/launch';
import { findingMessage, ruleMessage, sourceUrl, type Analysis, type AnalyzedCommand, type ReleaseContext, type ResolvedFlag } from './analysis';
import { bundledHelpFor, bundledHelpMarkdown } from '../core/flags/bundledHelp';
import { vllmHelpMarkdown } from '../core/flags/vllm/help';
import { flagHistoryText } from '../core/flags/bundled/query';
import { FIX_COMMANDS, type ApplyAndVerifyArgs } from '../shared/lspProtocol';
import { flagSpan } from '../core/launch/edit';
import type { CatalogIndex } from './catalogIndex';
import { codeSpan, escapeMarkdown, safeLink, showControls } from '../core/text/foreign';

export const NO_CATALOG = 'No flag catalog: open a server_args.py or set inferenceDoctor.flags.serverArgsPath.';

function before(a: Position, b: Position): boolean {
  return a.line < b.line || (a.line === b.line && a.character < b.character);
}
function inRange(p: Position, r: Range): boolean {
  return !before(p, r.start) && !before(r.end, p);
}

export interface Hit {
  ac: AnalyzedCommand;
  flag?: ResolvedFlag;
  /** Set when the position is on a value of `flag`. */
  value?: LaunchToken;
}

/** The command, flag and value under `pos`. */
export function hitAt(analysis: Analysis, pos: Position): Hit | undefined {
  for (const ac of analysis.commands) {
    if (!inRange(pos, ac.cmd.range)) continue;
    for (const f of ac.flags) {
      if (inRange(pos, f.arg.nameRange ?? f.arg.range)) return { ac, flag: f };
      for (const v of f.arg.values ?? []) if (inRange(pos, v.range)) return { ac, flag: f, value: v };
    }
    return { ac };
  }
  return undefined;
}

function defaultText(e: FlagEntry): string | undefined {
  if (e.default !== undefined && e.default !== '==SUPPRESS==') return e.default === null ? 'None' : JSON.stringify(e.default);
  if (e.defaultExpr) return e.defaultExpr;
  return undefined;
}

/** The default as markdown (from server_args.py or an installed SGLang): escaped literal, or a code span for an expression. */
function defaultMarkdown(e: FlagEntry): string | undefined {
  const d = defaultText(e);
  if (d === undefined) return undefined;
  return e.default !== undefined && e.default !== '==SUPPRESS==' ? escapeMarkdown(d) : codeSpan(d);
}

/** Where a bundled entry's facts hold: the release, why that release, and what other releases say of the flag. */
function bundledLine(index: CatalogIndex, e: FlagEntry, release?: ReleaseContext): string {
  if (index.meta.engine === 'vllm') {
    const seen = release?.bundled?.releasesOf(e.flag) ?? [];
    const since = seen.length && seen[0] !== release?.bundled?.releases[0]?.version ? ` · since ${escapeMarkdown(seen[0])}` : '';
    return `_Catalog: bundled facts of vLLM ${escapeMarkdown(release?.version ?? index.meta.version ?? '?')}${release ? ` — ${escapeMarkdown(release.detail)}` : ''}${since}._`;
  }
  const v = index.meta.version ?? '?';
  const why = release && release.version === v ? ` — ${escapeMarkdown(release.detail)}` : '';
  const seen = release?.bundled?.releasesOf(e.flag) ?? [];
  const since = seen.length && seen[0] !== release?.bundled?.releases[0]?.version ? ` · since ${escapeMarkdown(seen[0])}` : '';
  return `_Catalog: bundled facts of SGLang ${escapeMarkdown(v)}${why}${since}. No server\_args.py here: open one or load an installed SGLang for SGLang's own help._`;
}

function sourceLine(index: CatalogIndex, e: FlagEntry): string {
  const m = index.meta;
  const engine = m.engine === 'vllm' ? 'vLLM' : 'SGLang';
  const where = m.kind === 'runtime' ? `installed server on ${escapeMarkdown(m.label)}` : `${escapeMarkdown(m.label)}:${e.line}`;
  return `_Catalog: ${m.kind} · ${where}${m.version ? ` · ${engine} ${escapeMarkdown(m.version)}` : ''} · ${index.catalog.era} era_`;
}

/**
 * Hover and completion text of a flag. Every string in it comes from a server_args.py in the
 * workspace or from an installed SGLang, so it goes in as escaped text or a code span
 * (core/text/foreign): help text cannot make links, images or commands.
 */
export function flagMarkdown(
  e: FlagEntry,
  index: CatalogIndex,
  written?: string,
  value?: string,
  context: { release?: ReleaseContext; computeCapability?: number } = {},
): string {
  const lines: string[] = [];
  const names = [e.flag, ...e.aliases].map((s) => codeSpan(s)).join(', ');
  lines.push(`**${names}**${e.group ? ` — ${escapeMarkdown(e.group)}` : ''}`);
  if (written && written !== e.flag && !e.aliases.includes(written) && !e.negations.includes(written))
    lines.push(
      index.meta.engine === 'vllm' && (written.includes('_') || written.includes('.'))
        ? `${codeSpan(written)} is read by vLLM as ${codeSpan(e.flag)}${written.includes('.') ? ' (a key of its JSON value)' : ''}.`
        : `${codeSpan(written)} is an abbreviation of ${codeSpan(e.flag)}.`,
    );
  if (e.deprecated) lines.push(`⚠️ Deprecated${e.replacement ? `: use ${codeSpan(e.replacement)}` : ''}.`);
  // A bundled entry has no help of SGLang's (shown whenever a real catalog is there): our own words,
  // the summary here, when to change it and the GPU notes after the facts.
  const vllm = index.meta.engine === 'vllm';
  const ownHelp = !e.help && index.meta.kind === 'bundled' && !vllm ? [e.flag, ...e.aliases].find((o) => bundledHelpFor(o)) : undefined;
  if (e.help) lines.push(escapeMarkdown(e.help));
  else if (ownHelp) lines.push(bundledHelpMarkdown(ownHelp, undefined, { summary: true })!.split('\n\n')[0]);
  else if (vllm) {
    // `-O` stands for another flag by release: say which one this release means
    if (written === '-O' || (written?.startsWith('-O') && !written.startsWith('--')))
      lines.push(`In this release ${codeSpan('-O')} means ${codeSpan(e.flag)}.`);
    const own = vllmHelpMarkdown(e.flag);
    if (own) lines.push(own);
  }
  const facts: string[] = [];
  const d = defaultMarkdown(e);
  if (d !== undefined) facts.push(`Default: ${d}${e.resolvable ? ' (placeholder: the server decides at start-up; see /server\\_info)' : ''}`);
  if (e.type) facts.push(`Type: ${codeSpan(e.type)}`);
  if (e.action) facts.push(`Action: ${codeSpan(e.action)}`);
  if (e.nargs !== undefined && e.nargs !== 0) facts.push(`nargs: ${codeSpan(String(e.nargs))}`);
  if (e.field !== fieldFromFlag(e.flag)) facts.push(`Field: ${codeSpan(e.field)}`);
  if (facts.length) lines.push(facts.map((f) => `- ${f}`).join('\n'));
  if (e.choices?.length) {
    const dep = new Map((e.deprecatedChoices ?? []).map((x) => [choiceText(x.value), x.replacement]));
    const items = e.choices.map((c) => {
      const t = choiceText(c);
      const s = t === value ? `**${codeSpan(t)}**` : codeSpan(t);
      const replacement = dep.get(t);
      return dep.has(t) ? `${s} (deprecated${replacement ? ` → ${codeSpan(replacement)}` : ''})` : s;
    });
    lines.push(`Choices: ${items.join(', ')}${e.dynamicChoices ? ' _(can grow at run time)_' : ''}`);
  }
  if (value !== undefined) lines.push(valueMeaning(e, value));
  const details = ownHelp ? bundledHelpMarkdown(ownHelp, context.computeCapability, { summary: false, onlyThisGpu: true }) : undefined;
  if (details) lines.push(details);
  lines.push(index.meta.kind === 'bundled' ? bundledLine(index, e, context.release) : sourceLine(index, e));
  return lines.join('\n\n');
}

function valueMeaning(e: FlagEntry, value: string): string {
  const d = defaultText(e);
  const isDefault = d !== undefined && (d === JSON.stringify(value) || d === value);
  const dep = e.deprecatedChoices?.find((x) => choiceText(x.value) === value);
  const v = codeSpan(value);
  if (dep) return `${v}: deprecated value${dep.replacement ? `, now ${codeSpan(dep.replacement)}` : ''}.`;
  if (e.choices?.length && !e.choices.some((c) => choiceText(c) === value)) return `${v}: not one of the known choices.`;
  if (value === 'auto') return `\`auto\`: the server picks a backend for the GPU and model at start-up.`;
  return `${v}${isDefault ? ': the default.' : ': overrides the default.'}`;
}

/**
 * "Apply to Server and Re-probe" for a built-in rule's fix: a command link the client trusts for
 * this one command only (its arguments are ours; the command confirms every change before it runs).
 */
function applyLink(ac: AnalyzedCommand, m: AnalyzedCommand['matches'][number], uri: string | undefined): string {
  const fix = uri ? ac.applicable?.get(m) : undefined;
  if (!fix || !uri) return '';
  const args: ApplyAndVerifyArgs = { uri, changes: fix.changes, summary: fix.summary };
  // Parentheses too: one in a path or a summary would end the Markdown link.
  const query = encodeURIComponent(JSON.stringify([args])).replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return ` · [Apply to Server and Re-probe](command:${FIX_COMMANDS.applyAndVerify}?${query})`;
}

function rulesSection(ac: AnalyzedCommand, field?: string, uri?: string): string | undefined {
  const ms = field ? ac.matches.filter((m) => Object.prototype.hasOwnProperty.call(m.rule.match.fields ?? {}, field)) : ac.matches;
  const fs = (ac.findings ?? []).filter((f) => !field || f.fields.includes(field));
  if (!ms.length && !fs.length) return undefined;
  // Title, symptom and fix come from rule files (the workspace's too): escaped text; the source is
  // a link only when it parses as https, and it shows its real host.
  const lines = ms.length ? ['**Known issues**'] : [];
  for (const m of ms) {
    const url = sourceUrl(m.rule.sources[0]);
    const link = url ? safeLink(url, 'source') : null;
    lines.push(`- ${escapeMarkdown(ruleMessage(m, ac.advice?.get(m)))}${link ? ` (${link})` : ''}${applyLink(ac, m, uri)}`);
  }
  if (fs.length) lines.push('**Likely causes** (diagnosis rules)');
  for (const f of fs) {
    const url = sourceUrl(f.finding.sources[0]);
    const link = url ? safeLink(url, 'source') : null;
    lines.push(`- ${escapeMarkdown(findingMessage(f.finding))}${link ? ` (${link})` : ''}`);
  }
  return lines.join('\n');
}

/** What other releases say of a flag this catalog lacks ("added in 0.5.1"), as a sentence. */
function historyNote(f: ResolvedFlag, release: ReleaseContext | undefined): string {
  if (!release?.bundled || release.releaseIndex === undefined || !f.arg.name) return '';
  const note = release.bundled.explainMissing(f.arg.name, release.releaseIndex);
  return note ? ` ${escapeMarkdown(flagHistoryText(f.arg.name, release.version, note, release.bundled.engineLabel))}` : '';
}

const ENTRY_TITLES: Record<AnalyzedCommand['cmd']['entry'], string> = {
  launch_server: 'launch\\_server',
  serve: 'serve',
  api_server: 'vllm.entrypoints.openai.api\\_server',
  image: 'vllm/vllm-openai image entrypoint',
};

export function hover(analysis: Analysis, pos: Position, documentIndex: CatalogIndex | undefined, uri?: string): Hover | null {
  const hit = hitAt(analysis, pos);
  if (!hit) return null;
  // a vLLM command is judged against its own catalog and release
  const vllm = hit.ac.cmd.engine === 'vllm';
  const index = vllm ? hit.ac.index : documentIndex;
  if (vllm) analysis = { ...analysis, ...(hit.ac.release ? { release: hit.ac.release } : {}) };
  const parts: string[] = [];
  const f = hit.flag;
  if (!index) parts.push(vllm ? '_No vLLM catalog: the bundled catalog is missing from this installation._' : `_${NO_CATALOG}_`);
  if (f?.entry && index)
    parts.push(
      flagMarkdown(f.entry, index, f.arg.name, hit.value?.value ?? f.arg.values?.[0]?.value, {
        ...(analysis.release ? { release: analysis.release } : {}),
        ...(analysis.computeCapability !== undefined ? { computeCapability: analysis.computeCapability } : {}),
      }),
    );
  else if (f && index)
    parts.push(`${codeSpan(f.arg.name ?? '')} is not in the catalog (${escapeMarkdown(index.meta.label)}).${historyNote(f, analysis.release)}`);
  else if (f) parts.push(`${codeSpan(f.arg.name ?? '')} (field ${codeSpan(f.field ?? '')})`);
  else if (vllm)
    parts.push(
      `**vLLM ${hit.ac.cmd.entry === 'serve' ? 'vllm serve' : ENTRY_TITLES[hit.ac.cmd.entry]}** — ${hit.ac.flags.length} flags${index ? ` · catalog ${escapeMarkdown(index.meta.label)}` : ''}${hit.ac.release ? ` · ${escapeMarkdown(hit.ac.release.detail)}` : ''}`,
    );
  else
    parts.push(
      `**SGLang ${hit.ac.cmd.entry === 'serve' ? 'sglang serve' : 'launch\\_server'}** — ${hit.ac.flags.length} flags${index ? ` · catalog ${escapeMarkdown(index.meta.label)}` : ''}`,
    );
  const rules = rulesSection(hit.ac, f?.field, uri);
  if (rules) parts.push(rules);
  const range = hit.value?.range ?? (f ? (f.arg.nameRange ?? f.arg.range) : hit.ac.cmd.entryRange);
  return { contents: { kind: MarkupKind.Markdown, value: parts.join('\n\n---\n\n') }, range };
}

/** `data` of a flag completion item: the option string, looked up again in `completionItem/resolve`. */
export interface FlagItemData {
  option: string;
  /**
   * For a vLLM command's item: the bundled vLLM release it came from, or `installed` for the
   * runtime catalog of an installed vLLM (resolve looks it up there).
   */
  vllm?: string;
}
/** FlagItemData.vllm of an item from an installed vLLM's catalog. */
export const INSTALLED_VLLM = 'installed';

/** Most flag items sent per request; beyond it the list is marked incomplete and re-requested as the user types. */
export const MAX_FLAG_ITEMS = 100;
const MAX_DETAIL = 60;

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

interface CachedItem {
  item: CompletionItem;
  lower: string;
}
const completionCache = new WeakMap<CatalogIndex, CachedItem[]>();
/** Lean flag items (no documentation: that comes from `completionItem/resolve`), sorted by sortText. */
function flagItems(index: CatalogIndex): CachedItem[] {
  let items = completionCache.get(index);
  if (items) return items;
  items = [];
  for (const [option, e] of index.byOption) {
    const d = defaultText(e);
    // detail is plain text: make controls visible so a bidi override cannot reorder it.
    const detail = showControls(
      [e.type, d !== undefined ? `default ${d}` : undefined, option !== e.flag && !e.negations.includes(option) ? `alias of ${e.flag}` : undefined]
        .filter(Boolean)
        .join(' · '),
    );
    const vllm = index.meta.kind === 'runtime' ? INSTALLED_VLLM : (index.meta.version ?? 'main');
    const data: FlagItemData = index.meta.engine === 'vllm' ? { option, vllm } : { option };
    const item: CompletionItem = {
      label: option,
      kind: CompletionItemKind.Property,
      detail: detail ? clip(detail, MAX_DETAIL) : undefined,
      sortText: `${e.deprecated ? '1' : '0'}${option}`,
      data,
    };
    if (e.deprecated) item.tags = [CompletionItemTag.Deprecated];
    items.push({ item, lower: option.toLowerCase() });
  }
  items.sort((a, b) => (a.item.sortText! < b.item.sortText! ? -1 : a.item.sortText! > b.item.sortText! ? 1 : 0));
  completionCache.set(index, items);
  return items;
}

/** The client's fuzzy filter keeps an item when the typed characters occur in order in its label. */
function subsequence(word: string, label: string): boolean {
  let j = 0;
  for (let i = 0; i < label.length && j < word.length; i++) if (label.charCodeAt(i) === word.charCodeAt(j)) j++;
  return j === word.length;
}

/** Fills `documentation` of a flag completion item (the hover text of its flag). */
export function resolveCompletion(item: CompletionItem, index: CatalogIndex | undefined): CompletionItem {
  const option = (item.data as Partial<FlagItemData> | undefined)?.option;
  if (!index || typeof option !== 'string') return item;
  const e = index.byOption.get(option);
  if (!e) return item;
  return { ...item, documentation: { kind: MarkupKind.Markdown, value: flagMarkdown(e, index, option) } };
}

export interface CompleteOptions {
  /** The client takes `CompletionList.itemDefaults.editRange` (LSP 3.17): items then carry no textEdit. */
  editRangeDefault?: boolean;
}

const WORD_BREAK = /[\s"'[\],=]/;

/** Completion of flags (after `-`/`--`) and of choices (after a flag, or after `--flag=`). */
export function complete(
  analysis: Analysis,
  text: string,
  offset: number,
  pos: Position,
  index: CatalogIndex | undefined,
  options: CompleteOptions = {},
): CompletionList | null {
  // the word under the cursor, back to a separator
  let start = offset;
  while (start > 0 && !/[\s"'[\],]/.test(text[start - 1])) start--;
  const word = text.slice(start, offset);
  const ac = commandAt(analysis, pos);
  if (!ac) return null;
  if (ac.cmd.engine === 'vllm') index = ac.index;
  if (!index) return null;
  const wordRange: Range = { start: { line: pos.line, character: pos.character - word.length }, end: pos };
  const eq = word.indexOf('=');
  if (word.startsWith('-') && eq < 0) {
    // filter on the server (the client filters the same way) and cap: hundreds of options are not worth sending
    const lower = word.toLowerCase();
    const all = flagItems(index);
    const items: CompletionItem[] = [];
    let dropped = false;
    for (const c of all) {
      if (lower.length > 2 && !subsequence(lower, c.lower)) {
        dropped = true;
        continue;
      }
      if (items.length >= MAX_FLAG_ITEMS) {
        dropped = true;
        break;
      }
      items.push(options.editRangeDefault ? c.item : { ...c.item, textEdit: { range: wordRange, newText: c.item.label } });
    }
    const list: CompletionList = { isIncomplete: dropped, items };
    if (options.editRangeDefault) list.itemDefaults = { editRange: wordRange };
    return list;
  }
  let entry: FlagEntry | undefined;
  let valueStart = start;
  if (word.startsWith('--') && eq > 0) {
    entry = index.resolve(word.slice(0, eq))?.entry;
    valueStart = start + eq + 1;
  } else {
    // the previous word must be a flag taking a value
    let p = start;
    while (p > 0 && /[\s"',\\]/.test(text[p - 1])) p--;
    if (p > 0 && text[p - 1] === '\n') return null;
    let q = p;
    while (q > 0 && !WORD_BREAK.test(text[q - 1])) q--;
    const prev = text.slice(q, p);
    if (!prev.startsWith('-')) return null;
    const r = index.resolve(prev);
    if (!r || r.entry.negations.includes(prev)) return null;
    entry = r.entry;
  }
  if (!entry?.choices?.length) return null;
  const range: Range = { start: { line: pos.line, character: pos.character - (offset - valueStart) }, end: pos };
  const dep = new Set((entry.deprecatedChoices ?? []).map((d) => choiceText(d.value)));
  const items: CompletionItem[] = entry.choices.map((c, i) => {
    const t = choiceText(c);
    const item: CompletionItem = {
      label: t,
      kind: CompletionItemKind.EnumMember,
      sortText: `${dep.has(t) ? 1 : 0}${String(i).padStart(4, '0')}`,
      detail: `${entry.flag}${defaultText(entry) === JSON.stringify(c) ? ' (default)' : ''}`,
      textEdit: { range, newText: t },
    };
    if (dep.has(t)) item.tags = [CompletionItemTag.Deprecated];
    return item;
  });
  return { isIncomplete: false, items };
}

function commandAt(analysis: Analysis, pos: Position): AnalyzedCommand | undefined {
  for (const ac of analysis.commands) {
    const r = ac.cmd.range;
    if (inRange(pos, r)) return ac;
    // typing right after the end of the command, on its last line or the next continuation line
    if (pos.line === r.end.line && pos.character >= r.end.character) return ac;
  }
  return undefined;
}

export function symbols(analysis: Analysis): DocumentSymbol[] {
  return analysis.commands.map((ac) => {
    const model = ac.fields.model_path ?? ac.fields.model;
    return {
      name:
        ac.cmd.engine === 'vllm'
          ? ac.cmd.entry === 'api_server'
            ? 'vllm.entrypoints.openai.api_server'
            : 'vllm serve'
          : ac.cmd.entry === 'serve'
            ? 'sglang serve'
            : 'sglang.launch_server',
      detail: typeof model === 'string' ? model : undefined,
      kind: SymbolKind.Function,
      range: ac.cmd.range,
      selectionRange: ac.cmd.entryRange,
      children: ac.flags.map(flagSymbol),
    };
  });
}

function flagSymbol(f: ResolvedFlag): DocumentSymbol {
  const { arg } = f;
  return {
    name: arg.name ?? arg.text,
    detail: (arg.values ?? []).map((v) => v.value).join(' ') || undefined,
    kind: f.entry ? SymbolKind.Property : SymbolKind.Key,
    range: flagSpan(f.arg),
    selectionRange: arg.nameRange ?? arg.range,
  };
}

export function definition(analysis: Analysis, pos: Position, index: CatalogIndex | undefined): Location | null {
  if (!index?.meta.uri) return null;
  const hit = hitAt(analysis, pos);
  const e = hit?.flag?.entry;
  if (!e) return null;
  return { uri: index.meta.uri, range: { start: e.range.start, end: e.range.start } };
}
