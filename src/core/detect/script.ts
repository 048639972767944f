/**
 * Writing-system classes for single UTF-16 code units, used by the token-salad signal.
 *
 * The detector only needs to know whether two adjacent letters belong to writing systems that
 * never share a word in real text (Latin next to Cyrillic, Thai next to Arabic, ...). It does not
 * need Unicode's full Script property, so the table below works on blocks and is deliberately
 * coarse. Non-letters (digits, punctuation, symbols, spaces, emoji) are class 0.
 */

export const SCRIPT_NONE = 0;
export const SCRIPT_LATIN = 1;
export const SCRIPT_GREEK = 2;
export const SCRIPT_CYRILLIC = 3;
export const SCRIPT_ARMENIAN = 4;
export const SCRIPT_HEBREW = 5;
export const SCRIPT_ARABIC = 6;
export const SCRIPT_CJK = 7; // Han, kana, CJK compatibility ideographs
export const SCRIPT_HANGUL = 8;
export const SCRIPT_THAI = 9;
export const SCRIPT_GEORGIAN = 10;
export const SCRIPT_ETHIOPIC = 11;
export const SCRIPT_OTHER_SE_ASIA = 12; // Lao, Tibetan, Myanmar, Khmer
/** Combining marks and joiners: they continue the previous letter's word. */
export const SCRIPT_INHERIT = 13;
/** Indic scripts: 16 + index of the 128-code-point block from U+0900 (Devanagari = 16). */
export const SCRIPT_INDIC_BASE = 16;

const ASCII = new Uint8Array(128);
for (let c = 65; c <= 90; c++) ASCII[c] = SCRIPT_LATIN;
for (let c = 97; c <= 122; c++) ASCII[c] = SCRIPT_LATIN;

/** Class of one UTF-16 code unit. Surrogates: CJK extension planes count as CJK, the rest as 0. */
export function scriptOf(c: number): number {
  if (c < 128) return ASCII[c];
  if (c < 0x0250) {
    if (c === 0xd7 || c === 0xf7) return SCRIPT_NONE;
    if (c >= 0xc0) return SCRIPT_LATIN;
    if (c === 0xaa || c === 0xba) return SCRIPT_LATIN;
    return SCRIPT_NONE; // Latin-1 punctuation and symbols, micro sign included
  }
  if (c < 0x0300) return c < 0x02b0 ? SCRIPT_LATIN : SCRIPT_NONE; // IPA; spacing modifiers
  if (c < 0x0370) return SCRIPT_INHERIT;
  if (c < 0x0400) return SCRIPT_GREEK;
  if (c < 0x0530) return SCRIPT_CYRILLIC;
  if (c < 0x0590) return SCRIPT_ARMENIAN;
  if (c < 0x0600) return SCRIPT_HEBREW;
  if (c < 0x0780) return c >= 0x0660 && c <= 0x0669 ? SCRIPT_NONE : SCRIPT_ARABIC;
  if (c < 0x0900) return c >= 0x08a0 ? SCRIPT_ARABIC : SCRIPT_NONE;
  if (c < 0x0e00) return SCRIPT_INDIC_BASE + ((c - 0x0900) >> 7);
  if (c < 0x0e80) return SCRIPT_THAI;
  if (c < 0x10a0) return SCRIPT_OTHER_SE_ASIA;
  if (c < 0x1100) return SCRIPT_GEORGIAN;
  if (c < 0x1200) return SCRIPT_HANGUL;
  if (c < 0x13a0) return SCRIPT_ETHIOPIC;
  if (c < 0x1780) return SCRIPT_NONE;
  if (c < 0x1800) return SCRIPT_OTHER_SE_ASIA;
  if (c < 0x1ab0) return SCRIPT_NONE;
  if (c < 0x1b00) return SCRIPT_INHERIT;
  if (c < 0x1c80) return SCRIPT_NONE;
  if (c < 0x1c90) return SCRIPT_CYRILLIC;
  if (c < 0x1dc0) return SCRIPT_NONE;
  if (c < 0x1e00) return SCRIPT_INHERIT;
  if (c < 0x1f00) return SCRIPT_LATIN;
  if (c < 0x2000) return SCRIPT_GREEK;
  if (c < 0x2010) return c === 0x200c || c === 0x200d ? SCRIPT_INHERIT : SCRIPT_NONE;
  if (c < 0x2c60) return SCRIPT_NONE; // punctuation, symbols, arrows, math, box drawing
  if (c < 0x2c80) return SCRIPT_LATIN;
  if (c < 0x2de0) return SCRIPT_NONE;
  if (c < 0x2e00) return SCRIPT_CYRILLIC;
  if (c < 0x3040) return c === 0x3005 || c === 0x3006 ? SCRIPT_CJK : SCRIPT_NONE; // CJK punctuation
  if (c < 0x3100) return c === 0x30fb ? SCRIPT_NONE : SCRIPT_CJK; // kana
  if (c < 0x3130) return SCRIPT_CJK; // bopomofo
  if (c < 0x3190) return SCRIPT_HANGUL;
  if (c < 0x3400) return c >= 0x31f0 && c < 0x3200 ? SCRIPT_CJK : SCRIPT_NONE;
  if (c < 0xa000) return c < 0x4dc0 || c >= 0x4e00 ? SCRIPT_CJK : SCRIPT_NONE;
  if (c < 0xa640) return SCRIPT_NONE;
  if (c < 0xa6a0) return SCRIPT_CYRILLIC;
  if (c < 0xa720) return SCRIPT_NONE;
  if (c < 0xa800) return SCRIPT_LATIN;
  if (c < 0xac00) return SCRIPT_NONE;
  if (c < 0xd7b0) return SCRIPT_HANGUL;
  if (c < 0xd800) return SCRIPT_NONE;
  if (c < 0xdc00) return c >= 0xd840 && c < 0xd8c0 ? SCRIPT_CJK : SCRIPT_NONE; // high surrogates
  if (c < 0xe000) return SCRIPT_INHERIT; // low surrogate continues its pair
  if (c < 0xf900) return SCRIPT_NONE; // private use
  if (c < 0xfb00) return SCRIPT_CJK;
  if (c < 0xfb50) return SCRIPT_HEBREW;
  if (c < 0xfe00) return SCRIPT_ARABIC;
  if (c < 0xfe10) return SCRIPT_INHERIT; // variation selectors
  if (c < 0xfe70) return SCRIPT_NONE;
  if (c < 0xff00) return SCRIPT_ARABIC;
  if (c < 0xff21) return SCRIPT_NONE;
  if (c < 0xff3b) return SCRIPT_LATIN;
  if (c < 0xff41) return SCRIPT_NONE;
  if (c < 0xff5b) return SCRIPT_LATIN;
  if (c < 0xff66) return SCRIPT_NONE;
  if (c < 0xffa0) return SCRIPT_CJK;
  if (c < 0xffe0) return SCRIPT_HANGUL;
  return SCRIPT_NONE;
}

/**
 * True when letters of classes a and b sitting side by side inside one word are implausible.
 * Latin next to CJK or Hangul is normal in East Asian technical writing ("使用Python"), Latin next
 * to Greek is normal in measurements and maths ("10μs", "Δt"), CJK next to Hangul happens in Korean
 * mixed script, so none of those count.
 */
export function incompatibleScripts(a: number, b: number): boolean {
  if (a === b || a === SCRIPT_NONE || b === SCRIPT_NONE) return false;
  if (a === SCRIPT_INHERIT || b === SCRIPT_INHERIT) return false;
  const lo = a < b ? a : b;
  const hi = a < b ? b : a;
  if (lo === SCRIPT_LATIN && (hi === SCRIPT_CJK || hi === SCRIPT_HANGUL || hi === SCRIPT_GREEK)) return false;
  if (lo === SCRIPT_CJK && hi === SCRIPT_HANGUL) return false;
  return true;
}

/** Letters of any script, for the "is this loop unit made of words?" test. */
export function isLetterUnit(c: number): boolean {
  const s = scriptOf(c);
  return s !== SCRIPT_NONE && s !== SCRIPT_INHERIT;
}

/** The whitespace that separates the pieces of a text: space, tab, line breaks, no-break and ideographic spaces. */
export function isWhitespaceUnit(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9 || c === 0xa0 || c === 0x3000;
}

/** Quote marks, opening or closing: straight, backtick, curly, CJK corner brackets. */
export function isQuoteUnit(c: number): boolean {
  return c === 34 || c === 39 || c === 96 || c === 0x2018 || c === 0x2019 || c === 0x201c || c === 0x201d || c === 0x300c || c === 0x300d;
}

/** Sentence punctuation: . , ; : ! ? and the CJK and full-width forms, the ellipsis. */
export function isMarkUnit(c: number): boolean {
  return (
    c === 46 ||
    c === 44 ||
    c === 59 ||
    c === 58 ||
    c === 33 ||
    c === 63 ||
    c === 0x3001 ||
    c === 0x3002 ||
    (c >= 0xff01 && c <= 0xff1f && (c === 0xff01 || c === 0xff0c || c === 0xff1a || c === 0xff1b || c === 0xff1f || c === 0xff0e)) ||
    c === 0x2026
  );
}

/** What ends a word of prose: the text's end (0), a space, tab or line break, or ASCII sentence punctuation (. , ; : ! ?). */
export function endsWordUnit(c: number): boolean {
  return c === 0 || c === 32 || c === 10 || c === 13 || c === 9 || (c < 128 && isMarkUnit(c));
}

/** An apostrophe, straight or curly (U+2019). */
export function isApostrophe(c: number): boolean {
  return c === 39 || c === 0x2019;
}

/** Marks that end a sentence: . ? ! and their full-width forms. */
export function endsSentence(c: number): boolean {
  return c === 46 || c === 63 || c === 33 || c === 0x3002 || c === 0xff1f || c === 0xff01;
}

/** WordScanner.scriptMask of a word whose letters are all Latin. */
export const LATIN_BIT = 1 << SCRIPT_LATIN;
