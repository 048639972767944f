/**
 * Finish-time rules over the pieces of the head of the answer (the runs of characters between
 * whitespace), for pieces that are not words:
 *
 * - glued words ("Onceuponatime,therewasamagicalkingdom…", "Dear[Name],Ihopethisemail…"): Latin
 *   letter runs far longer than words, most of the answer's letters, what a detokenizer that drops
 *   the word-initial space gives. One long compound ("Donaudampfschifffahrtsgesellschaft") is a
 *   word, so it takes two such runs, or one glued to the next sentence by its punctuation.
 * - symbol salad ("1;@0#H1D*()\"H2-+G<#0--/8<=.5(F&:=$"): pieces of many different symbols and
 *   digits without a word in them. One long piece of that kind breaks an answer that started well;
 *   many short ones that make most of the answer are salad throughout. A long piece of capitals,
 *   digits and many symbols with no lower-case letter counts too, its capital runs no words.
 *
 * Pieces that hold a path, an address, markup or code (a slash, "@", "=", backticks, brackets of
 * markup) and pieces inside fenced code are left alone: those are where real text puts long runs
 * and symbol clusters.
 *
 * Bounded: reads the head text HeadText keeps (HEAD.chars units) once, at finish.
 */
import * as limits from './limits';
import * as bits from './bits';
import { isLetterUnit, isWhitespaceUnit as isWhitespace, scriptOf, SCRIPT_LATIN } from './script';
import type { HeadSink } from './head';

/** Module-level copies: imported bindings are getter calls under some loaders. */
const PIECES = limits.PIECES;
const popcount = bits.popcount;

/** Characters that mark a piece as a path, an address, markup or code for the glued-words rule. */
function codeish(c: number): boolean {
  return (
    c === 47 || // /
    c === 92 || // \
    c === 64 || // @
    c === 61 || // =
    c === 95 || // _
    c === 96 || // `
    c === 60 || // <
    c === 62 || // >
    c === 123 || // {
    c === 125 || // }
    c === 124 || // |
    c === 35 || // #
    c === 36 || // $
    c === 37 || // %
    c === 38 || // &
    c === 42 || // *
    c === 43 || // +
    c === 126 || // ~
    c === 94 // ^
  );
}

/** Sentence punctuation that glues one word to the next when a space is lost. */
function isJoint(c: number): boolean {
  return c === 44 || c === 46 || c === 59 || c === 58 || c === 33 || c === 63;
}

/** ASCII punctuation and symbols. */
function isAsciiSymbol(c: number): boolean {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
}

/**
 * Sets of ASCII symbols are three 32-bit words, a bit per code from 32 to 127: a piece's set then
 * costs no allocation (a Set per piece did, and most of the pass's time went to it and its GC).
 */
function addSymbol(set: Int32Array, c: number): void {
  set[(c - 32) >>> 5] |= 1 << (c & 31);
}

function symbolCount(set: Int32Array): number {
  return popcount(set[0]) + popcount(set[1]) + popcount(set[2]);
}

/** The piece's symbols, cleared for each piece (judgePieces runs to the end before another starts). */
const pieceSymbols = new Int32Array(3);

function isLower(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 0xdf && c <= 0xff && c !== 0xf7);
}

function isUpper(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 0xc0 && c <= 0xde && c !== 0xd7);
}

interface Tally {
  latinLetters: number;
  gluedLetters: number;
  gluedRuns: number;
  joints: number;
  firstGlued: number;
  gluedSample: string;
  visible: number;
  junkChars: number;
  /** The distinct symbols of the junk pieces, a bit each (addSymbol). */
  junkSymbols: Int32Array;
  firstJunk: number;
  longJunk: number;
  longJunkLen: number;
  longJunkSymbols: number;
}

/**
 * One piece t[from, to) (u: t's code units): its Latin letter runs (glued words) and, when it
 * holds no word, its symbols (salad). `fenced` pieces only count towards the answer's letters and
 * characters.
 */
function piece(t: string, u: Uint16Array, from: number, to: number, fenced: boolean, s: Tally): void {
  let letters = 0;
  let lowers = 0;
  let longestWord = 0;
  let word = 0;
  let symbols = 0;
  let code = false;
  // Brackets: a piece that closes all it opens (a regex, a troff escape, a call) is structured.
  let depth = 0;
  let pairs = 0;
  let unbalanced = false;
  let escapes = false;
  const distinct = pieceSymbols;
  distinct[0] = distinct[1] = distinct[2] = 0;
  for (let i = from; i < to; i++) {
    const c = u[i];
    if (c < 0xdc00 || c >= 0xe000) s.visible++;
    if (c === 40 || c === 91 || c === 123) depth++;
    else if (c === 41 || c === 93 || c === 125) {
      if (depth > 0) {
        depth--;
        pairs++;
      } else unbalanced = true;
    } else if (c === 92) escapes = true;
    if (isLetterUnit(c)) {
      letters++;
      if (isLower(c)) lowers++;
      if (++word > longestWord) longestWord = word;
    } else {
      word = 0;
      if (isAsciiSymbol(c)) {
        symbols++;
        addSymbol(distinct, c);
        if (codeish(c) && !languageName(u, from, i)) code = true;
      }
    }
  }
  // Latin letter runs: a capital may start one, a case turn inside ends it (camelCase is code).
  let run = 0;
  let runStart = -1;
  let lastRunEnd = -1;
  let jointBefore = false;
  const glued = !code && !fenced;
  for (let i = from; i <= to; i++) {
    const c = i < to ? u[i] : 32;
    if (scriptOf(c) === SCRIPT_LATIN) {
      s.latinLetters++;
      if (run > 0 && isUpper(c) && isLower(u[i - 1])) {
        if (glued && gluedRun(t, s, runStart, run, i, jointBefore)) lastRunEnd = i;
        run = 0;
        jointBefore = false;
      }
      if (run === 0) {
        runStart = i;
        // Sentence punctuation right before it, after a word or a bracket: the space after the mark went.
        if (i >= from + 2 && isJoint(u[i - 1]) && !isWhitespace(u[i - 2])) jointBefore = true;
      }
      run++;
      continue;
    }
    if (run > 0) {
      if (glued && gluedRun(t, s, runStart, run, i, jointBefore)) lastRunEnd = i;
      run = 0;
      jointBefore = false;
    }
    // A glued run followed by sentence punctuation and the next word: the space after it went too.
    if (lastRunEnd === i && isJoint(c) && i + 1 < to && scriptOf(u[i + 1]) === SCRIPT_LATIN) s.joints++;
  }
  const symbolKinds = symbolCount(distinct);
  // A long piece of capitals, digits and many symbols ("<NA<R&LNE:CA6.CM>E…"): capitals sampled
  // among symbols make three-letter runs by chance, so they count as no word there.
  const capitalSalad = lowers === 0 && to - from >= PIECES.capitalJunkChars && symbolKinds >= PIECES.capitalJunkSymbols;
  if (fenced || (longestWord >= PIECES.junkWordLetters && !capitalSalad) || to - from < PIECES.junkMinChars || symbols < 2) return;
  if (escapes || (pairs > 0 && depth === 0 && !unbalanced)) return;
  // No word in it, no structure: a piece of symbols and digits.
  s.junkChars += to - from;
  for (let k = 0; k < 3; k++) s.junkSymbols[k] |= distinct[k];
  if (s.firstJunk < 0) s.firstJunk = from;
  const letterShare = capitalSalad ? PIECES.capitalJunkLetterShare : PIECES.junkLetterShare;
  if (to - from > s.longJunkLen && letters <= letterShare * (to - from) && symbolKinds >= PIECES.junkPieceSymbols) {
    s.longJunk = from;
    s.longJunkLen = to - from;
    s.longJunkSymbols = symbolKinds;
  }
}

/** "C#", "F#", "C++": a language's name in prose, not code; its mark follows a capital letter. */
function languageName(u: Uint16Array, from: number, i: number): boolean {
  const c = u[i];
  if (c !== 35 && c !== 43) return false;
  let k = i;
  // "C++": back over the pluses to the letter.
  if (c === 43) while (k > from && u[k - 1] === 43) k--;
  if (k <= from) return false;
  const cap = u[k - 1];
  return cap >= 65 && cap <= 90;
}

/** A Latin letter run of t from runStart ended at end, outside code: whether it is long enough to count as glued words. */
function gluedRun(t: string, s: Tally, runStart: number, run: number, end: number, jointBefore: boolean): boolean {
  if (run < PIECES.gluedRunLetters) return false;
  if (jointBefore) s.joints++;
  s.gluedLetters += run;
  if (s.gluedRuns++ === 0) {
    s.firstGlued = runStart;
    s.gluedSample = t.slice(runStart, Math.min(end, runStart + 24));
  }
  return true;
}

/** Judges the pieces of the head t, whose code units u holds (`whole`: t is all of the answer). */
export function judgePieces(t: string, u: Uint16Array, whole: boolean, sink: HeadSink): void {
  const s: Tally = {
    latinLetters: 0,
    gluedLetters: 0,
    gluedRuns: 0,
    joints: 0,
    firstGlued: -1,
    gluedSample: '',
    visible: 0,
    junkChars: 0,
    junkSymbols: new Int32Array(3),
    firstJunk: -1,
    longJunk: -1,
    longJunkLen: 0,
    longJunkSymbols: 0,
  };
  const n = t.length;
  let fenced = false;
  let lineStart = true;
  let from = -1;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? u[i] : 10;
    if (lineStart && c === 96 && t.startsWith('```', i)) fenced = !fenced;
    if (isWhitespace(c)) {
      if (from >= 0) piece(t, u, from, i, fenced, s);
      from = -1;
      lineStart = c === 10 || (lineStart && c !== 10);
      continue;
    }
    lineStart = false;
    if (from < 0) from = i;
  }
  if (s.gluedLetters >= PIECES.gluedMinLetters && s.gluedLetters >= PIECES.gluedShare * s.latinLetters && (s.gluedRuns >= 2 || s.joints >= 1)) {
    sink(
      'detok-spacing',
      s.firstGlued,
      `${s.gluedLetters} of the answer's ${s.latinLetters} Latin letters run together in ${s.gluedRuns} ${s.gluedRuns === 1 ? 'word' : 'words'} of ${PIECES.gluedRunLetters} letters or more, such as ${JSON.stringify(s.gluedSample)} at offset ${s.firstGlued}: the spaces between words are missing`,
      'degenerate',
    );
  }
  if (s.longJunk >= 0 && s.longJunkLen >= PIECES.junkPieceChars) {
    sink(
      'token-salad',
      s.longJunk,
      `${s.longJunkLen} characters at offset ${s.longJunk} mix ${s.longJunkSymbols} different symbols and digits with no word among them: symbol tokens sampled at random`,
      'degenerate',
    );
  } else if (whole && s.junkChars >= PIECES.junkMinTotal && s.junkChars >= PIECES.junkShare * s.visible && symbolCount(s.junkSymbols) >= PIECES.junkSymbols) {
    sink(
      'token-salad',
      Math.max(0, s.firstJunk),
      `${s.junkChars} of the answer's ${s.visible} visible characters are pieces of symbols and digits with no word in them (${symbolCount(s.junkSymbols)} different symbols), from offset ${Math.max(0, s.firstJunk)}: symbol tokens sampled at random`,
      'degenerate',
    );
  }
}
