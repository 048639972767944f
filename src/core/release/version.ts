/**
 * SGLang release versions, read and ordered as PEP 440 does (packaging's Version), and the
 * PEP 440 version specifiers that requirement pins use. Pure functions, no I/O.
 *
 * Forms SGLang uses: 0.3.0, 0.4.6.post5, 0.5.0rc2, 0.5.10.post1, v0.5.12 (image tags), 0.0.0.dev0
 * (a source checkout), 0.5.6+cu130 (a local build). The whole PEP 440 grammar is read (epochs,
 * the alternative spellings alpha/beta/c/pre/preview/rev/r, `-`/`_` separators) because a pin can
 * be written any of those ways. Differences from packaging: a numeric part longer than 15 digits
 * and a text longer than 200 characters are not versions here (numbers stay exact in a double).
 */

export type PreLabel = 'a' | 'b' | 'rc';

export interface Version {
  epoch: number;
  /** The release segment as written (0.5 stays [0, 5]); comparison ignores trailing zeros. */
  release: number[];
  pre?: { label: PreLabel; n: number };
  post?: number;
  dev?: number;
  /** The local label's parts, lower case (`+cu130` → ['cu130']; `+ubuntu.1` → ['ubuntu', '1']). */
  local?: string[];
}

const MAX_VERSION_TEXT = 200;
const MAX_SPECIFIER_TEXT = 1000;

// packaging's VERSION_PATTERN, anchored, case-insensitive.
const VERSION_RE = new RegExp(
  '^\\s*v?' +
    '(?:([0-9]+)!)?' + // epoch
    '([0-9]+(?:\\.[0-9]+)*)' + // release
    '(?:[-_.]?(alpha|a|beta|b|preview|pre|c|rc)[-_.]?([0-9]+)?)?' + // pre
    '(?:-([0-9]+)|[-_.]?(post|rev|r)[-_.]?([0-9]+)?)?' + // post
    '(?:[-_.]?(dev)[-_.]?([0-9]+)?)?' + // dev
    '(?:\\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?' + // local
    '\\s*$',
  'i',
);

function num(s: string | undefined): number | undefined {
  if (s === undefined) return undefined;
  const digits = s.replace(/^0+(?=\d)/, '');
  return digits.length > 15 ? Number.NaN : Number(digits);
}

/** A PEP 440 version, or undefined when the text is not one. */
export function parseVersion(text: string): Version | undefined {
  if (typeof text !== 'string' || text.length > MAX_VERSION_TEXT) return undefined;
  const m = VERSION_RE.exec(text);
  if (!m) return undefined;
  const [, epochS, releaseS, preL, preN, postN1, postL, postN2, devL, devN, localS] = m;
  const parts: number[] = [];
  const epoch = num(epochS) ?? 0;
  const release = releaseS.split('.').map((p) => num(p)!);
  parts.push(epoch, ...release);
  const v: Version = { epoch, release };
  if (preL) {
    const l = preL.toLowerCase();
    v.pre = { label: l === 'alpha' || l === 'a' ? 'a' : l === 'beta' || l === 'b' ? 'b' : 'rc', n: num(preN) ?? 0 };
    parts.push(v.pre.n);
  }
  if (postN1 !== undefined || postL) {
    v.post = num(postN1 ?? postN2) ?? 0;
    parts.push(v.post);
  }
  if (devL) {
    v.dev = num(devN) ?? 0;
    parts.push(v.dev);
  }
  if (localS) v.local = localS.toLowerCase().split(/[-_.]/);
  if (release.length > 32 || (v.local && v.local.length > 32) || parts.some((p) => !Number.isFinite(p))) return undefined;
  return v;
}

/** The canonical text of a version (packaging's str(Version)): `v0.5.6-post2` → `0.5.6.post2`. */
export function formatVersion(v: Version): string {
  let s = (v.epoch ? `${v.epoch}!` : '') + v.release.join('.');
  if (v.pre) s += `${v.pre.label}${v.pre.n}`;
  if (v.post !== undefined) s += `.post${v.post}`;
  if (v.dev !== undefined) s += `.dev${v.dev}`;
  if (v.local) s += `+${v.local.join('.')}`;
  return s;
}

/** The canonical text of a version, or undefined when the text is not one. */
export function normalizeVersion(text: string): string | undefined {
  const v = parseVersion(text);
  return v && formatVersion(v);
}

/** The version without its local label (what `>=`, `<=` and `==` without a local compare). */
export function publicVersion(v: Version): Version {
  const { local: _local, ...pub } = v;
  return pub;
}

/** The release segment alone (packaging's base_version): 0.5.0rc2 → 0.5.0. */
export function baseVersion(v: Version): Version {
  return { epoch: v.epoch, release: v.release };
}

/** A pre-release or a development release (PEP 440 leaves both out of a specifier unless asked). */
export function isPrerelease(v: Version): boolean {
  return v.pre !== undefined || v.dev !== undefined;
}

function cmpNum(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const PRE_ORDER: Record<PreLabel, number> = { a: 0, b: 1, rc: 2 };

function cmpLocal(a: string[] | undefined, b: string[] | undefined): number {
  if (!a || !b) return a ? 1 : b ? -1 : 0; // no local label sorts first
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const an = /^[0-9]+$/.test(a[i]);
    const bn = /^[0-9]+$/.test(b[i]);
    let c: number;
    if (an && bn) c = cmpNum(Number(a[i]), Number(b[i]));
    else if (an !== bn)
      c = an ? 1 : -1; // a number sorts after a word
    else c = a[i] < b[i] ? -1 : a[i] > b[i] ? 1 : 0;
    if (c) return c;
  }
  return cmpNum(a.length, b.length);
}

/** PEP 440 order of two parsed versions: negative, zero or positive. */
export function compareParsed(a: Version, b: Version): number {
  let c = cmpNum(a.epoch, b.epoch);
  if (c) return c;
  const n = Math.max(a.release.length, b.release.length);
  for (let i = 0; i < n; i++) {
    c = cmpNum(a.release[i] ?? 0, b.release[i] ?? 0);
    if (c) return c;
  }
  // Pre-release: a dev release of the final (1.0.dev0) sorts before 1.0a0; a final after every pre.
  const preKey = (v: Version): [number, number] => (v.pre ? [PRE_ORDER[v.pre.label], v.pre.n] : v.post === undefined && v.dev !== undefined ? [-1, 0] : [3, 0]);
  const [ap, an] = preKey(a);
  const [bp, bn] = preKey(b);
  c = cmpNum(ap, bp) || cmpNum(an, bn);
  if (c) return c;
  c = cmpNum(a.post ?? -1, b.post ?? -1);
  if (c) return c;
  c = cmpNum(a.dev ?? Infinity, b.dev ?? Infinity);
  if (c) return c;
  return cmpLocal(a.local, b.local);
}

/**
 * PEP 440 order of two version texts: negative when a is older, zero when equal, positive when
 * newer. A text that is not a version sorts before every version (two such texts compare by text),
 * so sorting a list with junk in it never throws.
 */
export function compareVersions(a: string, b: string): number {
  const va = parseVersion(a);
  const vb = parseVersion(b);
  if (va && vb) return compareParsed(va, vb);
  if (va || vb) return va ? 1 : -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Specifiers

export type SpecifierOperator = '~=' | '==' | '!=' | '<=' | '>=' | '<' | '>' | '===';

export interface SpecifierClause {
  op: SpecifierOperator;
  /** The version text as written (for `===`, the text compared). */
  text: string;
  /** Parsed version; absent for `===` of a non-version. */
  version?: Version;
  /** `==1.0.*` / `!=1.0.*`. */
  wildcard: boolean;
}

/** A specifier set (clauses that must all hold); `||` alternatives are a list of these. */
export type SpecifierSet = SpecifierClause[];

const CLAUSE_RE = /^\s*(~=|===|==|!=|<=|>=|<|>)\s*([^\s,;]+)\s*$/;

/** One PEP 440 specifier set (`>=0.4.6, <0.5`); an empty text is the set that allows every version. */
export function parseSpecifierSet(text: string): SpecifierSet | undefined {
  if (typeof text !== 'string' || text.length > MAX_SPECIFIER_TEXT) return undefined;
  if (!text.trim()) return [];
  const out: SpecifierSet = [];
  for (const part of text.split(',')) {
    const m = CLAUSE_RE.exec(part);
    if (!m) return undefined;
    const op = m[1] as SpecifierOperator;
    let vtext = m[2];
    if (op === '===') {
      out.push({ op, text: vtext, version: parseVersion(vtext), wildcard: false });
      continue;
    }
    const wildcard = vtext.endsWith('.*');
    if (wildcard) {
      if (op !== '==' && op !== '!=') return undefined;
      vtext = vtext.slice(0, -2);
    }
    const version = parseVersion(vtext);
    if (!version) return undefined;
    if (wildcard && (version.dev !== undefined || version.local)) return undefined;
    if (version.local && op !== '==' && op !== '!=') return undefined;
    if (op === '~=' && (version.release.length < 2 || version.local)) return undefined;
    out.push({ op, text: m[2], version, wildcard });
  }
  return out;
}

/**
 * A specifier: PEP 440 specifier sets, optionally several joined by `||` (either may hold, as
 * Poetry writes constraints; PEP 440 itself has no "or"). A bare version (`0.5.6`) means `==0.5.6`.
 */
export function parseSpecifier(text: string): SpecifierSet[] | undefined {
  if (typeof text !== 'string' || text.length > MAX_SPECIFIER_TEXT) return undefined;
  const alternatives: SpecifierSet[] = [];
  for (const alt of text.split('||')) {
    const bare = parseVersion(alt);
    const set = bare ? [{ op: '==' as const, text: alt.trim(), version: bare, wildcard: false }] : parseSpecifierSet(alt);
    if (!set) return undefined;
    alternatives.push(set);
  }
  return alternatives;
}

/** packaging's _version_split over a canonical text: `1!0.5rc1` → ['1', '0', '5', 'rc1']. */
function versionSplit(v: Version): string[] {
  const parts = [String(v.epoch), ...v.release.map(String)];
  if (v.pre) parts.push(`${v.pre.label}${v.pre.n}`);
  if (v.post !== undefined) parts.push(`post${v.post}`);
  if (v.dev !== undefined) parts.push(`dev${v.dev}`);
  return parts;
}

function prefixMatch(candidate: Version, prefix: Version): boolean {
  const spec = versionSplit(prefix);
  const cand = versionSplit(publicVersion(candidate));
  // Pad the release parts (epoch and release, the leading numbers) to the same length.
  const specRel = 1 + prefix.release.length;
  const candRel = 1 + candidate.release.length;
  const padded = [...cand.slice(0, candRel), ...Array<string>(Math.max(0, specRel - candRel)).fill('0'), ...cand.slice(candRel)];
  const short = padded.slice(0, spec.length);
  return short.length === spec.length && short.every((p, i) => p === spec[i]);
}

function clauseHolds(c: SpecifierClause, raw: string, v: Version | undefined): boolean {
  if (c.op === '===') return raw.trim().toLowerCase() === c.text.toLowerCase();
  if (!v || !c.version) return false;
  const spec = c.version;
  switch (c.op) {
    case '==':
    case '!=': {
      let eq: boolean;
      if (c.wildcard) eq = prefixMatch(v, spec);
      else eq = compareParsed(spec.local ? v : publicVersion(v), spec) === 0;
      return c.op === '==' ? eq : !eq;
    }
    case '~=': {
      const prefix: Version = { epoch: spec.epoch, release: spec.release.slice(0, -1) };
      return compareParsed(publicVersion(v), spec) >= 0 && prefixMatch(v, prefix);
    }
    case '>=':
      return compareParsed(publicVersion(v), spec) >= 0;
    case '<=':
      return compareParsed(publicVersion(v), spec) <= 0;
    case '<':
      if (compareParsed(v, spec) >= 0) return false;
      // <0.5 does not admit 0.5.0rc1 unless the bound is itself a pre-release.
      return isPrerelease(spec) || !isPrerelease(v) || compareParsed(baseVersion(v), baseVersion(spec)) !== 0;
    case '>':
      if (compareParsed(v, spec) <= 0) return false;
      // >0.5 does not admit 0.5.post1 (unless the bound is a post release) nor 0.5+local.
      if (spec.post === undefined && v.post !== undefined && compareParsed(baseVersion(v), baseVersion(spec)) === 0) return false;
      return !(v.local && compareParsed(baseVersion(v), baseVersion(spec)) === 0);
  }
}

/** Whether a specifier set names a pre-release (then it admits pre-releases: `>=0.5.0rc0`). */
export function mentionsPrerelease(sets: SpecifierSet[]): boolean {
  return sets.some((s) => s.some((c) => c.op !== '!=' && c.version !== undefined && isPrerelease(c.version)));
}

export interface SatisfiesOptions {
  /**
   * Whether a pre-release may satisfy. Default true: the version asked about is one that exists
   * (installed, reported by a server), which PEP 440 lets a specifier match. `false` is pip's
   * choice among available releases (see pickRelease).
   */
  prereleases?: boolean;
}

/**
 * Whether a version satisfies a specifier (`==0.5.6`, `>=0.4.6,<0.5`, `~=0.5.2`, `===0.5.6`,
 * `!=0.5.3`, `==0.5.*`, Poetry-style `||` alternatives, a bare version as `==`). An invalid
 * specifier or version satisfies nothing (except `===`, which compares text).
 */
export function satisfies(version: string, specifier: string, options: SatisfiesOptions = {}): boolean {
  const sets = parseSpecifier(specifier);
  if (!sets || typeof version !== 'string' || version.length > MAX_VERSION_TEXT) return false;
  const v = parseVersion(version);
  if (v && options.prereleases === false && isPrerelease(v) && !mentionsPrerelease(sets)) return false;
  return sets.some((set) => set.every((c) => clauseHolds(c, version, v)));
}

/**
 * The newest of the known releases that satisfies the specifier (`>=0.5.2` → the newest known),
 * or undefined when none does. As pip chooses: pre-releases only when the specifier names one or
 * when nothing else satisfies it. Returns the known release's text as given.
 */
export function pickRelease(specifier: string, knownReleases: readonly string[]): string | undefined {
  const sets = parseSpecifier(specifier);
  if (!sets || !Array.isArray(knownReleases)) return undefined;
  const withPre = mentionsPrerelease(sets);
  let best: { text: string; v: Version } | undefined;
  let bestPre: { text: string; v: Version } | undefined;
  for (const text of knownReleases) {
    if (typeof text !== 'string') continue;
    const v = parseVersion(text);
    if (!v || !sets.some((set) => set.every((c) => clauseHolds(c, text, v)))) continue;
    if (isPrerelease(v) && !withPre) {
      if (!bestPre || compareParsed(v, bestPre.v) > 0) bestPre = { text, v };
    } else if (!best || compareParsed(v, best.v) > 0) best = { text, v };
  }
  return (best ?? bestPre)?.text;
}

/** The newest version in a list (texts that are not versions are skipped), or undefined. */
export function newestVersion(versions: readonly string[], options: { prereleases?: boolean } = {}): string | undefined {
  let best: { text: string; v: Version } | undefined;
  for (const text of versions) {
    const v = typeof text === 'string' ? parseVersion(text) : undefined;
    if (!v || (options.prereleases === false && isPrerelease(v))) continue;
    if (!best || compareParsed(v, best.v) > 0) best = { text, v };
  }
  return best?.text;
}

/**
 * The known release whose catalog fits a version: the one equal to it (a local label ignored:
 * 0.5.6+cu130 is 0.5.6), else the newest known release before it; undefined when every known
 * release is newer or the text is not a version.
 */
export function nearestKnownRelease(version: string, knownReleases: readonly string[]): string | undefined {
  const v = parseVersion(version);
  if (!v) return undefined;
  const pub = publicVersion(v);
  let best: { text: string; v: Version } | undefined;
  for (const text of knownReleases) {
    const k = typeof text === 'string' ? parseVersion(text) : undefined;
    if (!k) continue;
    const c = compareParsed(publicVersion(k), pub);
    if (c === 0) return text;
    if (c < 0 && (!best || compareParsed(k, best.v) > 0)) best = { text, v: k };
  }
  return best?.text;
}

// ---------------------------------------------------------------------------------------------
// Poetry constraints

/** Poetry's `^`: the next version that may break (^1.2.3 → 2.0.0, ^0.5.2 → 0.6.0, ^0.0.3 → 0.0.4). */
function nextBreaking(v: Version, given: number): number[] {
  const [major = 0, minor = 0] = v.release;
  if (major > 0 || given < 2) return [major + 1, 0, 0];
  if (minor > 0 || given < 3) return [0, minor + 1, 0];
  return [0, 0, (v.release[2] ?? 0) + 1];
}

const POETRY_CLAUSE_RE = /^(\^|~=|~|===|==|!=|<=|>=|<|>|=)?\s*(\S+)$/;

function poetryClause(text: string): { spec: string; exact: boolean } | undefined {
  const m = POETRY_CLAUSE_RE.exec(text.trim());
  if (!m) return undefined;
  const op = m[1] ?? '';
  const vtext = m[2];
  if (!op && (vtext === '*' || vtext === '')) return { spec: '', exact: false };
  if ((op === '' || op === '==' || op === '=') && /^[^*]+\.\*$/.test(vtext)) {
    return parseVersion(vtext.slice(0, -2)) ? { spec: `==${normalizeVersion(vtext.slice(0, -2))}.*`, exact: false } : undefined;
  }
  if (op === '!=' && /\.\*$/.test(vtext))
    return parseVersion(vtext.slice(0, -2)) ? { spec: `!=${normalizeVersion(vtext.slice(0, -2))}.*`, exact: false } : undefined;
  const v = parseVersion(vtext);
  if (!v) return undefined;
  const norm = formatVersion(v);
  const given = v.release.length;
  switch (op) {
    case '':
    case '=':
    case '==':
      return { spec: `==${norm}`, exact: true };
    case '===':
      return { spec: `===${vtext}`, exact: true };
    case '^':
      return { spec: `>=${norm},<${nextBreaking(v, given).join('.')}`, exact: false };
    case '~': {
      const [major = 0, minor = 0] = v.release;
      const upper = given < 2 ? [major + 1, 0, 0] : [major, minor + 1, 0];
      return { spec: `>=${norm},<${upper.join('.')}`, exact: false };
    }
    default:
      return parseSpecifierSet(`${op}${norm}`) ? { spec: `${op}${norm}`, exact: false } : undefined;
  }
}

/**
 * A Poetry version constraint (`^0.5.2`, `~0.5`, `0.5.2`, `>=0.5,<0.6`, `>=0.5 <0.6`, `0.5.*`, `*`,
 * `^0.4 || ^0.5`) as a PEP 440 specifier (`>=0.5.2,<0.6.0`; alternatives joined by `||`, which
 * satisfies and pickRelease read). `exact` when it names one version. Undefined when not readable.
 */
export function poetryToPep440(constraint: string): { specifier: string; exact: boolean } | undefined {
  if (typeof constraint !== 'string' || constraint.length > MAX_SPECIFIER_TEXT) return undefined;
  const alts: string[] = [];
  let exact = false;
  const parts = constraint.split('||');
  for (const alt of parts) {
    // An "and" is a comma, or whitespace between clauses (an operator may be spaced from its version).
    const clauses = alt
      .replace(/(\^|~=|~|===|==|!=|<=|>=|<|>|=)\s+/g, '$1')
      .split(/[\s,]+/)
      .filter(Boolean);
    if (!clauses.length) clauses.push('*');
    const specs: string[] = [];
    for (const c of clauses) {
      const r = poetryClause(c);
      if (!r) return undefined;
      if (r.spec) specs.push(r.spec);
      exact = r.exact && clauses.length === 1 && parts.length === 1;
    }
    if (!specs.length) return { specifier: '', exact: false }; // `*` in any alternative allows everything
    alts.push(specs.join(','));
  }
  return { specifier: alts.join(' || '), exact };
}
