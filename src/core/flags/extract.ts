/**
 * Walks a tree-sitter Python tree of server_args.py (any era) and extracts the flag catalog.
 * Bounded: recursion depth, list sizes and diagnostic counts are capped; never throws on
 * malformed input (callers still wrap it).
 */
import type { Language, Node, Tree } from 'web-tree-sitter';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS build, see parser.ts
import TreeSitter = require('web-tree-sitter');

const { Query } = TreeSitter;
type Query = TreeSitter.Query;
import {
  dottedName,
  evaluate,
  identifiersIn,
  MAX_DEPTH,
  PyDict,
  PySet,
  stringNodeText,
  textOf,
  toJson,
  UNRESOLVED,
  type EvalContext,
  type Evaluated,
  type PyVal,
} from './pyvalue';
import {
  fieldFromFlag,
  NO_VALUE_ACTIONS,
  type CatalogDiagnostic,
  type CatalogEra,
  type CatalogRange,
  type ChoiceList,
  type ChoiceValue,
  type FlagCatalog,
  type FlagEntry,
} from './types';

const MAX_DIAGNOSTICS = 50;
const MUTATORS = new Set(['extend', 'append', 'add', 'update', 'insert', '__iadd__']);

export interface ConstInfo {
  name: string;
  value: Evaluated;
  valueNode: Node | undefined;
  line: number;
  conditional: boolean;
  unknownAdditions: boolean;
  conditionalValues: PyVal[];
  deprecatedValues: { value: ChoiceValue; replacement?: string }[];
  /** `X = Y` where Y is a module constant: the two names are one object (hooks on either grow both). */
  aliasOf?: string;
}

export interface FieldInfo {
  name: string;
  stmt: Node;
  typeNode: Node | undefined;
  right: Node | undefined;
}
export interface ClassInfo {
  name: string;
  node: Node;
  fields: FieldInfo[];
  byName: Map<string, FieldInfo>;
  /** Base class expressions as written (`Model`, `msgspec.Struct`), in order. */
  bases: string[];
}

/** Source span of the definition an entry came from (string offsets into the source). */
export interface Definition {
  start: number;
  end: number;
  kind: 'field' | 'call';
  group?: string;
}

export interface ExtractOptions {
  /** Memo of per-definition results keyed by source text + environment signature. */
  memo?: Map<string, unknown>;
}

/**
 * Entries of a class the file refers to but does not define with fields (`add_cli_args_from_dataclass(
 * parser, ServerArgs)` where ServerArgs is assembled from classes in other files); packageLayout.ts
 * answers it. Undefined: no answer, the file's own classes are used.
 */
export type ExternalClassEntries = (className: string, only: Set<string> | undefined) => FlagEntry[] | undefined;

export class Extractor {
  readonly consts = new Map<string, ConstInfo>();
  readonly imported = new Set<string>();
  readonly hooks = new Map<string, Set<string>>();
  readonly classes = new Map<string, ClassInfo>();
  readonly annotatedNames = new Set(['A', 'Annotated', 'typing.Annotated']);
  readonly diagnostics: CatalogDiagnostic[] = [];
  readonly ctx: EvalContext;
  /** Where each entry was defined (string offsets), for incremental re-extraction. */
  readonly defs = new Map<FlagEntry, Definition>();
  readonly refFields = new Set<string>();
  private depthWarned = false;

  constructor(
    private readonly root: Node,
    private readonly language: Language,
  ) {
    this.ctx = {
      lookup: (name) => {
        const c = this.consts.get(name);
        if (c) return c.value;
        return UNRESOLVED;
      },
      attribute: (dotted) => this.attribute(dotted),
    };
  }

  diag(message: string, line: number, severity: 'error' | 'warning' = 'warning'): void {
    if (this.diagnostics.length < MAX_DIAGNOSTICS) this.diagnostics.push({ message, line, severity });
  }

  tooDeep(depth: number, node: Node): boolean {
    if (depth <= MAX_DEPTH) return false;
    if (!this.depthWarned) {
      this.depthWarned = true;
      this.diag('Nesting too deep; the rest of this block was skipped', node.startPosition.row + 1);
    }
    return true;
  }

  /** `Owner.attr` the file cannot answer itself (a class assembled from other files). */
  attributeFallback?: (owner: string, attr: string) => Evaluated;

  attribute(dotted: string): Evaluated {
    if (dotted === 'argparse.SUPPRESS' || dotted === 'SUPPRESS') return '==SUPPRESS==';
    const dot = dotted.lastIndexOf('.');
    if (dot < 0) return UNRESOLVED;
    const owner = dotted.slice(0, dot);
    const attr = dotted.slice(dot + 1);
    const cls = this.classes.get(owner.split('.').pop() ?? owner);
    const field = cls?.byName.get(attr);
    if (field?.right) {
      const d = this.fieldDefault(field.right);
      if ('value' in d) return d.value as PyVal;
    }
    if (!field && this.attributeFallback) return this.attributeFallback(owner.split('.').pop() ?? owner, attr);
    return UNRESOLVED;
  }

  // -------------------------------------------------------------------------------------------
  // Module scan
  // -------------------------------------------------------------------------------------------

  scanModule(): void {
    this.scanBlock(this.root, false, 0);
    for (const c of this.consts.values()) {
      if (c.valueNode && /^(typing\.)?Annotated$/.test(c.valueNode.text)) this.annotatedNames.add(c.name);
    }
    this.linkAliases();
  }

  /** `NSA_CHOICES = DSA_CHOICES`: one list under two names, so a hook on either grows both. */
  linkAliases(): void {
    for (const c of this.consts.values()) {
      if (!c.aliasOf) continue;
      const a = this.hooks.get(c.name);
      const b = this.hooks.get(c.aliasOf);
      if (!a && !b) continue;
      const both = new Set([...(a ?? []), ...(b ?? [])]);
      this.hooks.set(c.name, both);
      this.hooks.set(c.aliasOf, both);
    }
  }

  private scanBlock(block: Node, conditional: boolean, depth: number): void {
    if (this.tooDeep(depth, block)) return;
    for (const stmt of block.namedChildren) {
      if (!stmt) continue;
      this.scanStatement(stmt, conditional, depth + 1);
    }
  }

  private scanStatement(stmt: Node, conditional: boolean, depth: number): void {
    switch (stmt.type) {
      case 'import_statement':
      case 'import_from_statement':
        for (const n of stmt.namedChildren) {
          if (!n) continue;
          if (n.type === 'aliased_import') {
            const alias = n.childForFieldName('alias');
            if (alias) this.imported.add(alias.text);
          } else if (n.type === 'dotted_name' && n !== stmt.childForFieldName('module_name')) {
            this.imported.add(n.text.split('.')[0]);
          }
        }
        break;
      case 'expression_statement':
        for (const e of stmt.namedChildren) if (e) this.scanExpression(e, conditional, stmt);
        break;
      case 'if_statement': {
        for (const c of stmt.namedChildren) {
          if (!c) continue;
          if (c.type === 'block') this.scanBlock(c, true, depth);
          else if (c.type === 'elif_clause' || c.type === 'else_clause') {
            const b = c.childForFieldName('consequence') ?? c.childForFieldName('body') ?? c.namedChildren.find((x) => x?.type === 'block');
            if (b) this.scanBlock(b, true, depth);
          }
        }
        break;
      }
      case 'try_statement':
      case 'with_statement': {
        for (const c of stmt.namedChildren) {
          if (!c) continue;
          if (c.type === 'block') this.scanBlock(c, conditional, depth);
          else if (c.type === 'except_clause' || c.type === 'else_clause' || c.type === 'finally_clause') {
            const b = c.namedChildren.find((x) => x?.type === 'block');
            if (b) this.scanBlock(b, true, depth);
          }
        }
        break;
      }
      case 'function_definition':
        this.scanFunction(stmt, depth);
        break;
      case 'class_definition':
        this.scanClass(stmt);
        break;
      case 'decorated_definition': {
        const def = stmt.childForFieldName('definition');
        if (def?.type === 'function_definition') this.scanFunction(def, depth);
        else if (def?.type === 'class_definition') this.scanClass(def);
        break;
      }
      default:
        break;
    }
  }

  private scanExpression(e: Node, conditional: boolean, stmt: Node): void {
    if (e.type === 'assignment') {
      const left = e.childForFieldName('left');
      const right = e.childForFieldName('right');
      if (left?.type !== 'identifier' || !right) return;
      const name = left.text;
      if (conditional && this.consts.has(name)) {
        const c = this.consts.get(name)!;
        c.conditional = true;
        return;
      }
      const value = right.type === 'assignment' ? UNRESOLVED : evaluate(right, this.ctx);
      const info: ConstInfo = {
        name,
        value,
        valueNode: right,
        line: stmt.startPosition.row + 1,
        conditional,
        unknownAdditions: false,
        conditionalValues: [],
        deprecatedValues: [],
      };
      if (right.type === 'list' || right.type === 'set' || right.type === 'tuple') info.deprecatedValues = this.deprecatedItems(right);
      if (right.type === 'identifier' && this.consts.has(right.text)) info.aliasOf = right.text;
      // `add_x_choices = X_CHOICES.extend`: the hook is the bound method itself (SGLang's choices.py)
      const bound = right.type === 'parenthesized_expression' ? right.namedChildren.find((x) => x && x.type !== 'comment') : right;
      if (bound?.type === 'attribute') {
        const obj = bound.childForFieldName('object');
        const method = bound.childForFieldName('attribute')?.text ?? '';
        if (obj?.type === 'identifier' && MUTATORS.has(method) && /^[A-Z][A-Z0-9_]*$/.test(obj.text)) {
          if (!this.hooks.has(obj.text)) this.hooks.set(obj.text, new Set());
          this.hooks.get(obj.text)!.add(name);
        }
      }
      this.consts.set(name, info);
      return;
    }
    if (e.type === 'augmented_assignment') {
      const left = e.childForFieldName('left');
      const right = e.childForFieldName('right');
      const op = e.childForFieldName('operator')?.text;
      if (left?.type !== 'identifier' || !right) return;
      const c = this.consts.get(left.text);
      if (!c) return;
      const add = evaluate(right, this.ctx);
      this.mutate(c, op === '|=' ? 'update' : 'extend', add, conditional);
      return;
    }
    if (e.type === 'call') {
      const fn = e.childForFieldName('function');
      if (fn?.type !== 'attribute') return;
      const obj = fn.childForFieldName('object');
      const method = fn.childForFieldName('attribute')?.text ?? '';
      if (obj?.type !== 'identifier' || !MUTATORS.has(method)) return;
      const c = this.consts.get(obj.text);
      if (!c) return;
      const args = e.childForFieldName('arguments')?.namedChildren.filter((x): x is Node => !!x && x.type !== 'comment') ?? [];
      const argNode = method === 'insert' ? args[1] : args[0];
      const add = argNode ? evaluate(argNode, this.ctx) : UNRESOLVED;
      this.mutate(c, method, add, conditional);
    }
  }

  private mutate(c: ConstInfo, method: string, add: Evaluated, conditional: boolean): void {
    const single = method === 'append' || method === 'add' || method === 'insert';
    let items: PyVal[] | undefined;
    if (add !== UNRESOLVED) {
      if (single) items = [add];
      else if (Array.isArray(add)) items = add;
      else if (add instanceof PySet) items = add.items;
      else if (add instanceof PyDict) items = add.entries.map(([k]) => k);
    }
    if (!items) {
      c.unknownAdditions = true;
      return;
    }
    if (conditional) {
      c.conditionalValues.push(...items);
      return;
    }
    const v = c.value;
    if (Array.isArray(v)) v.push(...items);
    else if (v instanceof PySet) {
      for (const i of items) if (!v.items.includes(i)) v.items.push(i);
    } else c.unknownAdditions = true;
  }

  private scanFunction(fn: Node, depth: number): void {
    const name = fn.childForFieldName('name')?.text ?? '<function>';
    const body = fn.childForFieldName('body');
    if (!body) return;
    const visit = (n: Node, d: number): void => {
      if (d > MAX_DEPTH) return;
      for (const s of n.namedChildren) {
        if (!s) continue;
        if (s.type === 'expression_statement') {
          for (const e of s.namedChildren) {
            if (!e) continue;
            let target: string | undefined;
            if (e.type === 'call') {
              const f = e.childForFieldName('function');
              const obj = f?.type === 'attribute' ? f.childForFieldName('object') : null;
              const method = f?.type === 'attribute' ? f.childForFieldName('attribute')?.text : undefined;
              if (obj?.type === 'identifier' && method && MUTATORS.has(method)) target = obj.text;
            } else if (e.type === 'augmented_assignment') {
              const left = e.childForFieldName('left');
              if (left?.type === 'identifier') target = left.text;
            }
            if (target && /^[A-Z][A-Z0-9_]*$/.test(target)) {
              if (!this.hooks.has(target)) this.hooks.set(target, new Set());
              this.hooks.get(target)!.add(name);
            }
          }
        } else if (s.type !== 'function_definition' && s.type !== 'class_definition') {
          visit(s, d + 1);
        }
      }
    };
    visit(body, depth);
  }

  private scanClass(node: Node): void {
    const name = node.childForFieldName('name')?.text;
    const body = node.childForFieldName('body');
    if (!name || !body) return;
    const bases: string[] = [];
    for (const b of node.childForFieldName('superclasses')?.namedChildren ?? []) {
      if (!b || b.type === 'keyword_argument' || b.type === 'comment') continue;
      const d = dottedName(b);
      if (d) bases.push(d);
    }
    const info: ClassInfo = { name, node, fields: [], byName: new Map(), bases };
    for (const stmt of body.namedChildren) {
      const f = stmt ? fieldInfoOf(stmt) : undefined;
      if (!f) continue;
      info.fields.push(f);
      info.byName.set(f.name, f);
    }
    if (!this.classes.has(name) || info.fields.length) this.classes.set(name, info);
  }

  /** Items of a list/set literal whose trailing comment says they are deprecated. */
  deprecatedItems(list: Node): { value: ChoiceValue; replacement?: string }[] {
    const out: { value: ChoiceValue; replacement?: string }[] = [];
    const kids = list.namedChildren.filter((x): x is Node => !!x);
    for (let i = 0; i < kids.length; i++) {
      const item = kids[i];
      if (item.type === 'comment') continue;
      const next = kids[i + 1];
      if (next?.type !== 'comment' || next.startPosition.row !== item.endPosition.row) continue;
      if (!/deprecat/i.test(next.text)) continue;
      const v = evaluate(item, this.ctx);
      if (v === UNRESOLVED || (typeof v === 'object' && v !== null)) continue;
      const m = /(?:alias (?:for|of)|use|replaced by|renamed to)\s+["'`]?([\w.-]+)/i.exec(next.text);
      out.push(m ? { value: v, replacement: m[1] } : { value: v });
    }
    return out;
  }

  // -------------------------------------------------------------------------------------------
  // Shared pieces
  // -------------------------------------------------------------------------------------------

  fieldDefault(right: Node): { value: unknown } | { expr: string } {
    if (right.type === 'call') {
      const fnName = dottedName(right.childForFieldName('function') ?? right);
      if (fnName === 'field' || fnName === 'dataclasses.field' || fnName === 'msgspec.field') {
        const kw = keywordArgs(right);
        const d = kw.get('default');
        if (d) {
          const v = evaluate(d, this.ctx);
          return v === UNRESOLVED ? { expr: d.text } : { value: toJson(v) };
        }
        const f = kw.get('default_factory');
        if (f) {
          const factory = f.type === 'lambda' ? f.childForFieldName('body') : null;
          if (factory) {
            const v = evaluate(factory, this.ctx);
            if (v !== UNRESOLVED) return { value: toJson(v) };
          } else if (f.type === 'identifier') {
            const builtins: Record<string, unknown> = { list: [], dict: {}, set: [], tuple: [], str: '', int: 0, float: 0, bool: false };
            if (f.text in builtins) return { value: builtins[f.text] };
          }
          return { expr: `default_factory=${f.text}` };
        }
        return { expr: right.text };
      }
    }
    const v = evaluate(right, this.ctx);
    return v === UNRESOLVED ? { expr: right.text } : { value: toJson(v) };
  }

  choicesOf(node: Node, into: FlagEntry): void {
    const v = evaluate(node, this.ctx);
    const literal = node.type === 'list' || node.type === 'tuple' || node.type === 'set';
    const ids = identifiersIn(node);
    let items: PyVal[] | undefined;
    if (v !== UNRESOLVED) {
      if (Array.isArray(v)) items = v;
      else if (v instanceof PySet) items = v.items;
      else if (v instanceof PyDict) items = v.entries.map(([k]) => k);
    }
    const scalars = items?.every((x) => x === null || ['string', 'number', 'boolean'].includes(typeof x));
    if (items && scalars) into.choices = items as ChoiceValue[];
    if (!literal || !items || !scalars) into.choicesExpr = node.text;
    let grows = !items || !scalars;
    const deprecated: { value: ChoiceValue; replacement?: string }[] = literal ? this.deprecatedItems(node) : [];
    for (const id of ids) {
      const c = this.consts.get(id);
      if (!c) continue;
      if (this.hooks.has(id) || c.conditional || c.unknownAdditions || c.conditionalValues.length) grows = true;
      deprecated.push(...c.deprecatedValues);
    }
    if (grows) into.dynamicChoices = true;
    const known = deprecated.filter((d) => into.choices?.includes(d.value));
    if (known.length) into.deprecatedChoices = known;
  }

  range(node: Node): CatalogRange {
    return {
      start: { line: node.startPosition.row, character: node.startPosition.column },
      end: { line: node.endPosition.row, character: node.endPosition.column },
    };
  }

  // -------------------------------------------------------------------------------------------
  // Dataclass fields (main era)
  // -------------------------------------------------------------------------------------------

  fieldEntry(f: FieldInfo): FlagEntry | undefined {
    if (!f.typeNode) return undefined;
    const ann = genericParts(f.typeNode);
    if (!ann || !this.annotatedNames.has(ann.name) || ann.params.length < 2) return undefined;
    const [inner, ...metas] = ann.params as [Node, ...Node[]];
    let arg: Map<string, Node> | undefined;
    let helpNode: Node | undefined;
    let group: string | undefined;
    for (const m of metas) {
      if (m.type === 'call') {
        const fname = dottedName(m.childForFieldName('function') ?? m)
          ?.split('.')
          .pop();
        if (fname === 'Arg' && !arg && !helpNode) {
          arg = keywordArgs(m);
          helpNode = arg.get('help');
          continue;
        }
        if (fname === 'NS' && group === undefined) {
          const p = positionalArgs(m)[0] ?? keywordArgs(m).get('path');
          const g = p ? evaluate(p, this.ctx) : UNRESOLVED;
          if (typeof g === 'string') group = g;
          continue;
        }
      }
      if (!arg && !helpNode && isStringish(m)) {
        helpNode = m;
        arg = new Map();
      }
    }
    if (!arg) return undefined;
    const bool = (k: string): boolean | undefined => {
      const n = arg.get(k);
      if (!n) return undefined;
      const v = evaluate(n, this.ctx);
      return typeof v === 'boolean' ? v : undefined;
    };
    if (bool('no_cli')) return undefined;
    const str = (k: string): string | undefined => {
      const n = arg.get(k);
      const v = n ? evaluate(n, this.ctx) : UNRESOLVED;
      return typeof v === 'string' ? v : undefined;
    };
    const cliName = str('cli_name') ?? `--${f.name.replace(/_/g, '-')}`;
    const aliasesNode = arg.get('aliases');
    const aliasesVal = aliasesNode ? evaluate(aliasesNode, this.ctx) : null;
    const aliases = Array.isArray(aliasesVal) ? aliasesVal.filter((x): x is string => typeof x === 'string') : [];
    const entry: FlagEntry = {
      flag: cliName,
      aliases,
      negations: [],
      field: f.name,
      source: 'dataclass',
      line: f.stmt.startPosition.row + 1,
      range: this.range(f.stmt),
    };
    if (helpNode) entry.help = textOf(helpNode, this.ctx).text;
    else entry.help = '';
    if (group !== undefined) entry.group = group;
    if (bool('resolvable')) entry.resolvable = true;

    let hasDefault = false;
    if (f.right) {
      hasDefault = true;
      const d = this.fieldDefault(f.right);
      if ('value' in d) entry.default = d.value;
      else entry.defaultExpr = d.expr;
    }
    const constNode = arg.get('const');
    const constVal = constNode ? evaluate(constNode, this.ctx) : UNRESOLVED;
    const setConst = (): void => {
      if (constNode && constVal !== null && constVal !== UNRESOLVED) entry.const = toJson(constVal);
    };
    const typeParser = arg.get('type_parser');
    const choicesNode = arg.get('choices');
    const nargsNode = arg.get('nargs');
    const nargs = nargsNode ? evaluate(nargsNode, this.ctx) : UNRESOLVED;

    const actionNode = arg.get('action');
    if (actionNode && actionNode.type !== 'none') {
      entry.action = actionName(actionNode, this.ctx);
      const kwNode = arg.get('action_kwargs');
      const kw = kwNode ? evaluate(kwNode, this.ctx) : UNRESOLVED;
      if (kw instanceof PyDict) {
        for (const [k, v] of kw.entries) {
          if (k === 'new_flag' && typeof v === 'string') entry.replacement = v;
          if (k === 'choices' && Array.isArray(v)) entry.choices = v as ChoiceValue[];
          if (k === 'nargs' && (typeof v === 'string' || typeof v === 'number')) entry.nargs = v;
          if (k === 'type' && typeof v === 'string') entry.type = v;
        }
      }
      if (!hasDefault) this.implicitActionDefault(entry);
      this.finishAction(entry);
      return entry;
    }
    const { type: innerType, optional } = unwrapOptional(inner);
    void optional;
    const lit = genericParts(innerType);
    if (lit && (lit.name === 'Literal' || lit.name === 'typing.Literal')) {
      const vals = lit.params.map((p) => evaluate(p, this.ctx));
      if (choicesNode) this.choicesOf(choicesNode, entry);
      else if (vals.every((x) => x !== UNRESOLVED)) entry.choices = vals as ChoiceValue[];
      else {
        entry.choicesExpr = innerType.text;
        entry.dynamicChoices = true;
      }
      entry.type = typeParser ? callableName(typeParser) : pyTypeName(vals[0]);
      if (!hasDefault) entry.default = null;
      setConst();
      return entry;
    }
    if (lit && (lit.name === 'List' || lit.name === 'list' || lit.name === 'typing.List') && !typeParser) {
      entry.type = scalarTypeName(lit.params[0]);
      entry.nargs = typeof nargs === 'string' || typeof nargs === 'number' ? nargs : '+';
      if (choicesNode) this.choicesOf(choicesNode, entry);
      if (!hasDefault) entry.default = null;
      setConst();
      return entry;
    }
    if (innerType.type === 'identifier' && innerType.text === 'bool') {
      entry.action = 'store_true';
      if (!hasDefault) entry.default = false;
      this.finishAction(entry);
      return entry;
    }
    entry.type = typeParser ? callableName(typeParser) : scalarTypeName(innerType);
    if (choicesNode) this.choicesOf(choicesNode, entry);
    if (typeof nargs === 'string' || typeof nargs === 'number') entry.nargs = nargs;
    if (!hasDefault) entry.default = null;
    setConst();
    const req = bool('required');
    if ((req === true || (req === undefined && !hasDefault)) && [cliName, ...aliases].some((n) => n.startsWith('-'))) entry.required = true;
    return entry;
  }

  private implicitActionDefault(entry: FlagEntry): void {
    switch (entry.action) {
      case 'store_true':
        entry.default = false;
        break;
      case 'store_false':
        entry.default = true;
        break;
      case 'store':
      case 'store_const':
      case 'append':
      case 'append_const':
      case 'count':
      case 'extend':
      case 'BooleanOptionalAction':
        entry.default = null;
        break;
      default:
        break; // custom actions decide their own default
    }
  }

  private finishAction(entry: FlagEntry): void {
    if (entry.nargs === undefined && NO_VALUE_ACTIONS.has(entry.action ?? '')) entry.nargs = 0;
    if (entry.action === 'BooleanOptionalAction') {
      entry.negations = [entry.flag, ...entry.aliases].filter((s) => s.startsWith('--')).map((s) => `--no-${s.slice(2)}`);
    }
    if (entry.action && /deprecat/i.test(entry.action)) entry.deprecated = true;
    if (entry.help && helpSaysDeprecated(entry.help)) {
      entry.deprecated = true;
      if (!entry.replacement) {
        const m = /(?:use|replaced by|renamed to|alias (?:for|of))\s+[`'"]?(--[A-Za-z0-9][\w-]*)/i.exec(entry.help);
        if (m && m[1] !== entry.flag) entry.replacement = m[1]!;
      }
    }
  }

  // -------------------------------------------------------------------------------------------
  // add_argument calls
  // -------------------------------------------------------------------------------------------

  argumentEntry(call: Node, group: string | undefined): FlagEntry | undefined {
    const argsNode = call.childForFieldName('arguments');
    if (!argsNode) return undefined;
    const names: string[] = [];
    const kw = new Map<string, Node>();
    for (const a of argsNode.namedChildren) {
      if (!a || a.type === 'comment') continue;
      if (a.type === 'keyword_argument') {
        const n = a.childForFieldName('name');
        const v = a.childForFieldName('value');
        if (n && v) kw.set(n.text, v);
      } else if (a.type === 'dictionary_splat' || a.type === 'list_splat') {
        this.diag(`add_argument with ${a.type === 'list_splat' ? '*args' : '**kwargs'} is only partly understood`, a.startPosition.row + 1);
      } else {
        const v = evaluate(a, this.ctx);
        if (typeof v === 'string') names.push(v);
        else if (Array.isArray(v)) names.push(...v.filter((x): x is string => typeof x === 'string'));
      }
    }
    if (!names.length) return undefined;
    const optionStrings = names.filter((n) => n.startsWith('-'));
    const flag = names[0];
    const destNode = kw.get('dest');
    const destVal = destNode ? evaluate(destNode, this.ctx) : UNRESOLVED;
    let field: string;
    if (typeof destVal === 'string') field = destVal;
    else if (!optionStrings.length) field = flag;
    else {
      const long = optionStrings.find((s) => s.startsWith('--')) ?? optionStrings[0];
      field = fieldFromFlag(long);
    }
    const entry: FlagEntry = {
      flag,
      aliases: names.slice(1),
      negations: [],
      field,
      source: 'add_argument',
      line: call.startPosition.row + 1,
      range: this.range(call),
    };
    if (group !== undefined) entry.group = group;
    const actionNode = kw.get('action');
    if (actionNode) entry.action = actionName(actionNode, this.ctx);
    const typeNode = kw.get('type');
    if (typeNode) entry.type = callableName(typeNode);
    const defaultNode = kw.get('default');
    if (defaultNode) {
      const v = evaluate(defaultNode, this.ctx);
      if (v !== UNRESOLVED) entry.default = toJson(v);
      else {
        const dotted = dottedName(defaultNode);
        const owner = dotted?.split('.');
        const f = owner && owner.length === 2 ? this.classes.get(owner[0])?.byName.get(owner[1]) : undefined;
        entry.defaultExpr = f?.right ? f.right.text : defaultNode.text;
      }
    } else this.implicitActionDefault(entry);
    if (!defaultNode && !actionNode) entry.default = null;
    const choicesNode = kw.get('choices');
    if (choicesNode) this.choicesOf(choicesNode, entry);
    const nargsNode = kw.get('nargs');
    if (nargsNode) {
      const v = evaluate(nargsNode, this.ctx);
      if (typeof v === 'string' || typeof v === 'number') entry.nargs = v;
    }
    const constNode = kw.get('const');
    if (constNode) {
      const v = evaluate(constNode, this.ctx);
      if (v !== UNRESOLVED) entry.const = toJson(v);
    }
    const helpNode = kw.get('help');
    if (helpNode) entry.help = textOf(helpNode, this.ctx).text;
    const req = kw.get('required');
    if (req && evaluate(req, this.ctx) === true) entry.required = true;
    const newFlag = kw.get('new_flag');
    const nf = newFlag ? evaluate(newFlag, this.ctx) : UNRESOLVED;
    if (typeof nf === 'string') entry.replacement = nf;
    this.finishAction(entry);
    return entry;
  }

  // -------------------------------------------------------------------------------------------
  // Driver
  // -------------------------------------------------------------------------------------------

  collect(memo: Map<string, unknown> | undefined, external?: ExternalClassEntries): FlagEntry[] {
    const query = getQuery(this.language);
    const entries: FlagEntry[] = [];
    const groupVars: { name: string; title: string; at: number }[] = [];
    const expanded = new Set<string>();
    const envSig = memo ? this.envSignature(false) : '';
    const argSig = memo ? this.envSignature(true) : '';
    const expand = (cls: ClassInfo, only: Set<string> | undefined): void => {
      if (expanded.has(cls.name)) return;
      expanded.add(cls.name);
      for (const f of cls.fields) {
        if (only && !only.has(f.name)) continue;
        const e = this.memoized(memo, envSig, f.stmt, () => this.fieldEntry(f));
        if (e) {
          entries.push(e);
          this.defs.set(e, { start: f.stmt.startIndex, end: f.stmt.endIndex, kind: 'field' });
        }
      }
    };
    let sawDataclassCall = false;
    const calls: { node: Node; method: string }[] = [];
    const seen = new Set<string>();
    // The module node starts at its first token, after any leading blank lines: rows counted in its
    // text are relative to that row.
    const ranges = callRanges(this.root.text, this.root.startPosition.row);
    for (const range of ranges) {
      for (const m of query.matches(this.root, range)) {
        const c = m.captures.find((x) => x.name === 'call')?.node;
        const method = m.captures.find((x) => x.name === 'm')?.node.text;
        if (!c || !method) continue;
        const key = `${c.startIndex}:${c.endIndex}`;
        if (seen.has(key)) continue;
        seen.add(key);
        calls.push({ node: c, method });
      }
    }
    // a call spanning two ranges comes once, in source order as one whole-tree query gives it
    if (ranges.length > 1) calls.sort((a, b) => a.node.startIndex - b.node.startIndex);
    for (const { node: c, method } of calls) {
      if (method === 'add_argument_group' || method === 'add_mutually_exclusive_group') {
        const parent = c.parent;
        if (parent?.type === 'assignment' && parent.childForFieldName('left')?.type === 'identifier') {
          const title = positionalArgs(c)[0] ?? keywordArgs(c).get('title');
          const t = title ? evaluate(title, this.ctx) : UNRESOLVED;
          groupVars.push({ name: parent.childForFieldName('left')!.text, title: typeof t === 'string' ? t : '', at: c.startIndex });
        }
        continue;
      }
      if (method === 'add_cli_args_from_dataclass') {
        sawDataclassCall = true;
        const pos = positionalArgs(c);
        const clsName = pos[1] ? dottedName(pos[1])?.split('.').pop() : undefined;
        let cls = clsName ? this.classes.get(clsName) : undefined;
        if (!cls) {
          let p = c.parent;
          for (let i = 0; p && i < 200 && p.type !== 'class_definition'; i++) p = p.parent;
          const n = p?.childForFieldName('name')?.text;
          cls = n ? this.classes.get(n) : undefined;
        }
        const fieldsNode = keywordArgs(c).get('fields');
        const fv = fieldsNode ? evaluate(fieldsNode, this.ctx) : UNRESOLVED;
        const only = Array.isArray(fv) ? new Set(fv.filter((x): x is string => typeof x === 'string')) : undefined;
        const ext = external && clsName ? external(clsName, only) : undefined;
        if (ext) entries.push(...ext);
        else if (cls) expand(cls, only);
        else for (const k of this.classes.values()) expand(k, only);
        continue;
      }
      const fn = c.childForFieldName('function');
      const obj = fn?.childForFieldName('object');
      let group: string | undefined;
      if (obj?.type === 'identifier') {
        for (let i = groupVars.length - 1; i >= 0; i--) {
          const g = groupVars[i];
          if (g.name === obj.text && g.at < c.startIndex) {
            group = g.title;
            break;
          }
        }
      }
      const e = this.memoized(memo, argSig + (group ?? ''), c, () => this.argumentEntry(c, group));
      if (e) {
        entries.push(e);
        this.defs.set(e, { start: c.startIndex, end: c.endIndex, kind: 'call', ...(group !== undefined ? { group } : {}) });
      }
      // attributes an argparse call reads (default=ServerArgs.x): editing field x is not local
      const args = c.childForFieldName('arguments');
      if (args) for (const m of args.text.matchAll(/\.\s*([A-Za-z_][A-Za-z0-9_]*)/g)) this.refFields.add(m[1]);
    }
    if (!sawDataclassCall) {
      const before = entries.length;
      const dc: FlagEntry[] = [];
      const saved = entries.splice(0, before);
      for (const k of this.classes.values()) expand(k, undefined);
      dc.push(...entries.splice(0));
      entries.push(...dc, ...saved);
    }
    return entries;
  }

  private memoized(memo: Map<string, unknown> | undefined, sig: string, node: Node, make: () => FlagEntry | undefined): FlagEntry | undefined {
    if (!memo) return make();
    const key = `${sig}\u0000${node.text}`;
    const hit = memo.get(key) as FlagEntry | null | undefined;
    if (hit !== undefined) {
      if (hit === null) return undefined;
      return { ...hit, line: node.startPosition.row + 1, range: this.range(node) };
    }
    const e = make();
    memo.set(key, e ? { ...e } : null);
    return e;
  }

  /** What a memoized definition depends on besides its own text: module constants and class defaults. */
  private envSignature(withClassDefaults: boolean): string {
    let h = 0x811c9dc5;
    const mix = (s: string): void => {
      for (let i = 0; i < s.length; i++) {
        h ^= s.charCodeAt(i);
        h = Math.imul(h, 0x01000193);
      }
    };
    for (const c of this.consts.values()) {
      mix(c.name);
      mix(c.valueNode?.text ?? '');
      mix(`${c.conditional}${c.unknownAdditions}${c.conditionalValues.length}`);
      mix(JSON.stringify(c.value === UNRESOLVED ? null : toJson(c.value)));
    }
    for (const [k, v] of this.hooks) {
      mix(k);
      mix([...v].join(','));
    }
    for (const cls of withClassDefaults ? this.classes.values() : []) {
      mix(cls.name);
      for (const f of cls.fields) {
        mix(f.name);
        mix(f.right?.text ?? '');
      }
    }
    mix([...this.annotatedNames].join(','));
    return (h >>> 0).toString(36);
  }

  choiceLists(entries: FlagEntry[]): ChoiceList[] {
    const out: ChoiceList[] = [];
    const usedBy = new Map<string, string[]>();
    for (const e of entries) {
      if (!e.choicesExpr) continue;
      for (const id of new Set(e.choicesExpr.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [])) {
        if (!usedBy.has(id)) usedBy.set(id, []);
        usedBy.get(id)!.push(e.flag);
      }
    }
    for (const c of this.consts.values()) {
      const v = c.value;
      const items = Array.isArray(v) ? v : v instanceof PySet ? v.items : undefined;
      const named = /CHOICES$|BACKENDS?$/.test(c.name);
      if (!named && !usedBy.has(c.name) && !this.hooks.has(c.name)) continue;
      if (items && !items.every((x) => x === null || ['string', 'number', 'boolean'].includes(typeof x))) continue;
      if (!items && !named) continue;
      const hooks = [...(this.hooks.get(c.name) ?? [])];
      const list: ChoiceList = {
        name: c.name,
        values: (items ?? []) as ChoiceValue[],
        line: c.line,
        growsAtRuntime: hooks.length > 0 || c.conditional || c.unknownAdditions || c.conditionalValues.length > 0 || !items,
        hooks,
        usedBy: usedBy.get(c.name) ?? [],
      };
      if (c.conditionalValues.length) list.conditionalValues = c.conditionalValues.map((x) => toJson(x) as ChoiceValue);
      if (c.deprecatedValues.length) list.deprecatedValues = c.deprecatedValues;
      out.push(list);
    }
    return out;
  }

  syntaxDiagnostics(): void {
    if (!this.root.hasError) return;
    const visit = (n: Node, depth: number): void => {
      if (this.diagnostics.length >= MAX_DIAGNOSTICS || depth > 400) return;
      if (n.isError || n.isMissing) {
        const what = n.isMissing ? `missing ${n.type}` : 'unexpected text';
        this.diag(`Syntax error: ${what} (partial catalog)`, n.startPosition.row + 1, 'error');
        if (n.isMissing) return;
      }
      for (const c of n.children) if (c && (c.hasError || c.isMissing)) visit(c, depth + 1);
    };
    visit(this.root, 0);
  }
}

// ---------------------------------------------------------------------------------------------
// Node helpers
// ---------------------------------------------------------------------------------------------

let cachedQuery: { language: Language; query: Query } | undefined;
function getQuery(language: Language): Query {
  if (cachedQuery?.language !== language) {
    cachedQuery = {
      language,
      query: new Query(
        language,
        `
        (call function: (attribute attribute: (identifier) @m
          (#match? @m "^(add_argument|add_argument_group|add_mutually_exclusive_group|add_cli_args_from_dataclass)$"))) @call
        (call function: (identifier) @m (#eq? @m "add_cli_args_from_dataclass")) @call
      `,
      ),
    };
  }
  return cachedQuery.query;
}

const CALL_NAME_RE = /add_argument|add_mutually_exclusive_group|add_cli_args_from_dataclass/g;
const ROW_GAP = 100;

interface RowRange {
  startPosition: { row: number; column: number };
  endPosition: { row: number; column: number };
}

/**
 * Line ranges that can hold a call the query matches: the method name must occur in the text, so
 * the query only descends where it does (not through thousands of dataclass fields). Rows, not
 * indices: web-tree-sitter takes query index ranges in bytes but gives node indices in UTF-16 units.
 */
function callRanges(source: string, firstRow: number): RowRange[] {
  const out: RowRange[] = [];
  CALL_NAME_RE.lastIndex = 0;
  let row = firstRow;
  let at = 0;
  for (let m = CALL_NAME_RE.exec(source); m; m = CALL_NAME_RE.exec(source)) {
    for (let i = source.indexOf('\n', at); i >= 0 && i < m.index; i = source.indexOf('\n', i + 1)) row++;
    at = m.index;
    const last = out[out.length - 1];
    if (last && row - last.endPosition.row < ROW_GAP) last.endPosition.row = row + 1;
    else out.push({ startPosition: { row, column: 0 }, endPosition: { row: row + 1, column: 0 } });
  }
  return out;
}

function unwrapTypeNode(node: Node): Node {
  let n = node;
  for (let i = 0; i < 10 && n.type === 'type'; i++) {
    // firstNamedChild: one node instead of the whole namedChildren array
    const first = n.firstNamedChild;
    const inner = first && first.type !== 'comment' ? first : n.namedChildren.find((c) => c && c.type !== 'comment');
    if (!inner) break;
    n = inner;
  }
  return n;
}

/** `Name[params]` in either its type form (generic_type) or expression form (subscript). */
function genericParts(node: Node | undefined): { name: string; params: Node[] } | undefined {
  if (!node) return undefined;
  const n = unwrapTypeNode(node);
  if (n.type === 'generic_type') {
    const head = n.firstNamedChild;
    const last = n.lastNamedChild;
    const params = last?.type === 'type_parameter' ? last : n.namedChildren.find((c) => c?.type === 'type_parameter');
    if (!head || !params) return undefined;
    return {
      name: head.text,
      params: params.namedChildren.filter((c): c is Node => !!c && c.type !== 'comment').map(unwrapTypeNode),
    };
  }
  if (n.type === 'subscript') {
    const value = n.childForFieldName('value');
    const name = value ? dottedName(value) : undefined;
    if (!name) return undefined;
    const subs = n.childrenForFieldName('subscript').filter((c): c is Node => !!c);
    const params = subs.length === 1 && subs[0].type === 'tuple' ? subs[0].namedChildren.filter((c): c is Node => !!c && c.type !== 'comment') : subs;
    return { name, params };
  }
  return undefined;
}

function unwrapOptional(node: Node): { type: Node; optional: boolean } {
  const n = unwrapTypeNode(node);
  const g = genericParts(n);
  if (g && (g.name === 'Optional' || g.name === 'typing.Optional') && g.params.length === 1) return { type: g.params[0], optional: true };
  if (g && (g.name === 'Union' || g.name === 'typing.Union')) {
    const rest = g.params.filter((p) => p.type !== 'none' && p.text !== 'None');
    if (rest.length === 1 && rest.length < g.params.length) return { type: rest[0], optional: true };
  }
  if (n.type === 'binary_operator' || n.type === 'union_type') {
    const parts = n.namedChildren.filter((c): c is Node => !!c && c.type !== 'comment').map(unwrapTypeNode);
    const rest = parts.filter((p) => p.type !== 'none' && p.text !== 'None');
    if (rest.length === 1 && parts.length === 2) return { type: rest[0], optional: true };
  }
  return { type: n, optional: false };
}

function scalarTypeName(node: Node | undefined): string {
  if (!node) return 'str';
  const t = unwrapTypeNode(node).text;
  return t === 'int' || t === 'float' || t === 'str' ? t : 'str';
}

function pyTypeName(v: Evaluated | undefined): string {
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (typeof v === 'boolean') return 'bool';
  if (v === null) return 'NoneType';
  return 'str';
}

function callableName(node: Node): string {
  if (node.type === 'lambda') return '<lambda>';
  const d = dottedName(node);
  if (d) return d.split('.').pop()!;
  return node.text;
}

function actionName(node: Node, ctx: EvalContext): string {
  const v = evaluate(node, ctx);
  if (typeof v === 'string') return v;
  return callableName(node);
}

function isStringish(node: Node): boolean {
  if (node.type === 'string' || node.type === 'concatenated_string') return true;
  if (node.type === 'parenthesized_expression') {
    const inner = node.namedChildren.find((c) => c && c.type !== 'comment');
    return !!inner && isStringish(inner);
  }
  if (node.type === 'binary_operator') {
    const l = node.childForFieldName('left');
    return !!l && isStringish(l);
  }
  return false;
}

function keywordArgs(call: Node): Map<string, Node> {
  const out = new Map<string, Node>();
  const args = call.childForFieldName('arguments');
  for (const a of args?.namedChildren ?? []) {
    if (a?.type !== 'keyword_argument') continue;
    const n = a.childForFieldName('name');
    const v = a.childForFieldName('value');
    if (n && v) out.set(n.text, v);
  }
  return out;
}

function positionalArgs(call: Node): Node[] {
  const args = call.childForFieldName('arguments');
  return (args?.namedChildren ?? []).filter(
    (a): a is Node => !!a && a.type !== 'keyword_argument' && a.type !== 'comment' && a.type !== 'list_splat' && a.type !== 'dictionary_splat',
  );
}

/** A dataclass field statement (`name: T = default`), or undefined. */
function fieldInfoOf(stmt: Node): FieldInfo | undefined {
  if (stmt.type !== 'expression_statement') return undefined;
  const a = stmt.firstNamedChild;
  if (a?.type !== 'assignment') return undefined;
  const left = a.childForFieldName('left');
  const typeNode = a.childForFieldName('type') ?? undefined;
  if (left?.type !== 'identifier' || !typeNode) return undefined;
  if (/^(typing\.)?ClassVar\b/.test(typeNode.text)) return undefined;
  return { name: left.text, stmt, typeNode, right: a.childForFieldName('right') ?? undefined };
}

function detectEra(entries: FlagEntry[], lists: ChoiceList[]): CatalogEra {
  const dc = entries.filter((e) => e.source === 'dataclass').length;
  const manual = entries.length - dc;
  if (dc > 0) return manual > dc ? 'mixed' : 'dataclass';
  if (manual === 0) return 'unknown';
  const hooked = lists.filter((l) => l.hooks.length > 0).length;
  const used = lists.filter((l) => l.usedBy.length > 0).length;
  return hooked > 0 || used >= 2 ? 'choices-lists' : 'inline';
}

/** Entries whose `replacement` was filled in from the field they write (not stated in the source). */
const filledReplacement = new WeakSet<FlagEntry>();

/** Catalog-wide post-processing: implied replacements, options defined twice, choice lists, era. */
export function finishEntries(ex: Extractor, entries: FlagEntry[], diagnostics: CatalogDiagnostic[]): FlagCatalog {
  // Deprecated alias actions that name no replacement: the flag whose field they write to.
  const byField = new Map<string, FlagEntry>();
  for (const e of entries) if (!e.deprecated && !byField.has(e.field)) byField.set(e.field, e);
  for (const e of entries) {
    if (e.deprecated && (!e.replacement || filledReplacement.has(e))) {
      const target = byField.get(e.field);
      if (target && target !== e) {
        e.replacement = target.flag;
        filledReplacement.add(e);
      }
    }
  }
  const seen = new Map<string, FlagEntry>();
  for (const e of entries) {
    for (const s of [e.flag, ...e.aliases, ...e.negations]) {
      const prev = seen.get(s);
      if (prev && prev !== e) {
        if (diagnostics.length < MAX_DIAGNOSTICS)
          diagnostics.push({ message: `Option ${s} is defined twice (lines ${prev.line} and ${e.line})`, line: e.line, severity: 'warning' });
      } else seen.set(s, e);
    }
  }
  const choiceLists = ex.choiceLists(entries);
  return { entries, choiceLists, era: detectEra(entries, choiceLists), diagnostics };
}

export function extractCatalog(tree: Tree, language: Language, opts: ExtractOptions = {}): FlagCatalog {
  return extractWithState(tree, language, opts).catalog;
}

/**
 * What incremental re-extraction needs from a full extraction. Holds nodes of the tree it was made
 * from: that tree must stay alive and unedited while the state is used.
 */
export interface ExtractState {
  readonly extractor: Extractor;
  /** Definition spans (string offsets into the latest source), parallel to catalog.entries. */
  starts: Int32Array;
  ends: Int32Array;
  readonly kinds: ('field' | 'call')[];
  readonly groups: (string | undefined)[];
  /** True when the module scan itself reported nothing (syntax errors, depth limits). */
  readonly clean: boolean;
}

export function extractWithState(tree: Tree, language: Language, opts: ExtractOptions = {}): { catalog: FlagCatalog; state: ExtractState } {
  const ex = new Extractor(tree.rootNode, language);
  ex.syntaxDiagnostics();
  ex.scanModule();
  const entries = ex.collect(opts.memo);
  const clean = ex.diagnostics.length === 0;
  const catalog = finishEntries(ex, entries, [...ex.diagnostics]);
  const n = entries.length;
  const state: ExtractState = { extractor: ex, starts: new Int32Array(n), ends: new Int32Array(n), kinds: [], groups: [], clean };
  entries.forEach((e, i) => {
    const d = ex.defs.get(e);
    state.starts[i] = d ? d.start : -1;
    state.ends[i] = d ? d.end : -1;
    state.kinds.push(d?.kind ?? 'call');
    state.groups.push(d?.group);
  });
  ex.defs.clear();
  return { catalog, state };
}

/** One text edit in string offsets: [start, oldEnd) of the old source became [start, newEnd). */
export interface OffsetEdit {
  start: number;
  oldEnd: number;
  newEnd: number;
  startPoint: { row: number; column: number };
  oldEndPoint: { row: number; column: number };
  newEndPoint: { row: number; column: number };
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function shiftPos(p: { line: number; character: number }, e: OffsetEdit): { line: number; character: number } {
  const rows = e.newEndPoint.row - e.oldEndPoint.row;
  if (p.line === e.oldEndPoint.row) return { line: p.line + rows, character: p.character - e.oldEndPoint.column + e.newEndPoint.column };
  return { line: p.line + rows, character: p.character };
}

/**
 * Re-extracts only the definition an edit falls into, reusing every other entry (positions shifted).
 * The edited definition is re-parsed on its own (a few lines), so the cost does not depend on the
 * file size. Returns undefined when the edit is not provably local (it touches module constants,
 * a class default read elsewhere, the start of a definition, or the definition no longer parses
 * as one complete statement): the caller then reparses and extracts in full.
 */
export function reextractLocal(
  state: ExtractState,
  prev: FlagCatalog,
  source: string,
  edit: OffsetEdit,
  parse: (text: string) => Tree | null,
): FlagCatalog | undefined {
  if (!state.clean || state.starts.length !== prev.entries.length) return undefined;
  const delta = edit.newEnd - edit.oldEnd;
  const { starts, ends } = state;
  let hit = -1;
  for (let i = 0; i < starts.length; i++) {
    // strictly after its start: an insert at the start may be a new statement
    if (starts[i] < edit.start && edit.oldEnd <= ends[i]) {
      hit = i;
      break;
    }
  }
  if (hit < 0) return undefined;
  const kind = state.kinds[hit];
  const defStart = starts[hit];
  const newEnd = ends[hit] + delta;
  const snippet = source.slice(defStart, newEnd);
  const tree = parse(snippet);
  if (!tree) return undefined;
  try {
    const root = tree.rootNode;
    if (root.hasError || root.namedChildCount !== 1) return undefined;
    const stmt = root.namedChildren[0];
    if (stmt?.type !== 'expression_statement' || stmt.startIndex !== 0 || stmt.endIndex !== snippet.length) return undefined;
    const ex = state.extractor;
    const before = ex.diagnostics.length;
    const old = prev.entries[hit];
    let entry: FlagEntry | undefined;
    if (kind === 'field') {
      const f = fieldInfoOf(stmt);
      if (!f || ex.refFields.has(f.name) || ex.refFields.has(old.field)) return undefined;
      entry = ex.fieldEntry(f);
    } else {
      const call = stmt.namedChildren[0];
      if (call?.type !== 'call' || call.endIndex !== snippet.length) return undefined;
      // edits to the callee (`parser.add_argument`) can change what the call is, or its group
      const args = call.childForFieldName('arguments');
      if (!args || edit.start - defStart <= args.startIndex) return undefined;
      entry = ex.argumentEntry(call, state.groups[hit]);
    }
    if (ex.diagnostics.length !== before) {
      ex.diagnostics.length = before;
      return undefined;
    }
    if (!entry) return undefined;
    const range = { start: old.range.start, end: shiftPos(old.range.end, edit) };
    entry.range = range;
    entry.line = range.start.line + 1;
    const entries = prev.entries.slice();
    entries[hit] = entry;
    const newStarts = delta ? new Int32Array(starts) : starts;
    const newEnds = new Int32Array(ends);
    newEnds[hit] = newEnd;
    const rows = edit.newEndPoint.row - edit.oldEndPoint.row;
    const cols = edit.newEndPoint.column - edit.oldEndPoint.column;
    for (let i = 0; i < entries.length; i++) {
      if (i === hit || starts[i] < edit.oldEnd) continue;
      if (delta) {
        newStarts[i] += delta;
        newEnds[i] += delta;
      }
      const e = entries[i];
      // copy-on-write: only entries whose position changes are copied
      if (rows !== 0 || ((e.range.start.line === edit.oldEndPoint.row || e.range.end.line === edit.oldEndPoint.row) && cols !== 0)) {
        const r = { start: shiftPos(e.range.start, edit), end: shiftPos(e.range.end, edit) };
        entries[i] = { ...e, range: r, line: r.start.line + 1 };
      }
    }
    state.starts = newStarts;
    state.ends = newEnds;
    // Same identity (options, field, deprecation, choices source): the catalog-wide parts stand.
    const same =
      entry.flag === old.flag &&
      entry.field === old.field &&
      entry.deprecated === old.deprecated &&
      entry.choicesExpr === old.choicesExpr &&
      sameList(entry.aliases, old.aliases) &&
      sameList(entry.negations, old.negations) &&
      entry.source === old.source &&
      (!entry.deprecated || entry.replacement === old.replacement);
    if (same && prev.diagnostics.length === 0) return { entries, choiceLists: prev.choiceLists, era: prev.era, diagnostics: [] };
    return finishEntries(ex, entries, []);
  } finally {
    tree.delete();
  }
}

export { stringNodeText };

/**
 * True when a help text says its own flag is deprecated ("Deprecated. Use …", "(Deprecated: …)"),
 * not when it mentions something else that is ("replaces the deprecated environment variable X",
 * "Replaces the deprecated --old-flag").
 */
export function helpSaysDeprecated(help: string): boolean {
  for (const m of help.matchAll(/\bdeprecated\b/gi)) {
    const before = help.slice(Math.max(0, m.index - 24), m.index);
    const after = help.slice(m.index + m[0].length, m.index + m[0].length + 40);
    if (/\b(?:replaces?|replacing|instead of|supersedes?)\s+(?:the\s+)?$/i.test(before)) continue;
    if (/^\s+(?:environment|env\b|variables?|values?|choices?|aliases\b)/i.test(after)) continue;
    return true;
  }
  return false;
}
