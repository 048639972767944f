/**
 * Detokenizer damage: a space inside a contraction ("' s journey", "don' t", "it 's"), what a
 * detokenizer that mishandles the apostrophe piece gives. Healthy text writes "'s" glued.
 *
 * Likewise an English suffix standing alone after a word ("design ing", "inform ation"): a client
 * that joins the tokens' texts with spaces splits words at their token boundaries. No English word
 * is spelled "ing" or "tion", so healthy text, code included, has none of them.
 *
 * Bounded: counters and one pending candidate; work once per word.
 */
import * as limits from './limits';
import * as scripts from './script';
import { wordHash } from './wordHash';
import type { WordScanner, WordSink } from './words';

/** A module-level copy: imported bindings are getter calls under some loaders. */
const DETOK = limits.DETOK;

/** Contraction tails: after "' " any of them, after " '" all but "t" (" 't" is a quote opening). */
const TAILS = new Map(['s', 't', 'll', 're', 've', 'd', 'm'].map((w) => [wordHash(w), w]));
const T_HASH = wordHash('t');
/** Suffixes that are never a word of their own ("ed", "er", "est", "ly" are: an abbreviation, a hesitation, French "is", a domain). */
const SUFFIX_PIECES = new Map(
  [
    'ing',
    'ings',
    'tion',
    'tions',
    'sion',
    'sions',
    'ation',
    'ations',
    'ment',
    'ments',
    'ness',
    'ized',
    'ised',
    'ization',
    'isation',
    'ities',
    'ility',
    'ously',
    'ingly',
  ].map((w) => [wordHash(w), w]),
);
const LATIN_ONLY = scripts.LATIN_BIT;
const CJK_ONLY = 1 << scripts.SCRIPT_CJK;

const isApostrophe = scripts.isApostrophe;
const endsWordUnit = scripts.endsWordUnit;

/** CJK sentence and list punctuation that may stand between spaced characters ("容 ， 我"). */
function isCjkMark(c: number): boolean {
  return c > 127 && scripts.isMarkUnit(c);
}

export class DetokSpacing {
  private events = 0;
  /** Contractions written glued ("it's"): a text that has many of them has a sound detokenizer. */
  private glued = 0;
  /** The last word came right after an apostrophe: a quote opened before it. */
  private quoted = false;
  private firstAt = -1;
  private sample = '';
  /** A candidate waits for the character after it: a closing quote makes it a quoted letter ('s'). */
  private pending = -1;
  private pendingText = '';
  /** The candidate had spaces on both sides of its apostrophe: a quote mark after it makes it a quoted letter (" ' s ' "). */
  private pendingSpaced = false;
  /** Suffixes standing alone after a word, the first one's offset and text. */
  private pieces = 0;
  private firstPieceAt = -1;
  private pieceSample = '';
  /** Commas and full stops with a space on both sides (" , "): punctuation tokens joined with spaces too. */
  private spacedMarks = 0;
  /** Chinese or Japanese characters standing one by one between spaces ("有 关 本 题 的"): the run now, all long runs, the first. */
  private spacedRun = 0;
  private spacedRunStart = -1;
  private spacedCjk = 0;
  private firstSpacedCjk = -1;

  constructor(private readonly sink: WordSink) {}

  word(w: WordScanner): void {
    if (this.pending >= 0) this.settle(this.after(w));
    this.suffixPiece(w);
    this.spacedCharacter(w);
    // The word before opened a quote ("'fkmap' ve" in Turkish, where "ve" is "and"): its apostrophe closes it.
    const afterQuoted = this.quoted;
    this.quoted = isApostrophe(w.gapLast);
    // A contraction whose pieces were joined with spaces ("I ' m", "AI ' s"): space, apostrophe, space.
    const spacedBoth = w.gapLen === 3 && w.gapFirst === 32 && isApostrophe(w.gapSecond) && w.gapLast === 32;
    if ((w.gapLen > 2 && !spacedBoth) || w.len > 2) return;
    const tail = TAILS.get(w.hash);
    if (tail === undefined || w.digits > 0) return;
    if (w.gapLen === 1) {
      if (isApostrophe(w.gapFirst) && w.words > 0) this.glued++;
      return;
    }
    const g0 = w.gapFirst;
    const g1 = w.gapSecond;
    if (spacedBoth && w.words > 0 && !afterQuoted) {
      this.pending = w.start - 3;
      this.pendingText = ` ${String.fromCharCode(g1)} ${tail}`;
      this.pendingSpaced = true;
    } else if (w.gapLen === 2 && isApostrophe(g0) && g1 === 32 && !afterQuoted && (w.words > 0 || w.start === 2)) {
      this.pending = w.start - 2;
      this.pendingText = `${String.fromCharCode(g0)} ${tail}`;
      this.pendingSpaced = false;
    } else if (w.gapLen === 2 && g0 === 32 && isApostrophe(g1) && w.words > 0 && w.hash !== T_HASH) {
      this.pending = w.start - 2;
      this.pendingText = ` ${String.fromCharCode(g1)}${tail}`;
      this.pendingSpaced = false;
    }
  }

  /**
   * One CJK character between spaces (a CJK mark may stand between them too): a detokenizer that
   * joins each piece with a space. Chinese and Japanese write no spaces between characters.
   */
  private spacedCharacter(w: WordScanner): void {
    // Hangul aside: Korean spaces its words, and one-syllable words stand alone.
    const single = w.letters === 1 && w.digits === 0 && w.scriptMask === CJK_ONLY && scripts.scriptOf(w.buf[0]) !== scripts.SCRIPT_HANGUL && !w.inCode;
    const spacedGap =
      w.gapNewlines === 0 &&
      w.gapSpaces > 0 &&
      (w.gapLen === 1 || (w.gapLen === 2 && isCjkMark(w.gapFirst === 32 ? w.gapSecond : w.gapFirst)) || (w.gapLen === 3 && isCjkMark(w.gapSecond)));
    if (single && this.spacedRun > 0 && spacedGap) {
      this.spacedRun++;
      return;
    }
    this.endSpacedRun();
    if (single) {
      this.spacedRun = 1;
      this.spacedRunStart = w.start;
    }
  }

  private endSpacedRun(): void {
    if (this.spacedRun >= DETOK.spacedRun) {
      if (this.spacedCjk === 0) this.firstSpacedCjk = this.spacedRunStart;
      this.spacedCjk += this.spacedRun;
    }
    this.spacedRun = 0;
  }

  /** A suffix alone after a word, one space between ("maintain ing"): the word cut at a token boundary. */
  private suffixPiece(w: WordScanner): void {
    if (w.gapLen === 3 && w.gapFirst === 32 && w.gapLast === 32 && (w.gapSecond === 44 || w.gapSecond === 46)) this.spacedMarks++;
    // Code names what it likes ("Host ness" in an SSH config): only prose outside code spans and fences counts.
    if (w.gapLen !== 1 || w.gapFirst !== 32 || w.words === 0 || !w.lowerOnly || w.digits > 0 || w.scriptMask !== LATIN_ONLY || w.inCode) return;
    const suffix = SUFFIX_PIECES.get(w.hash);
    if (suffix === undefined) return;
    if (this.pieces++ === 0) {
      this.firstPieceAt = w.start;
      this.pieceSample = suffix;
    }
  }

  /**
   * What follows the candidate, from the gap after it (the next word's, or the text's end at
   * finish): an apostrophe after a space closes a letter quoted with spaces (" ' s ' ").
   */
  private after(w: WordScanner): number {
    return this.pendingSpaced && w.gapLen >= 2 && isApostrophe(w.gapSecond) ? 39 : w.gapFirst;
  }

  /** A contraction ends its word: a space, a line break, sentence punctuation or the end follows ("'d*'" is a quoted glob). */
  private settle(next: number): void {
    if (endsWordUnit(next)) {
      if (this.events++ === 0) {
        this.firstAt = this.pending;
        this.sample = this.pendingText;
      }
    }
    this.pending = -1;
  }

  finish(w: WordScanner): void {
    if (this.pending >= 0) this.settle(this.after(w));
    this.finishPieces();
    this.finishSpaced(w);
    if (this.events === 0) return;
    const detail = `${this.events === 1 ? 'a contraction' : `${this.events} contractions`} with a space inside, such as ${JSON.stringify(this.sample)} at offset ${this.firstAt}`;
    // Judged against the contractions written glued, so that a long text quoting code (" 's/x/y/'") is not damaged.
    const strong = (this.events >= DETOK.events && this.events > this.glued) || w.words < DETOK.shortWords;
    this.sink('detok-spacing', this.firstAt, detail, strong ? 'degenerate' : 'suspect');
  }

  private finishSpaced(w: WordScanner): void {
    this.endSpacedRun();
    if (this.spacedCjk < DETOK.spacedMin || this.spacedCjk < DETOK.spacedShare * w.cjkLetters) return;
    this.sink(
      'detok-spacing',
      this.firstSpacedCjk,
      `${this.spacedCjk} of the answer's ${w.cjkLetters} CJK characters stand one by one between spaces, from offset ${this.firstSpacedCjk}: the pieces were joined with spaces`,
      'degenerate',
    );
  }

  private finishPieces(): void {
    if (this.pieces === 0) return;
    const detail = `${this.pieces === 1 ? 'a suffix' : `${this.pieces} suffixes`} standing alone after a word, such as ${JSON.stringify(this.pieceSample)} at offset ${this.firstPieceAt}: words are split where their tokens meet`;
    // Text about suffixes can name one unquoted ("the suffix ing"); a stream that spaced its commas out too cannot.
    const strong = this.pieces >= DETOK.suffixPieces || this.spacedMarks > 0;
    this.sink('detok-spacing', this.firstPieceAt, detail, strong ? 'degenerate' : 'suspect');
  }
}
