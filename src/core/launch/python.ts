/**
 * Python sources: argv lists and tuples (`["python3", "-m", "sglang.launch_server", "--tp", str(tp)]`,
 * `subprocess.Popen([...])`, `[sys.executable, "-m", ...]`) and whole command strings
 * (`os.system("python -m sglang.launch_server …")`, implicit concatenation, f-strings). Elements
 * that are not string literals become dynamic tokens holding their source text. Linear time.
 */
import { type Ctx, analyzeWords, mentionsLaunch, notLaunching, tokenizeNested } from './analyze';
import { type Run, type Word, WordBuilder, lineEnd } from './source';
import type { LanguageHint } from './types';

interface Element {
  start: number;
  end: number;
  strings: Word[];
  /** Only string literals (and blanks/comments) in this element. */
  pure: boolean;
}

interface Frame {
  open: string;
  /** Offset of the opening bracket. */
  at: number;
  elements: Element[];
  cur: Element;
}

const MAX_DEPTH = 200;
const PREFIX = /^(?:[rRuUbBfFtT]|[rR][bBfFtT]|[bBfFtT][rR])$/;
const MODULES = new Set(['sglang.launch_server', 'vllm.entrypoints.openai.api_server']);

const isIdent = (c: number, digits: boolean): boolean =>
  (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || (digits && c >= 48 && c <= 57);

const newElement = (at: number): Element => ({ start: at, end: at, strings: [], pure: true });

// What comes right before a list's bracket, for argv built over several statements:
// `cmd = [...]` (an annotation allowed), `cmd += [...]`, `cmd = cmd + [...]`, `cmd.extend([...])`,
// and before a call's parenthesis `cmd.append(...)` / `cmd.extend(...)`.
const ASSIGN_TO = /(?:^|[^\w.])([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=[ \t]*$/;
const EXTEND_BY = /(?:^|[^\w.])([A-Za-z_]\w*)[ \t]*(?:\+=|=[ \t]*([A-Za-z_]\w*)[ \t]*\+|\.[ \t]*extend[ \t]*\()[ \t\n]*$/;
const CALL_ON = /(?:^|[^\w.])([A-Za-z_]\w*)[ \t]*\.[ \t]*(append|extend)[ \t]*$/;

/** An argv list assigned to a name and grown by later statements, read as one command at the end. */
interface Built {
  words: Word[];
  strings: Word[];
}

export function findInPython(ctx: Ctx, hint: LanguageHint, from: number, to: number): void {
  const s = ctx.text;
  const frames: Frame[] = [];
  let overflow = 0;
  const loose: Word[] = []; // string candidates outside argv lists
  const consumed = new Set<Word>();
  const built = new Map<string, Built>();
  let tripleFail = { '"': Infinity, "'": Infinity };
  let i = from;
  const top = (): Frame | undefined => frames[frames.length - 1];
  const touch = (start: number, end: number, pure: boolean): void => {
    const f = top();
    if (!f) return;
    const e = f.cur;
    if (e.strings.length === 0 && e.end === e.start) e.start = start;
    e.end = end;
    if (!pure) e.pure = false;
  };

  while (i < to) {
    const c = s[i];
    if (c === '#') {
      i = lineEnd(s, i, to);
      continue;
    }
    if (c === '"' || c === "'") {
      const r = pyString(s, i, i, to, '', tripleFail);
      tripleFail = r.fail;
      addString(r.word, i, r.end);
      i = r.end;
      continue;
    }
    if (isIdent(s.charCodeAt(i), false)) {
      let j = i + 1;
      while (j < to && isIdent(s.charCodeAt(j), true)) j++;
      const ident = s.slice(i, j);
      if ((s[j] === '"' || s[j] === "'") && PREFIX.test(ident)) {
        const r = pyString(s, j, i, to, ident.toLowerCase(), tripleFail);
        tripleFail = r.fail;
        addString(r.word, i, r.end);
        i = r.end;
        continue;
      }
      touch(i, j, false);
      i = j;
      continue;
    }
    if (c === '[' || c === '(' || c === '{') {
      touch(i, i + 1, false);
      if (frames.length >= MAX_DEPTH) overflow++;
      else frames.push({ open: c, at: i, elements: [], cur: newElement(i + 1) });
      i++;
      continue;
    }
    if (c === ']' || c === ')' || c === '}') {
      if (overflow > 0) overflow--;
      else {
        const f = frames.pop();
        if (f) closeFrame(f);
      }
      touch(i, i + 1, false);
      i++;
      continue;
    }
    if (c === ',') {
      const f = top();
      if (f) {
        if (f.elements.length < 10_000) f.elements.push(f.cur);
        f.cur = newElement(i + 1);
      }
      i++;
      continue;
    }
    if (c === '\\' && (s[i + 1] === '\n' || s[i + 1] === '\r')) {
      i += 2;
      continue;
    }
    if (c !== ' ' && c !== '\t' && c !== '\n' && c !== '\r') touch(i, i + 1, false);
    i++;
  }
  while (frames.length) closeFrame(frames.pop()!);
  for (const b of built.values()) finishBuilt(b);
  for (const w of loose) {
    if (consumed.has(w)) continue;
    if (!mentionsLaunch(w.value) || !/\s/.test(w.value)) continue;
    analyzeWords(ctx, tokenizeNested(w), { host: hint, form: 'shell' });
  }

  function addString(w: Word, start: number, end: number): void {
    const f = top();
    if (f) {
      touch(start, end, true);
      if (f.cur.strings.length < 1000) f.cur.strings.push(w);
    } else if (loose.length < 10_000 && (w.value.includes('sglang') || w.value.includes('vllm'))) loose.push(w);
  }

  function finishBuilt(b: Built): void {
    if (analyzeWords(ctx, b.words, { host: hint, form: 'argv' }) > 0) for (const w of b.strings) consumed.add(w);
  }

  /** Handles a list that assigns or grows a named argv (see ASSIGN_TO); true when it was one. */
  function grows(f: Frame, words: Word[], isArgv: boolean): boolean {
    const before = s.slice(Math.max(from, f.at - 200), f.at);
    const strings = f.elements.flatMap((e) => e.strings);
    if (f.open === '(') {
      const m = CALL_ON.exec(before);
      if (!m) return false;
      const b = built.get(m[1]);
      if (!b) return false;
      // `cmd.append("--tp")` adds its one argument; `cmd.extend([...])`'s list was added by the inner frame
      if (m[2] === 'append' && words.length === 1) {
        b.words.push(words[0]);
        b.strings.push(...strings);
      }
      return true;
    }
    const ext = EXTEND_BY.exec(before);
    if (ext && (ext[2] === undefined || ext[2] === ext[1])) {
      const b = built.get(ext[1]);
      if (!b) return false;
      b.words.push(...words);
      b.strings.push(...strings);
      return true;
    }
    const asg = ASSIGN_TO.exec(before);
    if (!asg) return false;
    const old = built.get(asg[1]);
    if (old) {
      built.delete(asg[1]);
      finishBuilt(old);
    }
    if (!isArgv) return false;
    built.set(asg[1], { words, strings });
    return true;
  }

  function closeFrame(f: Frame): void {
    if (f.cur.end > f.cur.start || f.cur.strings.length) f.elements.push(f.cur);
    if (f.open === '{') {
      for (const e of f.elements) for (const w of e.strings) loose.push(w);
      return;
    }
    const words: Word[] = [];
    for (const e of f.elements) {
      if (e.pure && e.strings.length) words.push(concat(e.strings));
      else {
        const w = new WordBuilder(s, e.start);
        w.slice(e.start, e.end);
        w.dynamic = true;
        words.push(w.finish(e.end));
      }
    }
    const isArgv =
      words.length >= 2 && words.some((w) => MODULES.has(w.value) || w.value === 'serve' || (w.value.startsWith('-m') && MODULES.has(w.value.slice(2))));
    if (built.size < 1000 && grows(f, words, isArgv)) return;
    if (isArgv && analyzeWords(ctx, words, { host: hint, form: 'argv' }) > 0) {
      for (const e of f.elements) for (const w of e.strings) consumed.add(w);
      return;
    }
    // `["pkill", "-f", "python -m sglang.launch_server"]`: a pattern to match, not a launch
    if (words.length && notLaunching(words)) {
      for (const e of f.elements) for (const w of e.strings) consumed.add(w);
      return;
    }
    // not an argv list: its (possibly concatenated) strings may still hold whole commands
    for (const e of f.elements) {
      if (e.pure && e.strings.length > 1) {
        for (const w of e.strings) consumed.add(w);
        loose.push(concat(e.strings));
      } else for (const w of e.strings) loose.push(w);
    }
  }
}

/** Joins implicitly concatenated literals into one word. */
function concat(ws: Word[]): Word {
  if (ws.length === 1) return ws[0];
  const runs: Run[] = [];
  let value = '';
  let dynamic = false;
  for (const w of ws) {
    for (const r of w.runs) runs.push({ d: r.d + value.length, o: r.o, n: r.n });
    value += w.value;
    dynamic ||= w.dynamic === true;
  }
  const out: Word = { value, start: ws[0].start, end: ws[ws.length - 1].end, runs, quoted: true };
  if (dynamic) out.dynamic = true;
  return out;
}

type Fail = { '"': number; "'": number };

/** A Python string literal whose quote is at `q` (prefix starting at `start`). */
function pyString(s: string, q: number, start: number, to: number, prefix: string, fail: Fail): { word: Word; end: number; fail: Fail } {
  const quote = s[q] as '"' | "'";
  const triple = s[q + 1] === quote && s[q + 2] === quote;
  const raw = prefix.includes('r');
  const fstr = prefix.includes('f') || prefix.includes('t');
  const w = new WordBuilder(s, start);
  w.quoted = true;
  if (fstr) w.dynamic = true;
  let j = q + (triple ? 3 : 1);
  const limit = to;
  // single-line strings (and triple ones known to be unclosed) stop at the end of the line
  const stopAtLine = !triple || j >= fail[quote];
  let run = j;
  while (j < limit) {
    const c = s[j];
    if (stopAtLine && c === '\n') break;
    if (c === quote && (!triple || (s[j + 1] === quote && s[j + 2] === quote))) {
      w.slice(run, j);
      const end = j + (triple ? 3 : 1);
      return { word: w.finish(end), end, fail };
    }
    if (c === '\\' && j + 1 < limit + 1) {
      if (raw) {
        j += 2;
        continue;
      }
      w.slice(run, j);
      const n = s[j + 1] ?? '';
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', v: '\v', '0': '\0' };
      if (n === '\n') j += 2;
      else if (n === '\r' && s[j + 2] === '\n') j += 3;
      else if (simple[n] !== undefined) {
        w.decoded(simple[n], j, j + 2);
        j += 2;
      } else if (n === 'x' || n === 'u' || n === 'U') {
        const len = n === 'x' ? 2 : n === 'u' ? 4 : 8;
        const hex = s.slice(j + 2, j + 2 + len);
        const cp = hex.length === len && /^[0-9a-fA-F]+$/.test(hex) ? parseInt(hex, 16) : NaN;
        if (Number.isFinite(cp) && cp <= 0x10ffff) w.decoded(String.fromCodePoint(cp), j, j + 2 + len);
        else w.slice(j, Math.min(j + 2, to));
        j += 2 + len;
      } else {
        w.slice(j, Math.min(j + 2, to));
        j += 2;
      }
      run = j;
      continue;
    }
    j++;
  }
  // unterminated
  const end = Math.min(j, to);
  if (triple && !stopAtLine) fail = { ...fail, [quote]: Math.min(fail[quote], q) };
  w.slice(run, end);
  return { word: w.finish(end), end, fail };
}
