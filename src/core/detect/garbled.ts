/**
 * Garbled English: prose in English (its function words say so) where many words are in no
 * English dictionary ("sNd att't the sand other be at ... you don specical And mutiv. each
 * fect."): letters dropped, swapped or pieces glued, what broken logits or a detokenizer that
 * loses pieces give. Healthy prose has a few such words (names, jargon, a coined word), seldom a
 * fifth of its words, and names the same jargon again rather than a new one each time.
 *
 * Only plain lower-case ASCII words are checked: capitalised words are names, words with digits or
 * beside code symbols ("lpar(", "config.json", "_str") are code, and words inside Markdown code
 * spans and fences are skipped. A word that any stopword list has (another language's "und", "het")
 * is not counted as unknown.
 *
 * Unknown words that are a function word run together with a word ("ofthe", "andthe") are spaces
 * the detokenizer lost: four different ones in a block are detok-spacing.
 *
 * Judged per block of GARBLED.block checked words, two blocks half a block apart, so that garbling
 * of half a block or more lies within one of them whatever came before it.
 *
 * Bounded: per block a few counters and a stamped table of the unknown words' hashes; one candidate
 * waits for the character after it; work once per word (an unknown word is also split at most
 * 2 * STOP_MAX ways).
 */
import * as limits from './limits';
import * as scripts from './script';
import { englishWordSet } from './dictionary';
import { ENGLISH_STOPWORDS, type HashSet } from './stopwords';
import { FNV_BASIS, FNV_PRIME } from './wordHash';
import type { WordScanner, WordSink } from './words';

/** Module-level copies: imported bindings are getter calls under some loaders. */
const GARBLED = limits.GARBLED;
const LATIN_ONLY = scripts.LATIN_BIT;
const isApostrophe = scripts.isApostrophe;
const endsWordUnit = scripts.endsWordUnit;
const TABLE = 2 * GARBLED.block;
const TMASK = TABLE - 1;
/** The longest function word looked for at either end of a word run together (STOPWORDS' "through", "between"). */
const STOP_MAX = 7;

/** The scanners' hash (wordHash.ts) of letters[from, to), already lower-cased. */
function hashOf(letters: Uint16Array, from: number, to: number): number {
  let h = FNV_BASIS;
  for (let i = from; i < to; i++) h = Math.imul(h ^ letters[i], FNV_PRIME);
  return h | 0;
}

/** Three unknown words within this many checked words mark where garbling starts. */
const DENSE = 8;
/** Unknown words named in the reason. */
const SAMPLES = 3;

/** What may stand right before a checked word: a space, a line break, an opening quote or bracket, a hyphen. */
function opensWord(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9 || c === 34 || c === 39 || c === 40 || c === 45 || c === 0x201c || c === 0x2018;
}

/** What may stand right after one: what ends a word (the end, a space, prose punctuation), a closing quote or bracket, a hyphen. */
function closesWord(c: number): boolean {
  return endsWordUnit(c) || c === 41 || c === 34 || c === 39 || c === 45 || c === 0x201d || c === 0x2019;
}

/**
 * Whether letters[0, len) are two words run together, one of them an English function word:
 * a space the detokenizer lost. Gives the function word's hash, or 0 when they are not. Only
 * unknown words are split, each at most 2 * STOP_MAX ways.
 */
function twoWords(letters: Uint16Array, len: number, dictionary: HashSet): number {
  // A function word first ("ofthe", "andrequest"): heads of 2 to STOP_MAX letters, a word of 3 or more after.
  let head = FNV_BASIS;
  for (let cut = 1; cut <= STOP_MAX && cut <= len - 3; cut++) {
    head = Math.imul(head ^ letters[cut - 1], FNV_PRIME);
    if (cut >= 2 && ENGLISH_STOPWORDS.has(head) && dictionary.has(hashOf(letters, cut, len))) return head || 1;
  }
  // A word of 3 or more, then a function word of 2 to STOP_MAX letters ("nowlet" has none: "let" is no function word).
  for (let cut = Math.max(3, len - STOP_MAX); cut <= len - 2; cut++) {
    const tail = hashOf(letters, cut, len);
    if (ENGLISH_STOPWORDS.has(tail) && dictionary.has(hashOf(letters, 0, cut))) return tail || 1;
  }
  return 0;
}

/** What kind of function word a word is (stopOf): none, English, or of other languages only ("und", "het"). */
const STOP_NONE = 0;
const STOP_ENGLISH = 1;
const STOP_FOREIGN = 2;

/** What kind of function word w is. A contraction's tail ("t", "s", "ll") is none here ("t" is Hungarian's). */
function stopOf(w: WordScanner): number {
  if (!w.stop || (w.gapLen === 1 && isApostrophe(w.gapFirst))) return STOP_NONE;
  return ENGLISH_STOPWORDS.has(w.hash) ? STOP_ENGLISH : STOP_FOREIGN;
}

/** What one block of checked words holds. */
class Block {
  latinWords = 0;
  englishStops = 0;
  /** Function words of other languages only ("und", "het"): prose in another language, or English mixed with one. */
  foreignStops = 0;
  /** Words with a code symbol before them: code outside fences. */
  codeWords = 0;
  checked = 0;
  unknown = 0;
  distinct = 0;
  firstAt = -1;
  /** The first unknown word with two more within DENSE checked words: where the garbling starts, past a name or two before it. */
  denseAt = -1;
  private readonly recentIndex = [-DENSE, -DENSE];
  private readonly recentStart = [0, 0];
  readonly samples: string[] = [];
  /** Unknown words that are two words run together, one a function word ("ofthe", "nowlet"): distinct ones, the first. */
  glued = 0;
  gluedAt = -1;
  /** The different function words those words are run together with, up to GARBLED.minGluedStops: lost spaces hide many, a family of names ("onclick", "onload") one. */
  readonly gluedStops: number[] = [];
  /** Function words hidden inside words run together ("rangeof", "designedto"), every one: prose that lost its spaces hides its function words there. */
  hidden = 0;
  readonly gluedSamples: string[] = [];
  private stamp = 1;
  private readonly keys = new Int32Array(TABLE);
  private readonly stamps = new Int32Array(TABLE);

  /** Checked words at which the block ends: the second block's first end comes half a block early. */
  constructor(public end: number) {}

  /** A Latin-script word: code, it follows a code symbol; stop, what kind of function word it is. */
  latin(code: boolean, stop: number): void {
    this.latinWords++;
    if (code) this.codeWords++;
    if (stop === STOP_ENGLISH) this.englishStops++;
    else if (stop === STOP_FOREIGN) this.foreignStops++;
  }

  /** glued: the word runs together a function word (stop, its hash) with another word. */
  unknownWord(hash: number, start: number, text: string, glued: boolean, stop: number): void {
    this.unknown++;
    if (glued) this.hiddenStop(stop);
    if (this.firstAt < 0) this.firstAt = start;
    const [older, old] = this.recentIndex;
    if (this.denseAt < 0 && this.checked - older < DENSE && old > older) this.denseAt = this.recentStart[0];
    this.recentIndex[0] = old;
    this.recentStart[0] = this.recentStart[1];
    this.recentIndex[1] = this.checked;
    this.recentStart[1] = start;
    if (!this.addNew(hash)) return;
    this.distinct++;
    if (text !== '' && this.samples.length < SAMPLES) this.samples.push(text);
    if (glued) {
      if (this.glued++ === 0) this.gluedAt = start;
      if (this.gluedSamples.length < SAMPLES) this.gluedSamples.push(text);
    }
  }

  /** A word run together with a function word is two words, one of them that function word. */
  private hiddenStop(stop: number): void {
    this.hidden++;
    if (this.gluedStops.length < GARBLED.minGluedStops && !this.gluedStops.includes(stop)) this.gluedStops.push(stop);
  }

  /** Adds a hash to the block's stamped table; whether it was new there. */
  private addNew(key: number): boolean {
    let slot = (Math.imul(key, 0x9e3779b1) >>> 0) & TMASK;
    while (this.stamps[slot] === this.stamp && this.keys[slot] !== key) slot = (slot + 1) & TMASK;
    if (this.stamps[slot] === this.stamp) return false;
    this.stamps[slot] = this.stamp;
    this.keys[slot] = key;
    return true;
  }

  /** English prose, not code or another language, and long enough to judge. */
  prose(): boolean {
    // Counted only where words run together are common (a text that lost its spaces has them all
    // through): a few names such as "onclick" and "readonly" are code, not lost spaces.
    const hidden = this.glued >= GARBLED.hiddenShare * this.checked && this.gluedStops.length >= GARBLED.minGluedStops ? this.hidden : 0;
    const englishStops = this.englishStops + hidden;
    return (
      this.checked + hidden >= GARBLED.minChecked &&
      englishStops >= GARBLED.minEnglishShare * (this.latinWords + hidden) &&
      this.foreignStops * GARBLED.englishOverForeign <= englishStops &&
      this.codeWords <= GARBLED.maxCodeShare * this.latinWords
    );
  }

  garbled(): boolean {
    return (
      this.unknown >= GARBLED.minUnknownShare * this.checked &&
      this.distinct >= GARBLED.minDistinct &&
      this.distinct >= GARBLED.distinctShare * this.unknown &&
      this.prose()
    );
  }

  gluedWords(): boolean {
    return this.glued >= GARBLED.minGlued && this.gluedStops.length >= GARBLED.minGluedStops && this.glued >= GARBLED.gluedShare * this.checked && this.prose();
  }

  reset(): void {
    this.latinWords = 0;
    this.englishStops = 0;
    this.foreignStops = 0;
    this.codeWords = 0;
    this.checked = 0;
    this.unknown = 0;
    this.distinct = 0;
    this.firstAt = -1;
    this.denseAt = -1;
    this.recentIndex[0] = -DENSE;
    this.recentIndex[1] = -DENSE;
    this.samples.length = 0;
    this.glued = 0;
    this.gluedAt = -1;
    this.hidden = 0;
    this.gluedStops.length = 0;
    this.gluedSamples.length = 0;
    this.stamp++;
    this.end = GARBLED.block;
  }
}

export class GarbledWords {
  /** englishWordSet(), kept here: calling it for every checked word cost 4% of the detector's time. */
  private dictionary: HashSet | null = null;
  private flagged = false;
  private flaggedGlued = false;
  /**
   * Two blocks half a block apart, so that garbling of half a block or more lies within one of
   * them whatever words came before it.
   */
  private readonly blocks = [new Block(GARBLED.block), new Block(GARBLED.block >> 1)];
  // The candidate waiting for the character after it.
  private pending = false;
  private pendingUnknown = false;
  private pendingHash = 0;
  private pendingStart = 0;
  private pendingText = '';
  /**
   * The candidate runs together a function word (pendingStop, its hash) with another word. A
   * boolean apart from the hash: one number field for both cost 22 instructions a character of
   * healthy text (callgrind, 872 against 851).
   */
  private pendingGlued = false;
  private pendingStop = 0;

  constructor(private readonly sink: WordSink) {}

  word(w: WordScanner): void {
    if (this.pending) this.settle(w.gapFirst, w.gapLen === 1 && (w.gapFirst === 46 || isApostrophe(w.gapFirst)));
    if ((this.flagged && this.flaggedGlued) || w.scriptMask !== LATIN_ONLY) return;
    // Looked up once for both blocks.
    const stop = stopOf(w);
    for (const b of this.blocks) b.latin(w.gapCode > 0, stop);
    if (
      !w.lowerOnly ||
      !w.ascii ||
      w.digits > 0 ||
      w.inCode ||
      w.escaped ||
      w.len < GARBLED.minLetters ||
      w.len > GARBLED.maxLetters ||
      w.gapCode > 0 ||
      (w.words > 0 && !opensWord(w.gapLast))
    )
      return;
    const dictionary = (this.dictionary ??= englishWordSet());
    this.pending = true;
    this.pendingUnknown = !w.stop && !dictionary.has(w.hash);
    if (!this.pendingUnknown) return;
    this.pendingHash = w.hash;
    this.pendingStart = w.start;
    this.pendingStop = w.len >= 5 && w.len <= w.buf.length ? twoWords(w.buf, w.len, dictionary) : 0;
    this.pendingGlued = this.pendingStop !== 0;
    // Its letters are kept while a block still names its first words (or for a word run together).
    const named = this.blocks[0].samples.length < SAMPLES || this.blocks[1].samples.length < SAMPLES || this.pendingGlued;
    this.pendingText = named ? String.fromCharCode(...w.buf.subarray(0, Math.min(w.len, w.buf.length))) : '';
  }

  /**
   * The candidate's next character came (0 at the end); joined: a letter follows a lone "." or
   * apostrophe ("config.json", "didn't": no word list has the contraction's first half).
   */
  private settle(next: number, joined: boolean): void {
    this.pending = false;
    if (!closesWord(next) || joined) return;
    for (const b of this.blocks) {
      b.checked++;
      if (this.pendingUnknown) b.unknownWord(this.pendingHash, this.pendingStart, this.pendingText, this.pendingGlued, this.pendingStop);
      if (b.checked >= b.end) this.endBlock(b);
    }
  }

  private endBlock(b: Block): void {
    if (!this.flaggedGlued && b.gluedWords()) {
      this.flaggedGlued = true;
      const such = b.gluedSamples.map((s) => JSON.stringify(s)).join(', ');
      this.sink(
        'detok-spacing',
        b.gluedAt,
        `${b.glued} words of English prose are two words run together, such as ${such}, the first at offset ${b.gluedAt}: spaces between tokens were lost`,
        'degenerate',
      );
    }
    if (!this.flagged && b.garbled()) {
      this.flagged = true;
      const at = b.denseAt >= 0 ? b.denseAt : b.firstAt;
      const such = b.samples.map((s) => JSON.stringify(s)).join(', ');
      this.sink(
        'garbled-words',
        at,
        `${b.unknown} of ${b.checked} words of English prose are in no English dictionary, ${b.distinct} different ones such as ${such}, from offset ${at}`,
        'degenerate',
      );
    }
    b.reset();
  }

  finish(w: WordScanner): void {
    if (this.pending) this.settle(w.gapFirst, false);
    for (const b of this.blocks) if (b.checked > 0) this.endBlock(b);
  }
}
