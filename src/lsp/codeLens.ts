/**
 * Code lenses on server_args.py, from the document's catalog (kept up to date incrementally by the
 * server, never re-parsed here): above each flag definition a summary ("--fp4-gemm-backend ·
 * 6 choices · default auto") and the Copy Flag / Find Usages / Reveal actions; above each
 * *_CHOICES list who uses it and whether it can grow at run time. Lenses are memoized per catalog
 * object (a new one exists only after an edit), so repeated requests cost a map lookup.
 */
import type { CodeLens } from 'vscode-languageserver';
import { choiceText, type ChoiceList, type FlagCatalog, type FlagEntry } from '../core/flags';
import { LENS_COMMANDS, type FlagLensArgs } from '../shared/lspProtocol';
import type { CatalogIndex } from './catalogIndex';

const MAX_DEFAULT = 32;

function clip(s: string, max = MAX_DEFAULT): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

function defaultLabel(e: FlagEntry): string | undefined {
  let text: string | undefined;
  if (e.default !== undefined && e.default !== '==SUPPRESS==') {
    text = e.default === null ? 'None' : typeof e.default === 'string' ? e.default || '""' : JSON.stringify(e.default);
  } else if (e.defaultExpr) text = e.defaultExpr;
  if (text === undefined) return undefined;
  return `default ${clip(text)}${e.resolvable ? ' (decided at start-up)' : ''}`;
}

/** Choice values the runtime catalog accepts beyond the file's list. */
function runtimeExtra(e: FlagEntry, runtime: CatalogIndex | undefined): number {
  if (!runtime || !e.choices) return 0;
  const r = runtime.byOption.get(e.flag) ?? runtime.byField.get(e.field);
  if (!r?.choices) return 0;
  const known = new Set(e.choices.map(choiceText));
  return r.choices.filter((c) => !known.has(choiceText(c))).length;
}

/** "--fp4-gemm-backend · 6 choices · default auto" (plus run-time growth and deprecation). */
export function flagLensTitle(e: FlagEntry, runtime?: CatalogIndex): string {
  const parts = [e.flag];
  if (e.choices?.length) {
    const extra = runtimeExtra(e, runtime);
    parts.push(`${e.choices.length} choice${e.choices.length === 1 ? '' : 's'}${extra ? ` (+${extra} at run time)` : ''}`);
  } else if (e.choicesExpr) parts.push('choices decided at run time');
  const d = defaultLabel(e);
  if (d) parts.push(d);
  if (e.deprecated) parts.push(e.replacement ? `deprecated → ${e.replacement}` : 'deprecated');
  return parts.join(' · ');
}

export function choiceListLensTitle(l: ChoiceList): string {
  const n = l.usedBy.length;
  const used = n === 0 ? 'used by no flag' : `used by ${n} flag${n === 1 ? '' : 's'}`;
  return l.growsAtRuntime ? `${used} · can grow at run time` : used;
}

function at(line: number): CodeLens['range'] {
  return { start: { line, character: 0 }, end: { line, character: 0 } };
}

/** Every lens of a catalog, in document order (flags and lists interleaved by line). */
export function buildCodeLenses(catalog: FlagCatalog, uri: string, runtime?: CatalogIndex): CodeLens[] {
  const out: { line: number; lenses: CodeLens[] }[] = [];
  for (const e of catalog.entries) {
    const line = e.range.start.line;
    const range = at(line);
    const args: FlagLensArgs = { flag: e.flag, field: e.field, uri };
    out.push({
      line,
      lenses: [
        { range, command: { title: flagLensTitle(e, runtime), command: '' } },
        { range, command: { title: 'Copy Flag', command: LENS_COMMANDS.copyFlag, arguments: [args] } },
        { range, command: { title: 'Find Usages', command: LENS_COMMANDS.findFieldUsages, arguments: [args] } },
        { range, command: { title: 'Reveal in Backend Flags', command: LENS_COMMANDS.revealFlag, arguments: [args] } },
      ],
    });
  }
  for (const l of catalog.choiceLists) {
    const line = Math.max(0, l.line - 1);
    const title = choiceListLensTitle(l);
    const args: FlagLensArgs = { flag: l.usedBy[0] ?? '', field: '', uri, flags: l.usedBy };
    out.push({
      line,
      lenses: [{ range: at(line), command: l.usedBy.length ? { title, command: LENS_COMMANDS.revealFlag, arguments: [args] } : { title, command: '' } }],
    });
  }
  out.sort((a, b) => a.line - b.line);
  return out.flatMap((x) => x.lenses);
}

const memo = new WeakMap<FlagCatalog, { uri: string; runtime: CatalogIndex | undefined; lenses: CodeLens[] }>();

/** buildCodeLenses, memoized per (catalog object, uri, runtime catalog). */
export function codeLensesFor(catalog: FlagCatalog, uri: string, runtime?: CatalogIndex): CodeLens[] {
  const hit = memo.get(catalog);
  if (hit && hit.uri === uri && hit.runtime === runtime) return hit.lenses;
  const lenses = buildCodeLenses(catalog, uri, runtime);
  memo.set(catalog, { uri, runtime, lenses });
  return lenses;
}
