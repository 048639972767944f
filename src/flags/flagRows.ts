/**
 * What the Backend Flags view's rows say, for either engine's catalog: the families and the
 * filter, a flag row's description, and where a flag is defined (when a file is known). No VS Code
 * here, so unit tests hold the rows the tree shows.
 */
import { choiceText, type FlagEntry, type FlagFamily } from '../core/flags/types';
import { familyOf, FLAG_FAMILIES } from '../core/flags/family';
import type { FlagDifference } from '../core/flags/runtime';
import type { CatalogEntriesResult } from '../shared/lspProtocol';

/** A /server_info value as the command line would spell it. */
export function valueText(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (v === null) return 'None';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  try {
    return JSON.stringify(v);
  } catch {
    return undefined;
  }
}

export function defaultOf(e: FlagEntry): string | undefined {
  if (e.default !== undefined && e.default !== '==SUPPRESS==') return valueText(e.default);
  return e.defaultExpr;
}

/** Whether a filter (any case) matches a flag's option strings, field, group or choices. */
export function matchesFilter(e: FlagEntry, filter: string): boolean {
  if (!filter) return true;
  const haystack = [e.flag, ...e.aliases, ...e.negations, e.field, e.group ?? '', ...(e.choices ?? []).map(choiceText)].join('\n').toLowerCase();
  return haystack.includes(filter.toLowerCase());
}

/** The entries the filter shows, by family in the view's order, each family's flags sorted. */
export function groupByFamily(entries: readonly FlagEntry[], filter: string): { family: FlagFamily; entries: FlagEntry[] }[] {
  const groups = new Map<FlagFamily, FlagEntry[]>();
  for (const entry of entries) {
    if (!matchesFilter(entry, filter)) continue;
    const family = familyOf(entry);
    const list = groups.get(family);
    if (list) list.push(entry);
    else groups.set(family, [entry]);
  }
  return FLAG_FAMILIES.filter((f) => groups.has(f)).map((family) => ({
    family,
    entries: groups.get(family)!.sort((a, b) => a.flag.localeCompare(b.flag)),
  }));
}

function differenceText(d: FlagDifference): string {
  switch (d.kind) {
    case 'choices-grew':
      return `+${d.added?.length ?? 0} at run time`;
    case 'runtime-only':
      return 'run time only';
    case 'default-differs':
      return 'default differs at run time';
    default:
      return 'not at run time';
  }
}

/** A flag row's description: "● value on the server · default X · deprecated · what differs at run time". */
export function flagRowDescription(e: FlagEntry, onServer: string | undefined, diffs: readonly FlagDifference[]): string {
  const def = defaultOf(e);
  const parts: string[] = [];
  if (onServer !== undefined) parts.push(`● ${onServer}`);
  if (def !== undefined && def !== onServer) parts.push(`default ${def.length > 40 ? `${def.slice(0, 39)}…` : def}`);
  if (e.deprecated) parts.push('deprecated');
  if (diffs.length) parts.push(diffs.map(differenceText).join(', '));
  return parts.join(' · ');
}

/**
 * Where a flag is defined: its own `file` in a split package, else the catalog's file, at its line
 * (runtime entries are looked up by field). Undefined when no file or line is known, as for the
 * bundled catalogs and every vLLM catalog.
 */
export function definitionOf(result: CatalogEntriesResult | undefined, e: FlagEntry): { uri: string; line: number } | undefined {
  if (!result?.definitionUri && !result?.definitionBaseUri) return undefined;
  const line = result.definitionLines?.[e.field] ?? (e.line > 0 ? e.line : undefined);
  const base = result.definitionBaseUri;
  const file = e.file ?? result.definitionFiles?.[e.field];
  const uri = base && file ? `${base.replace(/\/+$/, '')}/${file.split('/').map(encodeURIComponent).join('/')}` : result.definitionUri;
  return uri && line ? { uri, line } : undefined;
}
