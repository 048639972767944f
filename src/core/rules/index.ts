/**
 * Known-bad combinations as data: loading and validating rule files, merging workspace rules over the
 * built-in ones, and matching rules against what is known about a server.
 */
import builtinData from '../../../rules/known-bad.json';
import schemaData from '../../../rules/known-bad.schema.json';
import { type Schema, validate } from './schema';
import { parseRange, satisfies } from './version';
import type { ConditionResult, KnownBadRule, MatchContext, RuleError, RuleLoadResult, RuleMatchResult, Scalar, ValueCondition } from './types';

export type * from './types';
export { compareVersions, parseRange, parseVersion, satisfies } from './version';
export { validate as validateAgainstSchema } from './schema';

export const ruleSchema = schemaData as Schema;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const globCache = new Map<string, RegExp>();

/** Case-insensitive glob (`*`, `?`) to a RegExp; no other metacharacters, so user globs cannot blow up. Compiled once per glob. */
export function globToRegExp(glob: string): RegExp {
  let hit = globCache.get(glob);
  if (!hit) {
    let re = '';
    for (const ch of glob) re += ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    hit = new RegExp(`^${re.replace(/(\.\*)+/g, '.*')}$`, 'is');
    if (globCache.size > 4096) globCache.clear();
    globCache.set(glob, hit);
  }
  return hit;
}

/** Checks beyond the schema: ranges parse, CC ranges are ordered. */
function semanticErrors(rule: KnownBadRule, base: string): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  for (const [pkg, range] of Object.entries(rule.match.versions ?? {})) {
    if (!parseRange(range)) out.push({ path: `${base}/match/versions/${pkg}`, message: `cannot parse version range ${JSON.stringify(range)}` });
  }
  const cc = rule.match.gpu?.computeCapability;
  if (cc && 'min' in cc && cc.min !== undefined && cc.max !== undefined && cc.min > cc.max) {
    out.push({ path: `${base}/match/gpu/computeCapability`, message: `min ${cc.min} is above max ${cc.max}` });
  }
  const fixes = [rule.fix, ...(rule.alternatives ?? [])];
  fixes.forEach((f, i) => {
    for (const [k, p] of (f.packages ?? []).entries()) {
      if (p.range && !parseRange(p.range)) out.push({ path: `${base}/${i ? `alternatives/${i - 1}` : 'fix'}/packages/${k}/range`, message: `cannot parse version range ${JSON.stringify(p.range)}` });
    }
  });
  return out;
}

/**
 * Validates a parsed rule file. The file's outer shape must be right; after that each rule is checked
 * on its own, so one bad rule is skipped (with errors) without losing the others.
 */
export function loadRules(data: unknown, source: string): RuleLoadResult {
  const result: RuleLoadResult = { rules: [], errors: [], disabled: [] };
  const fail = (path: string, message: string, rule?: string): void => {
    result.errors.push({ source, path, message, ...(rule !== undefined ? { rule } : {}) });
  };
  if (!isObj(data)) {
    fail('/', 'a rules file must be a JSON object with a "rules" array');
    return result;
  }
  // the outer shape, without descending into rules
  const outer = validate(ruleSchema, { ...data, rules: Array.isArray(data.rules) ? [] : data.rules });
  for (const e of outer) fail(e.path, e.message);
  if (!Array.isArray(data.rules)) return result;
  if (Array.isArray(data.disable)) result.disabled = data.disable.filter((d): d is string => typeof d === 'string');
  const ruleSchemaRef: Schema = { $ref: '#/$defs/rule' };
  const seen = new Set<string>();
  data.rules.forEach((raw: unknown, i: number) => {
    const base = `/rules/${i}`;
    const id = isObj(raw) && typeof raw.id === 'string' ? raw.id : `#${i}`;
    const errs = validate(ruleSchema, raw, ruleSchemaRef, base);
    if (!errs.length) errs.push(...semanticErrors(raw as KnownBadRule, base));
    if (!errs.length && seen.has(id)) errs.push({ path: `${base}/id`, message: `duplicate rule id "${id}" in this file` });
    if (errs.length) {
      for (const e of errs) fail(e.path, e.message, id);
      return;
    }
    seen.add(id);
    result.rules.push({ ...(raw as KnownBadRule), origin: source });
  });
  return result;
}

/** Parses and validates the text of a rules file (e.g. `.inference-doctor/rules.json`). */
export function parseRulesText(text: string, source: string): RuleLoadResult {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return { rules: [], disabled: [], errors: [{ source, path: '/', message: `not valid JSON: ${(e as Error).message}` }] };
  }
  return loadRules(data, source);
}

let builtinCache: RuleLoadResult | null = null;

/** The rules shipped in rules/known-bad.json (validated once). */
export function builtinRules(): RuleLoadResult {
  builtinCache ??= loadRules(builtinData, 'builtin');
  return builtinCache;
}

export interface MergedRules {
  rules: KnownBadRule[];
  errors: RuleError[];
  /** Built-in ids replaced by a workspace rule with the same id. */
  overridden: string[];
  /** Ids turned off by a `disable` list. */
  disabled: string[];
}

/**
 * Workspace rules over built-in ones: a workspace rule with a built-in's id replaces it, new ids are
 * added, `disable` lists turn rules off. `workspace` may be load results or raw parsed files
 * (`{ source, data }`); invalid rules are skipped and reported in `errors`.
 */
export function mergeRules(
  builtin: KnownBadRule[] | RuleLoadResult,
  workspace: RuleLoadResult | { source: string; data: unknown } | (RuleLoadResult | { source: string; data: unknown })[],
): MergedRules {
  const base = Array.isArray(builtin) ? { rules: builtin, errors: [], disabled: [] } : builtin;
  const out: MergedRules = { rules: [], errors: [...base.errors], overridden: [], disabled: [] };
  const byId = new Map<string, KnownBadRule>();
  for (const r of base.rules) byId.set(r.id, r);
  const list = Array.isArray(workspace) ? workspace : [workspace];
  const disabled = new Set<string>();
  for (const w of list) {
    const res: RuleLoadResult = 'data' in w ? loadRules(w.data, w.source) : w;
    out.errors.push(...res.errors);
    for (const d of res.disabled) disabled.add(d);
    for (const r of res.rules) {
      if (byId.has(r.id) && byId.get(r.id)!.origin === 'builtin') out.overridden.push(r.id);
      byId.set(r.id, r);
    }
  }
  for (const [id, r] of byId) {
    if (disabled.has(id)) out.disabled.push(id);
    else out.rules.push(r);
  }
  return out;
}

// ---------------------------------------------------------------- matching

const norm = (v: unknown): string =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v).trim().toLowerCase() : v === null || v === undefined ? 'null' : JSON.stringify(v);
const PKG_ALIASES: Record<string, string> = { 'flashinfer-python': 'flashinfer', 'flashinfer-cubin': 'flashinfer', sgl_kernel: 'sgl-kernel', 'sglang-kernel': 'sgl-kernel' };
const normPkg = (p: string): string => {
  const n = p.trim().toLowerCase().replace(/_/g, '-');
  return PKG_ALIASES[n] ?? PKG_ALIASES[p.toLowerCase()] ?? n;
};

function valueHolds(cond: ValueCondition, v: unknown): boolean {
  const values = Array.isArray(v) ? v : [v];
  const list: Scalar[] = Array.isArray(cond) ? cond : cond.notIn;
  const hit = values.some((x) => list.some((c) => norm(c) === norm(x)));
  return Array.isArray(cond) ? hit : !hit;
}

function listText(list: Scalar[]): string {
  return list.map((x) => (x === null ? 'the default' : String(x))).join(' / ');
}

function ccText(rule: KnownBadRule): string {
  const g = rule.match.gpu!;
  if (g.label) return g.label;
  const cc = g.computeCapability;
  if (!cc) return 'some GPUs';
  if ('in' in cc) return `SM ${cc.in.map((x) => x.toFixed(1)).join(' / ')} GPUs`;
  if (cc.min !== undefined && cc.max !== undefined && Math.floor(cc.min) === Math.floor(cc.max)) return `SM ${Math.floor(cc.min)}.x GPUs`;
  return `GPUs with compute capability ${cc.min ?? ''}–${cc.max ?? ''}`;
}

function modelName(ctx: MatchContext): string | undefined {
  if (ctx.modelName) return ctx.modelName;
  for (const k of ['model_path', 'served_model_name', 'model']) if (typeof ctx.fields[k] === 'string') return ctx.fields[k];
  return undefined;
}

/** Evaluates every condition of one rule. */
export function evaluateRule(rule: KnownBadRule, ctx: MatchContext): ConditionResult[] {
  const res: ConditionResult[] = [];
  const m = rule.match;
  const model = modelName(ctx);
  for (const [field, cond] of Object.entries(m.fields ?? {})) {
    const has = Object.prototype.hasOwnProperty.call(ctx.fields, field);
    const v = ctx.fields[field];
    const want = Array.isArray(cond) ? `is ${listText(cond)}` : `is not ${listText(cond.notIn)}`;
    if (!has || v === undefined) res.push({ kind: 'field', key: field, state: 'unknown', message: `applies when ${field} ${want}; its value is unknown` });
    else res.push({ kind: 'field', key: field, state: valueHolds(cond, v) ? 'held' : 'failed', message: `${field} = ${v === null ? 'default' : JSON.stringify(v)} (rule: ${want})` });
  }
  if (m.gpu?.computeCapability) {
    const cc = m.gpu.computeCapability;
    const what = ccText(rule);
    if (ctx.computeCapability === undefined) res.push({ kind: 'gpu', key: 'gpu', state: 'unknown', message: `applies to ${what}; the GPU is unknown` });
    else {
      const x = Math.round(ctx.computeCapability * 10) / 10;
      const ok = 'in' in cc ? cc.in.some((c) => Math.abs(c - x) < 1e-6) : (cc.min === undefined || x >= cc.min - 1e-6) && (cc.max === undefined || x <= cc.max + 1e-6);
      res.push({ kind: 'gpu', key: 'gpu', state: ok ? 'held' : 'failed', message: `GPU compute capability ${x.toFixed(1)} (rule: ${what})` });
    }
  }
  if (m.quantization) {
    const q = ctx.quantization ?? (typeof ctx.fields.quantization === 'string' ? ctx.fields.quantization : undefined);
    const want = m.quantization.in.join(' / ');
    if (q !== undefined) {
      res.push({ kind: 'quantization', key: 'quantization', state: m.quantization.in.some((x) => norm(x) === norm(q)) ? 'held' : 'failed', message: `quantization ${q} (rule: ${want})` });
    } else if (model && (m.quantization.modelHints ?? []).some((g) => globToRegExp(g).test(model))) {
      res.push({ kind: 'quantization', key: 'quantization', state: 'held', message: `the model name ${model} suggests ${want} weights` });
    } else res.push({ kind: 'quantization', key: 'quantization', state: 'unknown', message: `applies to ${want} checkpoints; the quantization is unknown` });
  }
  if (m.model) {
    if (!model) res.push({ kind: 'model', key: 'model', state: 'unknown', message: `applies to models like ${m.model.join(', ')}; the model is unknown` });
    else {
      const ok = m.model.some((g) => globToRegExp(g).test(model));
      res.push({ kind: 'model', key: 'model', state: ok ? 'held' : 'failed', message: `model ${model} (rule: ${m.model.join(', ')})` });
    }
  }
  const versions = new Map<string, string>();
  for (const [k, v] of Object.entries(ctx.versions ?? {})) versions.set(normPkg(k), v);
  for (const [pkg, range] of Object.entries(m.versions ?? {})) {
    const v = versions.get(normPkg(pkg));
    const ok = v === undefined ? null : satisfies(v, range);
    if (ok === null) res.push({ kind: 'version', key: pkg, state: 'unknown', message: `applies to ${pkg} ${range}; ${v === undefined ? 'the installed version is unknown' : `cannot read version ${JSON.stringify(v)}`}` });
    else res.push({ kind: 'version', key: pkg, state: ok ? 'held' : 'failed', message: `${pkg} ${v} (rule: ${range})` });
  }
  for (const [name, values] of Object.entries(m.env ?? {})) {
    if (!ctx.env) res.push({ kind: 'env', key: name, state: 'unknown', message: `applies when ${name} is ${values.join(' / ')}; the environment is unknown` });
    else {
      const v = ctx.env[name];
      res.push({ kind: 'env', key: name, state: v !== undefined && values.includes(v) ? 'held' : 'failed', message: `${name}=${v ?? '(unset)'} (rule: ${values.join(' / ')})` });
    }
  }
  return res;
}

/**
 * Rules whose conditions do not fail: `match` when all held, `possible` when some are unknown.
 * A rule needs at least one condition that held (so an empty context matches nothing), unless
 * `includeAllUnknown` is set.
 */
export function matchRules(rules: KnownBadRule[], context: MatchContext, options: { includeAllUnknown?: boolean } = {}): RuleMatchResult[] {
  const out: RuleMatchResult[] = [];
  for (const rule of rules) {
    if (context.engine && rule.engine !== context.engine) continue;
    const conds = evaluateRule(rule, context);
    if (conds.some((c) => c.state === 'failed')) continue;
    const held = conds.filter((c) => c.state === 'held');
    const unknown = conds.filter((c) => c.state === 'unknown');
    if (!held.length && !options.includeAllUnknown) continue;
    out.push({ rule, status: unknown.length ? 'possible' : 'match', held, unknown });
  }
  const rank = { confirmed: 0, likely: 1, unconfirmed: 2 };
  return out.sort((a, b) => (a.status === b.status ? 0 : a.status === 'match' ? -1 : 1) || rank[a.rule.confidence] - rank[b.rule.confidence] || b.held.length - a.held.length);
}

/**
 * When matched rules set one flag to different values (cuDNN vs Marlin for the FP4 GEMM), which to
 * try first and why: a sentence per match that takes part, keyed by the match. `matches` are in
 * matchRules' order (full matches, then confidence, then how many conditions held), and that order
 * is the advice: the first rule holds on more of what is known about this launch, or is better
 * established.
 */
export function competingFixAdvice(matches: RuleMatchResult[]): Map<RuleMatchResult, string> {
  const byField = new Map<string, { m: RuleMatchResult; flag: string; value: string }[]>();
  for (const m of matches) {
    for (const s of m.rule.fix.set ?? []) {
      const list = byField.get(s.field) ?? [];
      if (!list.some((x) => x.m === m)) list.push({ m, flag: s.flag, value: String(s.value) });
      byField.set(s.field, list);
    }
  }
  const out = new Map<RuleMatchResult, string>();
  for (const list of byField.values()) {
    if (new Set(list.map((x) => x.value)).size < 2) continue;
    const [first, ...rest] = list;
    const why = (x: (typeof list)[number]): string =>
      `${x.m.rule.confidence}; ${x.m.status === 'match' ? `all ${x.m.held.length} conditions hold` : `${x.m.held.length} of ${x.m.held.length + x.m.unknown.length} conditions hold, the rest unknown`}${x.m.held.some((h) => h.kind === 'model') ? ', this model is named' : ''}`;
    const order =
      `Known issues disagree on ${first.flag}: try ${first.value} first (${why(first)}), ` +
      `then ${rest.map((x) => `${x.value} (${why(x)})`).join(', then ')}.`;
    for (const x of list) out.set(x.m, out.has(x.m) ? `${out.get(x.m)} ${order}` : order);
  }
  return out;
}
