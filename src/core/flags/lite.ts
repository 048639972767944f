/**
 * Plain-JS syntax nodes for dataclass field statements (`name: A[T, Arg(...)] = default`).
 *
 * Every property read on a web-tree-sitter Node crosses into WASM and allocates, and a main-era
 * server_args.py has thousands of fields, so walking them through tree-sitter costs more than
 * parsing the file. tree-sitter still finds the statements; this module re-reads the text of
 * each field statement and builds nodes of the same shape (types, fields, spans) as
 * tree-sitter-python would. It only accepts a conservative subset (plain strings, literals,
 * calls, subscripts, arithmetic); for anything else it returns undefined and the caller uses
 * the tree-sitter node, so unusual syntax keeps the tree-sitter behaviour.
 */

export interface Point { row: number; column: number }

/** The part of the web-tree-sitter Node interface the extractor reads; LiteNode implements it too. */
export interface PyNode {
  readonly type: string;
  readonly text: string;
  readonly isNamed: boolean;
  readonly startIndex: number;
  readonly endIndex: number;
  readonly startPosition: Point;
  readonly endPosition: Point;
  readonly children: (PyNode | null)[];
  readonly namedChildren: (PyNode | null)[];
  readonly firstNamedChild: PyNode | null;
  readonly lastNamedChild: PyNode | null;
  childForFieldName(name: string): PyNode | null;
  childrenForFieldName(name: string): (PyNode | null)[];
}

/**
 * Source text shared by the nodes of one extraction, with a lazily built line index. The text
 * may start at `base` (tree-sitter's root node begins after leading blank lines and BOM), so
 * node indices stay those of the whole file.
 */
export class LiteSource {
  private lineStarts: number[] | undefined;

  constructor(readonly text: string, readonly base = 0, private readonly basePoint: Point = { row: 0, column: 0 }) {}

  slice(start: number, end: number): string { return this.text.slice(start - this.base, end - this.base); }

  /** Row/column like tree-sitter's: rows split at '\n' only, columns in UTF-16 units. */
  point(index: number): Point {
    let starts = this.lineStarts;
    if (!starts) {
      starts = [0];
      const t = this.text;
      for (let i = t.indexOf('\n'); i >= 0; i = t.indexOf('\n', i + 1)) starts.push(i + 1);
      this.lineStarts = starts;
    }
    const at = index - this.base;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= at) lo = mid;
      else hi = mid - 1;
    }
    const column = at - starts[lo];
    return lo === 0 ? { row: this.basePoint.row, column: this.basePoint.column + column } : { row: this.basePoint.row + lo, column };
  }
}

const NO_NODES: LiteNode[] = [];

/** Field name of child `i` of a node of `type`: fixed per type, so nodes need not store it. */
function fieldAt(type: string, i: number): string | undefined {
  switch (type) {
    case 'assignment': return i === 0 ? 'left' : i === 1 ? 'type' : 'right';
    case 'attribute': return i === 0 ? 'object' : 'attribute';
    case 'call': return i === 0 ? 'function' : 'arguments';
    case 'keyword_argument': return i === 0 ? 'name' : 'value';
    case 'pair': return i === 0 ? 'key' : 'value';
    case 'binary_operator': return i === 0 ? 'left' : i === 1 ? 'operator' : 'right';
    case 'unary_operator': return i === 0 ? 'operator' : 'argument';
    case 'subscript': return i === 0 ? 'value' : 'subscript';
    case 'lambda': return 'body';
    default: return undefined;
  }
}

/**
 * Kept small (five slots): a big file has ~100k of these, and allocation volume is what the
 * young-generation GC charges for.
 */
export class LiteNode implements PyNode {
  constructor(
    private readonly src: LiteSource,
    /** Node type; for the anonymous operator tokens of binary/unary operators, the operator itself. */
    readonly type: string,
    readonly startIndex: number,
    readonly endIndex: number,
    /** Named children plus the anonymous `operator` tokens (no other punctuation). */
    readonly children: LiteNode[] = NO_NODES,
  ) {}

  /** Named types are lower-case words; operator tokens are punctuation. */
  get isNamed(): boolean { const c = this.type.charCodeAt(0); return c >= 97 && c <= 122; }
  get text(): string { return this.src.slice(this.startIndex, this.endIndex); }
  get startPosition(): Point { return this.src.point(this.startIndex); }
  get endPosition(): Point { return this.src.point(this.endIndex); }

  get namedChildren(): LiteNode[] {
    return this.type === 'binary_operator' || this.type === 'unary_operator' ? this.children.filter((c) => c.isNamed) : this.children;
  }

  get firstNamedChild(): LiteNode | null { return this.namedChildren[0] ?? null; }
  get lastNamedChild(): LiteNode | null { const n = this.namedChildren; return n[n.length - 1] ?? null; }

  childForFieldName(name: string): LiteNode | null {
    const kids = this.children;
    for (let i = 0; i < kids.length; i++) if (fieldAt(this.type, i) === name) return kids[i];
    return null;
  }

  childrenForFieldName(name: string): LiteNode[] {
    const kids = this.children;
    const out: LiteNode[] = [];
    for (let i = 0; i < kids.length; i++) if (fieldAt(this.type, i) === name) out.push(kids[i]);
    return out;
  }
}

// ---------------------------------------------------------------------------------------------
// Field statement parser
// ---------------------------------------------------------------------------------------------

const enum Tok { Eof, Id, Int, Float, Str, Op }

/** Thrown when the text leaves the accepted subset: one shared object, so bailing out captures no stack. */
const BAIL = new Error('outside the lite subset');

/** Keywords that end the subset (lambda, comprehensions, conditionals, comparisons...). */
const STOP_WORDS = new Set([
  'and', 'as', 'assert', 'async', 'await', 'break', 'class', 'continue', 'def', 'del', 'elif', 'else', 'except',
  'finally', 'for', 'from', 'global', 'if', 'import', 'in', 'is', 'lambda', 'nonlocal', 'not', 'or', 'pass',
  'raise', 'return', 'try', 'while', 'with', 'yield', 'print', 'exec', 'match', 'case',
]);

/** Binary operators and their binding power (Python's order; `^` is left out: tree-sitter ranks it differently). */
const BINARY: Record<string, number> = {
  '|': 1, '&': 2, '<<': 3, '>>': 3, '+': 4, '-': 4, '*': 5, '/': 5, '//': 5, '%': 5, '@': 5,
};

const MAX_NEST = 60;

/** Characters after a backslash that the lite lexer accepts in a string (see FieldParser.string). */
const SIMPLE_ESCAPE: boolean[] = [];
for (const c of 'ntr\\\'"') SIMPLE_ESCAPE[c.charCodeAt(0)] = true;


class FieldParser {
  private pos: number;
  private depth = 0;
  private nest = 0;
  private tok: Tok = Tok.Eof;
  private ts = 0;
  private te = 0;
  private op = '';
  /** End of the last consumed token. */
  private last = 0;
  /** Bracket depth at which the current type-level expression started (-1 outside types). */
  private typeDepth = -1;
  private topSubscripts = 0;

  /** Positions below are offsets into `text`; nodes get `base` added (indices into the whole file). */
  private readonly base: number;

  constructor(private readonly src: LiteSource, private readonly text: string, start: number, private readonly end: number) {
    this.base = src.base;
    this.pos = start;
    this.next();
  }

  private fail(): never { throw BAIL; }

  private next(): void {
    const t = this.text;
    const end = this.end;
    let i = this.pos;
    this.last = this.te;
    for (; i < end; i++) {
      const c = t.charCodeAt(i);
      if (c === 32 || c === 9) continue;
      if (c === 10 || c === 13) { if (this.depth > 0) continue; this.fail(); }
      break;
    }
    this.ts = i;
    if (i >= end) { this.tok = Tok.Eof; this.te = i; this.pos = i; return; }
    const c = t.charCodeAt(i);
    if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95) {
      let j = i + 1;
      for (; j < end; j++) {
        const d = t.charCodeAt(j);
        if (!((d >= 97 && d <= 122) || (d >= 65 && d <= 90) || d === 95 || (d >= 48 && d <= 57))) break;
      }
      // a string prefix (f"", r'', b"") or a non-ASCII identifier: leave it to tree-sitter
      if (j < end) { const d = t.charCodeAt(j); if (d === 34 || d === 39 || d > 127) this.fail(); }
      this.tok = Tok.Id;
      this.te = this.pos = j;
      return;
    }
    if (c >= 48 && c <= 57) { this.number(i); return; }
    if (c === 34 || c === 39) { this.string(i, c); return; }
    let op: string;
    let n = 1;
    const d = i + 1 < end ? t.charCodeAt(i + 1) : 0;
    switch (c) {
      case 40: op = '('; this.depth++; break;
      case 91: op = '['; this.depth++; break;
      case 123: op = '{'; this.depth++; break;
      case 41: op = ')'; this.depth--; break;
      case 93: op = ']'; this.depth--; break;
      case 125: op = '}'; this.depth--; break;
      case 44: op = ','; break;
      case 58: if (d === 61) this.fail(); op = ':'; break;
      case 46: if (d === 46 || (d >= 48 && d <= 57)) this.fail(); op = '.'; break;
      case 61: if (d === 61) this.fail(); op = '='; break;
      case 43: op = '+'; break;
      case 45: if (d === 62) this.fail(); op = '-'; break;
      case 42: if (d === 42) { op = '**'; n = 2; } else op = '*'; break;
      case 47: if (d === 47) { op = '//'; n = 2; } else op = '/'; break;
      case 37: op = '%'; break;
      case 64: op = '@'; break;
      case 124: op = '|'; break;
      case 38: op = '&'; break;
      case 126: op = '~'; break;
      case 60: if (d !== 60) this.fail(); op = '<<'; n = 2; break;
      case 62: if (d !== 62) this.fail(); op = '>>'; n = 2; break;
      default: this.fail();
    }
    if (this.depth < 0) this.fail();
    // augmented assignment (`|=`, `<<=`) is not an expression
    if ((BINARY[op] !== undefined || op === '**') && i + n < end && t.charCodeAt(i + n) === 61) this.fail();
    this.tok = Tok.Op;
    this.op = op;
    this.te = this.pos = i + n;
  }

  private number(i: number): void {
    const t = this.text;
    const end = this.end;
    let j = i;
    let float = false;
    const x = i + 1 < end ? t.charCodeAt(i + 1) | 32 : 0;
    if (t.charCodeAt(i) === 48 && (x === 120 || x === 111 || x === 98)) {
      j = this.digits(i + 2, x === 120);
      if (j === i + 2) this.fail();
    } else {
      j = this.digits(i, false);
      if (j < end && t.charCodeAt(j) === 46) { float = true; j = this.digits(j + 1, false); }
      if (j < end && (t.charCodeAt(j) | 32) === 101) {
        float = true;
        j++;
        if (j < end && (t.charCodeAt(j) === 43 || t.charCodeAt(j) === 45)) j++;
        const k = this.digits(j, false);
        if (k === j) this.fail();
        j = k;
      }
    }
    // suffixes (1j, 1L), `1..real`, digits glued to names: not in the subset
    if (j < end) {
      const d = t.charCodeAt(j);
      if ((d >= 97 && d <= 122) || (d >= 65 && d <= 90) || d === 95 || d === 46 || (d >= 48 && d <= 57) || d > 127) this.fail();
    }
    this.tok = float ? Tok.Float : Tok.Int;
    this.te = this.pos = j;
  }

  private digits(k: number, hex: boolean): number {
    const t = this.text;
    for (; k < this.end; k++) {
      const d = t.charCodeAt(k);
      if (!((d >= 48 && d <= 57) || d === 95 || (hex && ((d >= 97 && d <= 102) || (d >= 65 && d <= 70))))) break;
    }
    return k;
  }

  /**
   * Unprefixed literals whose escapes are all simple (\n \t \r \\ \' \"): their value is the
   * text between the quotes with those decoded, however tree-sitter splits it into parts.
   */
  private string(i: number, q: number): void {
    const t = this.text;
    const end = this.end;
    const triple = i + 2 < end && t.charCodeAt(i + 1) === q && t.charCodeAt(i + 2) === q;
    let k = triple ? i + 3 : i + 1;
    for (; k < end; k++) {
      const d = t.charCodeAt(k);
      if (d === 92) {
        if (!SIMPLE_ESCAPE[t.charCodeAt(k + 1)]) this.fail();
        k++;
      } else if (d === q) {
        if (!triple) break;
        if (k + 2 < end && t.charCodeAt(k + 1) === q && t.charCodeAt(k + 2) === q) { k += 2; break; }
      } else if ((d === 10 || d === 13) && !triple) this.fail();
    }
    if (k >= end) this.fail();
    this.te = this.pos = k + 1;
    this.tok = Tok.Str;
  }

  /** Next token is `lambda:` (no parameters), the form `default_factory=lambda: [...]` takes. */
  private atLambda(): boolean {
    return this.tok === Tok.Id && this.te - this.ts === 6 && this.text.startsWith('lambda', this.ts) && this.peekChar() === 58;
  }

  /** A call argument: an expression, or a parameterless lambda. */
  private argument(): LiteNode {
    if (!this.atLambda()) return this.expression();
    const start = this.ts;
    this.next();
    this.expect(':');
    const body = this.expression();
    return this.node('lambda', start, [body]);
  }

  /** Methods, not field reads: TypeScript would keep `tok` narrowed across the calls that advance it. */
  private atEnd(): boolean { return this.tok === Tok.Eof && this.last === this.end; }
  private atEof(): boolean { return this.tok === Tok.Eof; }

  private isOp(op: string): boolean { return this.tok === Tok.Op && this.op === op; }

  private expect(op: string): void {
    if (!this.isOp(op)) this.fail();
    this.next();
  }

  /** Next non-blank character after the current token (for `name[` and `name=` look-ahead). */
  private peekChar(): number {
    const t = this.text;
    for (let i = this.te; i < this.end; i++) {
      const c = t.charCodeAt(i);
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return c;
    }
    return 0;
  }

  private node(type: string, start: number, children: LiteNode[] = NO_NODES): LiteNode {
    return new LiteNode(this.src, type, start + this.base, this.last + this.base, children);
  }

  /** The current Id token is a keyword (slices the text only for short words). */
  private reserved(): boolean {
    const len = this.te - this.ts;
    if (len < 2 || len > 8) return false;
    const c = this.text.charCodeAt(this.ts);
    if (c >= 97 && c <= 122) return STOP_WORDS.has(this.text.slice(this.ts, this.te));
    return this.literalWord() !== undefined;
  }

  /** 'true' / 'false' / 'none' when the current Id token is True / False / None. */
  private literalWord(): string | undefined {
    const t = this.text;
    const i = this.ts;
    const len = this.te - i;
    const c = t.charCodeAt(i);
    if (len === 4 && c === 84 && t.startsWith('True', i)) return 'true';
    if (len === 5 && c === 70 && t.startsWith('False', i)) return 'false';
    if (len === 4 && c === 78 && t.startsWith('None', i)) return 'none';
    return undefined;
  }

  private identifier(): LiteNode {
    if (this.tok !== Tok.Id || this.reserved()) this.fail();
    const start = this.ts;
    this.next();
    return this.node('identifier', start);
  }

  private enter(): void { if (++this.nest > MAX_NEST) this.fail(); }

  statement(stmtStart: number): LiteNode {
    const left = this.identifier();
    this.expect(':');
    const type = this.type();
    const kids = [left, type];
    if (this.isOp('=')) {
      this.next();
      kids.push(this.expression());
    }
    if (!this.atEnd()) this.fail();
    const assignment = this.node('assignment', stmtStart, kids);
    return this.node('expression_statement', stmtStart, [assignment]);
  }

  /**
   * Token-level scan of `name: type [= default]` without building nodes: the parts' spans, as
   * tree-sitter would delimit them for this (error-free) statement. Keywords end the subset here
   * too (a `lambda x=1:` would put an `=` at bracket depth 0).
   */
  header(): FieldHeader {
    if (this.tok !== Tok.Id || this.reserved()) this.fail();
    const name = this.text.slice(this.ts, this.te);
    this.next();
    this.expect(':');
    const typeStart = this.ts;
    let typeEnd = -1;
    let rightStart = -1;
    while (!this.atEof()) {
      if (this.tok === Tok.Id && this.reserved() && this.literalWord() === undefined && !this.atLambda()) this.fail();
      if (this.depth === 0 && this.isOp('=')) {
        if (typeEnd >= 0) this.fail();
        typeEnd = this.last;
        this.next();
        rightStart = this.ts;
        if (this.atEof()) this.fail();
        continue;
      }
      this.next();
    }
    if (typeEnd < 0) typeEnd = this.last;
    if (typeEnd <= typeStart || this.depth !== 0 || this.last !== this.end) this.fail();
    const b = this.base;
    return { name, typeStart: typeStart + b, typeEnd: typeEnd + b, rightStart: rightStart < 0 ? -1 : rightStart + b };
  }

  /** An annotation (or a type_parameter item): `name[...]` is a generic_type, anything else an expression. */
  private type(): LiteNode {
    this.enter();
    const start = this.ts;
    let inner: LiteNode;
    if (this.tok === Tok.Id && this.peekChar() === 91) {
      const head = this.identifier();
      const pStart = this.ts;
      this.expect('[');
      const params: LiteNode[] = [];
      while (!this.isOp(']')) {
        params.push(this.type());
        if (this.isOp(',')) this.next();
        else if (!this.isOp(']')) this.fail();
      }
      if (!params.length) this.fail();
      this.next();
      inner = this.node('generic_type', start, [head, this.node('type_parameter', pStart, params)]);
      // `A[x] | None`, `A[x].y`, `A[x][0]` take other shapes in tree-sitter
      if (!(this.atEof() || this.isOp(',') || this.isOp(']') || this.isOp('='))) this.fail();
    } else {
      if (this.isOp('[') || this.isOp('{')) this.fail();
      const saved = this.typeDepth;
      const savedSubs = this.topSubscripts;
      this.typeDepth = this.depth;
      this.topSubscripts = 0;
      inner = this.expression();
      // a subscript at the top of a type is only plain for `a.b[...]` as the whole type
      if (this.topSubscripts > 0 && !(this.topSubscripts === 1 && inner.type === 'subscript'
        && isDotted(inner.childForFieldName('value')))) this.fail();
      if (inner.type === 'tuple') this.fail();
      this.typeDepth = saved;
      this.topSubscripts = savedSubs;
    }
    this.nest--;
    return this.node('type', start, [inner]);
  }

  private expression(minPower = 0): LiteNode {
    this.enter();
    const start = this.ts;
    let left = this.unary();
    for (;;) {
      if (this.tok !== Tok.Op) break;
      const power = BINARY[this.op];
      if (power === undefined || power <= minPower) break;
      const opNode = new LiteNode(this.src, this.op, this.ts + this.base, this.te + this.base);
      this.next();
      const right = this.expression(power);
      left = this.node('binary_operator', start, [left, opNode, right]);
    }
    this.nest--;
    return left;
  }

  private unary(): LiteNode {
    if (this.tok === Tok.Op && (this.op === '-' || this.op === '+' || this.op === '~')) {
      this.enter();
      const start = this.ts;
      const opNode = new LiteNode(this.src, this.op, this.ts + this.base, this.te + this.base);
      this.next();
      const arg = this.unary();
      this.nest--;
      return this.node('unary_operator', start, [opNode, arg]);
    }
    const start = this.ts;
    const base = this.primary();
    if (this.isOp('**')) {
      const opNode = new LiteNode(this.src, '**', this.ts + this.base, this.te + this.base);
      this.next();
      this.enter();
      const right = this.unary();
      this.nest--;
      return this.node('binary_operator', start, [base, opNode, right]);
    }
    return base;
  }

  private primary(): LiteNode {
    const start = this.ts;
    let n = this.atom();
    for (;;) {
      if (this.tok !== Tok.Op) break;
      if (this.op === '.') {
        this.next();
        const attr = this.identifier();
        n = this.node('attribute', start, [n, attr]);
      } else if (this.op === '(') {
        const args = this.argumentList();
        n = this.node('call', start, [n, args]);
      } else if (this.op === '[') {
        if (this.depth === this.typeDepth) this.topSubscripts++;
        this.next();
        this.enter();
        const kids = [n];
        for (;;) {
          kids.push(this.expression());
          if (this.isOp(']')) break;
          this.expect(',');
          if (this.isOp(']')) this.fail(); // `x[a,]` is a tuple subscript in tree-sitter
        }
        this.nest--;
        this.next();
        n = this.node('subscript', start, kids);
      } else break;
    }
    return n;
  }

  private argumentList(): LiteNode {
    const start = this.ts;
    this.expect('(');
    this.enter();
    const args: LiteNode[] = [];
    while (!this.isOp(')')) {
      if (this.tok === Tok.Id && this.peekChar() === 61) {
        const kwStart = this.ts;
        const name = this.identifier();
        this.expect('=');
        const value = this.argument();
        args.push(this.node('keyword_argument', kwStart, [name, value]));
      } else args.push(this.argument());
      if (this.isOp(',')) this.next();
      else if (!this.isOp(')')) this.fail();
    }
    this.nest--;
    this.next();
    return this.node('argument_list', start, args);
  }

  /** Comma-separated expressions up to `close` (trailing comma allowed); returns them and whether a comma was seen. */
  private items(close: string, out: LiteNode[]): boolean {
    let comma = false;
    while (!this.isOp(close)) {
      out.push(this.expression());
      if (this.isOp(',')) { comma = true; this.next(); } else if (!this.isOp(close)) this.fail();
    }
    this.next();
    return comma;
  }

  private atom(): LiteNode {
    const start = this.ts;
    switch (this.tok) {
      case Tok.Id: {
        const literal = this.literalWord();
        if (literal) {
          this.next();
          return this.node(literal, start);
        }
        return this.identifier();
      }
      case Tok.Int: this.next(); return this.node('integer', start);
      case Tok.Float: this.next(); return this.node('float', start);
      case Tok.Str: {
        this.next();
        const first = this.node('string', start);
        if (this.tok !== Tok.Str) return first;
        const parts = [first];
        while (this.tok === Tok.Str) {
          const s = this.ts;
          this.next();
          parts.push(this.node('string', s));
        }
        return this.node('concatenated_string', start, parts);
      }
      case Tok.Op: break;
      default: this.fail();
    }
    this.enter();
    let out: LiteNode;
    if (this.op === '(') {
      this.next();
      if (this.isOp(')')) { this.next(); out = this.node('tuple', start); } else {
        const first = this.expression();
        if (this.isOp(')')) { this.next(); out = this.node('parenthesized_expression', start, [first]); } else {
          this.expect(',');
          const kids = [first];
          this.items(')', kids);
          out = this.node('tuple', start, kids);
        }
      }
    } else if (this.op === '[') {
      this.next();
      const kids: LiteNode[] = [];
      this.items(']', kids);
      out = this.node('list', start, kids);
    } else if (this.op === '{') {
      this.next();
      if (this.isOp('}')) { this.next(); out = this.node('dictionary', start); } else {
        const first = this.expression();
        if (this.isOp(':')) {
          const pairs: LiteNode[] = [];
          let key = first;
          for (;;) {
            this.expect(':');
            const value = this.expression();
            pairs.push(new LiteNode(this.src, 'pair', key.startIndex, value.endIndex, [key, value]));
            if (this.isOp('}')) break;
            this.expect(',');
            if (this.isOp('}')) break;
            key = this.expression();
          }
          this.next();
          out = this.node('dictionary', start, pairs);
        } else {
          const kids = [first];
          if (!this.isOp('}')) { this.expect(','); this.items('}', kids); } else this.next();
          out = this.node('set', start, kids);
        }
      }
    } else this.fail();
    this.nest--;
    return out;
  }
}

export interface FieldHeader {
  name: string;
  /** Span of the annotation, as file indices. */
  typeStart: number;
  typeEnd: number;
  /** Start of the default value (it ends with the statement), or -1. */
  rightStart: number;
}

/**
 * Name and part spans of the annotated assignment `source.text[start, end)` from its tokens
 * alone (no nodes), or undefined when a token is outside the lite subset. Whenever
 * parseFieldStatement accepts a statement, this does too, with the same spans.
 */
export function scanFieldHeader(src: LiteSource, start: number, end: number): FieldHeader | undefined {
  const t = src.text;
  const from = start - src.base;
  const to = end - src.base;
  if (from < 0 || to > t.length) return undefined;
  const c = t.charCodeAt(from);
  if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95)) return undefined;
  try {
    return new FieldParser(src, t, from, to).header();
  } catch (error) {
    if (error === BAIL) return undefined;
    throw error;
  }
}

function isDotted(n: LiteNode | null): boolean {
  if (!n) return false;
  if (n.type === 'identifier') return true;
  return n.type === 'attribute' && isDotted(n.childForFieldName('object'));
}

/**
 * Nodes of the annotated assignment `source.text[start, end)` (an expression_statement as
 * tree-sitter delimits it), or undefined when it is not in the accepted subset.
 */
export function parseFieldStatement(src: LiteSource, start: number, end: number): LiteNode | undefined {
  const t = src.text;
  const from = start - src.base;
  const to = end - src.base;
  if (from < 0 || to > t.length) return undefined;
  // cheap pre-check: only `name:` statements are fields (a `#` comment inside makes the lexer bail)
  const c = t.charCodeAt(from);
  if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95)) return undefined;
  try {
    return new FieldParser(src, t, from, to).statement(from);
  } catch (error) {
    if (error === BAIL) return undefined;
    throw error;
  }
}
