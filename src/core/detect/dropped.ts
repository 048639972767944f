/**
 * Dropped words: tokens that the server or the client lost between the model and the text. Two
 * shapes show it without a dictionary:
 * - an English determiner with its noun gone ("in the far reaches of the, there was", "The of this
 *   planet", "Their was"): a determiner right before sentence punctuation or before "of", "was",
 *   "to" never happens in written English. Words that name code keywords ("the for loop", "the in
 *   operator") are left out of the followers, and "an" too (German writes "kommt an.").
 * - counting with numbers missing or glued ("19 20 2122 23  25"): a run of whole numbers that
 *   mostly counts up by one, with skipped numbers or two of them written as one.
 *
 * Bounded: a few counters and one pending candidate; work once per word. The counting check reads
 * the answer's tail once, at finish.
 */
import * as limits from './limits';
import { isQuoteUnit } from './script';
import { wordHash } from './wordHash';
import type { WordScanner, WordSink } from './words';

/** A module-level copy: imported bindings are getter calls under some loaders. */
const DROPPED = limits.DROPPED;

// Five hashes compared one by one: cheaper per word than a set look-up.
const H_THE = wordHash('the');
const H_THEIR = wordHash('their');
const H_OUR = wordHash('our');
const H_YOUR = wordHash('your');
const H_ITS = wordHash('its');

function isDeterminer(h: number): boolean {
  return h === H_THE || h === H_THEIR || h === H_OUR || h === H_YOUR || h === H_ITS;
}
/** Words no determiner comes right before; none of them names a keyword of a common language. */
const NEVER_AFTER = new Map(['of', 'was', 'were', 'are', 'to'].map((w) => [wordHash(w), w]));

/** , . ! ? */
function isClauseEnd(c: number): boolean {
  return c === 44 || c === 46 || c === 33 || c === 63;
}

function isSpaceOrEnd(c: number): boolean {
  return c === 0 || c === 32 || c === 10 || c === 13 || c === 9;
}

export class DroppedWords {
  private events = 0;
  private firstAt = -1;
  private sample = '';
  /** The last word was a determiner not quoted before it, and where it started. */
  private det = false;
  private detAt = 0;
  /** The determiner as written (3 to 5 units), copied without a string until an event needs it. */
  private readonly detUnits = new Uint16Array(5);
  private detLen = 0;
  /** A determiner + follower waits for the character after the follower ("the to-do list" is sound). */
  private pending = -1;
  private pendingText = '';

  constructor(private readonly sink: WordSink) {}

  word(w: WordScanner): void {
    if (this.pending >= 0) this.settle(w.gapFirst);
    if (this.det) {
      if (w.gapLen === 1 && w.gapFirst === 32 && w.upper === 0 && w.digits === 0) {
        const follower = NEVER_AFTER.get(w.hash);
        if (follower !== undefined) {
          this.pending = this.detAt;
          this.pendingText = `${this.detText()} ${follower}`;
        }
      } else if (w.gapLen >= 2 && isClauseEnd(w.gapFirst) && isSpaceOrEnd(w.gapSecond) && w.gapCode === 0) {
        this.event(this.detAt, `${this.detText()}${String.fromCharCode(w.gapFirst)}`);
      }
    }
    // A determiner quoted or in code ("the word 'the', …", "`the`") is named, not used.
    // The determiners are 3 to 5 letters long: most words skip the set look-up.
    this.det = w.len >= 3 && w.len <= 5 && isDeterminer(w.hash) && w.digits === 0 && w.gapCode === 0 && !isQuoteUnit(w.gapLast);
    if (this.det) {
      this.detAt = w.start;
      this.detLen = w.len;
      this.detUnits.set(w.buf.subarray(0, w.len));
    }
  }

  private detText(): string {
    return String.fromCharCode(...this.detUnits.subarray(0, this.detLen));
  }

  private settle(next: number): void {
    if (isSpaceOrEnd(next) || next === 44 || next === 46) this.event(this.pending, this.pendingText);
    this.pending = -1;
  }

  private event(at: number, text: string): void {
    if (this.events++ === 0) {
      this.firstAt = at;
      this.sample = text;
    }
  }

  finish(w: WordScanner): void {
    if (this.pending >= 0) this.settle(w.gapLen > 0 ? w.gapFirst : 0);
    // The answer ends on a determiner and a clause end ("… the sky of the.").
    else if (this.det && w.gapLen >= 1 && isClauseEnd(w.gapFirst) && (w.gapLen === 1 || isSpaceOrEnd(w.gapSecond))) {
      this.event(this.detAt, `${this.detText()}${String.fromCharCode(w.gapFirst)}`);
    }
    if (this.events === 0) return;
    const detail = `${this.events === 1 ? 'a determiner' : `${this.events} determiners`} with the noun missing, such as ${JSON.stringify(this.sample)} at offset ${this.firstAt}`;
    this.sink('dropped-words', this.firstAt, detail, this.events >= DROPPED.determiners ? 'degenerate' : 'suspect');
  }
}

/** Counting with numbers dropped: how many were skipped or glued, where the first was, in a run of counting. */
export interface CountingGaps {
  numbers: number;
  gaps: number;
  offset: number;
  sample: string;
}

/**
 * Reads whole numbers separated by whitespace (a comma or period after each allowed): in the longest run that counts up by one for most of
 * its steps, the steps that skip a few numbers ("23 25") or glue the next ones ("2122" after 20).
 * Any other step ends the run, so step-2 lists, primes and years stay apart.
 */
export function countingGaps(text: string, base: number): CountingGaps | null {
  if (!enoughDigits(text)) return null;
  let best: CountingGaps | null = null;
  let run: CountingGaps | null = null;
  let plain = 0;
  let prev = -1;
  const re = /\S+/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    // "1, 2, 3." counts as "1 2 3".
    const token = m[0].replace(/[,.]$/, '');
    const value = /^\d{1,6}$/.test(token) ? Number(token) : NaN;
    const { step, last } = countStep(prev, token, value);
    if (run !== null && step !== 'other') {
      run.numbers++;
      if (step === 'next') plain++;
      else if (run.gaps++ === 0) {
        run.offset = base + m.index;
        run.sample = `${prev} ${token}`;
      }
    } else {
      if (run !== null && isCounting(run, plain) && (best === null || run.numbers > best.numbers)) best = run;
      run = Number.isNaN(value) ? null : { numbers: 1, gaps: 0, offset: -1, sample: '' };
      plain = 0;
    }
    prev = last;
  }
  if (run !== null && isCounting(run, plain) && (best === null || run.numbers > best.numbers)) best = run;
  return best !== null && best.gaps > 0 ? best : null;
}

/** A digit per number a run needs at least: most texts have fewer and skip the token pass. */
function enoughDigits(t: string): boolean {
  let digits = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c >= 48 && c <= 57) digits++;
  }
  return digits >= DROPPED.countNumbers;
}

function isCounting(run: CountingGaps, plain: number): boolean {
  return run.numbers >= DROPPED.countNumbers && plain >= DROPPED.countPlainShare * (run.numbers - 1);
}

/** How the token follows the number before it (prev, -1 for none), and the last number it writes (-1 for none). */
function countStep(prev: number, token: string, value: number): { step: 'next' | 'skip' | 'glued' | 'other'; last: number } {
  const last = Number.isNaN(value) ? -1 : value;
  if (prev < 0) return { step: 'other', last };
  if (value === prev + 1) return { step: 'next', last };
  if (value > prev + 1 && value <= prev + 1 + DROPPED.countSkipMax) return { step: 'skip', last };
  const glued = gluedEnd(prev, token);
  return glued >= 0 ? { step: 'glued', last: glued } : { step: 'other', last };
}

/** The last number of a token that writes the next two or more numbers glued ("2122" after 20), or -1. */
function gluedEnd(prev: number, token: string): number {
  let at = 0;
  let n = prev + 1;
  let count = 0;
  while (at < token.length) {
    const s = String(n);
    if (!token.startsWith(s, at)) return -1;
    at += s.length;
    n++;
    count++;
  }
  return count >= 2 ? n - 1 : -1;
}
