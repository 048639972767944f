/**
 * A POSIX-shell-ish word splitter: quotes, escapes, `\` continuations, comments, operators and
 * redirections, `$(…)`/backticks/`${…}` kept as opaque dynamic text. Linear in the input: an
 * unterminated quote or substitution ends at the end of its line (bash would swallow the rest of the
 * file) and, once one has failed, later ones of the same kind are not searched for again.
 */
import { type Src, type Word, WordBuilder, lineEnd, liftWord } from './source';

export interface ShellOptions {
  /**
   * systemd / Dockerfile flavour: `\`+newline separates words, comment (and blank) lines inside a
   * continuation are dropped, and only a lone `;` is an operator.
   */
  unitStyle?: boolean;
  /** Drop comment and blank lines that follow a `\` continuation (Dockerfile; implied by unitStyle). */
  dropCommentLines?: boolean;
  /** Characters starting a comment line inside a continuation. Default `#`. */
  commentChars?: string;
}

const C = {
  Space: 32,
  Tab: 9,
  LF: 10,
  CR: 13,
  Hash: 35,
  Single: 39,
  Double: 34,
  Backslash: 92,
  Dollar: 36,
  Backtick: 96,
  Semi: 59,
  Amp: 38,
  Pipe: 124,
  LParen: 40,
  RParen: 41,
  Lt: 60,
  Gt: 62,
  LBrace: 123,
  RBrace: 125,
} as const;

/** A real launch command has a few dozen words; a real script a few thousand. */
export const MAX_WORDS_PER_COMMAND = 10_000;
export const MAX_WORDS = 200_000;

const SHELL_SPECIAL = new Uint8Array(128);
for (const ch of ' \t\n\r\'"\\$`;&|()<>') SHELL_SPECIAL[ch.charCodeAt(0)] = 1;
const UNIT_SPECIAL = new Uint8Array(128);
for (const ch of ' \t\n\r\'"\\$') UNIT_SPECIAL[ch.charCodeAt(0)] = 1;

/** Splits `src` into words and operator words (`op`), lifted to original offsets. */
export function tokenizeShell(src: Src, opts: ShellOptions = {}): Word[] {
  const raw = scan(src, opts);
  return src.runs ? raw.map((w) => liftWord(w, src)) : raw;
}

function scan(src: Src, opts: ShellOptions): Word[] {
  const { s, to } = src;
  const unit = opts.unitStyle === true;
  const commentChars = opts.commentChars ?? '#';
  const special = unit ? UNIT_SPECIAL : SHELL_SPECIAL;
  const words: Word[] = [];
  let cur: WordBuilder | null = null;
  let i = src.from;
  // positions from which a search for a closing delimiter already failed (see module comment)
  let singleFail = Infinity;
  let doubleFail = Infinity;
  let backtickFail = Infinity;
  let parenFail = Infinity;

  // bounds for hostile input: words kept per simple command, and words per scan
  let sinceOp = 0;
  const flush = (end: number): void => {
    if (cur) {
      if (sinceOp < MAX_WORDS_PER_COMMAND) words.push(cur.finish(end));
      sinceOp++;
      cur = null;
    }
  };
  const word = (at: number): WordBuilder => (cur ??= new WordBuilder(s, at));
  const op = (text: string, start: number, end: number, extra?: Partial<Word>): void => {
    if (!extra) sinceOp = 0;
    words.push({ value: text, start, end, runs: [{ d: 0, o: start, n: end - start }], op: text, ...extra });
  };
  /** After a continuation, skip comment and blank lines (unit style, Dockerfile). Returns the new index. */
  const skipContinuationLines = (j: number): number => {
    while (j < to) {
      let k = j;
      while (k < to && (s.charCodeAt(k) === C.Space || s.charCodeAt(k) === C.Tab)) k++;
      const c = s[k];
      if (k < to && (c === '\n' || c === '\r' || commentChars.includes(c))) {
        const e = lineEnd(s, k, to);
        j = e < to ? e + 1 : to;
      } else break;
    }
    return j;
  };
  /** Length of a `\` continuation at i (backslash, optional CR, LF), or 0. */
  const continuation = (j: number): number => {
    if (s.charCodeAt(j) !== C.Backslash) return 0;
    if (j + 1 < to && s.charCodeAt(j + 1) === C.LF) return 2;
    if (j + 2 < to && s.charCodeAt(j + 1) === C.CR && s.charCodeAt(j + 2) === C.LF) return 3;
    return 0;
  };

  while (i < to) {
    if (words.length >= MAX_WORDS) break;
    const c = s.charCodeAt(i);
    if (c === C.Backslash) {
      const cont = continuation(i);
      if (cont) {
        if (unit) {
          flush(i);
          i = skipContinuationLines(i + cont);
        } else if (opts.dropCommentLines) i = skipContinuationLines(i + cont);
        else i += cont;
        continue;
      }
      const w = word(i);
      if (i + 1 < to) {
        w.decoded(s[i + 1], i, i + 2);
        i += 2;
      } else {
        w.slice(i, i + 1);
        i++;
      }
      continue;
    }
    if (c === C.Space || c === C.Tab || c === C.CR) {
      flush(i);
      i++;
      continue;
    }
    if (c === C.LF) {
      flush(i);
      op('\n', i, i + 1);
      i++;
      continue;
    }
    if (c === C.Hash && cur === null) {
      i = lineEnd(s, i, to);
      continue;
    }
    if (c === C.Single) {
      const w = word(i);
      w.quoted = true;
      let close = i + 1 >= singleFail ? -1 : s.indexOf("'", i + 1);
      if (close < 0 || close >= to) {
        singleFail = Math.min(singleFail, i + 1);
        close = lineEnd(s, i + 1, to);
        w.slice(i + 1, close);
        i = close;
      } else {
        w.slice(i + 1, close);
        i = close + 1;
      }
      continue;
    }
    if (c === C.Double) {
      const w = word(i);
      w.quoted = true;
      i = scanDouble(s, i + 1, to, w, i + 1 >= doubleFail, (at) => (doubleFail = Math.min(doubleFail, at)));
      continue;
    }
    if (c === C.Dollar) {
      const w = word(i);
      const n = s.charCodeAt(i + 1);
      if (i + 1 < to && n === C.LParen) {
        w.dynamic = true;
        let end = i + 2 >= parenFail ? -1 : matchParen(s, i + 2, to);
        if (end < 0) {
          parenFail = Math.min(parenFail, i + 2);
          end = lineEnd(s, i, to);
        }
        w.slice(i, end);
        i = end;
      } else if (i + 1 < to && n === C.LBrace) {
        w.dynamic = true;
        let end = i + 2;
        while (end < to && s.charCodeAt(end) !== C.RBrace && s.charCodeAt(end) !== C.LF) end++;
        if (end < to && s.charCodeAt(end) === C.RBrace) end++;
        w.slice(i, end);
        i = end;
      } else if (!unit && i + 1 < to && n === C.Single) {
        // $'…' ANSI-C quoting: keep the text, decode the common escapes
        w.quoted = true;
        i = scanAnsiC(s, i + 2, to, w);
      } else {
        if (i + 1 < to && /[A-Za-z_0-9@*#?$!-]/.test(s[i + 1])) w.dynamic = true;
        w.slice(i, i + 1);
        i++;
      }
      continue;
    }
    if (!unit && c === C.Backtick) {
      const w = word(i);
      w.dynamic = true;
      let close = i + 1 >= backtickFail ? -1 : s.indexOf('`', i + 1);
      if (close < 0 || close >= to) {
        backtickFail = Math.min(backtickFail, i + 1);
        close = lineEnd(s, i + 1, to) - 1;
      }
      w.slice(i, close + 1);
      i = close + 1;
      continue;
    }
    if (!unit && (c === C.Semi || c === C.Amp || c === C.Pipe || c === C.LParen || c === C.RParen)) {
      const n = i + 1 < to ? s.charCodeAt(i + 1) : 0;
      if (c === C.Amp && n === C.Gt) {
        flush(i);
        i = redirection(i, i + 1);
        continue;
      }
      flush(i);
      let len = 1;
      if ((c === C.Amp || c === C.Pipe || c === C.Semi) && n === c) len = 2;
      else if (c === C.Pipe && n === C.Amp) len = 2;
      op(s.slice(i, i + len), i, i + len);
      i += len;
      continue;
    }
    if (!unit && (c === C.Lt || c === C.Gt)) {
      let start = i;
      const b = cur as WordBuilder | null;
      if (b && !b.quoted && /^\d+$/.test(b.finish(i).value)) {
        start = b.start;
        cur = null;
      } else flush(i);
      i = redirection(start, i);
      continue;
    }
    if (unit && c === C.Semi && cur === null) {
      const n = i + 1 < to ? s.charCodeAt(i + 1) : C.Space;
      if (n === C.Space || n === C.Tab || n === C.LF || n === C.CR) {
        op(';', i, i + 1);
        i++;
        continue;
      }
    }
    // ordinary characters up to the next special one
    const w = word(i);
    let j = i + 1;
    while (j < to) {
      const d = s.charCodeAt(j);
      if (d < 128 && special[d]) break;
      j++;
    }
    w.slice(i, j);
    i = j;
  }
  flush(to);
  return words;

  /** Reads the operator part of a redirection starting at `opAt`; emits a `redir` word from `start`. */
  function redirection(start: number, opAt: number): number {
    let j = opAt;
    if (s.charCodeAt(j) === C.Amp) j++;
    while (j < to && j - opAt < 3 && (s.charCodeAt(j) === C.Lt || s.charCodeAt(j) === C.Gt || s.charCodeAt(j) === C.Pipe)) j++;
    let needsTarget = true;
    if (j < to && s.charCodeAt(j) === C.Amp) {
      let k = j + 1;
      while (k < to && ((s.charCodeAt(k) >= 48 && s.charCodeAt(k) <= 57) || s[k] === '-')) k++;
      if (k > j + 1) {
        needsTarget = false;
        j = k;
      } else j++;
    }
    op(s.slice(start, j), start, j, { op: 'redir', needsTarget });
    return j;
  }
}

/**
 * Scans a double-quoted string body from `i`; returns the index after the closing quote. Without a
 * closing quote (or when one is known not to exist) the string ends at the end of its line.
 */
function scanDouble(s: string, i: number, to: number, w: WordBuilder, knownUnclosed: boolean, fail: (at: number) => void): number {
  let close = -1;
  if (!knownUnclosed) {
    for (let j = i; j < to; j++) {
      const c = s.charCodeAt(j);
      if (c === C.Double) {
        close = j;
        break;
      }
      if (c === C.Backslash) j++;
    }
    if (close < 0) fail(i);
  }
  let j = i;
  let runStart = i;
  while (j < to) {
    const c = s.charCodeAt(j);
    if (close >= 0 ? j === close : c === C.LF || c === C.Double) break;
    if (c === C.Backslash && j + 1 < to) {
      const n = s[j + 1];
      if (close < 0 && n === '\n') break;
      if (n === '\n') {
        w.slice(runStart, j);
        j += 2;
        runStart = j;
        continue;
      }
      if (n === '\r' && s[j + 2] === '\n') {
        w.slice(runStart, j);
        j += 3;
        runStart = j;
        continue;
      }
      if (n === '"' || n === '\\' || n === '$' || n === '`') {
        w.slice(runStart, j);
        w.decoded(n, j, j + 2);
        j += 2;
        runStart = j;
        continue;
      }
      j += 2;
      continue;
    }
    if (c === C.Dollar || c === C.Backtick) {
      const n = s.charCodeAt(j + 1);
      if (c === C.Backtick || n === C.LParen || n === C.LBrace || (n >= 65 && n <= 90) || (n >= 97 && n <= 122) || n === 95) w.dynamic = true;
    }
    j++;
  }
  const end = Math.min(j, to);
  w.slice(runStart, end);
  return close >= 0 && end === close ? close + 1 : end;
}

function scanAnsiC(s: string, i: number, to: number, w: WordBuilder): number {
  let j = i;
  while (j < to && s[j] !== '\n') {
    const c = s[j];
    if (c === "'") return j + 1;
    if (c === '\\' && j + 1 < to) {
      const map: Record<string, string> = { n: '\n', t: '\t', '\\': '\\', "'": "'", '"': '"', r: '\r', a: '\x07', e: '\x1b' };
      const d = map[s[j + 1]];
      if (d !== undefined) w.decoded(d, j, j + 2);
      else w.slice(j, j + 2);
      j += 2;
      continue;
    }
    w.slice(j, j + 1);
    j++;
  }
  return j;
}

/** Finds the `)` closing a `$(` whose body starts at i; -1 if none before `to`. Quotes are skipped. */
function matchParen(s: string, i: number, to: number): number {
  let depth = 1;
  let j = i;
  while (j < to) {
    const c = s.charCodeAt(j);
    if (c === C.LParen) depth++;
    else if (c === C.RParen) {
      depth--;
      if (depth === 0) return j + 1;
    } else if (c === C.Single || c === C.Double) {
      const close = s.indexOf(s[j], j + 1);
      if (close < 0 || close >= to) return -1;
      j = close;
    } else if (c === C.Backslash) j++;
    j++;
  }
  return -1;
}

/** End of the logical line starting at `from`: follows `\` continuations (and, unit style, comment lines). */
export function logicalLineEnd(s: string, from: number, to: number, unitStyle = false, commentChars = '#'): number {
  let i = from;
  for (;;) {
    const e = lineEnd(s, i, to);
    let k = e - 1;
    if (k >= i && s.charCodeAt(k) === C.CR) k--;
    if (e >= to || k < i || s.charCodeAt(k) !== C.Backslash) return e;
    i = e + 1;
    if (unitStyle) {
      // comment / blank lines inside a continuation do not end it
      for (;;) {
        if (i >= to) return to;
        let m = i;
        while (m < to && (s.charCodeAt(m) === C.Space || s.charCodeAt(m) === C.Tab)) m++;
        const c = s[m];
        if (m < to && (c === '\n' || c === '\r' || commentChars.includes(c))) i = lineEnd(s, m, to) + 1;
        else break;
      }
    }
  }
}
