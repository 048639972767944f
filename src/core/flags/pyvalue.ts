/**
 * A small, bounded static evaluator for the Python expressions that appear in server_args.py:
 * literals, module constants, `LIST + [...]`, tuples, sets, `Literal[...]`, comprehensions over
 * known iterables, `X[0]`, dict keys, simple str methods. Anything else is UNRESOLVED.
 */
import type { Node } from 'web-tree-sitter';

export class PySet {
  constructor(public items: PyVal[]) {}
}
export class PyDict {
  constructor(public entries: [PyVal, PyVal][]) {}
}
export type PyVal = string | number | boolean | null | PyVal[] | PySet | PyDict;

export const UNRESOLVED: unique symbol = Symbol('unresolved');
export type Evaluated = PyVal | typeof UNRESOLVED;

export const MAX_DEPTH = 120;
const MAX_ITEMS = 20_000;

export interface EvalContext {
  /** Module-level (or comprehension-local) name lookup. */
  lookup(name: string): Evaluated;
  /** `obj.attr` where obj is a plain dotted name ("ServerArgs.x", "argparse.SUPPRESS"). */
  attribute?(dotted: string): Evaluated;
}

// ---------------------------------------------------------------------------------------------
// Strings
// ---------------------------------------------------------------------------------------------

const ESCAPE_RE = /\\(\r\n|\n|\\|'|"|a|b|f|n|r|t|v|[0-7]{1,3}|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|N\{[^}]*\})/g;

export function decodeEscapes(raw: string): string {
  if (!raw.includes('\\')) return raw;
  return raw.replace(ESCAPE_RE, (_m, esc: string) => {
    switch (esc[0]) {
      case '\r':
      case '\n':
        return '';
      case '\\':
        return '\\';
      case "'":
        return "'";
      case '"':
        return '"';
      case 'a':
        return '\x07';
      case 'b':
        return '\b';
      case 'f':
        return '\f';
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case 'v':
        return '\v';
      case 'x':
      case 'u':
      case 'U':
        return String.fromCodePoint(parseInt(esc.slice(1), 16));
      case 'N':
        return `\\${esc}`;
      default:
        return String.fromCharCode(parseInt(esc, 8));
    }
  });
}

export interface StringParts {
  text: string;
  holes: number;
  bytes: boolean;
}

/** Text of one `string` node; f-string holes are kept as their source `{expr}`. */
export function stringNodeText(node: Node): StringParts {
  // fast path: an unprefixed literal without escapes is its text minus the quotes (one slice instead of a node per part)
  const whole = node.text;
  const q0 = whole.charCodeAt(0);
  if (q0 === 34 || q0 === 39) {
    const ql = whole.startsWith(whole[0].repeat(3)) ? 3 : 1;
    const quote = whole.slice(0, ql);
    if (whole.length >= 2 * ql && whole.endsWith(quote) && !whole.includes('\\')) {
      return { text: whole.slice(ql, whole.length - ql), holes: 0, bytes: false };
    }
  }
  let prefix = '';
  let text = '';
  let holes = 0;
  for (const child of node.children) {
    if (!child) continue;
    switch (child.type) {
      case 'string_start':
        prefix = child.text.replace(/['"]+$/, '').toLowerCase();
        break;
      case 'string_content': {
        let raw = child.text;
        if (prefix.includes('f')) raw = raw.replace(/\{\{/g, '{').replace(/\}\}/g, '}');
        text += prefix.includes('r') ? raw : decodeEscapes(raw);
        break;
      }
      case 'interpolation':
        holes++;
        text += child.text;
        break;
      case 'escape_sequence':
        text += prefix.includes('r') ? child.text : decodeEscapes(child.text);
        break;
      default:
        break;
    }
  }
  return { text, holes, bytes: prefix.includes('b') };
}

/**
 * Help-like text of an expression: strings joined (implicit concatenation, `+`, parentheses),
 * f-string holes kept, other operands kept as `{source}`.
 */
export function textOf(node: Node, ctx: EvalContext | undefined, depth = 0): { text: string; exact: boolean } {
  if (depth > MAX_DEPTH) return { text: '', exact: false };
  switch (node.type) {
    case 'string': {
      const s = stringNodeText(node);
      return { text: s.text, exact: s.holes === 0 };
    }
    case 'concatenated_string': {
      let text = '';
      let exact = true;
      for (const part of node.namedChildren) {
        if (!part || part.type !== 'string') continue;
        const s = stringNodeText(part);
        text += s.text;
        if (s.holes) exact = false;
      }
      return { text, exact };
    }
    case 'parenthesized_expression': {
      const inner = node.namedChildren.find((c) => c && c.type !== 'comment');
      return inner ? textOf(inner, ctx, depth + 1) : { text: '', exact: false };
    }
    case 'binary_operator': {
      const op = node.childForFieldName('operator')?.text;
      const left = node.childForFieldName('left');
      const right = node.childForFieldName('right');
      if (op === '+' && left && right) {
        const a = textOf(left, ctx, depth + 1);
        const b = textOf(right, ctx, depth + 1);
        return { text: a.text + b.text, exact: a.exact && b.exact };
      }
      break;
    }
    default:
      break;
  }
  if (ctx) {
    const v = evaluate(node, ctx, depth + 1);
    if (typeof v === 'string') return { text: v, exact: true };
  }
  return { text: `{${node.text}}`, exact: false };
}

// ---------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------

function iterate(v: PyVal): PyVal[] | undefined {
  if (Array.isArray(v)) return v;
  if (v instanceof PySet) return v.items;
  if (v instanceof PyDict) return v.entries.map(([k]) => k);
  if (typeof v === 'string') return [...v];
  return undefined;
}

export function pyEquals(a: PyVal, b: PyVal): boolean {
  if (a === b) return true;
  if (typeof a === 'boolean' && typeof b === 'number') return Number(a) === b;
  if (typeof b === 'boolean' && typeof a === 'number') return Number(b) === a;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => pyEquals(x, b[i]));
  if (a instanceof PySet && b instanceof PySet) {
    return a.items.length === b.items.length && a.items.every((x) => b.items.some((y) => pyEquals(x, y)));
  }
  return false;
}

export function truthy(v: PyVal): boolean {
  if (v === null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof PySet) return v.items.length > 0;
  if (v instanceof PyDict) return v.entries.length > 0;
  return true;
}

function setOf(items: PyVal[]): PySet {
  const out: PyVal[] = [];
  for (const item of items) if (!out.some((x) => pyEquals(x, item))) out.push(item);
  return new PySet(out);
}

/** JSON form of a value: sets become arrays (in source order), dicts objects with string keys. */
export function toJson(v: PyVal): unknown {
  if (Array.isArray(v)) return v.map(toJson);
  if (v instanceof PySet) return v.items.map(toJson);
  if (v instanceof PyDict) {
    const out: Record<string, unknown> = {};
    for (const [k, val] of v.entries) out[typeof k === 'string' ? k : JSON.stringify(toJson(k))] = toJson(val);
    return out;
  }
  return v;
}

function parseIntLiteral(text: string): number | undefined {
  const t = text.replace(/_/g, '').toLowerCase();
  if (/[jl]$/.test(t)) return undefined;
  if (t.startsWith('0x')) return parseInt(t.slice(2), 16);
  if (t.startsWith('0o')) return parseInt(t.slice(2), 8);
  if (t.startsWith('0b')) return parseInt(t.slice(2), 2);
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

function binary(op: string, a: PyVal, b: PyVal): Evaluated {
  if (typeof a === 'boolean') a = Number(a);
  if (typeof b === 'boolean') b = Number(b);
  if (typeof a === 'number' && typeof b === 'number') {
    switch (op) {
      case '+':
        return a + b;
      case '-':
        return a - b;
      case '*':
        return a * b;
      case '/':
        return b === 0 ? UNRESOLVED : a / b;
      case '//':
        return b === 0 ? UNRESOLVED : Math.floor(a / b);
      case '%':
        return b === 0 ? UNRESOLVED : ((a % b) + b) % b;
      case '**':
        return a ** b;
      case '<<':
        return a * 2 ** b;
      case '>>':
        return Math.floor(a / 2 ** b);
      case '|':
        return a | b;
      case '&':
        return a & b;
      default:
        return UNRESOLVED;
    }
  }
  if (op === '+' && typeof a === 'string' && typeof b === 'string') return a + b;
  if (op === '+' && Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  if (op === '*' && Array.isArray(a) && typeof b === 'number') {
    if (a.length * b > MAX_ITEMS) return UNRESOLVED;
    return Array.from<PyVal[]>({ length: Math.max(0, b) })
      .fill(a)
      .flat();
  }
  if (op === '*' && typeof a === 'string' && typeof b === 'number') return b > 0 && a.length * b < 1e6 ? a.repeat(b) : '';
  if (a instanceof PySet && b instanceof PySet) {
    if (op === '|') return setOf([...a.items, ...b.items]);
    if (op === '-') return new PySet(a.items.filter((x) => !b.items.some((y) => pyEquals(x, y))));
    if (op === '&') return new PySet(a.items.filter((x) => b.items.some((y) => pyEquals(x, y))));
  }
  if (op === '|' && a instanceof PyDict && b instanceof PyDict) return new PyDict([...a.entries, ...b.entries]);
  return UNRESOLVED;
}

function compare(op: string, a: PyVal, b: PyVal): boolean | undefined {
  switch (op) {
    case '==':
      return pyEquals(a, b);
    case '!=':
      return !pyEquals(a, b);
    case 'is':
      return a === b;
    case 'is not':
      return a !== b;
    case 'in': {
      const it = iterate(b);
      return it ? it.some((x) => pyEquals(x, a)) || (typeof a === 'string' && typeof b === 'string' && b.includes(a)) : undefined;
    }
    case 'not in': {
      const r = compare('in', a, b);
      return r === undefined ? undefined : !r;
    }
    default:
      break;
  }
  if ((typeof a === 'number' || typeof a === 'string') && typeof a === typeof b) {
    const x = a;
    const y = b as number | string;
    switch (op) {
      case '<':
        return x < y;
      case '>':
        return x > y;
      case '<=':
        return x <= y;
      case '>=':
        return x >= y;
      default:
        return undefined;
    }
  }
  return undefined;
}

function callMethod(obj: PyVal, method: string, args: PyVal[]): Evaluated {
  if (obj instanceof PyDict) {
    if (method === 'keys' && !args.length) return obj.entries.map(([k]) => k);
    if (method === 'values' && !args.length) return obj.entries.map(([, v]) => v);
    if (method === 'items' && !args.length) return obj.entries.map(([k, v]) => [k, v]);
    if (method === 'get' && args.length >= 1) {
      const hit = obj.entries.find(([k]) => pyEquals(k, args[0]));
      return hit ? hit[1] : (args[1] ?? null);
    }
    if (method === 'copy') return new PyDict([...obj.entries]);
    return UNRESOLVED;
  }
  if (Array.isArray(obj) && method === 'copy') return [...obj];
  if (obj instanceof PySet && method === 'copy') return new PySet([...obj.items]);
  if (obj instanceof PySet && method === 'union') {
    const more = args.flatMap((a) => iterate(a) ?? []);
    return setOf([...obj.items, ...more]);
  }
  if (typeof obj === 'string') {
    const s = args[0];
    switch (method) {
      case 'upper':
        return obj.toUpperCase();
      case 'lower':
        return obj.toLowerCase();
      case 'strip':
        return obj.trim();
      case 'startswith':
        return typeof s === 'string' ? obj.startsWith(s) : UNRESOLVED;
      case 'endswith':
        return typeof s === 'string' ? obj.endsWith(s) : UNRESOLVED;
      case 'replace':
        return typeof s === 'string' && typeof args[1] === 'string' ? obj.split(s).join(args[1]) : UNRESOLVED;
      case 'split':
        return typeof s === 'string' ? obj.split(s) : obj.split(/\s+/).filter(Boolean);
      case 'join': {
        const it = s === undefined ? undefined : iterate(s);
        return it && it.every((x) => typeof x === 'string') ? it.join(obj) : UNRESOLVED;
      }
      case 'format':
        return UNRESOLVED;
      default:
        return UNRESOLVED;
    }
  }
  return UNRESOLVED;
}

function builtin(name: string, args: PyVal[]): Evaluated {
  const a = args[0];
  switch (name) {
    case 'list':
    case 'tuple': {
      if (a === undefined) return [];
      const it = iterate(a);
      return it ? [...it] : UNRESOLVED;
    }
    case 'set':
    case 'frozenset': {
      if (a === undefined) return new PySet([]);
      const it = iterate(a);
      return it ? setOf(it) : UNRESOLVED;
    }
    case 'dict':
      return a === undefined ? new PyDict([]) : a instanceof PyDict ? new PyDict([...a.entries]) : UNRESOLVED;
    case 'sorted': {
      const it = a === undefined ? undefined : iterate(a);
      if (!it) return UNRESOLVED;
      if (it.every((x) => typeof x === 'string')) return [...it].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
      if (it.every((x) => typeof x === 'number')) return [...it].sort((x, y) => x - y);
      return UNRESOLVED;
    }
    case 'len': {
      const it = a === undefined ? undefined : iterate(a);
      return it ? it.length : UNRESOLVED;
    }
    case 'str':
      return typeof a === 'string' ? a : typeof a === 'number' ? String(a) : UNRESOLVED;
    case 'int':
      return typeof a === 'number' ? Math.trunc(a) : typeof a === 'string' && /^\s*-?\d+\s*$/.test(a) ? parseInt(a, 10) : UNRESOLVED;
    case 'float':
      return typeof a === 'number' ? a : typeof a === 'string' && a.trim() !== '' && Number.isFinite(Number(a)) ? Number(a) : UNRESOLVED;
    case 'bool':
      return a === undefined ? false : truthy(a);
    case 'range': {
      if (!args.every((x) => typeof x === 'number' && Number.isInteger(x)) || !args.length || args.length > 3) return UNRESOLVED;
      const [start, stop, step] = args.length === 1 ? [0, args[0] as number, 1] : [args[0] as number, args[1] as number, (args[2] as number | undefined) ?? 1];
      if (step === 0 || Math.abs((stop - start) / step) > MAX_ITEMS) return UNRESOLVED;
      const out: number[] = [];
      for (let i = start; step > 0 ? i < stop : i > stop; i += step) out.push(i);
      return out;
    }
    case 'min':
    case 'max': {
      const it = args.length === 1 && a !== undefined ? iterate(a) : args;
      if (!it || !it.length || !it.every((x) => typeof x === 'number')) return UNRESOLVED;
      return name === 'min' ? Math.min(...it) : Math.max(...it);
    }
    default:
      return UNRESOLVED;
  }
}

/** Dotted name of an identifier/attribute chain, or undefined. */
export function dottedName(node: Node, depth = 0): string | undefined {
  if (depth > 20) return undefined;
  if (node.type === 'identifier') return node.text;
  if (node.type === 'attribute') {
    const obj = node.childForFieldName('object');
    const attr = node.childForFieldName('attribute');
    if (!obj || !attr) return undefined;
    const base = dottedName(obj, depth + 1);
    return base === undefined ? undefined : `${base}.${attr.text}`;
  }
  return undefined;
}

function scopedContext(ctx: EvalContext, bindings: Map<string, PyVal>): EvalContext {
  return {
    lookup: (name) => (bindings.has(name) ? bindings.get(name)! : ctx.lookup(name)),
    attribute: ctx.attribute?.bind(ctx),
  };
}

function bindTarget(target: Node, value: PyVal, bindings: Map<string, PyVal>): boolean {
  if (target.type === 'identifier') {
    bindings.set(target.text, value);
    return true;
  }
  if (target.type === 'pattern_list' || target.type === 'tuple_pattern' || target.type === 'list_pattern' || target.type === 'tuple') {
    const parts = target.namedChildren.filter((c): c is Node => !!c && c.type !== 'comment');
    const items = Array.isArray(value) ? value : undefined;
    if (!items || items.length !== parts.length) return false;
    return parts.every((p, i) => bindTarget(p, items[i], bindings));
  }
  return false;
}

function comprehension(node: Node, ctx: EvalContext, depth: number): Evaluated {
  const body = node.childForFieldName('body');
  if (!body) return UNRESOLVED;
  const clauses = node.namedChildren.filter((c): c is Node => !!c && (c.type === 'for_in_clause' || c.type === 'if_clause'));
  const out: PyVal[] = [];
  let budget = MAX_ITEMS;
  const run = (i: number, bindings: Map<string, PyVal>): boolean => {
    if (--budget < 0) return false;
    const scope = scopedContext(ctx, bindings);
    if (i === clauses.length) {
      const v = evaluate(body, scope, depth + 1);
      if (v === UNRESOLVED) return false;
      out.push(v);
      return true;
    }
    const clause = clauses[i];
    if (clause.type === 'if_clause') {
      const cond = clause.namedChildren[0];
      if (!cond) return false;
      const c = evaluate(cond, scope, depth + 1);
      if (c === UNRESOLVED) return false;
      return truthy(c) ? run(i + 1, bindings) : true;
    }
    const left = clause.childForFieldName('left');
    const right = clause.childForFieldName('right');
    if (!left || !right) return false;
    const iterable = evaluate(right, scope, depth + 1);
    if (iterable === UNRESOLVED) return false;
    const items = iterate(iterable);
    if (!items) return false;
    for (const item of items) {
      const next = new Map(bindings);
      if (!bindTarget(left, item, next)) return false;
      if (!run(i + 1, next)) return false;
    }
    return true;
  };
  if (!run(0, new Map())) return UNRESOLVED;
  if (node.type === 'set_comprehension') return setOf(out);
  return out;
}

function elements(node: Node, ctx: EvalContext, depth: number): PyVal[] | undefined {
  const out: PyVal[] = [];
  for (const child of node.namedChildren) {
    if (!child || child.type === 'comment') continue;
    if (child.type === 'list_splat') {
      const inner = child.namedChildren[0];
      const v = inner ? evaluate(inner, ctx, depth + 1) : UNRESOLVED;
      const it = v === UNRESOLVED ? undefined : iterate(v);
      if (!it) return undefined;
      out.push(...it);
      continue;
    }
    const v = evaluate(child, ctx, depth + 1);
    if (v === UNRESOLVED) return undefined;
    out.push(v);
    if (out.length > MAX_ITEMS) return undefined;
  }
  return out;
}

export function evaluate(node: Node, ctx: EvalContext, depth = 0): Evaluated {
  if (depth > MAX_DEPTH) return UNRESOLVED;
  switch (node.type) {
    case 'string': {
      const s = stringNodeText(node);
      return s.holes || s.bytes ? UNRESOLVED : s.text;
    }
    case 'concatenated_string': {
      const t = textOf(node, undefined, depth + 1);
      return t.exact ? t.text : UNRESOLVED;
    }
    case 'integer':
      return parseIntLiteral(node.text) ?? UNRESOLVED;
    case 'float': {
      const t = node.text.replace(/_/g, '');
      if (/j$/i.test(t)) return UNRESOLVED;
      const n = Number(t);
      return Number.isFinite(n) ? n : UNRESOLVED;
    }
    case 'true':
      return true;
    case 'false':
      return false;
    case 'none':
      return null;
    case 'parenthesized_expression': {
      const inner = node.namedChildren.find((c) => c && c.type !== 'comment');
      return inner ? evaluate(inner, ctx, depth + 1) : UNRESOLVED;
    }
    case 'identifier':
      return ctx.lookup(node.text);
    case 'attribute': {
      const dotted = dottedName(node);
      if (dotted !== undefined && ctx.attribute) {
        const v = ctx.attribute(dotted);
        if (v !== UNRESOLVED) return v;
      }
      return UNRESOLVED;
    }
    case 'unary_operator': {
      const op = node.childForFieldName('operator')?.text;
      const arg = node.childForFieldName('argument');
      const v = arg ? evaluate(arg, ctx, depth + 1) : UNRESOLVED;
      if (typeof v !== 'number' && typeof v !== 'boolean') return UNRESOLVED;
      const n = Number(v);
      return op === '-' ? -n : op === '+' ? n : op === '~' ? ~n : UNRESOLVED;
    }
    case 'not_operator': {
      const arg = node.childForFieldName('argument');
      const v = arg ? evaluate(arg, ctx, depth + 1) : UNRESOLVED;
      return v === UNRESOLVED ? UNRESOLVED : !truthy(v);
    }
    case 'binary_operator': {
      const op = node.childForFieldName('operator')?.text ?? '';
      const l = node.childForFieldName('left');
      const r = node.childForFieldName('right');
      if (!l || !r) return UNRESOLVED;
      const a = evaluate(l, ctx, depth + 1);
      if (a === UNRESOLVED) return UNRESOLVED;
      const b = evaluate(r, ctx, depth + 1);
      if (b === UNRESOLVED) return UNRESOLVED;
      return binary(op, a, b);
    }
    case 'boolean_operator': {
      const op = node.childForFieldName('operator')?.text;
      const l = node.childForFieldName('left');
      const r = node.childForFieldName('right');
      if (!l || !r) return UNRESOLVED;
      const a = evaluate(l, ctx, depth + 1);
      if (a === UNRESOLVED) return UNRESOLVED;
      if (op === 'and') return truthy(a) ? evaluate(r, ctx, depth + 1) : a;
      return truthy(a) ? a : evaluate(r, ctx, depth + 1);
    }
    case 'comparison_operator': {
      const kids = node.children.filter((c): c is Node => !!c && c.type !== 'comment');
      let prev: Evaluated = UNRESOLVED;
      let i = 0;
      const operands: Node[] = [];
      const ops: string[] = [];
      for (const k of kids) {
        if (k.isNamed) operands.push(k);
        else if (operands.length === ops.length) ops[ops.length - 1] = `${ops[ops.length - 1]} ${k.type}`;
        else ops.push(k.type);
      }
      if (operands.length !== ops.length + 1) return UNRESOLVED;
      prev = evaluate(operands[0], ctx, depth + 1);
      if (prev === UNRESOLVED) return UNRESOLVED;
      for (i = 0; i < ops.length; i++) {
        const next = evaluate(operands[i + 1], ctx, depth + 1);
        if (next === UNRESOLVED) return UNRESOLVED;
        const r = compare(ops[i], prev, next);
        if (r === undefined) return UNRESOLVED;
        if (!r) return false;
        prev = next;
      }
      return true;
    }
    case 'conditional_expression': {
      const parts = node.namedChildren.filter((c): c is Node => !!c && c.type !== 'comment');
      if (parts.length !== 3) return UNRESOLVED;
      const cond = evaluate(parts[1], ctx, depth + 1);
      if (cond === UNRESOLVED) return UNRESOLVED;
      return evaluate(truthy(cond) ? parts[0] : parts[2], ctx, depth + 1);
    }
    case 'list':
    case 'tuple':
    case 'expression_list':
      return elements(node, ctx, depth) ?? UNRESOLVED;
    case 'set': {
      const e = elements(node, ctx, depth);
      return e ? setOf(e) : UNRESOLVED;
    }
    case 'dictionary': {
      const entries: [PyVal, PyVal][] = [];
      for (const child of node.namedChildren) {
        if (!child || child.type === 'comment') continue;
        if (child.type === 'pair') {
          const k = child.childForFieldName('key');
          const v = child.childForFieldName('value');
          if (!k || !v) return UNRESOLVED;
          const kv = evaluate(k, ctx, depth + 1);
          const vv = evaluate(v, ctx, depth + 1);
          if (kv === UNRESOLVED || vv === UNRESOLVED) return UNRESOLVED;
          entries.push([kv, vv]);
        } else if (child.type === 'dictionary_splat') {
          const inner = child.namedChildren[0];
          const v = inner ? evaluate(inner, ctx, depth + 1) : UNRESOLVED;
          if (!(v instanceof PyDict)) return UNRESOLVED;
          entries.push(...v.entries);
        } else return UNRESOLVED;
      }
      const dedup: [PyVal, PyVal][] = [];
      for (const [k, v] of entries) {
        const at = dedup.findIndex(([x]) => pyEquals(x, k));
        if (at >= 0) dedup[at] = [k, v];
        else dedup.push([k, v]);
      }
      return new PyDict(dedup);
    }
    case 'list_comprehension':
    case 'set_comprehension':
    case 'generator_expression':
      return comprehension(node, ctx, depth + 1);
    case 'subscript': {
      const valueNode = node.childForFieldName('value');
      const subs = node.childrenForFieldName('subscript').filter((c): c is Node => !!c);
      if (!valueNode || subs.length !== 1) return UNRESOLVED;
      const base = evaluate(valueNode, ctx, depth + 1);
      if (base === UNRESOLVED) return UNRESOLVED;
      const sub = subs[0];
      if (sub.type === 'slice') return UNRESOLVED;
      const key = evaluate(sub, ctx, depth + 1);
      if (key === UNRESOLVED) return UNRESOLVED;
      if ((Array.isArray(base) || typeof base === 'string') && typeof key === 'number') {
        const idx = key < 0 ? base.length + key : key;
        const v = base[idx];
        return v === undefined ? UNRESOLVED : v;
      }
      if (base instanceof PyDict) {
        const hit = base.entries.find(([k]) => pyEquals(k, key));
        return hit ? hit[1] : UNRESOLVED;
      }
      return UNRESOLVED;
    }
    case 'call': {
      const fn = node.childForFieldName('function');
      const argsNode = node.childForFieldName('arguments');
      if (!fn || !argsNode) return UNRESOLVED;
      if (argsNode.type === 'generator_expression') {
        const g = evaluate(argsNode, ctx, depth + 1);
        if (g === UNRESOLVED) return UNRESOLVED;
        return fn.type === 'identifier' ? builtin(fn.text, [g]) : UNRESOLVED;
      }
      const args: PyVal[] = [];
      for (const a of argsNode.namedChildren) {
        if (!a || a.type === 'comment') continue;
        if (a.type === 'keyword_argument' || a.type === 'list_splat' || a.type === 'dictionary_splat') return UNRESOLVED;
        const v = evaluate(a, ctx, depth + 1);
        if (v === UNRESOLVED) return UNRESOLVED;
        args.push(v);
      }
      if (fn.type === 'identifier') return builtin(fn.text, args);
      if (fn.type === 'attribute') {
        const obj = fn.childForFieldName('object');
        const method = fn.childForFieldName('attribute')?.text;
        if (!obj || !method) return UNRESOLVED;
        const o = evaluate(obj, ctx, depth + 1);
        if (o === UNRESOLVED) return UNRESOLVED;
        return callMethod(o, method, args);
      }
      return UNRESOLVED;
    }
    default:
      return UNRESOLVED;
  }
}

/** Identifiers an expression mentions (bounded). */
const LEAF_LITERALS = new Set(['integer', 'float', 'true', 'false', 'none', 'comment', 'string_content', 'string_start', 'string_end']);

export function identifiersIn(node: Node, out: Set<string> = new Set(), depth = 0): Set<string> {
  if (depth > MAX_DEPTH || out.size > 200) return out;
  const type = node.type;
  if (type === 'identifier') {
    out.add(node.text);
    return out;
  }
  if (LEAF_LITERALS.has(type)) return out;
  if (type === 'attribute') {
    const obj = node.childForFieldName('object');
    if (obj) identifiersIn(obj, out, depth + 1);
    return out;
  }
  for (const c of node.namedChildren) if (c) identifiersIn(c, out, depth + 1);
  return out;
}
