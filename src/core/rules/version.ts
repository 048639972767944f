/**
 * PEP 440-ish versions (`0.6.16.post4`, `0.5.0rc1`, `2.8.0+cu128`, `0.4.3.dev2`) and ranges
 * (`>=0.6.16.post4,<=0.6.17`, `==0.6.*`, `~=0.6.2`, `<0.6.2 || >=0.7`). Local labels (`+cu128`)
 * are ignored when comparing. Not a full PEP 440 implementation: epochs are not supported.
 */

export interface Version {
  release: number[];
  /** [phase, n]: phase 0 = a, 1 = b, 2 = rc. */
  pre?: [number, number];
  post?: number;
  dev?: number;
}

const RE = /^v?(\d+(?:\.\d+)*)(?:[-_.]?(a|alpha|b|beta|c|rc|pre|preview)[-_.]?(\d*))?(?:(?:[-_.]?(?:post|rev|r)[-_.]?(\d*))|-(\d+))?(?:[-_.]?dev[-_.]?(\d*))?(?:\+[a-z0-9._-]+)?$/i;

export function parseVersion(text: string): Version | null {
  const m = RE.exec(text.trim());
  if (!m) return null;
  const v: Version = { release: m[1].split('.').map(Number) };
  if (m[2]) {
    const p = m[2].toLowerCase();
    const phase = p.startsWith('a') ? 0 : p.startsWith('b') ? 1 : 2;
    v.pre = [phase, m[3] ? Number(m[3]) : 0];
  }
  if (m[4] !== undefined || m[5] !== undefined) v.post = Number(m[4] || m[5] || 0);
  if (m[6] !== undefined) v.dev = Number(m[6] || 0);
  return v;
}

function cmpNum(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Negative, zero or positive as a < b, a == b, a > b. */
export function compareVersions(a: Version, b: Version): number {
  const n = Math.max(a.release.length, b.release.length);
  for (let i = 0; i < n; i++) {
    const c = cmpNum(a.release[i] ?? 0, b.release[i] ?? 0);
    if (c) return c;
  }
  // pre-release key: a dev release of a final version sorts before its pre-releases
  const preKey = (v: Version): [number, number] => (v.pre ? v.pre : v.dev !== undefined && v.post === undefined ? [-1, 0] : [3, 0]);
  const pa = preKey(a);
  const pb = preKey(b);
  const c1 = cmpNum(pa[0], pb[0]) || cmpNum(pa[1], pb[1]);
  if (c1) return c1;
  const c2 = cmpNum(a.post ?? -1, b.post ?? -1);
  if (c2) return c2;
  return cmpNum(a.dev ?? Infinity, b.dev ?? Infinity);
}

interface Spec {
  op: string;
  version: Version;
  prefix?: number[];
}

/** Parses a range; null when any part is malformed. */
export function parseRange(range: string): Spec[][] | null {
  const groups: Spec[][] = [];
  for (const g of range.split('||')) {
    const specs: Spec[] = [];
    for (const part of g.split(',')) {
      const p = part.trim();
      if (!p) continue;
      const m = /^(===|==|!=|<=|>=|~=|<|>)\s*(.+)$/.exec(p);
      if (!m) return null;
      const op = m[1];
      let text = m[2].trim();
      let prefix: number[] | undefined;
      if (text.endsWith('.*') && (op === '==' || op === '!=')) {
        text = text.slice(0, -2);
        if (!/^\d+(\.\d+)*$/.test(text)) return null;
        prefix = text.split('.').map(Number);
      }
      const version = parseVersion(text);
      if (!version) return null;
      if (op === '~=' && version.release.length < 2) return null;
      specs.push(prefix ? { op, version, prefix } : { op, version });
    }
    if (!specs.length) return null;
    groups.push(specs);
  }
  return groups.length ? groups : null;
}

function holds(v: Version, s: Spec): boolean {
  if (s.prefix) {
    const same = s.prefix.every((n, i) => (v.release[i] ?? 0) === n);
    return s.op === '==' ? same : !same;
  }
  const c = compareVersions(v, s.version);
  switch (s.op) {
    case '==':
    case '===':
      return c === 0;
    case '!=':
      return c !== 0;
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    case '>=':
      return c >= 0;
    case '~=': {
      const pre = s.version.release.slice(0, -1);
      return c >= 0 && pre.every((n, i) => (v.release[i] ?? 0) === n);
    }
    default:
      return false;
  }
}

/** Whether `version` satisfies `range`; null when either cannot be parsed. */
export function satisfies(version: string, range: string): boolean | null {
  const v = parseVersion(version);
  const r = parseRange(range);
  if (!v || !r) return null;
  return r.some((group) => group.every((s) => holds(v, s)));
}
