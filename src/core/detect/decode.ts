/**
 * Text into UTF-16 code units in a typed array, for the detector's passes: reading a Uint16Array
 * costs a fraction of charCodeAt on a sliced, concatenated or two-byte string.
 */

/** From this many code units a text is decoded by one native copy instead of a charCodeAt loop. */
const BULK_DECODE = 64;
/** Buffer's utf16le copy writes little-endian units, which a Uint16Array reads back only on a little-endian machine. */
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/** A Buffer over the same memory as units, for decodeUnits. */
export function unitBytes(units: Uint16Array): Buffer {
  return Buffer.from(units.buffer, units.byteOffset, units.byteLength);
}

/** Copies s[from, from + n) into units[0, n) (n <= units.length); bytes: unitBytes(units). */
export function decodeUnits(s: string, from: number, n: number, units: Uint16Array, bytes: Buffer): void {
  if (n >= BULK_DECODE && LITTLE_ENDIAN) {
    bytes.write(from === 0 && n === s.length ? s : s.slice(from, from + n), 0, 'utf16le');
  } else {
    for (let i = 0; i < n; i++) units[i] = s.charCodeAt(from + i);
  }
}
