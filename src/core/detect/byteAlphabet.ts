/**
 * GPT-2's byte alphabet (its bytes_to_unicode, kept by every byte-level BPE vocabulary): printable
 * Latin-1 bytes stand for themselves, the others (0x00-0x20, 0x7F-0xA0, 0xAD) for U+0100 on, in
 * byte order. A detokenizer that skips the mapping back shows UTF-8 bytes so ("ä¸Ń" for 中).
 * Shared by the detector's misread reader (lexical.ts) and the simulator's byte-pieces answer.
 */

/** The alphabet's character for each byte, 0 to 255. */
export const BYTE_ALPHABET: readonly string[] = (() => {
  const chars: string[] = [];
  let shifted = 0x100;
  for (let b = 0; b <= 0xff; b++) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || b >= 0xae;
    chars.push(String.fromCharCode(printable ? b : shifted++));
  }
  return chars;
})();

/** The shifted characters (U+0100 to U+0143): a sequence without one is plain Latin-1. */
export const SHIFTED_FIRST = 0x100;
export const SHIFTED_LAST = 0x143;

/** The text as a detokenizer that skips the mapping back shows it: each UTF-8 byte as its character. */
export function inByteAlphabet(text: string): string {
  return Array.from(new TextEncoder().encode(text), (b) => BYTE_ALPHABET[b]).join('');
}
