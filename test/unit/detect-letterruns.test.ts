/**
 * LexicalScanner takes the ASCII letter runs WordScanner found in the same piece instead of
 * hashing those letters itself (words.ts, LetterRuns). Taking them must change nothing: on every
 * seeded stream's text (test/corpus/streams.ts), in the detector's 1024-unit pieces and in small
 * uneven ones, the scanner reports exactly what it reports hashing every letter itself.
 */
import assert from 'node:assert/strict';
import { LexicalScanner } from '../../src/core/detect/lexical';
import { LetterRuns, WordScanner } from '../../src/core/detect/words';
import { streams } from '../corpus/streams';

/** Everything the scanner reports, finish included, one line per reason, sorted. */
function lexicalReasons(text: string, pieceSize: (k: number) => number, withRuns: boolean, prompt?: string, token0Text?: string): string[] {
  const out: string[] = [];
  const lex = new LexicalScanner((code, offset, detail, kind) => out.push(`${code} ${offset} ${kind} ${detail}`), prompt, token0Text);
  const words = new WordScanner(() => undefined);
  const units = new Uint16Array(1024);
  const runs = new LetterRuns(units.length);
  for (let from = 0, k = 0; from < text.length; k++) {
    const n = Math.min(pieceSize(k), units.length, text.length - from);
    for (let i = 0; i < n; i++) units[i] = text.charCodeAt(from + i);
    if (withRuns) {
      words.feed(units, n, runs);
      lex.feed(units, n, runs);
    } else lex.feed(units, n);
    from += n;
  }
  lex.finish(null);
  // Sorted, since the order of the calls is no part of what is reported (the detector sorts its
  // reasons): which of two reasons at one offset comes first can depend on the piece sizes.
  return out.sort();
}

/** Words whose runs carry what the rules read: a-f letters with an "x" (hex to WordScanner, not to LexicalScanner), case turns, long runs. */
const SHAPES = [
  `We set the mode to ${'xface '.repeat(12)}and stop.`,
  `The dump reads ${'deadbeef '.repeat(12)}then ends.`,
  `${'theWord glueDPieces '.repeat(40)}\n`,
  `${'Pneumonoultramicroscopicsilicovolcanoconiosis '.repeat(30)}done`,
];

describe('LexicalScanner with the letter runs of WordScanner', function () {
  this.timeout(120_000);

  it('reports what it reports hashing every letter itself, whatever the pieces', () => {
    const all = [...SHAPES.map((text, k) => ({ name: `shape ${k}`, deltas: [{ text }], prompt: undefined, token0Text: undefined })), ...streams()];
    let compared = 0;
    let reasons = 0;
    for (const s of all) {
      const text = s.deltas.map((d) => d.text ?? '').join('');
      if (!text) continue;
      const alone = lexicalReasons(text, () => 1024, false, s.prompt, s.token0Text);
      reasons += alone.length;
      assert.deepEqual(
        lexicalReasons(text, () => 1024, true, s.prompt, s.token0Text),
        alone,
        `${s.name}, 1024-unit pieces`,
      );
      // Uneven small pieces: runs cut at piece ends, and runs that end past a 16-unit step of the first 4096 characters.
      assert.deepEqual(
        lexicalReasons(text, (k) => 1 + ((k * 37) % 53), true, s.prompt, s.token0Text),
        alone,
        `${s.name}, small pieces`,
      );
      compared++;
    }
    // The streams must exercise the scanner: many texts, and reasons among them.
    assert.ok(compared > 1000, `only ${compared} streams with text`);
    assert.ok(reasons > 100, `only ${reasons} reasons over the streams`);
  });
});
