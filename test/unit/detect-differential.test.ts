/**
 * Differential check: the detector's verdicts on the corpora and on 3,000 seeded synthetic
 * streams, each cut into random pieces, against the hashes a reference detector gave
 * (test/corpus/streams.ts). A speed change must not move a verdict; a change made on purpose
 * rewrites the hashes (npx tsx test/corpus/streams.ts --write) in the same commit.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { detect } from '../../src/core/detect';
import { GOLDEN, streams, verdictHash, verdictOf } from '../corpus/streams';

describe('detector differential check against the reference verdicts', function () {
  this.timeout(300_000);

  it('gives the reference verdict on every seeded stream, and the same verdict in one piece', () => {
    const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as string[];
    const all = streams();
    assert.equal(all.length, golden.length, 'stream count differs from the reference: regenerate detect-golden.json');
    const moved: string[] = [];
    const split: string[] = [];
    for (let i = 0; i < all.length; i++) {
      const s = all[i];
      const v = verdictOf(s);
      if (verdictHash(v) !== golden[i]) moved.push(s.name);
      // Text-only streams: one piece must give what the pieces gave.
      if (s.deltas.every((d) => d.reasoning === undefined && d.tokens === undefined)) {
        const whole = detect(s.deltas.map((d) => d.text ?? '').join(''), s.finish, undefined, { token0Text: s.token0Text, prompt: s.prompt });
        if (JSON.stringify(whole) !== JSON.stringify(v)) split.push(s.name);
      }
    }
    assert.deepEqual(moved.slice(0, 10), [], `${moved.length} verdicts moved`);
    assert.deepEqual(split.slice(0, 10), [], `${split.length} streams differ from their one-piece verdict`);
  });
});
