/**
 * Reading the bundled catalog: the flag catalog of one release (as a FlagCatalog, so everything
 * that reads a catalog reads this one too), and the history of a flag or a choice across releases:
 * added in, removed in, renamed (from → to), which release a choice first appears in.
 */
import { compareVersions } from '../../release/version';
import { choiceText, fieldFromFlag, type ChoiceValue, type FlagCatalog, type FlagEntry } from '../types';
import type { BundledCatalogData, BundledFacts, BundledFlag, BundledRelease, Span } from './types';

export interface ReleaseMatch {
  index: number;
  release: BundledRelease;
  /** False when the asked version is not bundled and the nearest older one stands in for it. */
  exact: boolean;
}

export type FlagHistoryNote =
  | { kind: 'added-later'; addedIn: string }
  | { kind: 'removed'; removedIn: string; lastIn: string }
  | { kind: 'renamed'; to: string; renamedIn: string }
  | { kind: 'not-yet-renamed'; to: string; from: string; renamedIn: string }
  /** Never a flag of any bundled release, but the dash form of a field that later releases set under another flag. */
  | { kind: 'field-added-later'; as: string; addedIn: string };

export type ChoiceHistoryNote = { kind: 'added-later'; addedIn: string } | { kind: 'removed'; removedIn: string; lastIn: string };

const ZERO_RANGE = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

const inSpans = (spans: Span[], r: number): boolean => spans.some(([a, b]) => a <= r && r <= b);

export class BundledCatalog {
  private readonly catalogs = new Map<number, FlagCatalog>();
  /** Every option string (flag, alias, negation) in any release → the flags declaring it. */
  private readonly byOption = new Map<string, BundledFlag[]>();

  constructor(readonly data: BundledCatalogData) {
    for (const f of data.flags) {
      const options = new Set([f.flag]);
      for (const v of f.variants) for (const o of [...(v.facts.aliases ?? []), ...(v.facts.negations ?? [])]) options.add(o);
      for (const o of options) {
        const list = this.byOption.get(o);
        if (list) list.push(f);
        else this.byOption.set(o, [f]);
      }
    }
  }

  /** "SGLang" or "vLLM", for sentences. */
  get engineLabel(): string {
    return this.data.engine === 'vllm' ? 'vLLM' : 'SGLang';
  }

  get releases(): BundledRelease[] {
    return this.data.releases;
  }

  /** The newest tagged release (an unreleased "main" snapshot is never the default). */
  newest(): ReleaseMatch {
    let i = this.releases.length - 1;
    while (i > 0 && this.releases[i].version === 'main') i--;
    return { index: i, release: this.releases[i], exact: true };
  }

  /** The bundled release for a version: itself, else the nearest older one; "main" asks for the snapshot. */
  match(version: string): ReleaseMatch | undefined {
    const rs = this.releases;
    if (version === 'main') {
      const i = rs.findIndex((r) => r.version === 'main');
      return i >= 0 ? { index: i, release: rs[i], exact: true } : undefined;
    }
    let best: number | undefined;
    for (let i = 0; i < rs.length; i++) {
      if (rs[i].version === 'main') continue;
      const c = compareVersions(rs[i].version, version);
      if (c === undefined) return undefined;
      if (c === 0) return { index: i, release: rs[i], exact: true };
      if (c < 0) best = i;
    }
    return best === undefined ? undefined : { index: best, release: rs[best], exact: false };
  }

  /** The release's catalog; entries have no source location (line 0) and no help of SGLang's. */
  catalogFor(index: number): FlagCatalog {
    let c = this.catalogs.get(index);
    if (!c) {
      c = { entries: this.entriesOf(index), choiceLists: [], era: eraOf(this.releases[index]), diagnostics: [] };
      this.catalogs.set(index, c);
    }
    return c;
  }

  private entriesOf(r: number): FlagEntry[] {
    const out: FlagEntry[] = [];
    for (const f of this.data.flags) {
      const v = f.variants.find((x) => inSpans(x.in, r));
      if (v) out.push(this.entry(f, v.facts));
    }
    return out;
  }

  private entry(f: BundledFlag, facts: BundledFacts): FlagEntry {
    const e: FlagEntry = {
      flag: f.flag,
      aliases: facts.aliases ?? [],
      negations: facts.negations ?? [],
      field: facts.field ?? f.field,
      source: 'add_argument',
      line: 0,
      range: ZERO_RANGE,
    };
    if (facts.type) e.type = facts.type;
    if (facts.action) e.action = facts.action;
    if (facts.nargs !== undefined) e.nargs = facts.nargs;
    if (facts.default !== undefined) e.default = facts.default;
    if (facts.defaultExpr) e.defaultExpr = facts.defaultExpr;
    if (facts.required) e.required = true;
    if (facts.deprecated) e.deprecated = true;
    if (facts.replacement) e.replacement = facts.replacement;
    if (facts.resolvable) e.resolvable = true;
    if (facts.group) e.group = facts.group;
    if (facts.choices !== undefined) e.choices = this.data.choiceSets[facts.choices];
    if (facts.dynamicChoices) e.dynamicChoices = true;
    if (facts.deprecatedChoices) e.deprecatedChoices = facts.deprecatedChoices;
    return e;
  }

  /** Release indices where an option string is accepted (as flag, alias or negation). */
  private optionSpans(option: string): number[] {
    const rs: number[] = [];
    for (const f of this.byOption.get(option) ?? []) {
      for (const v of f.variants) {
        if (v.facts.aliases?.includes(option) || v.facts.negations?.includes(option) || f.flag === option)
          for (const [a, b] of v.in) for (let r = a; r <= b; r++) rs.push(r);
      }
    }
    return [...new Set(rs)].sort((a, b) => a - b);
  }

  /** The releases (version strings) where an option exists. */
  releasesOf(option: string): string[] {
    return this.optionSpans(option).map((r) => this.releases[r].version);
  }

  /** Why an option that release `r` does not accept is unknown there, when other releases know it. */
  explainMissing(option: string, r: number): FlagHistoryNote | undefined {
    const present = this.optionSpans(option);
    if (present.length && present.includes(r)) return undefined;
    const catalog = this.catalogFor(r);
    const known = this.byOption.get(option)?.[0];
    const field = known?.field ?? fieldFromFlag(option);
    // vLLM's field names repeat across config classes (`backend`): a rename keeps the class too
    const group = this.data.engine === 'vllm' ? (known?.variants[known.variants.length - 1]?.facts.group ?? '') : undefined;
    const now = catalog.entries.find((e) => e.field === field && (group === undefined || e.group === group) && !e.deprecated && e.flag !== option);
    if (present.length && present[0] > r) {
      // A later name of a field this release has under another flag: "not yet renamed".
      if (now) return { kind: 'not-yet-renamed', to: option, from: now.flag, renamedIn: this.releases[present[0]].version };
      return { kind: 'added-later', addedIn: this.releases[present[0]].version };
    }
    if (present.length) {
      const last = present[present.length - 1];
      const next = this.releases[last + 1]?.version ?? this.releases[r].version;
      if (now) return { kind: 'renamed', to: now.flag, renamedIn: this.firstWith(now.flag, last + 1) ?? next };
      return { kind: 'removed', removedIn: next, lastIn: this.releases[last].version };
    }
    return this.data.engine === 'vllm' ? undefined : this.fieldAddedLater(field, r);
  }

  /**
   * A name no release accepts that spells a field out ("--fp4-gemm-runner-backend" for
   * fp4_gemm_runner_backend, which SGLang calls --fp4-gemm-backend): the flag that sets the field
   * in the first release after `r` that has it. SGLang only: vLLM's field names repeat across its
   * config classes.
   */
  private fieldAddedLater(field: string, r: number): FlagHistoryNote | undefined {
    let first: { release: number; flag: string } | undefined;
    for (const f of this.data.flags) {
      if (f.field !== field) continue;
      for (const v of f.variants) for (const [a] of v.in) if (!first || a < first.release) first = { release: a, flag: f.flag };
    }
    return first && first.release > r ? { kind: 'field-added-later', as: first.flag, addedIn: this.releases[first.release].version } : undefined;
  }

  /** The first release at or after `from` where the option exists. */
  private firstWith(option: string, from: number): string | undefined {
    const r = this.optionSpans(option).find((x) => x >= from);
    return r === undefined ? undefined : this.releases[r].version;
  }

  /** Why a choice value that release `r` rejects for a field is known in other releases. */
  explainChoice(field: string, value: string, r: number): ChoiceHistoryNote | undefined {
    const has: number[] = [];
    for (const f of this.data.flags) {
      if (f.field !== field) continue;
      for (const v of f.variants) {
        if (v.facts.choices === undefined) continue;
        if (!this.data.choiceSets[v.facts.choices].some((c: ChoiceValue) => choiceText(c) === value)) continue;
        for (const [a, b] of v.in) for (let i = a; i <= b; i++) has.push(i);
      }
    }
    if (!has.length || has.includes(r)) return undefined;
    has.sort((a, b) => a - b);
    if (has[0] > r) return { kind: 'added-later', addedIn: this.releases[has[0]].version };
    const last = has[has.length - 1];
    if (last < r) return { kind: 'removed', removedIn: this.releases[last + 1].version, lastIn: this.releases[last].version };
    return undefined;
  }
}

function eraOf(r: BundledRelease): FlagCatalog['era'] {
  return r.layout === 'split' ? 'dataclass' : r.layout;
}

/** One line for a history note, in the words of a diagnostic. */
export function flagHistoryText(option: string, release: string, n: FlagHistoryNote, engine = 'SGLang'): string {
  switch (n.kind) {
    case 'added-later':
      return `${option} does not exist in ${engine} ${release} (added in ${n.addedIn}).`;
    case 'removed':
      return `${option} was removed in ${engine} ${n.removedIn} (last in ${n.lastIn}); ${release} rejects it.`;
    case 'renamed':
      return `${option} was renamed in ${engine} ${n.renamedIn}: use ${n.to}.`;
    case 'not-yet-renamed':
      return `${option} is the name from ${engine} ${n.renamedIn} on; ${release} calls it ${n.from}.`;
    case 'field-added-later':
      return `${option} does not exist in ${engine} ${release}: ${engine} ${n.addedIn} added this setting, as ${n.as}.`;
  }
}

export function choiceHistoryText(flag: string, value: string, release: string, n: ChoiceHistoryNote, engine = 'SGLang'): string {
  return n.kind === 'added-later'
    ? `Choice ${JSON.stringify(value)} of ${flag} needs ${engine} ≥ ${n.addedIn}; ${release} does not have it.`
    : `Choice ${JSON.stringify(value)} of ${flag} was removed in ${engine} ${n.removedIn} (last in ${n.lastIn}).`;
}
