/**
 * Merging per-release catalogs into the bundled catalog: each flag's facts become variants, each
 * with the releases where that exact set of facts holds. Pure; the build script and the tests call it.
 */
import type { ChoiceValue, FlagCatalog, FlagEntry } from '../types';
import { BUNDLED_SCHEMA, type BundledCatalogData, type BundledEngine, type BundledFacts, type BundledFlag, type BundledRelease, type Span } from './types';

export interface ReleaseCatalog {
  release: Omit<BundledRelease, 'flags'>;
  catalog: FlagCatalog;
}

/** A default expression short and plain enough to be a fact (a name or a literal), not code. */
const PLAIN_EXPR = /^[\w.'"\- ]{1,48}$/;

class ChoiceSets {
  readonly sets: ChoiceValue[][] = [];
  private readonly index = new Map<string, number>();
  id(values: ChoiceValue[]): number {
    const key = JSON.stringify(values);
    let i = this.index.get(key);
    if (i === undefined) {
      i = this.sets.length;
      this.sets.push(values);
      this.index.set(key, i);
    }
    return i;
  }
}

function factsOf(e: FlagEntry, sets: ChoiceSets): BundledFacts {
  const f: BundledFacts = {};
  if (e.aliases.length) f.aliases = [...e.aliases];
  if (e.negations.length) f.negations = [...e.negations];
  if (e.type) f.type = e.type;
  if (e.action) f.action = e.action;
  if (e.nargs !== undefined) f.nargs = e.nargs;
  if (e.default !== undefined) f.default = e.default;
  else if (e.defaultExpr && PLAIN_EXPR.test(e.defaultExpr)) f.defaultExpr = e.defaultExpr;
  if (e.required) f.required = true;
  if (e.deprecated) f.deprecated = true;
  if (e.replacement) f.replacement = e.replacement;
  if (e.resolvable) f.resolvable = true;
  if (e.group) f.group = e.group;
  if (e.choices?.length) f.choices = sets.id(e.choices);
  if (e.dynamicChoices) f.dynamicChoices = true;
  if (e.deprecatedChoices?.length) f.deprecatedChoices = e.deprecatedChoices.map((d) => ({ ...d }));
  return f;
}

export function addToSpans(spans: Span[], r: number): void {
  const last = spans[spans.length - 1];
  if (last && last[1] === r - 1) last[1] = r;
  else spans.push([r, r]);
}

/** A variant names its field only where it is not the flag's newest one. */
function withoutNewestField(f: BundledFlag): BundledFlag {
  for (const v of f.variants) if (v.facts.field === f.field) delete v.facts.field;
  return f;
}

/** Releases must be in ascending order. Help text is dropped: it is the engine's prose. */
export function mergeReleaseCatalogs(list: ReleaseCatalog[], engine: BundledEngine = 'sglang'): BundledCatalogData {
  const sets = new ChoiceSets();
  const byFlag = new Map<string, { flag: BundledFlag; keys: Map<string, number> }>();
  const releases: BundledRelease[] = [];
  list.forEach(({ release, catalog }, r) => {
    const seen = new Set<string>();
    for (const e of catalog.entries) {
      if (seen.has(e.flag)) continue; // a flag declared twice: argparse keeps the first
      seen.add(e.flag);
      let slot = byFlag.get(e.flag);
      if (!slot) {
        slot = { flag: { flag: e.flag, field: e.field, variants: [] }, keys: new Map() };
        byFlag.set(e.flag, slot);
      }
      const facts = { field: e.field, ...factsOf(e, sets) };
      const key = JSON.stringify(facts);
      let v = slot.keys.get(key);
      if (v === undefined) {
        v = slot.flag.variants.length;
        slot.flag.variants.push({ in: [], facts });
        slot.keys.set(key, v);
      }
      addToSpans(slot.flag.variants[v].in, r);
      slot.flag.field = e.field;
    }
    releases.push({ ...release, flags: seen.size });
  });
  return {
    schema: BUNDLED_SCHEMA,
    engine,
    releases,
    choiceSets: sets.sets,
    flags: [...byFlag.values()].map((s) => withoutNewestField(s.flag)),
  };
}
