/**
 * Loops whose copies differ a little: a sampled model stuck on a paragraph or a sentence changes a
 * word here and there, so the character loop rules (Channel), which need exact copies back to
 * back, lose the loop at every change. Here the answer's tail is read as words: a period of p words
 * is a loop when, copy after copy back to the loop's start, most words equal the word p or 2p
 * before them (a word changed in one copy does not count against the next). Candidate periods are
 * the distances to each word's last occurrence that come up most (with those of twice the period).
 *
 * Only loops with a word changed: exact copies are the character rules' (which ask more copies of
 * lines, refrains double), and copies that differ only in numbers are templated lines (a counter,
 * a log: "Epoch 3: loss 0.52"), left to the list rules.
 *
 * Prose only: templated code (argument lists, declarations, config tables) repeats its words at a
 * fixed distance as much as a loop does, so a tail with code symbols or few line or sentence ends
 * is left to the other rules.
 *
 * Bounded: typed arrays sized by the tail (the ring, at most 8192 units), read once at finish.
 */
import * as limits from './limits';
import { endsSentence, isLetterUnit } from './script';
import { FNV_BASIS, FNV_PRIME, lowerUnit } from './wordHash';

/** A module-level copy: imported bindings are getter calls under some loaders. */
const NEAR = limits.NEAR_LOOP;

export interface NearLoop {
  /** Period in words, and in characters (from its first copy). */
  periodWords: number;
  periodChars: number;
  /** Offset in the text read where the first copy starts. */
  start: number;
  copies: number;
  /** Share of the loop's words (after its first copy) equal to the word a period or two before. */
  share: number;
}

/** Twice the most words a ring-sized tail holds (one letter and one separator each), so probing always ends. */
const TABLE_BITS = 13;
const TABLE_SIZE = 1 << TABLE_BITS;

/** Code symbols, a table over ASCII as words.ts's STRUCTURAL is: brackets, ; = < > _ / \ | $ @ # * " and `. */
const CODE_SYMBOL = new Uint8Array(128);
for (const ch of '{}()[];=<>_/\\|$@#*"`') CODE_SYMBOL[ch.charCodeAt(0)] = 1;

export function isCodeSymbol(c: number): boolean {
  return c < 128 && CODE_SYMBOL[c] === 1;
}

/**
 * Markdown that chat answers wrap prose in: "**bold**" and "__bold__", a "* " bullet or "#"
 * heading at a line's start. Not code: a looping model's list keeps its bold item names.
 */
function isMarkdown(t: string, i: number, c: number): boolean {
  if (c !== 42 && c !== 95 && c !== 35) return false;
  const prev = i > 0 ? t.charCodeAt(i - 1) : 10;
  const next = i + 1 < t.length ? t.charCodeAt(i + 1) : 10;
  if ((c === 42 || c === 95) && (prev === c || next === c)) return true;
  let k = i - 1;
  while (k >= 0 && (t.charCodeAt(k) === 32 || (c === 35 && t.charCodeAt(k) === 35))) k--;
  const lineStart = k < 0 || t.charCodeAt(k) === 10;
  return lineStart && (c === 35 || next === 32);
}

/** Letters of any script and ASCII digits; punctuation, symbols and spaces end a word. */
function isWordUnit(c: number): boolean {
  return (c >= 48 && c <= 57) || isLetterUnit(c);
}

/** Words of t as lower-cased hashes with their start offsets; null when t does not read as prose. */
function proseWords(t: string): { hashes: Int32Array; starts: Int32Array; numbers: Uint8Array; count: number } | null {
  const n = t.length;
  const hashes = new Int32Array((n >> 1) + 1);
  const starts = new Int32Array((n >> 1) + 1);
  /** 1 for a word of digits only. */
  const numbers = new Uint8Array((n >> 1) + 1);
  let wordLetters = 0;
  let count = 0;
  let h = 0;
  let inWord = false;
  let code = 0;
  let letters = 0;
  let visible = 0;
  let ends = 0;
  for (let i = 0; i <= n; i++) {
    const c = i < n ? t.charCodeAt(i) : 32;
    if (i < n && isWordUnit(c)) {
      if (!inWord) {
        inWord = true;
        h = FNV_BASIS;
        starts[count] = i;
        wordLetters = 0;
      }
      h = Math.imul(h ^ lowerUnit(c), FNV_PRIME);
      if (c > 57) {
        letters++;
        wordLetters++;
      }
      visible++;
      continue;
    }
    if (inWord) {
      numbers[count] = wordLetters === 0 ? 1 : 0;
      hashes[count++] = h | 0;
      inWord = false;
    }
    if (i === n) break;
    if (c > 32) visible++;
    if (isCodeSymbol(c) && !isMarkdown(t, i, c)) code++;
    else if (endsSentence(c) && (i + 1 === n || t.charCodeAt(i + 1) <= 32)) ends++;
    else if (c === 10 && i + 1 < n && t.charCodeAt(i + 1) > 32) ends++;
  }
  if (code > NEAR.maxCodeShare * n || letters < NEAR.minLetterShare * visible || ends * NEAR.wordsPerEnd < count) return null;
  return { hashes, starts, numbers, count };
}

/** The strongest period: the distance to each word's last occurrence that comes up most, up to maxPeriodWords. */
function candidatePeriods(hashes: Int32Array, count: number): number[] {
  const keys = new Int32Array(TABLE_SIZE);
  const last = new Int32Array(TABLE_SIZE).fill(-1);
  const votes = new Int32Array(NEAR.maxPeriodWords + 1);
  for (let i = 0; i < count; i++) {
    const h = hashes[i];
    let slot = (Math.imul(h, 0x9e3779b1) >>> (32 - TABLE_BITS)) & (TABLE_SIZE - 1);
    while (last[slot] >= 0 && keys[slot] !== h) slot = (slot + 1) & (TABLE_SIZE - 1);
    const j = last[slot];
    if (j >= 0 && i - j <= NEAR.maxPeriodWords) votes[i - j]++;
    keys[slot] = h;
    last[slot] = i;
  }
  // A word changed in one copy sends the next copy's word back two periods: p counts what 2p got.
  const score = new Int32Array(votes.length);
  for (let p = NEAR.minPeriodWords; p < votes.length; p++) score[p] = votes[p] + (2 * p < votes.length ? votes[2 * p] : 0);
  const out: number[] = [];
  for (let k = 0; k < NEAR.candidates; k++) {
    let best = 0;
    for (let p = NEAR.minPeriodWords; p < score.length; p++) if (score[p] > score[best]) best = p;
    if (best === 0 || score[best] < NEAR.minVotes * count) break;
    out.push(best);
    score[best] = 0;
  }
  return out;
}

/**
 * The near-copy loop the text t ends in, or null: at least NEAR.copies copies covering
 * NEAR.minCover of t. Reads t whole; callers pass the tail.
 */
export function nearLoop(t: string): NearLoop | null {
  if (t.length < NEAR.minChars || t.length > TABLE_SIZE) return null;
  const words = proseWords(t);
  if (words === null || words.count < NEAR.minWords) return null;
  const { hashes, starts, numbers, count } = words;
  let best: NearLoop | null = null;
  for (const p of candidatePeriods(hashes, count)) {
    // Back from the end, a period at a time, while each period matches the one before it well.
    let from = count;
    let matches = 0;
    let wordChanges = 0;
    for (let s = count - p; s >= p; s -= p) {
      const len = Math.min(p, count - s);
      let m = 0;
      let atPeriod = 0;
      let changed = 0;
      for (let i = s; i < s + len; i++) {
        if (hashes[i] === hashes[i - p]) {
          m++;
          atPeriod++;
        } else if (i >= 2 * p && hashes[i] === hashes[i - 2 * p]) m++;
        else if (numbers[i] === 0 || numbers[i - p] === 0) changed++;
      }
      // Most words must repeat at the period itself: a passage said twice matches its half-period two halves back.
      if (m < NEAR.periodShare * len || atPeriod < NEAR.atPeriodShare * len) break;
      matches += m;
      wordChanges += changed;
      from = s;
    }
    if (from === count || wordChanges === 0) continue;
    const share = matches / (count - from);
    const first = from - p;
    const copies = (count - first) / p;
    const start = starts[first];
    if (share < NEAR.share || copies < NEAR.copies || t.length - start < NEAR.minCover * t.length) continue;
    if (best === null || copies * p > best.copies * best.periodWords) {
      best = { periodWords: p, periodChars: starts[from] - start, start, copies: Math.floor(copies), share };
    }
  }
  return best;
}
