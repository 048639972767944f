/**
 * The vLLM side of the bundled catalog: environment variables merged across releases like flags
 * are, and their history (deprecated in favour of a flag, then ignored).
 */
import { addToSpans } from '../bundled/merge';
import type { BundledCatalog, ReleaseMatch } from '../bundled/query';
import type { ReleaseChoice } from '../../release/detect';
import type { ReleaseContext } from '../../release/context';
import type { BundledEnvVar, Span } from '../bundled/types';
import type { ChoiceValue } from '../types';
import { VLLM_ENV_REPLACED_BY, type VllmEnvVar } from './envs';

export { VLLM_BUNDLED_FILE } from '../bundled/load';

/** One list per release, releases ascending (the same order as the catalog's releases). */
export function mergeEnvVars(perRelease: VllmEnvVar[][]): BundledEnvVar[] {
  const byName = new Map<string, { v: BundledEnvVar; keys: Map<string, number> }>();
  perRelease.forEach((vars, r) => {
    for (const e of vars) {
      let slot = byName.get(e.name);
      if (!slot) {
        const v: BundledEnvVar = { name: e.name, variants: [] };
        if (VLLM_ENV_REPLACED_BY[e.name]) v.replacement = VLLM_ENV_REPLACED_BY[e.name];
        slot = { v, keys: new Map() };
        byName.set(e.name, slot);
      }
      const facts: BundledEnvVar['variants'][number]['facts'] = { type: e.type };
      if (e.default !== undefined) facts.default = e.default;
      if (e.choices) facts.choices = e.choices;
      const key = JSON.stringify(facts);
      let i = slot.keys.get(key);
      if (i === undefined) {
        i = slot.v.variants.length;
        slot.v.variants.push({ in: [], facts });
        slot.keys.set(key, i);
      }
      if (!slot.v.variants[i].in.some(([a, b]) => a <= r && r <= b)) addToSpans(slot.v.variants[i].in, r);
    }
  });
  return [...byName.values()].map((s) => s.v);
}

export interface EnvVarStatus {
  name: string;
  /** Facts in the asked release; absent when the release does not read the variable. */
  facts?: { type: string; default?: unknown; choices?: ChoiceValue[] };
  /** The flag that replaces it, when that flag exists in the release. */
  replacement?: string;
  /** `deprecated`: still read, the flag is preferred; `ignored`: gone from envs.py while the flag exists. */
  state: 'current' | 'deprecated' | 'ignored' | 'unknown';
  /** For `ignored`: the last release that still read it. */
  lastIn?: string;
  /** For `deprecated`: the first release with the replacing flag. */
  flagSince?: string;
}

const inSpans = (spans: Span[], r: number): boolean => spans.some(([a, b]) => a <= r && r <= b);

/** What release `r` makes of an environment variable. */
export function envVarStatus(cat: BundledCatalog, name: string, r: number): EnvVarStatus {
  const v = cat.data.env?.find((x) => x.name === name);
  if (!v) return { name, state: 'unknown' };
  const here = v.variants.find((x) => inSpans(x.in, r));
  const flagHere = v.replacement ? cat.releasesOf(v.replacement) : [];
  const hasFlag = flagHere.includes(cat.releases[r].version);
  if (here) {
    if (v.replacement && hasFlag) return { name, facts: here.facts, replacement: v.replacement, state: 'deprecated', flagSince: flagHere[0] };
    return { name, facts: here.facts, state: 'current' };
  }
  const last = Math.max(-1, ...v.variants.flatMap((x) => x.in.map(([, b]) => b)).filter((b) => b < r));
  if (last >= 0 && v.replacement && hasFlag) return { name, replacement: v.replacement, state: 'ignored', lastIn: cat.releases[last].version };
  return { name, state: 'unknown' };
}

/**
 * The bundled release a vLLM version is judged against: itself, else the nearest older one; with no
 * version, or one newer than the newest bundled release, the main snapshot (vLLM releases often and
 * the bundled tags stop before it).
 */
export function vllmMatch(b: BundledCatalog, version?: string): ReleaseMatch {
  const main = b.match('main');
  const newest = b.newest();
  let match = version ? b.match(version) : undefined;
  if (main && (!match || (!match.exact && match.index === newest.index && version !== newest.release.version))) match = main;
  return match ?? newest;
}

/** "0.11.0", or "main (2026-05-19)" for the snapshot. */
export function vllmReleaseLabel(m: ReleaseMatch): string {
  return m.release.version === 'main' ? `main (${m.release.date})` : m.release.version;
}

/** The analysis context of a document's vLLM release choice (chooseRelease over vllmReleasesInText's candidates). */
export function vllmReleaseContext(b: BundledCatalog, choice: ReleaseChoice | undefined): { match: ReleaseMatch; release: ReleaseContext } {
  const c = choice?.chosen;
  const match = vllmMatch(b, c && c.source !== 'default' ? c.version : undefined);
  const label = vllmReleaseLabel(match);
  const detail =
    !c || c.source === 'default'
      ? `no vLLM release found for this file: the newest bundled snapshot, ${label}`
      : `${c.detail}${match.exact ? '' : `; judged against the nearest bundled ${label}`}`;
  return { match, release: { version: label, detail, bundled: b, releaseIndex: match.index } };
}
