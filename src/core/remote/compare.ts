/**
 * Launch file vs. /server_info: what the user asked for (flags in a launch command) beside what
 * the server resolved (dataclass fields in /server_info), keyed by field name, so a diff shows
 * what `auto` became and which defaults applied. No vscode import.
 */
import { fieldFromFlag, type FlagEntry } from '../flags/types';
import type { LaunchArg, LaunchCommand } from '../launch/types';

/**
 * Fallback for when no flag catalog is at hand: flags whose dataclass field is not the flag name
 * in snake_case. The catalog (`fieldResolverFromCatalog`) knows every rename of its version.
 */
const FIELD_ALIASES: Record<string, string> = {
  '--model': 'model_path',
  '--tokenizer': 'tokenizer_path',
  '--tp': 'tp_size',
  '--dp': 'dp_size',
  '--ep': 'ep_size',
  '--pp': 'pp_size',
  '--tensor-parallel-size': 'tp_size',
  '--data-parallel-size': 'dp_size',
  '--expert-parallel-size': 'ep_size',
  '--pipeline-parallel-size': 'pp_size',
  '--speculative-algo': 'speculative_algorithm',
  // argparse dest differs from the flag in recent SGLang (dest="fp4_gemm_runner_backend").
  '--fp4-gemm-backend': 'fp4_gemm_runner_backend',
  '--fp8-gemm-backend': 'fp8_gemm_runner_backend',
};

/** Fields always listed (when the server reports them) even if the launch command leaves them out. */
export const ALWAYS_COMPARED_FIELDS: readonly string[] = [
  'model_path',
  'dtype',
  'quantization',
  'kv_cache_dtype',
  'attention_backend',
  'decode_attention_backend',
  'prefill_attention_backend',
  'sampling_backend',
  'grammar_backend',
  'moe_runner_backend',
  'moe_a2a_backend',
  'fp4_gemm_runner_backend',
  'fp8_gemm_runner_backend',
  'speculative_algorithm',
  'disable_cuda_graph',
  'tp_size',
  'dp_size',
  'ep_size',
  'mem_fraction_static',
  'context_length',
];

const SECRET_FIELDS = new Set(['api_key', 'admin_api_key', 'hf_token']);
export const NOT_SET = '(not set in launch file: default)';
export const NOT_REPORTED = '(not reported by /server_info)';
export const DYNAMIC = '(set from a variable or expression)';

/** The dataclass field a flag sets: alias table, else `--foo-bar` → `foo_bar`. */
export function fieldOfFlag(flag: string): string | undefined {
  if (!flag.startsWith('--')) return undefined;
  return FIELD_ALIASES[flag] ?? fieldFromFlag(flag);
}

/** Which field a launch-file flag sets, and what the flag means when given without a value. */
export interface FlagFieldResolver {
  fieldOf: (flag: string) => string | undefined;
  /**
   * Value a bare flag stands for: false for `--no-x` and store_false, the const of store_const.
   * Undefined (or no function) = true, the store_true case.
   */
  bareValueOf?: (flag: string) => unknown;
}

/** What the resolver reads from a catalog entry (FlagEntry, or the same fields from JSON). */
export type CatalogFieldEntry = Pick<FlagEntry, 'flag' | 'aliases' | 'negations' | 'field'> & Partial<Pick<FlagEntry, 'action' | 'const'>>;

/**
 * Resolver backed by a flag catalog: each entry's flag, aliases and `--no-x` negations map to its
 * field (argparse dest), so renamed flags (`--fp4-gemm-backend` -> fp4_gemm_runner_backend) need
 * no table. Flags the catalog does not know go to `fallback` (the built-in table).
 */
export function fieldResolverFromCatalog(
  entries: readonly CatalogFieldEntry[],
  fallback: (flag: string) => string | undefined = fieldOfFlag,
): FlagFieldResolver {
  const fields = new Map<string, string>();
  const bare = new Map<string, unknown>();
  const add = (name: unknown, field: string, bareValue?: unknown): void => {
    // First definition wins, as in argparse (a second one would be a conflict error there).
    if (typeof name !== 'string' || !name.startsWith('-') || fields.has(name)) return;
    fields.set(name, field);
    if (bareValue !== undefined) bare.set(name, bareValue);
  };
  for (const e of entries) {
    if (!e || typeof e.field !== 'string' || !e.field) continue;
    const positive = e.action === 'store_false' ? false : e.action === 'store_const' && e.const !== undefined ? e.const : undefined;
    add(e.flag, e.field, positive);
    for (const a of Array.isArray(e.aliases) ? e.aliases : []) add(a, e.field, positive);
    for (const n of Array.isArray(e.negations) ? e.negations : []) add(n, e.field, false);
  }
  return {
    fieldOf: (flag) => fields.get(flag) ?? fallback(flag),
    bareValueOf: (flag) => bare.get(flag),
  };
}

export type CompareStatus = 'same' | 'different' | 'auto-resolved' | 'default' | 'not-reported' | 'dynamic';

export interface CompareRow {
  field: string;
  flag?: string;
  /** Value from the launch file (coerced to the server's type when it parses as one); undefined = not set. */
  launch?: unknown;
  /** Value from /server_info; undefined = not reported. */
  server?: unknown;
  status: CompareStatus;
}

export interface Comparison {
  rows: CompareRow[];
  /** Ready-made documents for a side-by-side diff: same keys in the same order. */
  launchDoc: Record<string, unknown>;
  serverDoc: Record<string, unknown>;
}

function coerce(text: string, like: unknown): unknown {
  if (typeof like === 'number' && /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(text.trim())) return Number(text);
  if (typeof like === 'boolean' && /^(true|false)$/i.test(text)) return /^true$/i.test(text);
  if (like === null && /^(none|null)$/i.test(text)) return null;
  return text;
}

function launchValue(arg: LaunchArg, like: unknown, bare: unknown): { value: unknown; dynamic: boolean } {
  const vs = arg.values ?? [];
  const dynamic = vs.some((v) => v.dynamic);
  if (vs.length === 0) return { value: bare === undefined ? true : bare, dynamic };
  if (vs.length === 1) return { value: coerce(vs[0].value, Array.isArray(like) ? like[0] : like), dynamic };
  return { value: vs.map((v) => coerce(v.value, Array.isArray(like) ? like[0] : undefined)), dynamic };
}

function same(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b || (Number.isNaN(a) && Number.isNaN(b));
  if (typeof a === 'string' && typeof b === 'string') return a === b;
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Compare one launch command with a /server_info body. `fieldOf` maps a flag to its field and
 * `bareValueOf` says what a value-less flag means: pass `fieldResolverFromCatalog(entries)` when a
 * flag catalog is at hand; the default covers SGLang's naming and common aliases.
 */
export function compareLaunchWithServerInfo(
  cmd: LaunchCommand,
  info: Record<string, unknown>,
  opts: Partial<FlagFieldResolver> & { alwaysFields?: readonly string[] } = {},
): Comparison {
  const fieldOf = opts.fieldOf ?? fieldOfFlag;
  const bareValueOf = opts.bareValueOf ?? (() => undefined);
  const fromLaunch = new Map<string, { flag: string; arg: LaunchArg }>();
  for (const a of cmd.args) {
    if (a.kind !== 'flag' || !a.name) continue;
    const f = fieldOf(a.name);
    if (f) fromLaunch.set(f, { flag: a.name, arg: a }); // last occurrence wins, as in argparse
  }
  const fields = new Set<string>(fromLaunch.keys());
  for (const f of opts.alwaysFields ?? ALWAYS_COMPARED_FIELDS) if (Object.hasOwn(info, f)) fields.add(f);
  const rows: CompareRow[] = [];
  for (const field of [...fields].sort()) {
    const has = Object.hasOwn(info, field);
    const server = has ? info[field] : undefined;
    const l = fromLaunch.get(field);
    const row: CompareRow = { field, status: 'same' };
    if (l) row.flag = l.flag;
    if (has) row.server = SECRET_FIELDS.has(field) && server !== null ? '***' : server;
    if (!l) row.status = 'default';
    else {
      const { value, dynamic } = launchValue(l.arg, server, bareValueOf(l.flag));
      row.launch = SECRET_FIELDS.has(field) ? '***' : value;
      if (!has) row.status = 'not-reported';
      else if (dynamic) row.status = 'dynamic';
      else if (SECRET_FIELDS.has(field) || same(row.launch, row.server)) row.status = 'same';
      else row.status = value === 'auto' ? 'auto-resolved' : 'different';
    }
    rows.push(row);
  }
  const launchDoc: Record<string, unknown> = {};
  const serverDoc: Record<string, unknown> = {};
  for (const r of rows) {
    launchDoc[r.field] = r.status === 'default' ? NOT_SET : r.status === 'dynamic' ? `${String(JSON.stringify(r.launch))} ${DYNAMIC}` : r.launch;
    serverDoc[r.field] = r.status === 'not-reported' ? NOT_REPORTED : r.server;
  }
  // What rank 0 actually runs can differ from the requested attention backend.
  const states = info.internal_states;
  if (Array.isArray(states) && states[0] && typeof states[0] === 'object') {
    const ab = (states[0] as Record<string, unknown>).attention_backend;
    if (typeof ab === 'string') {
      launchDoc['internal_states[0].attention_backend'] = fromLaunch.has('attention_backend') ? launchDoc.attention_backend : NOT_SET;
      serverDoc['internal_states[0].attention_backend'] = ab;
    }
  }
  return { rows, launchDoc, serverDoc };
}

/** JSON text for a comparison document; NaN/Infinity (valid in /server_info) stay visible. */
export function comparisonJson(doc: Record<string, unknown>): string {
  return `${JSON.stringify(doc, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v), 2)}\n`;
}

/** One-line summary: "3 differ, 2 auto resolved, 14 defaults". */
export function summariseComparison(c: Comparison): string {
  const n = (s: CompareStatus): number => c.rows.filter((r) => r.status === s).length;
  const parts = [`${n('different')} differ`, `${n('auto-resolved')} auto resolved`, `${n('same')} same`, `${n('default')} from defaults`];
  if (n('not-reported')) parts.push(`${n('not-reported')} not reported`);
  if (n('dynamic')) parts.push(`${n('dynamic')} dynamic`);
  return parts.join(', ');
}
