/**
 * Lookup structures over one flag catalog, built once per catalog version: option string → entry,
 * field → entry, argparse-style abbreviations, "did you mean" suggestions and prebuilt completions.
 */
import { choiceText, takesNoValue, type ChoiceValue, type FlagCatalog, type FlagEntry } from '../core/flags';
import type { CatalogSourceKind } from '../shared/lspProtocol';

export interface CatalogMeta {
  kind: CatalogSourceKind;
  /** File path or host label. */
  label: string;
  /** file:// URI of the server_args.py, when the catalog comes from a file. */
  uri?: string;
  /** file:// URI of the directory entries' `file` paths are relative to (a split package's import root). */
  baseUri?: string;
  version?: string;
  /** Set for a vLLM catalog (absent: SGLang). */
  engine?: 'vllm';
}

export type Arity = 0 | 1 | 'many';

export class CatalogIndex {
  /** Every option string (flag, aliases, negations) → entry. */
  readonly byOption = new Map<string, FlagEntry>();
  /** Field → the non-deprecated entry writing it (first wins). */
  readonly byField = new Map<string, FlagEntry>();
  /** Sorted option strings, for prefix (abbreviation) search. */
  readonly options: string[];

  constructor(
    readonly catalog: FlagCatalog,
    readonly meta: CatalogMeta,
  ) {
    for (const e of catalog.entries) {
      for (const o of [e.flag, ...e.aliases, ...e.negations]) if (!this.byOption.has(o)) this.byOption.set(o, e);
    }
    for (const e of catalog.entries) if (!e.deprecated && !this.byField.has(e.field)) this.byField.set(e.field, e);
    for (const e of catalog.entries) if (!this.byField.has(e.field)) this.byField.set(e.field, e);
    this.options = [...this.byOption.keys()].sort();
  }

  /** Exact option, or argparse's allow_abbrev: a unique prefix of long options. */
  resolve(option: string): { entry: FlagEntry; abbreviationOf?: string } | undefined {
    const exact = this.byOption.get(option);
    if (exact) return { entry: exact };
    if (!option.startsWith('--') || option.length < 3) return undefined;
    let lo = 0;
    let hi = this.options.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.options[mid] < option) lo = mid + 1;
      else hi = mid;
    }
    const hits: string[] = [];
    for (let i = lo; i < this.options.length && this.options[i].startsWith(option); i++) hits.push(this.options[i]);
    if (!hits.length) return undefined;
    const entries = new Set(hits.map((h) => this.byOption.get(h)!));
    if (entries.size !== 1) return undefined;
    return { entry: [...entries][0], abbreviationOf: hits[0] };
  }

  arity(option: string): Arity | undefined {
    const r = this.resolve(option);
    if (!r) return undefined;
    return arityOf(r.entry, option);
  }

  private readonly suggestions = new Map<string, string[]>();

  /** Closest option strings by edit distance (at most `max`, within a distance bound); memoized. */
  suggest(option: string, max = 3): string[] {
    const key = `${max}\u0000${option}`;
    let hit = this.suggestions.get(key);
    if (!hit) {
      hit = this.computeSuggestions(option, max);
      if (this.suggestions.size > 2000) this.suggestions.clear();
      this.suggestions.set(key, hit);
    }
    return hit;
  }

  private computeSuggestions(option: string, max: number): string[] {
    // tight bound: typos are 1-3 edits, and the early exit in editDistance then prunes most options quickly
    const bound = Math.min(3, Math.max(1, Math.floor(option.length / 5)));
    const scored: { o: string; d: number }[] = [];
    for (const o of this.options) {
      if (Math.abs(o.length - option.length) > bound) continue;
      const d = editDistance(option, o, bound);
      if (d <= bound) scored.push({ o, d });
    }
    scored.sort((a, b) => a.d - b.d || a.o.localeCompare(b.o));
    return scored.slice(0, max).map((s) => s.o);
  }
}

export function arityOf(entry: FlagEntry, option: string): Arity {
  if (entry.negations.includes(option)) return 0;
  if (takesNoValue(entry)) return 0;
  if (entry.nargs === '+' || entry.nargs === '*' || (typeof entry.nargs === 'number' && entry.nargs > 1)) return 'many';
  if (entry.nargs === '?') return 1;
  return 1;
}

let rowA = new Int32Array(64);
let rowB = new Int32Array(64);

/** Levenshtein distance with an early exit once every cell of a row exceeds `bound`. */
export function editDistance(a: string, b: string, bound = Infinity): number {
  if (a === b) return 0;
  const n = b.length;
  if (rowA.length < n + 1) {
    rowA = new Int32Array(2 * (n + 1));
    rowB = new Int32Array(2 * (n + 1));
  }
  let prev = rowA;
  let cur = rowB;
  for (let j = 0; j <= n; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = cur[0];
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= n; j++) {
      const cost = ca === b.charCodeAt(j - 1) ? 0 : 1;
      const v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > bound) return rowMin;
    [prev, cur] = [cur, prev];
  }
  return prev[n];
}

/** Choices sorted by closeness to `value` (edit distance, then prefix, then catalog order). */
export function closestChoices(value: string, choices: ChoiceValue[]): ChoiceValue[] {
  const lower = value.toLowerCase();
  return choices
    .map((c, i) => ({ c, i, d: editDistance(lower, choiceText(c).toLowerCase()) }))
    .sort((x, y) => x.d - y.d || x.i - y.i)
    .map((x) => x.c);
}
