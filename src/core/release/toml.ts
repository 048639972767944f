/**
 * The smallest careful TOML reader that pyproject.toml, uv.lock, poetry.lock and pdm.lock need.
 *
 * Why not a library: diagnostics point at the pinned version inside pyproject.toml and lock files,
 * so every string must keep its source position; the maintained TOML parsers for JS (smol-toml,
 * @iarna/toml, toml) return plain values with no positions. What it reads: comments, bare/quoted/dotted keys, [table] and [[array of tables]]
 * headers, the four string kinds with their escapes (multi-line ones included, so a description
 * holding "[[package]]" cannot fool it), arrays and inline tables over several lines, and other
 * scalars (numbers, booleans, dates) kept as their text. Strings keep where they were found, so a
 * caller can point at a version inside one. Not checked: redefined tables and keys (the later
 * wins), types of scalars. Malformed input throws TomlError; nesting is bounded.
 */

export type TomlNode = TomlString | TomlArray | TomlTable | TomlScalar;

export interface TomlString {
  kind: 'string';
  value: string;
  /** Offset of the first character of the value's text, after the opening quotes. */
  contentStart: number;
  /** Offset after the closing quotes. */
  end: number;
  /** True when the text between the quotes is the value itself (no escapes, no trimmed newline). */
  verbatim: boolean;
}

export interface TomlArray {
  kind: 'array';
  items: TomlNode[];
}

export interface TomlTable {
  kind: 'table';
  entries: Map<string, TomlNode>;
}

export interface TomlScalar {
  kind: 'scalar';
  text: string;
}

export class TomlError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} at offset ${offset}`);
  }
}

const MAX_DEPTH = 64;
const BARE_KEY = /[A-Za-z0-9_-]+/y;
const SCALAR = /[A-Za-z0-9_+\-.:]+(?: [0-9]{2}:[0-9]{2}[0-9:.Z+-]*)?/y;

const table = (): TomlTable => ({ kind: 'table', entries: new Map() });

class Reader {
  pos = 0;
  constructor(readonly text: string) {}

  fail(message: string): never {
    throw new TomlError(message, this.pos);
  }

  /** Spaces and tabs. */
  ws(): void {
    const t = this.text;
    while (this.pos < t.length && (t[this.pos] === ' ' || t[this.pos] === '\t')) this.pos++;
  }

  comment(): void {
    if (this.text[this.pos] === '#') {
      const nl = this.text.indexOf('\n', this.pos);
      this.pos = nl < 0 ? this.text.length : nl;
    }
  }

  /** Whitespace, newlines and comments (inside arrays, between statements). */
  blank(): void {
    for (;;) {
      this.ws();
      this.comment();
      const c = this.text[this.pos];
      if (c === '\n' || c === '\r') this.pos++;
      else return;
    }
  }

  /** The end of a statement: optional comment, then a newline or the end. */
  endOfLine(): void {
    this.ws();
    this.comment();
    const c = this.text[this.pos];
    if (c === undefined) return;
    if (c === '\r' && this.text[this.pos + 1] === '\n') this.pos += 2;
    else if (c === '\n') this.pos++;
    else this.fail('expected the end of the line');
  }

  key(): string[] {
    const parts: string[] = [];
    for (;;) {
      this.ws();
      const c = this.text[this.pos];
      if (c === '"' || c === "'") parts.push(this.string().value);
      else {
        BARE_KEY.lastIndex = this.pos;
        const m = BARE_KEY.exec(this.text);
        if (!m) this.fail('expected a key');
        parts.push(m[0]);
        this.pos += m[0].length;
      }
      this.ws();
      if (this.text[this.pos] !== '.') return parts;
      this.pos++;
    }
  }

  value(depth: number): TomlNode {
    if (depth > MAX_DEPTH) this.fail('nested too deeply');
    const c = this.text[this.pos];
    if (c === '"' || c === "'") return this.string();
    if (c === '[') return this.array(depth);
    if (c === '{') return this.inlineTable(depth);
    SCALAR.lastIndex = this.pos;
    const m = SCALAR.exec(this.text);
    if (!m) this.fail('expected a value');
    this.pos += m[0].length;
    return { kind: 'scalar', text: m[0] };
  }

  string(): TomlString {
    const t = this.text;
    const q = t[this.pos];
    const multi = t.startsWith(q.repeat(3), this.pos);
    this.pos += multi ? 3 : 1;
    let verbatim = true;
    if (multi && (t[this.pos] === '\n' || (t[this.pos] === '\r' && t[this.pos + 1] === '\n'))) {
      this.pos += t[this.pos] === '\r' ? 2 : 1; // a newline right after the opening quotes is trimmed
    }
    const contentStart = this.pos;
    let value = '';
    for (;;) {
      const ch = t[this.pos];
      if (ch === undefined) this.fail('unterminated string');
      if (!multi && (ch === '\n' || ch === '\r')) this.fail('newline in a string');
      if (ch === q) {
        if (!multi) {
          this.pos++;
          break;
        }
        if (t.startsWith(q.repeat(3), this.pos)) {
          // Up to two more quotes before the closing three belong to the value.
          let extra = 0;
          while (extra < 2 && t[this.pos + 3 + extra] === q) extra++;
          value += q.repeat(extra);
          this.pos += 3 + extra;
          break;
        }
      }
      if (ch === '\\' && q === '"') {
        verbatim = false;
        this.pos++;
        value += this.escape(multi);
        continue;
      }
      value += ch;
      this.pos++;
    }
    return { kind: 'string', value, contentStart, end: this.pos, verbatim };
  }

  escape(multi: boolean): string {
    const t = this.text;
    const e = t[this.pos];
    const simple: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', e: '\x1b', '"': '"', '\\': '\\' };
    if (e !== undefined && Object.hasOwn(simple, e)) {
      this.pos++;
      return simple[e];
    }
    const hexLen = e === 'u' ? 4 : e === 'U' ? 8 : e === 'x' ? 2 : 0;
    if (hexLen) {
      const hex = t.slice(this.pos + 1, this.pos + 1 + hexLen);
      const code = /^[0-9A-Fa-f]+$/.test(hex) && hex.length === hexLen ? parseInt(hex, 16) : NaN;
      if (!(code <= 0x10ffff) || (code >= 0xd800 && code <= 0xdfff)) this.fail('bad unicode escape');
      this.pos += 1 + hexLen;
      return String.fromCodePoint(code);
    }
    if (multi) {
      // A line-ending backslash: the newline and the whitespace after it go.
      const m = /[ \t]*\r?\n[\s]*/y;
      m.lastIndex = this.pos;
      const r = m.exec(t);
      if (r) {
        this.pos += r[0].length;
        return '';
      }
    }
    return this.fail('bad escape');
  }

  array(depth: number): TomlArray {
    this.pos++;
    const items: TomlNode[] = [];
    for (;;) {
      this.blank();
      if (this.text[this.pos] === ']') {
        this.pos++;
        return { kind: 'array', items };
      }
      items.push(this.value(depth + 1));
      this.blank();
      const c = this.text[this.pos];
      if (c === ',') this.pos++;
      else if (c !== ']') this.fail('expected , or ] in an array');
    }
  }

  inlineTable(depth: number): TomlTable {
    this.pos++;
    const tbl = table();
    for (;;) {
      this.blank(); // TOML 1.1 allows newlines in inline tables; accepting them costs nothing
      if (this.text[this.pos] === '}') {
        this.pos++;
        return tbl;
      }
      const path = this.key();
      if (this.text[this.pos] !== '=') this.fail('expected =');
      this.pos++;
      this.ws();
      assign(tbl, path, this.value(depth + 1), this);
      this.blank();
      const c = this.text[this.pos];
      if (c === ',') this.pos++;
      else if (c !== '}') this.fail('expected , or } in an inline table');
    }
  }
}

/** The table at a dotted path below `from`, made when missing (an array of tables: its last one). */
function descend(from: TomlTable, path: string[], r: Reader): TomlTable {
  let cur = from;
  for (const k of path) {
    let next = cur.entries.get(k);
    if (!next) {
      next = table();
      cur.entries.set(k, next);
    }
    if (next.kind === 'array') {
      const last = next.items[next.items.length - 1];
      if (!last || last.kind !== 'table') r.fail(`key ${k} is not a table`);
      next = last;
    }
    if (next.kind !== 'table') r.fail(`key ${k} is not a table`);
    cur = next;
  }
  return cur;
}

function assign(into: TomlTable, path: string[], value: TomlNode, r: Reader): void {
  const parent = descend(into, path.slice(0, -1), r);
  parent.entries.set(path[path.length - 1], value);
}

/** Read a TOML document. Throws TomlError on malformed input. */
export function parseToml(text: string): TomlTable {
  const r = new Reader(text.charCodeAt(0) === 0xfeff ? ' ' + text.slice(1) : text);
  const root = table();
  let current = root;
  for (;;) {
    r.blank();
    if (r.pos >= r.text.length) return root;
    if (r.text.startsWith('[[', r.pos)) {
      r.pos += 2;
      const path = r.key();
      if (!r.text.startsWith(']]', r.pos)) r.fail('expected ]]');
      r.pos += 2;
      const parent = descend(root, path.slice(0, -1), r);
      const last = path[path.length - 1];
      let arr = parent.entries.get(last);
      if (!arr) {
        arr = { kind: 'array', items: [] };
        parent.entries.set(last, arr);
      }
      if (arr.kind !== 'array') return r.fail(`key ${last} is not an array of tables`);
      const tbl = table();
      arr.items.push(tbl);
      current = tbl;
    } else if (r.text[r.pos] === '[') {
      r.pos++;
      const path = r.key();
      if (r.text[r.pos] !== ']') r.fail('expected ]');
      r.pos++;
      current = descend(root, path, r);
    } else {
      const path = r.key();
      if (r.text[r.pos] !== '=') r.fail('expected =');
      r.pos++;
      r.ws();
      assign(current, path, r.value(0), r);
    }
    r.endOfLine();
  }
}

/** The node at a dotted path of table keys, or undefined. */
export function tomlGet(node: TomlNode | undefined, ...path: string[]): TomlNode | undefined {
  let cur = node;
  for (const k of path) {
    if (!cur || cur.kind !== 'table') return undefined;
    cur = cur.entries.get(k);
  }
  return cur;
}

/** A string node's value, or undefined for any other node. */
export function tomlString(node: TomlNode | undefined): string | undefined {
  return node?.kind === 'string' ? node.value : undefined;
}
