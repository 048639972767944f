/**
 * Static reader of vLLM's command-line flags, from a release's Python sources. Two shapes:
 *
 * - plain `parser.add_argument("--x", type=…, choices=[…], default=EngineArgs.x)` calls in
 *   `EngineArgs.add_cli_args` (releases up to early 2025), defaults read from the EngineArgs dataclass;
 * - `group.add_argument("--x", "-a", **kwargs["field"])` where `kwargs = get_kwargs(SomeConfig)`: the
 *   facts come from the config dataclass field (its annotation gives type, `Literal` choices and
 *   `--no-x` for bools; its value the default), found in any of the given files (`vllm/config/*.py`,
 *   the older single `vllm/config.py`, `cli_args.py` for the frontend).
 *
 * Loops that add one flag per field (`for key, value in kwargs.items(): add_argument(f"--{key…}")`)
 * and over literal lists of names are expanded. No help text is read: vLLM's prose is not ours.
 */
import type { Node, Parser } from 'web-tree-sitter';
import { dottedName, evaluate, stringNodeText, toJson, UNRESOLVED, type EvalContext, type Evaluated, type PyVal } from '../pyvalue';
import type { CatalogDiagnostic, ChoiceValue, FlagCatalog, FlagEntry } from '../types';

/** A release's sources, keyed by their path under the repository root ("vllm/engine/arg_utils.py"). */
export type VllmSources = Record<string, string>;

export const ARG_UTILS = 'vllm/engine/arg_utils.py';
export const CLI_ARGS = 'vllm/entrypoints/openai/cli_args.py';
export const ENVS = 'vllm/envs.py';

/** The files of a release the reader looks at: arg_utils, the frontend, the config module(s), the argv pre-processing. */
export function isVllmFlagSource(path: string): boolean {
  return (
    path === ARG_UTILS ||
    path === CLI_ARGS ||
    path === 'vllm/config.py' ||
    /^vllm\/config\/[^/]+\.py$/.test(path) ||
    path === 'vllm/utils.py' ||
    path === 'vllm/utils/__init__.py' ||
    path === 'vllm/utils/argparse_utils.py' ||
    path === 'vllm/entrypoints/cli/serve.py'
  );
}

interface FieldInfo {
  name: string;
  annotation?: Node;
  value?: Node;
}

interface ModuleIndex {
  classes: Map<string, { node: Node; bases: string[]; fields: Map<string, FieldInfo> }>;
  /** Module-level `X = …` / `X: T = …` right-hand sides (type aliases, constants). */
  names: Map<string, Node>;
}

/** What a field's annotation says argparse will do with it. */
interface TypeFacts {
  type?: string;
  action?: string;
  nargs?: string | number;
  const?: unknown;
  choices?: ChoiceValue[];
}

function namedKids(n: Node): Node[] {
  return n.namedChildren.filter((c): c is Node => !!c);
}

function indexModule(root: Node, into: ModuleIndex): void {
  const visit = (stmt: Node, depth: number): void => {
    if (depth > 3) return;
    if (stmt.type === 'class_definition') {
      const name = stmt.childForFieldName('name')?.text;
      const body = stmt.childForFieldName('body');
      if (!name || !body) return;
      const bases = namedKids(stmt.childForFieldName('superclasses') ?? stmt).filter((b) => b.type === 'identifier' || b.type === 'attribute');
      const fields = new Map<string, FieldInfo>();
      for (const s of namedKids(body)) {
        const a = s.type === 'expression_statement' ? s.namedChildren[0] : undefined;
        if (a?.type !== 'assignment') continue;
        const left = a.childForFieldName('left');
        const annotation = a.childForFieldName('type') ?? undefined;
        if (left?.type !== 'identifier' || !annotation) continue;
        fields.set(left.text, { name: left.text, annotation, value: a.childForFieldName('right') ?? undefined });
      }
      if (!into.classes.has(name) || fields.size) into.classes.set(name, { node: stmt, bases: bases.map((b) => b.text.split('.').pop()!), fields });
      return;
    }
    if (stmt.type === 'decorated_definition') {
      const d = stmt.childForFieldName('definition');
      if (d) visit(d, depth + 1);
      return;
    }
    if (stmt.type === 'expression_statement') {
      const a = stmt.namedChildren[0];
      if (a?.type !== 'assignment') return;
      const left = a.childForFieldName('left');
      const right = a.childForFieldName('right');
      if (left?.type === 'identifier' && right && !into.names.has(left.text)) into.names.set(left.text, right);
      return;
    }
    if (stmt.type === 'if_statement') {
      // `if TYPE_CHECKING:` / version guards around aliases
      for (const b of namedKids(stmt)) if (b.type === 'block') for (const s of namedKids(b)) visit(s, depth + 1);
    }
  };
  for (const s of namedKids(root)) visit(s, 0);
}

class Reader {
  readonly idx: ModuleIndex = { classes: new Map(), names: new Map() };
  readonly diagnostics: CatalogDiagnostic[] = [];
  readonly ctx: EvalContext;

  constructor() {
    this.ctx = {
      lookup: (name) => {
        const n = this.idx.names.get(name);
        return n ? evaluate(n, this.ctx, 10) : UNRESOLVED;
      },
      attribute: (dotted) => this.classAttribute(dotted),
    };
  }

  /** `EngineArgs.x` / `ModelConfig.x`: the field's default. */
  private classAttribute(dotted: string, depth = 0): Evaluated {
    const [cls, attr] = dotted.split('.');
    if (!attr || depth > 4) return UNRESOLVED;
    const f = this.field(cls, attr);
    if (!f?.value) return UNRESOLVED;
    const d = this.defaultOf(f, depth + 1);
    return d.value === undefined ? UNRESOLVED : d.value;
  }

  field(cls: string, name: string, depth = 0): FieldInfo | undefined {
    const c = this.idx.classes.get(cls);
    if (!c || depth > 8) return undefined;
    return c.fields.get(name) ?? c.bases.map((b) => this.field(b, name, depth + 1)).find((x) => x);
  }

  fieldsOf(cls: string, depth = 0): FieldInfo[] {
    const c = this.idx.classes.get(cls);
    if (!c || depth > 8) return [];
    const seen = new Map<string, FieldInfo>();
    for (const b of c.bases) for (const f of this.fieldsOf(b, depth + 1)) seen.set(f.name, f);
    for (const f of c.fields.values()) seen.set(f.name, f);
    return [...seen.values()];
  }

  /** The default of a field: `= 16`, `= field(default=16)`, `= Field(default=…)`, `= OtherConfig.x`. */
  defaultOf(f: FieldInfo, depth = 0): { value?: PyVal; expr?: string } {
    let v = f.value;
    if (!v) return {};
    if (v.type === 'call') {
      const fn = dottedName(v.childForFieldName('function')!) ?? '';
      if (/(^|\.)(field|Field)$/.test(fn)) {
        const kw = keywordArgs(v.childForFieldName('arguments'));
        if (kw.has('default_factory')) return { expr: `default_factory=${kw.get('default_factory')!.text}` };
        const d = kw.get('default');
        if (!d) return {};
        v = d;
      } else return { expr: v.text.length <= 48 ? v.text : undefined };
    }
    if (v.type === 'attribute' && depth < 4) {
      const r = this.classAttribute(v.text, depth);
      if (r !== UNRESOLVED) return { value: r };
    }
    const r = evaluate(v, this.ctx);
    return r === UNRESOLVED ? { expr: v.text.length <= 48 ? v.text : undefined } : { value: r };
  }

  /** The members of a union annotation, aliases followed: `Optional[X]`, `X | None`, `Union[…]`. */
  private members(n: Node, out: (Node | 'None')[], depth = 0): void {
    if (depth > 12) return;
    if (n.type === 'type') {
      const inner = n.namedChildren[0];
      if (inner) this.members(inner, out, depth + 1);
      return;
    }
    if (n.type === 'union_type') {
      for (const c of namedKids(n)) this.members(c, out, depth + 1);
      return;
    }
    if (n.type === 'binary_operator' && n.childForFieldName('operator')?.text === '|') {
      for (const side of ['left', 'right']) {
        const s = n.childForFieldName(side);
        if (s) this.members(s, out, depth + 1);
      }
      return;
    }
    if (n.type === 'none') {
      out.push('None');
      return;
    }
    const head = genericHead(n);
    if (head === 'Optional' || head === 'Union') {
      for (const a of genericArgs(n)) this.members(a, out, depth + 1);
      if (head === 'Optional') out.push('None');
      return;
    }
    if (head === 'Annotated' || head === 'SkipValidation' || head === 'ClassVar' || head === 'InitVar') {
      const first = genericArgs(n)[0];
      if (first) this.members(first, out, depth + 1);
      return;
    }
    if (n.type === 'identifier' && !BUILTIN_TYPES.has(n.text)) {
      const alias = this.idx.names.get(n.text);
      if (alias && ['subscript', 'generic_type', 'binary_operator', 'union_type', 'identifier'].includes(alias.type)) {
        this.members(alias, out, depth + 1);
        return;
      }
    }
    out.push(n);
  }

  /** Literal values of a `Literal[...]` node (nested Literals and aliases followed). */
  private literalValues(n: Node, depth = 0): ChoiceValue[] | undefined {
    const out: ChoiceValue[] = [];
    for (const a of genericArgs(n)) {
      if (genericHead(a) === 'Literal') {
        const inner = this.literalValues(a, depth + 1);
        if (!inner) return undefined;
        out.push(...inner);
        continue;
      }
      const v = evaluate(a, this.ctx);
      if (v === UNRESOLVED || (typeof v === 'object' && v !== null)) return undefined;
      out.push(v);
    }
    return out;
  }

  /** What `get_kwargs` makes of a field's annotation. */
  typeFacts(ann: Node | undefined, fieldName: string): TypeFacts {
    if (!ann) return {};
    const all: (Node | 'None')[] = [];
    this.members(ann, all);
    const ms = all.filter((m): m is Node => m !== 'None');
    // a forward reference ("SomeConfig") names the class as text
    const heads = [
      ...ms.map((m) => genericHead(m) ?? (m.type === 'string' ? m.text.replace(/^["']|["']$/g, '') : m.text)),
      ...(all.includes('None') ? ['None'] : []),
    ];
    const has = (h: string): boolean => heads.includes(h);
    const hasNone = has('None');
    const isConfigClass = heads.some((h) => this.idx.classes.has(h) && /Config$/.test(h));
    let f: TypeFacts;
    if (isConfigClass) f = { type: 'json' };
    else if (has('bool') && has('str')) f = { type: 'str', nargs: '?', const: true };
    else if (has('bool')) return { action: 'BooleanOptionalAction' };
    else if (has('Literal')) {
      const values: ChoiceValue[] = [];
      for (const m of ms) if (genericHead(m) === 'Literal') values.push(...(this.literalValues(m) ?? []));
      f = { type: typeof values[0] === 'number' ? 'int' : 'str', choices: [...new Set(values)] };
    } else if (['list', 'List', 'tuple', 'Tuple', 'set', 'Set'].some(has)) {
      const seq = ms.find((m) => ['list', 'List', 'tuple', 'Tuple', 'set', 'Set'].includes(genericHead(m) ?? m.text));
      const inner = seq ? genericArgs(seq)[0] : undefined;
      f = { nargs: '+' };
      if (inner && genericHead(inner) === 'Literal') f.choices = this.literalValues(inner);
      else if (inner) f.type = inner.text === 'int' ? 'int' : inner.text === 'float' ? 'float' : 'str';
    } else if (has('int')) f = { type: HUMAN_INT_FIELDS.has(fieldName) ? 'human_readable_int' : 'int' };
    else if (has('float')) f = { type: 'float' };
    else if (has('dict') || has('Dict')) f = { type: 'json' };
    else f = { type: 'str' };
    if (hasNone && f.choices && !f.choices.includes(null)) f.choices = [...f.choices, null];
    return f;
  }

  /** Facts of a dataclass field as `get_kwargs` turns them into argparse kwargs. */
  fieldFacts(cls: string, name: string): Partial<FlagEntry> | undefined {
    const f = this.field(cls, name);
    if (!f) return undefined;
    const t = this.typeFacts(f.annotation, name);
    const d = this.defaultOf(f);
    const out: Partial<FlagEntry> = { field: name, group: cls };
    if (t.type) out.type = t.type;
    if (t.action) out.action = t.action;
    if (t.nargs !== undefined) out.nargs = t.nargs;
    if (t.const !== undefined) out.const = t.const;
    if (t.choices?.length) out.choices = t.choices;
    const j = d.value !== undefined ? toJson(d.value) : undefined;
    if (j !== undefined) out.default = j;
    else if (d.expr) out.defaultExpr = d.expr;
    return out;
  }
}

const BUILTIN_TYPES = new Set(['bool', 'int', 'float', 'str', 'dict', 'list', 'tuple', 'set', 'None', 'Any']);
/** Fields `get_kwargs` reads with its human-readable integer parser ("1k", "2M"). */
const HUMAN_INT_FIELDS = new Set(['max_model_len', 'max_num_batched_tokens', 'kv_cache_memory_bytes']);

function genericHead(n: Node): string | undefined {
  if (n.type === 'subscript') return dottedName(n.childForFieldName('value')!)?.split('.').pop();
  if (n.type === 'generic_type') return n.namedChildren[0]?.text.split('.').pop();
  return undefined;
}

function genericArgs(n: Node): Node[] {
  if (n.type === 'subscript') {
    const subs = n.childrenForFieldName('subscript').filter((c): c is Node => !!c);
    if (subs.length === 1 && subs[0].type === 'tuple') return namedKids(subs[0]);
    return subs;
  }
  if (n.type === 'generic_type') {
    const params = n.namedChildren.find((c) => c?.type === 'type_parameter');
    return params ? namedKids(params).map((t) => (t.type === 'type' && t.namedChildren[0] ? t.namedChildren[0] : t)) : [];
  }
  return [];
}

function keywordArgs(args: Node | null | undefined): Map<string, Node> {
  const m = new Map<string, Node>();
  for (const a of args ? namedKids(args) : []) {
    if (a.type !== 'keyword_argument') continue;
    const k = a.childForFieldName('name')?.text;
    const v = a.childForFieldName('value');
    if (k && v) m.set(k, v);
  }
  return m;
}

function stringValue(n: Node | undefined): string | undefined {
  if (!n || n.type !== 'string') return undefined;
  const s = stringNodeText(n);
  return s.holes || s.bytes ? undefined : s.text;
}

function rangeOf(n: Node): FlagEntry['range'] {
  return { start: { line: n.startPosition.row, character: n.startPosition.column }, end: { line: n.endPosition.row, character: n.endPosition.column } };
}

function enclosing(n: Node, type: string): Node | undefined {
  for (let p = n.parent; p; p = p.parent) if (p.type === type) return p;
  return undefined;
}

/** `x_kwargs = get_kwargs(SomeConfig)` assignments in a function: variable → class. */
function kwargsVariables(fn: Node, selfClass: string | undefined): Map<string, string> {
  const m = new Map<string, string>();
  for (const a of fn.descendantsOfType('assignment')) {
    if (!a) continue;
    const left = a.childForFieldName('left');
    const right = a.childForFieldName('right');
    if (left?.type !== 'identifier' || !right) continue;
    if (right.type === 'subscript') {
      // `moe_kwargs = kernel_kwargs["moe_backend"]`: a field's kwargs under a name of its own
      const cls = m.get(right.childForFieldName('value')?.text ?? '');
      const key = stringValue(right.childrenForFieldName('subscript')[0] ?? undefined);
      if (cls && key) m.set(`@${left.text}`, `${cls}.${key}`);
      continue;
    }
    if (right.type !== 'call') continue;
    if (dottedName(right.childForFieldName('function')!)?.split('.').pop() !== 'get_kwargs') continue;
    const arg = namedKids(right.childForFieldName('arguments')!)[0];
    if (!arg) continue;
    const cls = arg.text === 'cls' ? selfClass : arg.text.split('.').pop();
    if (cls) m.set(left.text, cls);
  }
  return m;
}

/** Flags declared by the `add_argument` calls under `scope`, with kwargs variables resolved. */
function readCalls(r: Reader, scope: Node, file: string, selfClass: string | undefined, out: FlagEntry[]): void {
  const fnOf = new Map<number, Map<string, string>>();
  const varsFor = (call: Node): Map<string, string> => {
    const fn = enclosing(call, 'function_definition') ?? scope;
    let m = fnOf.get(fn.id);
    if (!m) fnOf.set(fn.id, (m = kwargsVariables(fn, selfClass)));
    return m;
  };
  for (const call of scope.descendantsOfType('call')) {
    if (!call) continue;
    const fn = call.childForFieldName('function');
    if (fn?.type !== 'attribute' || fn.childForFieldName('attribute')?.text !== 'add_argument') continue;
    const args = call.childForFieldName('arguments');
    if (!args) continue;
    const vars = varsFor(call);
    for (const binding of loopBindings(r, call, vars)) {
      const e = entryOf(r, call, args, vars, binding, file);
      if (e) out.push(e);
    }
  }
}

type Binding = Map<string, string>;

/** One binding per iteration of the `for` loops around a call (an empty binding when there is none). */
function loopBindings(r: Reader, call: Node, vars: Map<string, string>): Binding[] {
  const loop = enclosing(call, 'for_statement');
  if (!loop) return [new Map<string, string>()];
  const left = loop.childForFieldName('left');
  const right = loop.childForFieldName('right');
  if (!left || !right) return [new Map<string, string>()];
  const names = left.type === 'identifier' ? [left.text] : namedKids(left).map((n) => n.text);
  // for key, value in some_kwargs.items(): one flag per field of the config class
  if (right.type === 'call' && right.childForFieldName('function')?.type === 'attribute') {
    const obj = right.childForFieldName('function')!.childForFieldName('object')?.text;
    const cls = obj ? vars.get(obj) : undefined;
    if (cls)
      return r.fieldsOf(cls).map((f) => {
        const b: Binding = new Map([[names[0], f.name]]);
        if (names[1]) b.set(`**${names[1]}`, f.name);
        return b;
      });
  }
  if (right.type === 'list' || right.type === 'tuple') {
    const out: Binding[] = [];
    for (const item of namedKids(right)) {
      const parts = item.type === 'tuple' ? namedKids(item) : [item];
      const b: Binding = new Map();
      names.forEach((n, i) => {
        const s = stringValue(parts[i]) ?? parts[i]?.text;
        if (s !== undefined) b.set(n, s);
      });
      out.push(b);
    }
    return out;
  }
  return [new Map<string, string>()];
}

/** An option string: a literal, a loop variable, or `f"--{key.replace('_', '-')}"`. */
function optionString(n: Node, b: Binding): string | undefined {
  const s = stringValue(n);
  if (s !== undefined) return s;
  if (n.type === 'identifier') return b.get(n.text);
  if (n.type === 'string') {
    const m = /^f["']--\{(\w+)\.replace\(["']_["'],\s*["']-["']\)\}["']$/.exec(n.text);
    const key = m ? b.get(m[1]) : undefined;
    if (key) return `--${key.replace(/_/g, '-')}`;
  }
  return undefined;
}

/** The facts a `**…` argument brings: `kw["field"]`, a loop's `**value`, `**{**kw["f"], "default": None}`. */
function splatFacts(r: Reader, inner: Node, vars: Map<string, string>, b: Binding, depth = 0): Partial<FlagEntry> | undefined {
  if (depth > 3) return undefined;
  if (inner.type === 'subscript') {
    const cls = vars.get(inner.childForFieldName('value')?.text ?? '');
    const key = stringValue(inner.childrenForFieldName('subscript')[0] ?? undefined);
    return cls && key ? r.fieldFacts(cls, key) : undefined;
  }
  if (inner.type === 'identifier') {
    const looped = b.get(`**${inner.text}`);
    const cls = [...vars.entries()].find(([k]) => !k.startsWith('@'))?.[1];
    if (looped && cls) return r.fieldFacts(cls, looped);
    const named = vars.get(`@${inner.text}`);
    if (named) {
      const [c, f] = named.split('.');
      return r.fieldFacts(c, f);
    }
    return undefined;
  }
  if (inner.type === 'dictionary') {
    let facts: Partial<FlagEntry> | undefined;
    for (const item of namedKids(inner)) {
      if (item.type === 'dictionary_splat' && item.namedChildren[0]) facts = splatFacts(r, item.namedChildren[0], vars, b, depth + 1) ?? facts;
      else if (item.type === 'pair' && facts && stringValue(item.childForFieldName('key') ?? undefined) === 'default') {
        const v = evaluate(item.childForFieldName('value')!, r.ctx);
        delete facts.default;
        delete facts.defaultExpr;
        if (v !== UNRESOLVED) facts.default = toJson(v);
      }
    }
    return facts;
  }
  return undefined;
}

function entryOf(r: Reader, call: Node, args: Node, vars: Map<string, string>, b: Binding, file: string): FlagEntry | undefined {
  const options: string[] = [];
  let splat: Partial<FlagEntry> | undefined;
  for (const a of namedKids(args)) {
    if (a.type === 'keyword_argument' || a.type === 'comment') continue;
    if (a.type === 'dictionary_splat') {
      const inner = a.namedChildren[0];
      if (inner) splat = splatFacts(r, inner, vars, b) ?? splat;
      continue;
    }
    if (a.type === 'list_splat') continue;
    const o = optionString(a, b);
    if (o === undefined) return undefined;
    options.push(o);
  }
  const longs = options.filter((o) => o.startsWith('--'));
  if (!longs.length) return undefined; // a positional (`model_tag`) or a dynamic name
  const flag = longs[0];
  const kw = keywordArgs(args);
  const e: FlagEntry = {
    flag,
    aliases: options.filter((o) => o !== flag),
    negations: [],
    field: flag.replace(/^--/, '').replace(/-/g, '_'),
    source: splat ? 'dataclass' : 'add_argument',
    line: call.startPosition.row + 1,
    range: rangeOf(call),
    file,
    ...(splat ?? {}),
  };
  const ev = (n: Node | undefined): Evaluated => (n ? evaluate(n, r.ctx) : UNRESOLVED);
  const dest = stringValue(kw.get('dest'));
  if (dest) e.field = dest;
  const type = kw.get('type');
  if (type?.type === 'identifier' && b.has(type.text)) e.type = b.get(type.text);
  else if (type?.type === 'lambda') e.type = 'lambda';
  else if (type) e.type = dottedName(type) ?? (type.type === 'call' ? dottedName(type.childForFieldName('function')!) : undefined) ?? type.text.slice(0, 40);
  const action = kw.get('action');
  if (action) e.action = stringValue(action) ?? dottedName(action)?.split('.').pop() ?? action.text;
  const nargs = kw.get('nargs');
  if (nargs) {
    const v = ev(nargs);
    if (typeof v === 'string' || typeof v === 'number') e.nargs = v;
  }
  const choices = kw.get('choices');
  if (choices) {
    const v = ev(choices);
    if (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')) {
      e.choices = v;
      delete e.dynamicChoices;
    } else {
      delete e.choices;
      e.dynamicChoices = true;
      e.choicesExpr = choices.text.slice(0, 80);
    }
  }
  const def = kw.get('default');
  if (def) {
    delete e.default;
    delete e.defaultExpr;
    const v = ev(def);
    if (v !== UNRESOLVED) e.default = toJson(v);
    else if (def.text.length <= 48) e.defaultExpr = def.text;
  }
  if (e.action === 'store_true' && e.default === undefined && e.defaultExpr === undefined) e.default = false;
  const dep = kw.get('deprecated');
  if (dep?.type === 'true') e.deprecated = true;
  if (e.action === 'BooleanOptionalAction') e.negations = [...options.filter((o) => o.startsWith('--')).map((o) => `--no-${o.slice(2)}`)];
  if (e.group === undefined) {
    const cls = enclosing(call, 'class_definition')?.childForFieldName('name')?.text;
    if (cls) e.group = cls;
  }
  return e;
}

/** How the release reads `-O`: as `--optimization-level` (argv rewritten before parsing) or an alias it declares. */
function optimizationShortFlag(src: string | undefined): boolean {
  return !!src && /startswith\(\s*["']-O["']\s*\)/.test(src) && /["']--optimization-level["']/.test(src);
}

/**
 * The flags of one vLLM release. `sources` holds the files `isVllmFlagSource` selects (others are
 * ignored). Entries keep their file and line so a workspace checkout can be navigated.
 */
export function readVllmFlags(parser: Parser, sources: VllmSources): FlagCatalog {
  const r = new Reader();
  const trees: { path: string; root: Node; dispose: () => void }[] = [];
  const out: FlagEntry[] = [];
  try {
    // config modules first so their aliases win over same-named helpers elsewhere
    const paths = Object.keys(sources)
      .filter(isVllmFlagSource)
      .sort((a, b) => Number(b.includes('/config')) - Number(a.includes('/config')) || a.localeCompare(b));
    for (const p of paths) {
      const tree = parser.parse(sources[p]);
      if (!tree) continue;
      trees.push({ path: p, root: tree.rootNode, dispose: () => tree.delete() });
      indexModule(tree.rootNode, r.idx);
    }
    for (const { path, root } of trees) {
      if (path !== ARG_UTILS && path !== CLI_ARGS && path !== 'vllm/entrypoints/cli/serve.py') continue;
      for (const fn of root.descendantsOfType('function_definition')) {
        if (!fn) continue;
        const name = fn.childForFieldName('name')?.text;
        const cls = enclosing(fn, 'class_definition')?.childForFieldName('name')?.text;
        if (path === ARG_UTILS && !(name === 'add_cli_args' && (cls === 'EngineArgs' || cls === 'AsyncEngineArgs'))) continue;
        if (path === CLI_ARGS && !(name === 'make_arg_parser' || name === 'add_cli_args')) continue;
        if (path.endsWith('serve.py') && name !== 'subparser_init') continue;
        // the frontend's classmethod is called on FrontendArgs, whose fields include its base's
        const self = cls === 'BaseFrontendArgs' && r.idx.classes.has('FrontendArgs') ? 'FrontendArgs' : cls;
        readCalls(r, fn, path, self, out);
      }
    }
    const optSrc = ['vllm/utils/argparse_utils.py', 'vllm/utils/__init__.py', 'vllm/utils.py'].map((p) => sources[p]).find((s) => s?.includes('-O'));
    if (optimizationShortFlag(optSrc)) {
      const opt = out.find((e) => e.flag === '--optimization-level');
      if (opt && !opt.aliases.includes('-O')) opt.aliases.push('-O');
    }
  } finally {
    for (const t of trees) t.dispose();
  }
  const seen = new Set<string>();
  const entries = out.filter((e) => (seen.has(e.flag) ? false : (seen.add(e.flag), true)));
  const era = entries.some((e) => e.source === 'dataclass')
    ? entries.some((e) => e.source === 'add_argument' && e.file === ARG_UTILS && e.group === 'EngineArgs')
      ? 'mixed'
      : 'dataclass'
    : entries.length
      ? 'inline'
      : 'unknown';
  if (!entries.length)
    r.diagnostics.push({ message: 'No add_argument calls found in vllm/engine/arg_utils.py', line: 1, severity: 'warning', file: ARG_UTILS });
  return { entries, choiceLists: [], era, diagnostics: r.diagnostics };
}
