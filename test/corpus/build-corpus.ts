/**
 * Builds test/corpus/corpus.jsonl: the labelled corpus for the degenerate-output detector.
 *
 *   npx tsx test/corpus/build-corpus.ts [--seed N] [--out PATH] [--healthy N]
 *
 * Healthy cases are excerpts (100-4,000 characters, cut at line boundaries) of real files found on
 * the machine: Python sources, licences and Debian copyright files, Markdown docs, JSON, man pages
 * (English and translated), CSV, SQL, logs, TypeScript/JavaScript, C headers, YAML, CJK text.
 * Nothing is written or filtered to suit the detector; files that are not valid UTF-8 are skipped
 * because they are not text. Degenerate cases are generated with a seeded PRNG on top of healthy
 * prefixes. The output is deterministic for a given seed and set of files; the generated file is
 * committed so CI does not depend on what a machine has installed.
 *
 * Each line is a record `detectRecord` accepts, plus `label` (ok | degenerate | nan), `shape` and
 * `source`. Logprobs use Python's bare NaN / Infinity literals, as SGLang writes them.
 */
import { closeSync, existsSync, lstatSync, openSync, readdirSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { seededRandom as mulberry32 } from '../../src/core/random';
import type { CorpusCase } from './corpusCase';

// ---------- seeded PRNG ----------

const args = process.argv.slice(2);
const argOf = (name: string, def: string): string => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : def;
};
const SEED = Number(argOf('--seed', '20261108'));
const OUT = argOf('--out', join(__dirname, 'corpus.jsonl'));
const HEALTHY = Number(argOf('--healthy', '1000'));
const rand = mulberry32(SEED);
const int = (lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
const logUniform = (lo: number, hi: number): number => Math.round(Math.exp(Math.log(lo) + rand() * (Math.log(hi) - Math.log(lo))));
const chance = (p: number): boolean => rand() < p;

// ---------- file discovery (sorted, bounded) ----------
function walk(root: string, accept: (path: string) => boolean, maxFiles = 4000, maxDepth = 8): string[] {
  const out: string[] = [];
  const visit = (dir: string, depth: number): void => {
    if (out.length >= maxFiles || depth > maxDepth) return;
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (out.length >= maxFiles) return;
      const p = join(dir, name);
      let st;
      try {
        st = lstatSync(p);
      } catch {
        continue;
      }
      if (st.isSymbolicLink()) continue;
      if (st.isDirectory()) visit(p, depth + 1);
      else if (st.isFile() && st.size >= 120 && accept(p)) out.push(p);
    }
  };
  if (existsSync(root)) visit(root, 0);
  return out;
}

const MAX_READ = 1 << 20;
const decoder = new TextDecoder('utf-8', { fatal: true });

function readText(path: string): string | null {
  try {
    let buf: Buffer;
    if (path.endsWith('.gz')) {
      const fd = openSync(path, 'r');
      const raw = Buffer.alloc(Math.min(lstatSync(path).size, MAX_READ));
      readSync(fd, raw, 0, raw.length, 0);
      closeSync(fd);
      buf = gunzipSync(raw);
    } else {
      const fd = openSync(path, 'r');
      buf = Buffer.alloc(Math.min(lstatSync(path).size, MAX_READ));
      readSync(fd, buf, 0, buf.length, 0);
      closeSync(fd);
    }
    if (buf.includes(0)) return null;
    // A cut at MAX_READ can split a UTF-8 sequence: drop a trailing partial character.
    let end = buf.length;
    while (end > 0 && end > buf.length - 4 && (buf[end - 1] & 0xc0) === 0x80) end--;
    if (end > 0 && buf[end - 1] >= 0xc0) end--;
    return decoder.decode(buf.subarray(0, buf.length === MAX_READ ? end : buf.length));
  } catch {
    return null;
  }
}

interface Source {
  name: string;
  weight: number;
  files: string[];
}

const PY = existsSync('/root/.pyenv/versions/3.11.7/lib/python3.11') ? '/root/.pyenv/versions/3.11.7/lib/python3.11' : '/usr/lib/python3.11';
const NM = join(__dirname, '..', '..', 'node_modules');
const ext = (...es: string[]) => (p: string) => es.some((e) => p.endsWith(e));

const sources: Source[] = [
  { name: 'python', weight: 190, files: walk(PY, (p) => p.endsWith('.py') && !p.includes('/test') && !p.includes('site-packages') && !p.includes('/idlelib/'), 3000) },
  { name: 'python-test', weight: 40, files: walk(join(PY, 'test'), ext('.py'), 1500) },
  { name: 'python-pkg', weight: 40, files: walk(join(PY, 'site-packages'), (p) => p.endsWith('.py') && !p.includes('/tests/'), 3000) },
  { name: 'licence', weight: 40, files: walk('/usr/share/common-licenses', () => true) },
  { name: 'copyright', weight: 60, files: walk('/usr/share/doc', (p) => p.endsWith('/copyright'), 2000) },
  { name: 'markdown', weight: 150, files: [...walk(NM, ext('.md'), 3000), ...walk('/usr/share/doc', ext('.md'), 500)] },
  { name: 'json', weight: 70, files: walk(NM, (p) => p.endsWith('.json') && !p.endsWith('.min.json'), 3000) },
  { name: 'man', weight: 70, files: ['man1', 'man5', 'man8'].flatMap((d) => walk(join('/usr/share/man', d), ext('.gz'), 1500)) },
  { name: 'man-translated', weight: 60, files: ['ru', 'ja', 'zh_CN', 'zh_TW', 'ko', 'uk', 'de', 'fr', 'es', 'pl', 'sr', 'tr'].flatMap((l) => walk(join('/usr/share/man', l), ext('.gz'), 300)) },
  { name: 'csv', weight: 25, files: walk(join(PY, 'site-packages'), ext('.csv'), 300) },
  { name: 'sql', weight: 30, files: walk('/usr/share/postgresql', ext('.sql'), 300) },
  { name: 'log', weight: 30, files: walk('/var/log', (p) => /\.log(\.\d+)?$/.test(p), 100) },
  { name: 'typescript', weight: 50, files: walk(join(NM, 'typescript', 'lib'), ext('.d.ts'), 200).concat(walk(join(NM, '@types'), ext('.d.ts'), 1000)) },
  { name: 'javascript', weight: 40, files: walk(NM, (p) => p.endsWith('.js') && !p.endsWith('.min.js') && !p.includes('/dist/'), 3000) },
  { name: 'c-header', weight: 40, files: walk('/usr/include', ext('.h'), 3000) },
  { name: 'yaml', weight: 20, files: walk(NM, ext('.yml', '.yaml'), 500) },
  { name: 'cjk', weight: 15, files: walk(join(PY, 'test', 'cjkencodings'), ext('-utf8.txt')) },
  { name: 'config', weight: 20, files: walk('/etc', ext('.conf', '.cfg', '.ini'), 500) },
].filter((s) => s.files.length > 0);

// ---------- excerpts ----------
function excerpt(text: string, minLen: number, maxLen: number): string | null {
  if (text.length < minLen) return null;
  const want = Math.min(logUniform(minLen, maxLen), text.length);
  let start = int(0, Math.max(0, text.length - want));
  if (start > 0) {
    const nl = text.indexOf('\n', start);
    if (nl < 0 || nl + 1 >= text.length) start = 0;
    else start = nl + 1;
  }
  let end = Math.min(text.length, start + want);
  const nl = text.indexOf('\n', end);
  if (nl >= 0 && nl - end < 200) end = nl + 1;
  const out = text.slice(start, end);
  return out.trim().length >= Math.min(minLen, 60) ? out : null;
}

const cache = new Map<string, string | null>();
function fileText(path: string): string | null {
  if (!cache.has(path)) cache.set(path, readText(path));
  return cache.get(path)!;
}

const totalWeight = sources.reduce((a, s) => a + s.weight, 0);
function pickSource(): Source {
  let r = rand() * totalWeight;
  for (const s of sources) {
    r -= s.weight;
    if (r < 0) return s;
  }
  return sources[sources.length - 1];
}

function healthyExcerpt(minLen: number, maxLen: number): { text: string; source: string } {
  for (let tries = 0; tries < 200; tries++) {
    const src = pickSource();
    const path = pick(src.files);
    const t = fileText(path);
    if (!t) continue;
    const ex = excerpt(t, minLen, maxLen);
    if (ex) return { text: ex, source: `${src.name}:${path}` };
  }
  throw new Error('no readable text files found');
}

// ---------- records ----------
type Case = CorpusCase;

const NAN = '\u0000NaN';
const PINF = '\u0000Inf';
const NINF = '\u0000-Inf';

/** JSON with Python's bare NaN / Infinity literals for the tagged values. */
function toJsonLine(c: Case): string {
  return JSON.stringify(c, (_k, v: unknown) => {
    if (typeof v === 'number' && Number.isNaN(v)) return NAN;
    if (v === Infinity) return PINF;
    if (v === -Infinity) return NINF;
    return v;
  })
    .replaceAll(JSON.stringify(NAN), 'NaN')
    .replaceAll(JSON.stringify(PINF), 'Infinity')
    .replaceAll(JSON.stringify(NINF), '-Infinity');
}

/** Split text into token-sized pieces (1-8 characters, breaking before spaces). */
function pseudoTokens(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    let n = int(1, 6);
    const sp = text.indexOf(' ', i + 1);
    if (sp > i && sp - i < n) n = sp - i;
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

/** Healthy-looking logprob: mostly near 0, a tail of uncertain tokens. */
function healthyLogprob(): number {
  const r = rand();
  if (r < 0.7) return -Math.round(rand() * 0.3 * 1e4) / 1e4;
  if (r < 0.95) return -Math.round(rand() * 3 * 1e4) / 1e4;
  return -Math.round((3 + rand() * 7) * 1e4) / 1e4;
}

function logprobsFor(text: string, style: 'numbers' | 'openai' | 'native'): { lps: unknown; n: number } {
  const toks = pseudoTokens(text);
  const values = toks.map(() => healthyLogprob());
  if (style === 'numbers') return { lps: values, n: toks.length };
  if (style === 'openai') return { lps: { content: toks.map((t, i) => ({ token: t, logprob: values[i], bytes: null, top_logprobs: [] })) }, n: toks.length };
  return { lps: toks.map((t, i) => [values[i], int(1, 150000), t]), n: toks.length };
}

const cases: Case[] = [];
let counter = 0;
const nextId = (prefix: string) => `${prefix}${String(++counter).padStart(5, '0')}`;

// ---------- healthy ----------
for (let i = 0; i < HEALTHY; i++) {
  const { text, source } = healthyExcerpt(100, 4000);
  const c: Case = { id: nextId('h'), label: 'ok', shape: 'healthy', source, text, finish_reason: 'stop', matched_stop: null };
  const r = rand();
  if (r < 0.15) c.finish_reason = 'length';
  else if (r < 0.2) c.matched_stop = pick([151645, 128009, '</s>', '\n\n']);
  if (chance(0.12)) c.logprobs = logprobsFor(text, pick(['numbers', 'openai', 'native'] as const)).lps;
  cases.push(c);
}
// Healthy tool calls: empty content is fine when a tool call came.
for (let i = 0; i < 20; i++) {
  const text = chance(0.5) ? '' : healthyExcerpt(100, 600).text;
  cases.push({ id: nextId('h'), label: 'ok', shape: 'healthy-tool-call', text, finish_reason: 'tool_calls', matched_stop: null,
    tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] });
}

// ---------- degenerate building blocks ----------
function prefix(maxLen = 1500): { text: string; source: string } {
  if (chance(0.12)) return { text: '', source: 'none' };
  return healthyExcerpt(60, maxLen);
}

function words(text: string): string[] {
  return text.split(/\s+/).filter((w) => w.length >= 2 && w.length <= 12 && /\p{L}/u.test(w));
}

function shortUnit(seedText: string): { unit: string; kind: string } {
  const r = rand();
  const ws = words(seedText);
  if (r < 0.5 && ws.length) {
    const n = int(1, 3);
    const start = int(0, Math.max(0, ws.length - n));
    let u = `${ws.slice(start, start + n).join(' ')} `;
    if (u.length > 20) u = `${ws[start].slice(0, 12)} `;
    return { unit: u, kind: 'words' };
  }
  if (r < 0.62) {
    const n = int(1, 4);
    let u = '';
    for (let k = 0; k < n; k++) u += String.fromCharCode(int(0x4e00, 0x9fa5));
    return { unit: u, kind: 'cjk' };
  }
  if (r < 0.72) return { unit: pick(['claus ', 'the the ', 'I am ', 'and ', 'ok\n', 'Yes, ', 'no no ', 'def ', 'return ', 'ing', 'abc', 'hm. ']), kind: 'fixed' };
  if (r < 0.82) return { unit: pick(['Answer:\n', 'I think so.\n', '- item\n', 'print(x)\n', '</s>\n', '\\n', '<br>']), kind: 'line' };
  return { unit: pick([', ', '0, ', '|---', '. ', '\\x00', '-=', '** ', ');\n', '}}', '[]', '1 ', '..\n']), kind: 'structural' };
}

function sentenceUnit(minLen: number, maxLen: number): string {
  const { text } = healthyExcerpt(Math.max(minLen, 100), Math.max(maxLen * 2, 200));
  const len = Math.min(text.length, int(minLen, maxLen));
  const start = int(0, text.length - len);
  let u = text.slice(start, start + len);
  if (!/\s$/.test(u)) u += pick([' ', '\n', '\n\n']);
  return u;
}

function repeatTo(unit: string, chars: number): string {
  const reps = Math.max(1, Math.ceil(chars / unit.length));
  return unit.repeat(reps).slice(0, Math.max(chars, unit.length));
}

function finishFor(loopish: boolean): string {
  return loopish && chance(0.8) ? 'length' : 'stop';
}

function addDeg(label: Case['label'], shape: string, p: { text: string; source: string }, body: string, extra: Partial<Case> = {}): void {
  cases.push({ id: nextId('d'), label, shape, source: p.source, text: p.text + body, finish_reason: 'stop', matched_stop: null, ...extra });
}

// token-0 runs
for (let i = 0; i < 70; i++) {
  const p = prefix();
  const body = '!'.repeat(logUniform(32, 4000));
  const marker = chance(0.25);
  addDeg('nan', 'token0-run', p, body, marker ? { finish_reason: 'stop', matched_stop: 'NaN happened' } : { finish_reason: 'length' });
}
for (let i = 0; i < 20; i++) {
  const p = prefix();
  const t0 = pick(['<unk>', '<pad>', '[PAD]', '<s>', '<|endoftext|>']);
  addDeg('nan', 'token0-run-other', p, t0.repeat(logUniform(32, 800)), { finish_reason: 'length', token0_text: t0 });
}
for (let i = 0; i < 20; i++) {
  // Token ids say 0 while the text of token 0 is not known to be "!" (e.g. a custom vocab).
  const p = prefix(800);
  const n = logUniform(20, 400);
  const t0 = pick(['\u2047', '<0x00>', '⁇']);
  const toks = Array.from({ length: n }, () => [-Math.round(rand() * 0.01 * 1e4) / 1e4, 0, t0]);
  addDeg('nan', 'token0-ids', { text: p.text, source: p.source }, t0.repeat(n), { finish_reason: 'length', logprobs: toks, token0_text: '!' });
}
// NaN marker, with and without text
for (let i = 0; i < 50; i++) {
  const p = chance(0.3) ? { text: '', source: 'none' } : prefix();
  const body = chance(0.3) ? '!'.repeat(int(1, 20)) : '';
  addDeg('nan', 'nan-marker', p, body, { finish_reason: 'stop', matched_stop: 'NaN happened' });
}
// tool_calls stop with no tool call (the marker lost by the tool-call parser)
for (let i = 0; i < 30; i++) {
  const p = chance(0.5) ? { text: '', source: 'none' } : prefix(600);
  addDeg('degenerate', 'tool-calls-missing', p, '', { finish_reason: 'tool_calls', matched_stop: null, tool_calls: null });
}
// NaN / infinite / null logprobs in an otherwise healthy answer
for (let i = 0; i < 50; i++) {
  const p = healthyExcerpt(100, 2000);
  const style = pick(['numbers', 'openai', 'native'] as const);
  const { lps, n } = logprobsFor(p.text, style);
  const bad = pick([NaN, NaN, Infinity, -Infinity, null]);
  const at = int(Math.floor(n / 2), n - 1);
  const count = int(1, Math.min(8, n - at));
  for (let k = at; k < at + count; k++) {
    if (style === 'numbers') (lps as unknown[])[k] = bad;
    else if (style === 'openai') (lps as { content: { logprob: unknown }[] }).content[k].logprob = bad;
    else (lps as unknown[][])[k][0] = bad;
  }
  addDeg('nan', 'nan-logprob', { text: '', source: p.source }, p.text, { logprobs: lps });
}
// one-character floods
for (let i = 0; i < 60; i++) {
  const p = prefix();
  const ch = pick(['a', 'A', '0', '.', '-', '=', '*', '#', '_', '\n', ' ', '\t', 'の', '的', '\ufffd', ',', 'x', 'ー', '|']);
  addDeg('degenerate', 'char-flood', p, ch.repeat(logUniform(200, 3000)), { finish_reason: finishFor(true) });
}
// short loops: period 2-20 characters, running on (real loops run to max_tokens)
for (let i = 0; i < 120; i++) {
  const p = prefix();
  const { unit, kind } = shortUnit(p.text || healthyExcerpt(200, 800).text);
  const chars = kind === 'structural' ? logUniform(700, 3000) : logUniform(Math.max(8 * unit.length, 100), 3000);
  addDeg('degenerate', `short-loop-${kind}`, p, repeatTo(unit, chars), { finish_reason: finishFor(true) });
}
// long loops: a sentence or paragraph from real text repeated back to back
for (let i = 0; i < 120; i++) {
  const p = prefix();
  const unit = chance(0.5) ? sentenceUnit(24, 200) : sentenceUnit(200, 1500);
  const reps = int(3, Math.max(3, Math.min(12, Math.floor(8000 / unit.length))));
  addDeg('degenerate', unit.length < 200 ? 'long-loop-sentence' : 'long-loop-paragraph', p, unit.repeat(reps), { finish_reason: finishFor(true) });
}
// near loops: a template sentence that swaps one word each time (seq-rep / compression territory)
for (let i = 0; i < 40; i++) {
  const p = prefix();
  const ws = words(healthyExcerpt(300, 1200).text);
  const slots = [pick(ws), pick(ws), pick(ws)].filter(Boolean);
  const a = sentenceUnit(20, 60).trimEnd();
  const b = sentenceUnit(10, 40).trimEnd();
  let body = '';
  const target = logUniform(1500, 4000);
  while (body.length < target) body += `${a} ${pick(slots)} ${b}${pick(['. ', '.\n', ', '])}`;
  addDeg('degenerate', 'near-loop', p, body, { finish_reason: finishFor(true) });
}

// token salad: uniform sampling over a multilingual byte-level vocabulary
const latinPieces: string[] = [];
for (let k = 0; k < 40; k++) {
  for (const w of words(healthyExcerpt(500, 2000).text)) {
    const clean = w.replace(/[^A-Za-z]/g, '');
    if (clean.length < 2) continue;
    const a = int(0, clean.length - 1);
    latinPieces.push(clean.slice(a, a + int(2, 7)));
  }
}
const randChars = (lo: number, hi: number, n: number): string => Array.from({ length: n }, () => String.fromCharCode(int(lo, hi))).join('');
function saladToken(latinHeavy: boolean): string {
  const r = rand() * (latinHeavy ? 0.7 : 1);
  const sp = chance(0.45) ? ' ' : '';
  if (r < 0.45) return sp + pick(latinPieces);
  if (r < 0.56) return randChars(0x4e00, 0x9fa5, int(1, 3));
  if (r < 0.61) return sp + randChars(0x0430, 0x044f, int(2, 6));
  if (r < 0.64) return sp + randChars(0x0627, 0x064a, int(2, 5));
  if (r < 0.67) return randChars(0xac00, 0xd7a3, int(1, 3));
  if (r < 0.69) return randChars(0x3041, 0x30f6, int(1, 3));
  if (r < 0.71) return randChars(0x0e01, 0x0e30, int(2, 4));
  if (r < 0.73) return sp + randChars(0x0905, 0x0939, int(2, 4));
  if (r < 0.75) return sp + randChars(0x03b1, 0x03c9, int(2, 5));
  if (r < 0.77) return pick(['ương', 'ệ', 'ạnh', 'ống', 'ção', 'ñez', 'über', 'ść']);
  if (r < 0.9) return pick(['();', '\n\t', '=>', '{', ']]', '//', '::', '\n', ' =', '0', '12', '",', '->', '  ', '<', '/>', '__']);
  if (r < 0.95) return '\ufffd'.repeat(int(1, 2));
  return pick(['Ġ', 'Ċ', 'âĢ', 'ĠĠ', 'Ġthe', 'ĊĊ']);
}
for (let i = 0; i < 80; i++) {
  const p = prefix();
  const n = logUniform(30, 600);
  let body = '';
  for (let k = 0; k < n; k++) body += saladToken(false);
  addDeg('degenerate', 'token-salad', p, body, { finish_reason: 'length' });
}
for (let i = 0; i < 10; i++) {
  // English-heavy salad, with the logprobs a uniform distribution over ~150k tokens gives.
  const p = prefix();
  const n = logUniform(30, 400);
  const toks: string[] = [];
  for (let k = 0; k < n; k++) toks.push(saladToken(true));
  const lps = { content: toks.map((t) => ({ token: t, logprob: -(11.5 + rand()), bytes: null, top_logprobs: [] })) };
  addDeg('degenerate', 'token-salad-logprobs', { text: '', source: p.source }, toks.join(''), { finish_reason: 'length', logprobs: lps });
}
// empty / whitespace answers
for (let i = 0; i < 30; i++) {
  const body = pick(['', '', ' ', '\n', '\n\n', ' \t\n ', '   ']);
  addDeg('degenerate', 'empty', { text: '', source: 'none' }, body, { finish_reason: pick(['stop', 'length']) });
}
// length stop with a repeating tail: the model was looping (3-5 periods) when max_tokens cut it
for (let i = 0; i < 50; i++) {
  const p = prefix();
  const unit = sentenceUnit(16, 400);
  const reps = int(3, 5);
  let body = unit.repeat(reps);
  if (chance(0.5)) body += unit.slice(0, int(1, unit.length - 1));
  addDeg('degenerate', 'length-repetition', p, body, { finish_reason: 'length' });
}

writeFileSync(OUT, `${cases.map(toJsonLine).join('\n')}\n`);
const by = new Map<string, number>();
for (const c of cases) by.set(c.shape, (by.get(c.shape) ?? 0) + 1);
const bytes = cases.reduce((a, c) => a + Buffer.byteLength(toJsonLine(c)) + 1, 0);
process.stdout.write(`${cases.length} cases, ${(bytes / 1e6).toFixed(2)} MB -> ${OUT}\n` +
  `sources: ${sources.map((s) => `${s.name}=${s.files.length}`).join(' ')}\n` +
  `shapes: ${[...by].map(([k, v]) => `${k}=${v}`).join(' ')}\n`);
