/**
 * The word hash the lexical scan computes character by character, and the same hash of a whole
 * word for building its tables (stopwords, role names). FNV-1a over lower-cased UTF-16
 * units.
 */
export const FNV_BASIS = 0x811c9dc5 | 0;
export const FNV_PRIME = 0x01000193;

/** Lower-case one UTF-16 unit for the scripts stopword lists cover (ASCII, Latin-1, Cyrillic). */
export function lowerUnit(c: number): number {
  if (c < 128) return c >= 65 && c <= 90 ? c | 32 : c;
  if (c >= 0xc0 && c <= 0xde && c !== 0xd7) return c + 32;
  if (c >= 0x410 && c <= 0x42f) return c + 32;
  if (c >= 0x400 && c <= 0x40f) return c + 80;
  return c;
}

export function wordHash(word: string): number {
  let h = FNV_BASIS;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ lowerUnit(word.charCodeAt(i)), FNV_PRIME);
  return h | 0;
}
