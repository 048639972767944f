/**
 * Function words (stopwords) of the Latin- and Cyrillic-script languages the `stopword` package
 * has lists for, as a set of the word hashes the scanners compute (wordHash.ts): one typed-array
 * probe per word, no strings.
 */
import * as stopword from 'stopword';
import { wordHash } from './wordHash';

/** The languages whose lists count: the package's Latin- and Cyrillic-script ones. */
const LANGUAGES = [
  'afr',
  'bul',
  'cat',
  'ces',
  'dan',
  'deu',
  'eng',
  'epo',
  'est',
  'eus',
  'fin',
  'fra',
  'gle',
  'glg',
  'hau',
  'hrv',
  'hun',
  'ind',
  'ita',
  'lat',
  'lav',
  'lit',
  'msa',
  'nld',
  'nob',
  'pol',
  'por',
  'porBr',
  'ron',
  'rus',
  'slk',
  'slv',
  'som',
  'sot',
  'spa',
  'swa',
  'swe',
  'tgl',
  'tur',
  'ukr',
  'vie',
  'zul',
] as const;

const LISTS: readonly (readonly string[])[] = LANGUAGES.map((code) => stopword[code]);

/** Bits of the membership filter: 16 KiB, small enough to stay cached (the 128 KiB of keys do not). */
const FILTER_BITS = 17;

/**
 * An open-addressing set of 32-bit hashes; 0 marks an empty slot (a 0 hash is kept aside). A bit
 * filter in front of the keys answers most non-members: a probe of the keys (128 KiB for the
 * stopwords) misses the cache for every rare word, the filter seldom does.
 */
export class HashSet {
  private readonly keys: Int32Array;
  private readonly mask: number;
  private readonly filter = new Int32Array(1 << (FILTER_BITS - 5));
  private hasZero = false;

  constructor(hashes: Iterable<number>) {
    const all = [...new Set(hashes)];
    let size = 1;
    while (size < all.length * 4) size <<= 1;
    this.keys = new Int32Array(size);
    this.mask = size - 1;
    for (const h of all) {
      if (h === 0) {
        this.hasZero = true;
        continue;
      }
      const bit = filterBit(h);
      this.filter[bit >>> 5] |= 1 << (bit & 31);
      let slot = (Math.imul(h, 0x9e3779b1) >>> 0) & this.mask;
      while (this.keys[slot] !== 0 && this.keys[slot] !== h) slot = (slot + 1) & this.mask;
      this.keys[slot] = h;
    }
  }

  has(h: number): boolean {
    if (h === 0) return this.hasZero;
    const bit = filterBit(h);
    if ((this.filter[bit >>> 5] & (1 << (bit & 31))) === 0) return false;
    let slot = (Math.imul(h, 0x9e3779b1) >>> 0) & this.mask;
    for (;;) {
      const k = this.keys[slot];
      if (k === 0) return false;
      if (k === h) return true;
      slot = (slot + 1) & this.mask;
    }
  }
}

/** The filter's bit for h, from another multiplier than the slot's, so that the two do not correlate. */
function filterBit(h: number): number {
  return Math.imul(h, 0x85ebca6b) >>> (32 - FILTER_BITS);
}

/**
 * The hashes of every list's words, split the way the scanners split words: letters only ("l'" ->
 * "l", "don't" -> "don", "t"). The salad rules only judge words of these scripts, so a language
 * without a list reads as "no function words"; covering every list keeps that to the ones it lacks.
 */
export function stopwordHashes(): Set<number> {
  return letterRunHashes(LISTS.flat());
}

/** The hashes of the words' letter runs, split as the scanners split words ("don't" -> "don", "t"). */
function letterRunHashes(words: Iterable<string>): Set<number> {
  const set = new Set<number>();
  for (const w of words) for (const part of w.split(/[^\p{L}]+/u)) if (part) set.add(wordHash(part));
  return set;
}

export const STOPWORDS = new HashSet(stopwordHashes());

/** English function words alone, to tell English prose from other languages (garbled.ts). */
export const ENGLISH_STOPWORDS = new HashSet(letterRunHashes(stopword.eng));
