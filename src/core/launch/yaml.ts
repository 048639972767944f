/**
 * Launch commands in YAML: docker compose files, Kubernetes manifests (multi-document `---`
 * streams), Helm values and templates, CI files. The structure comes from the `yaml` library
 * (documents, maps, sequences, anchors and aliases, merge keys, every scalar style); the words come
 * from its CST: each scalar's exact source span and style, decoded here with a WordBuilder so every
 * decoded character maps back to its source offset (a flag inside a double-quoted escape, a folded
 * `>` block or a literal `|` script has its range in the file). Read: `command:` / `args:` /
 * `entrypoint:` (a list is an argv, a string is split like compose does, line breaks included),
 * `environment:` / `env:` (lists, maps, Kubernetes `- name: / value:`), `run:` / `script:` shell
 * snippets, and any other string value that holds a whole launch command (a ConfigMap script).
 *
 * The library is loaded on first use (a `require` kept inside a function): in the extension bundle
 * it stays the lazily loaded vendor file dist/vendor/yaml.js (scripts/build.mjs), and the language
 * server only evaluates it when a YAML document first arrives.
 */
import type * as YAML from 'yaml';
import type { CST, Document, Node as YNode, Pair, Scalar, YAMLMap } from 'yaml';
import { type Ctx, analyzeWords, envOf, isVllmImage, mentionsLaunch } from './analyze';
import { doubleQuoted, singleQuoted } from './quoted';
import { type Word, WordBuilder, srcOfWord } from './source';
import { tokenizeShell } from './shell';
import type { EnvAssignment, LanguageHint } from './types';

let lib: typeof YAML | undefined;
function yamlLib(): typeof YAML {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (lib ??= require('yaml') as typeof YAML);
}

const ARGV_KEYS = ['entrypoint', 'command', 'args'] as const;
const ENV_KEYS = new Set(['environment', 'env']);
const SHELL_KEYS = new Set(['run', 'script', 'before_script', 'after_script']);
const KEYS = new Set<string>([...ARGV_KEYS, ...ENV_KEYS, ...SHELL_KEYS]);
const ASSIGN = /^[A-Za-z_][A-Za-z0-9_]*=/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const TEMPLATE = /\{\{|\{%/;
/** Largest YAML document read, and largest one parsed a second time with its templates blanked. */
const MAX_DOCUMENT = 1024 * 1024;
const MAX_REPARSE = 256 * 1024;
/** Argv items read per command (real launches have a few dozen). */
const MAX_ITEMS = 10_000;

const PARSE_OPTIONS = { keepSourceTokens: true, uniqueKeys: false, prettyErrors: false, strict: false, merge: true } as const;

interface Reader {
  ctx: Ctx;
  y: typeof YAML;
  doc: Document;
  /** Offset of the parsed text in ctx.text (a Markdown fence's content starts mid-document). */
  base: number;
  hint: LanguageHint;
  /** True when the parsed text had its template spans blanked (values then come from ctx.text only). */
  blanked: boolean;
  /** Scalars already read as part of a command, an env list or a script. */
  consumed: Set<YNode>;
  /** effectivePairs of each map read so far. */
  pairs: WeakMap<YAMLMap, Map<string, Pair>>;
  /** Built on the first alias (see resolve). */
  anchors?: Map<string, { at: number; node: YNode }[]>;
}

export function findInYaml(ctx: Ctx, hint: LanguageHint, from: number, to: number): void {
  const y = yamlLib();
  for (const [a, b] of documentSpans(ctx.text, from, to)) {
    if (ctx.out.length >= ctx.max) break;
    // the library's time grows faster than the size on some broken inputs: one document of
    // megabytes is no launch file (a long stream is split into its documents first)
    if (b - a > MAX_DOCUMENT) continue;
    const text = boundNesting(ctx.text.slice(a, b));
    if (!text.includes('sglang') && !text.includes('vllm')) continue;
    let docs = parseAll(y, text);
    let blanked = false;
    // Templated YAML (Helm `{{- if }}` lines, Jinja `{% %}`) often does not parse. Blanking the
    // template spans with characters of the same length keeps every offset, so the structure comes
    // from the blanked text and every word is still decoded from the original one; a template inside
    // a value reads as that value (dynamic). A document that still has errors is read as far as the
    // library recovered it (its nodes keep their true offsets).
    if (text.length <= MAX_REPARSE && TEMPLATE.test(text) && docs.some((d) => d.errors.length > 0)) {
      docs = parseAll(y, blankTemplates(text));
      blanked = true;
    }
    for (const doc of docs) {
      if (ctx.out.length >= ctx.max) break;
      const r: Reader = { ctx, y, doc, base: a, hint, blanked, consumed: new Set(), pairs: new WeakMap() };
      walk(r, doc.contents);
    }
  }
}

/**
 * The documents of a stream, split at `---` / `...` lines (aliases never cross documents), so a long
 * Kubernetes or rendered Helm stream is parsed one document at a time and only where SGLang is named.
 */
function documentSpans(s: string, from: number, to: number): [number, number][] {
  const spans: [number, number][] = [];
  const marker = /^(?:---|\.\.\.)(?=[ \t\r\n]|$)/gm;
  marker.lastIndex = from;
  let start = from;
  for (let m = marker.exec(s); m && m.index < to; m = marker.exec(s)) {
    if (m.index > start) spans.push([start, m.index]);
    start = m.index;
    marker.lastIndex = m.index + 3;
  }
  if (to > start) spans.push([start, to]);
  return spans;
}

/**
 * The documents of `text`. A broken file can make the library report an error per line, and each
 * error is an Error whose stack trace costs more than the parse: only the messages are used here, so
 * no stacks are captured while parsing.
 */
function parseAll(y: typeof YAML, text: string): Document[] {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return y.parseAllDocuments(text, PARSE_OPTIONS);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/** Visits every map (commands, env, scripts) and every loose string, in document order. */
function walk(r: Reader, root: unknown): void {
  const { y } = r;
  const stack: unknown[] = [root];
  let visited = 0;
  while (stack.length && visited++ < 1_000_000 && r.ctx.out.length < r.ctx.max) {
    const n = stack.pop();
    if (y.isMap(n)) {
      readMap(r, n);
      for (let i = n.items.length - 1; i >= 0; i--) stack.push(n.items[i].value);
    } else if (y.isSeq(n)) {
      for (let i = n.items.length - 1; i >= 0; i--) stack.push(n.items[i]);
    } else if (y.isScalar(n) && !r.consumed.has(n)) {
      looseScalar(r, n);
    }
  }
}

/** A string that is not under a command key but holds a whole launch command (a script in a ConfigMap). */
function looseScalar(r: Reader, n: Scalar): void {
  const raw = n.srcToken ? ('source' in n.srcToken ? n.srcToken.source : '') : '';
  if (!raw.includes('sglang') && !raw.includes('vllm')) return;
  const w = scalarWord(r, n);
  if (!w || !mentionsLaunch(w.value) || !/\s/.test(w.value)) return;
  analyzeWords(r.ctx, shellWords(w), { host: r.hint, form: 'shell' });
}

function keyName(r: Reader, key: unknown): string | undefined {
  return r.y.isScalar(key) && (typeof key.value === 'string' || typeof key.value === 'number') ? String(key.value) : undefined;
}

/**
 * Follows an alias to its anchored node (the anchored source gives the ranges): the last node with
 * that anchor before the alias. The library's own Alias.resolve searches the whole document on each
 * call, so the anchors are indexed once per document.
 */
function resolve(r: Reader, n: unknown): unknown {
  for (let k = 0; k < 8 && r.y.isAlias(n); k++) {
    const at = n.range?.[0] ?? Infinity;
    const list = anchorsOf(r).get(n.source) ?? [];
    let hit: YNode | undefined;
    for (let lo = 0, hi = list.length - 1; lo <= hi;) {
      const mid = (lo + hi) >> 1;
      if (list[mid].at < at) {
        hit = list[mid].node;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    n = hit;
  }
  return r.y.isAlias(n) ? undefined : n;
}

/** Anchor name -> the nodes carrying it, in source order. */
function anchorsOf(r: Reader): Map<string, { at: number; node: YNode }[]> {
  if (r.anchors) return r.anchors;
  const anchors = new Map<string, { at: number; node: YNode }[]>();
  r.anchors = anchors;
  const { y } = r;
  const stack: unknown[] = [r.doc.contents];
  let visited = 0;
  while (stack.length && visited++ < 1_000_000) {
    const n = stack.pop();
    if (!y.isNode(n) || y.isAlias(n)) continue;
    if (n.anchor) {
      const list = anchors.get(n.anchor) ?? [];
      list.push({ at: n.range?.[0] ?? 0, node: n });
      anchors.set(n.anchor, list);
    }
    if (y.isMap(n)) for (const p of n.items) stack.push(p.key, p.value);
    else if (y.isSeq(n)) for (const i of n.items) stack.push(i);
  }
  for (const list of anchors.values()) list.sort((a, b) => a.at - b.at);
  return anchors;
}

/** The map's pairs by key: its own (the last of a repeated key wins), then those merged in by `<<`. */
function effectivePairs(r: Reader, map: YAMLMap, depth = 0): Map<string, Pair> {
  // memoised: merge keys may name one anchor many times (`<<: [*a, *a, …]`)
  const known = r.pairs.get(map);
  if (known) return known;
  const out = new Map<string, Pair>();
  r.pairs.set(map, out);
  const merged: Map<string, Pair>[] = [];
  for (const p of map.items) {
    const k = keyName(r, p.key);
    // with `merge: true` the library gives a merge key the value Symbol(<<); its source is `<<`
    if (k === '<<' || (r.y.isScalar(p.key) && (p.key as Scalar & { source?: string }).source === '<<')) {
      if (depth > 4) continue;
      const v = resolve(r, p.value);
      const sources = r.y.isSeq(v) ? v.items.map((i) => resolve(r, i)) : [v];
      for (const src of sources) if (r.y.isMap(src)) merged.push(effectivePairs(r, src, depth + 1));
      continue;
    }
    if (k !== undefined) out.set(k, p);
  }
  const own = new Set(out.keys());
  for (const m of merged) for (const [k, p] of m) if (!own.has(k) && !out.has(k)) out.set(k, p);
  return out;
}

function readMap(r: Reader, map: YAMLMap): void {
  const { y } = r;
  const pairs = effectivePairs(r, map);
  let any = false;
  for (const k of pairs.keys()) if (KEYS.has(k)) any = true;
  if (!any) return;
  const env: EnvAssignment[] = [];
  for (const k of ENV_KEYS) {
    const p = pairs.get(k);
    if (p) env.push(...envFrom(r, resolve(r, p.value)));
  }
  const words: Word[] = [];
  let form: 'shell' | 'argv' = 'shell';
  for (const key of ARGV_KEYS) {
    const v = resolve(r, pairs.get(key)?.value);
    if (y.isSeq(v)) {
      form = 'argv';
      for (const item of v.items) {
        if (words.length >= MAX_ITEMS) break;
        const w = itemWord(r, resolve(r, item));
        if (w) words.push(w);
      }
    } else if (y.isScalar(v)) {
      const w = scalarWord(r, v);
      r.consumed.add(v);
      // compose splits a string command like a shell would, but line breaks are blanks there
      // (a folded `>` block with an empty line yields one), not command separators
      if (w) for (const t of shellWords(w)) if (t.op !== '\n') words.push(t);
    }
  }
  if (words.length) {
    const image = vllmImageEntry(r, pairs);
    analyzeWords(r.ctx, words, { host: r.hint, form, env, ...(image ? { image } : {}) });
  }
  for (const key of SHELL_KEYS) {
    const v = resolve(r, pairs.get(key)?.value);
    const scripts = y.isSeq(v) ? v.items.slice(0, MAX_ITEMS).map((i) => resolve(r, i)) : [v];
    for (const s of scripts) {
      if (!y.isScalar(s)) continue;
      r.consumed.add(s);
      const w = scalarWord(r, s);
      if (w) analyzeWords(r.ctx, shellWords(w), { host: r.hint, form: 'shell', env });
    }
  }
}

/**
 * The `image:` of a container that runs the vllm/vllm-openai image's own entrypoint: compose without
 * `entrypoint:` (its `command:` is the arguments), Kubernetes with `args:` and no `command:`.
 */
function vllmImageEntry(r: Reader, pairs: Map<string, Pair>): Word | undefined {
  const v = resolve(r, pairs.get('image')?.value);
  if (!r.y.isScalar(v)) return undefined;
  const k8s = pairs.has('args');
  if (k8s ? pairs.has('command') : pairs.has('entrypoint')) return undefined;
  const w = scalarWord(r, v);
  return w && isVllmImage(w.value) ? w : undefined;
}

/** A shell script or command line held by a scalar, tokenized in original-document offsets. */
function shellWords(w: Word): Word[] {
  const ws = tokenizeShell(srcOfWord(w));
  if (TEMPLATE.test(w.value)) for (const t of ws) if (TEMPLATE.test(t.value)) t.dynamic = true;
  return ws;
}

/** One argv item: a scalar, or a collection / template as one dynamic word of its source text. */
function itemWord(r: Reader, n: unknown): Word | null {
  if (r.y.isScalar(n)) {
    r.consumed.add(n);
    const w = scalarWord(r, n);
    if (w && TEMPLATE.test(w.value)) w.dynamic = true;
    return w;
  }
  if (!r.y.isNode(n) || !n.range) return null;
  const start = r.base + n.range[0];
  const end = r.base + n.range[1];
  const w = new WordBuilder(r.ctx.text, start);
  w.slice(start, end);
  w.dynamic = true;
  return w.finish(end);
}

// ---------------------------------------------------------------- environment

/** `environment:` / `env:` as `- K=V` items, `K: V` mappings, or Kubernetes `- name: K / value: V`. */
function envFrom(r: Reader, v: unknown): EnvAssignment[] {
  const { y, ctx } = r;
  const out: EnvAssignment[] = [];
  const range = (w: Word) => ctx.lines.range(w.start, w.end);
  if (y.isSeq(v)) {
    for (const raw of v.items.slice(0, MAX_ITEMS)) {
      const item = resolve(r, raw);
      if (y.isScalar(item)) {
        r.consumed.add(item);
        const w = scalarWord(r, item);
        if (w && ASSIGN.test(w.value)) out.push(envOf(ctx, w, 'yaml'));
      } else if (y.isMap(item)) {
        const pairs = effectivePairs(r, item);
        const nameNode = resolve(r, pairs.get('name')?.value);
        const name = y.isScalar(nameNode) ? scalarWord(r, nameNode) : null;
        if (!name) continue;
        const valuePair = pairs.get('value');
        const valueNode = resolve(r, valuePair?.value);
        const value = y.isScalar(valueNode) ? scalarWord(r, valueNode) : null;
        if (!valuePair && !pairs.has('valueFrom')) continue;
        const nameR = range(name);
        const e: EnvAssignment = {
          name: name.value,
          value: value?.value ?? '',
          range: nameR,
          nameRange: nameR,
          valueRange: value ? range(value) : nameR,
          source: 'yaml',
        };
        if (value?.dynamic || !valuePair) e.dynamic = true;
        out.push(e);
      }
    }
  } else if (y.isMap(v)) {
    for (const p of v.items) {
      if (!y.isScalar(p.key)) continue;
      const key = scalarWord(r, p.key);
      if (!key || !ENV_NAME.test(key.value)) continue;
      const valueNode = resolve(r, p.value);
      const value = y.isScalar(valueNode) ? scalarWord(r, valueNode) : null;
      if (y.isScalar(valueNode)) r.consumed.add(valueNode);
      const nameR = range(key);
      const e: EnvAssignment = {
        name: key.value,
        value: value?.value ?? '',
        range: ctx.lines.range(key.start, value ? value.end : key.end),
        nameRange: nameR,
        valueRange: value ? range(value) : nameR,
        source: 'yaml',
      };
      if (value?.dynamic) e.dynamic = true;
      out.push(e);
    }
  }
  return out;
}

// ---------------------------------------------------------------- scalars

type ScalarToken = CST.FlowScalar | CST.BlockScalar;

/**
 * The scalar's value as a Word over the original text: decoded from the exact source span of its CST
 * token, so each character maps to its offset. The value is checked against the library's own
 * decoding; should the two ever differ, the library's value is kept with an approximate mapping.
 */
function scalarWord(r: Reader, n: Scalar): Word | null {
  const s = r.ctx.text;
  const tok = n.srcToken as ScalarToken | undefined;
  if (n.value === null && (!tok || !('source' in tok) || tok.source === '')) return null; // `key:` with no value
  if (!tok || !('source' in tok) || typeof tok.offset !== 'number') return fallbackWord(r, n);
  const a = r.base + tok.offset;
  let w: Word | null;
  let checked = true;
  switch (tok.type) {
    case 'scalar':
      w = plainWord(s, a, a + tok.source.length);
      checked = false; // a plain scalar may be a number, a bool, null: its text is what argv gets
      break;
    case 'single-quoted-scalar':
      w = singleQuoted(s, a, a + tok.source.length).word;
      break;
    case 'double-quoted-scalar':
      w = doubleQuoted(s, a, a + tok.source.length).word;
      break;
    case 'block-scalar':
      w = blockWord(s, r.base, tok);
      break;
    default:
      return fallbackWord(r, n);
  }
  if (w && checked && !r.blanked && typeof n.value === 'string' && w.value !== n.value) return approximate(n.value, w.start, w.end);
  if (w && TEMPLATE.test(w.value)) w.dynamic = true;
  return w;
}

function fallbackWord(r: Reader, n: Scalar): Word | null {
  if (!n.range) return null;
  const start = r.base + n.range[0];
  const end = r.base + n.range[1];
  const value = typeof n.value === 'string' && !r.blanked ? n.value : r.ctx.text.slice(start, end);
  return approximate(value, start, end);
}

/** `value` mapped onto [start, end) character by character (clamped): only for values we could not decode. */
function approximate(value: string, start: number, end: number): Word {
  const n = Math.max(0, Math.min(value.length, end - start));
  return { value, start, end, runs: n ? [{ d: 0, o: start, n }] : [{ d: 0, o: start, n: 0 }] };
}

/** A plain (unquoted) scalar on [a, end): lines trimmed, single breaks folded to spaces, empty lines to newlines. */
function plainWord(s: string, a: number, end: number): Word | null {
  if (end <= a) return null;
  const w = new WordBuilder(s, a);
  let i = a;
  let started = false;
  let prevNl = -1;
  let empties: number[] = [];
  for (;;) {
    let le = s.indexOf('\n', i);
    if (le < 0 || le > end) le = end;
    let cs = i;
    let ce = le;
    if (started) while (cs < ce && (s[cs] === ' ' || s[cs] === '\t')) cs++;
    while (ce > cs && (s[ce - 1] === ' ' || s[ce - 1] === '\t' || s[ce - 1] === '\r')) ce--;
    if (ce > cs) {
      if (started) {
        if (empties.length) for (const e of empties) w.decoded('\n', e, e + 1);
        else w.decoded(' ', prevNl, prevNl + 1);
      }
      w.slice(cs, ce);
      started = true;
      empties = [];
      prevNl = le;
    } else if (started && le < end) empties.push(le);
    if (le >= end) break;
    i = le + 1;
  }
  return w.finish(end);
}

/**
 * A block scalar (`|`, `>`, with chomping `-`/`+` and an indentation digit). Literal: lines kept;
 * folded: a single break between two ordinary lines becomes a space, empty lines become newlines,
 * and breaks next to more-indented lines are kept.
 */
function blockWord(s: string, base: number, tok: CST.BlockScalar): Word | null {
  let head = tok.offset;
  let header = '|';
  for (const p of tok.props) {
    if (p.type === 'block-scalar-header') header = p.source;
    head += 'source' in p && typeof p.source === 'string' ? p.source.length : 0;
  }
  const literal = header.includes('|');
  const chomp = header.includes('-') ? 'strip' : header.includes('+') ? 'keep' : 'clip';
  const digit = /[1-9]/.exec(header);
  const a = base + head;
  const end = a + tok.source.length;
  interface L {
    start: number;
    end: number;
    nl: number;
  }
  const lines: L[] = [];
  for (let i = a; i < end;) {
    let le = s.indexOf('\n', i);
    if (le < 0 || le >= end) le = -1;
    const stop = le < 0 ? end : le;
    lines.push({ start: i, end: stop > i && s[stop - 1] === '\r' ? stop - 1 : stop, nl: le });
    if (le < 0) break;
    i = le + 1;
  }
  let indent: number;
  if (digit) indent = Math.max(0, tok.indent) + Number(digit[0]);
  else {
    const first = lines.find((l) => /[^ ]/.test(s.slice(l.start, l.end)));
    indent = first ? /^ */.exec(s.slice(first.start, first.end))![0].length : 0;
  }
  const w = new WordBuilder(s, lines.length ? Math.min(lines[0].start + indent, lines[0].end) : a);
  const breakAt = (l: L): number => (l.nl >= 0 ? l.nl : l.end);
  let started = false;
  let prev: L | null = null;
  let prevMore = false;
  let empties: L[] = [];
  for (const l of lines) {
    const blank = l.end - l.start <= indent && /^ *$/.test(s.slice(l.start, l.end));
    if (blank) {
      empties.push(l);
      continue;
    }
    const cs = l.start + indent;
    const more = s[cs] === ' ' || s[cs] === '\t';
    if (!started) for (const e of empties) w.decoded('\n', breakAt(e), breakAt(e) + 1);
    else if (literal || prevMore || more || empties.length) {
      if (literal || prevMore || more) w.decoded('\n', breakAt(prev!), breakAt(prev!) + 1);
      for (const e of empties) w.decoded('\n', breakAt(e), breakAt(e) + 1);
    } else w.decoded(' ', breakAt(prev!), breakAt(prev!) + 1);
    w.slice(cs, l.end);
    started = true;
    prev = l;
    prevMore = more;
    empties = [];
  }
  // clip and keep end in a line break, also at the end of the text where the source has none
  if (started && chomp !== 'strip' && prev) w.decoded('\n', prev.nl >= 0 ? prev.nl : prev.end, prev.nl >= 0 ? prev.nl + 1 : prev.end);
  if (chomp === 'keep') for (const e of empties) if (e.nl >= 0) w.decoded('\n', e.nl, e.nl + 1);
  return w.finish(prev ? prev.end : end);
}

// ---------------------------------------------------------------- hostile input

const MAX_FLOW_DEPTH = 8;

/**
 * The library builds one node per nested flow collection (10 MB of `[` is ten million nodes). Real
 * files nest a few levels, so openers past MAX_FLOW_DEPTH become blanks (same length: offsets stay).
 * Quoted strings and comments inside flow collections are skipped; the scan is linear.
 */
function boundNesting(t: string): string {
  // a regex walks the special characters only (a charCodeAt loop, once optimised on small files,
  // was seen to crawl on a 10 MB one)
  const special = /[[\]{}"'#]/g;
  let depth = 0;
  let deep: number[] | undefined;
  for (let m = special.exec(t); m; m = special.exec(t)) {
    const i = m.index;
    const c = m[0];
    if (c === '[' || c === '{') {
      if (depth >= MAX_FLOW_DEPTH) (deep ??= []).push(i);
      else depth++;
    } else if (c === ']' || c === '}') {
      if (depth > 0) depth--;
    } else if (depth === 0) {
      continue;
    } else if (c === '#') {
      // a comment inside a flow collection: to the end of its line
      if (i > 0 && t[i - 1] !== ' ' && t[i - 1] !== '\t') continue;
      const nl = t.indexOf('\n', i + 1);
      special.lastIndex = nl < 0 ? t.length : nl;
    } else {
      // a quoted string inside a flow collection: to its closing quote (or the end of the line)
      const close = t.indexOf(c, i + 1);
      const nl = t.indexOf('\n', i + 1);
      special.lastIndex = close >= 0 ? close + 1 : nl < 0 ? t.length : nl;
    }
  }
  if (!deep) return t;
  const out = t.split('');
  for (const i of deep) out[i] = ' ';
  return out.join('');
}

// ---------------------------------------------------------------- templates

/**
 * `{{ … }}`, `{% … %}` and `{# … #}` spans replaced by characters of the same length (line breaks
 * kept): blanks on a line that holds nothing but templates (`{{- if .Values.x }}`), so the line
 * vanishes from the structure, else `_`, so `key: {{ .Values.x }}` keeps a plain value there.
 */
export function blankTemplates(t: string): string {
  const out = t.split('');
  const spans: [number, number][] = [];
  for (let i = t.indexOf('{'); i >= 0 && i < t.length - 1; i = t.indexOf('{', i + 1)) {
    const open = t[i + 1];
    const close = open === '{' ? '}}' : open === '%' ? '%}' : open === '#' ? '#}' : '';
    if (!close) continue;
    // a template is short; an unclosed one is left alone (bounded search keeps this linear)
    const j = t.indexOf(close, i + 2);
    if (j < 0 || j - i > 4000) continue;
    spans.push([i, j + 2]);
    i = j + 1;
  }
  if (!spans.length) return t;
  const inSpan = new Uint8Array(t.length);
  for (const [a, b] of spans) inSpan.fill(1, a, b);
  let ls = 0;
  while (ls <= t.length) {
    let le = t.indexOf('\n', ls);
    if (le < 0) le = t.length;
    let hasSpan = false;
    let other = false;
    for (let k = ls; k < le; k++) {
      if (inSpan[k]) hasSpan = true;
      else if (t[k] !== ' ' && t[k] !== '\t' && t[k] !== '\r') other = true;
    }
    if (hasSpan) for (let k = ls; k < le; k++) if (inSpan[k]) out[k] = other ? '_' : ' ';
    ls = le + 1;
  }
  return out.join('');
}
