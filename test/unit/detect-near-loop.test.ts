/**
 * Loops whose copies differ a little (nearloop.ts): real loops from the tune split with words
 * swapped at random (test/corpus/nearCopies.ts), and templated healthy text that repeats its
 * words at a fixed distance without looping. Also the tune split's healthy answers said twice
 * whole (Channel's end-loop rule).
 */
import assert from 'node:assert/strict';
import { detect } from '../../src/core/detect';
import { nearLoop } from '../../src/core/detect/nearloop';
import { doubledAnswers, nearCopyLoops } from '../corpus/nearCopies';

const PARAGRAPH =
  'The scheduler admits a request when its prompt fits in the free blocks, and it keeps a few blocks in reserve so that running requests can grow.';

/** The paragraph again and again, one word changed in each copy after the first. */
function driftingLoop(copies: number): string {
  const words = PARAGRAPH.split(' ');
  const swaps = ['queue', 'cache', 'batch', 'memory', 'server', 'token'];
  return Array.from({ length: copies }, (_, k) => {
    if (k === 0) return PARAGRAPH;
    const w = [...words];
    w[(k * 7) % w.length] = swaps[k % swaps.length];
    return w.join(' ');
  }).join('\n\n');
}

describe('near-copy loops (nearloop.ts)', () => {
  it('finds a paragraph loop that changes one word per copy, from its first copy', () => {
    const text = `Here is how it works.\n\n${driftingLoop(5)}`;
    const loop = nearLoop(text);
    assert.ok(loop);
    const words = PARAGRAPH.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
    assert.equal(loop.periodWords, words);
    assert.equal(loop.start, text.indexOf('The scheduler'));
    assert.equal(loop.copies, 5);
    assert.ok(loop.share >= 0.9 && loop.share < 1, String(loop.share));
    const v = detect(text, { finishReason: 'stop' });
    assert.equal(v.kind, 'degenerate');
    const r = v.reasons.find((x) => x.code === 'long-loop');
    assert.ok(r, JSON.stringify(v.reasons));
    assert.match(r.message, new RegExp(`5 near copies of a ${words}-word passage`));
  });

  it('reads bullets and bold markdown around the loop as prose, not code', () => {
    const copies = driftingLoop(5)
      .split('\n\n')
      .map((copy, k) => `* **Note ${k === 0 ? 'one' : 'again'}:** ${copy}`);
    const loop = nearLoop(copies.join('\n'));
    assert.ok(loop);
    assert.equal(loop.copies, 5);
    // Code symbols outside markdown still keep it out.
    assert.equal(nearLoop(copies.map((c) => `${c} {x = f(y);}`).join('\n')), null);
  });

  it('needs three copies: a paragraph said twice with a change is no loop yet', () => {
    assert.equal(nearLoop(driftingLoop(2)), null);
  });

  it('catches most real tune loops with one word in 8 or in 20 swapped', () => {
    for (const [every, floor] of [
      [8, 0.588],
      [20, 0.64],
    ] as const) {
      const loops = nearCopyLoops(every);
      assert.ok(loops.length >= 30, `only ${loops.length} loops`);
      const caught = loops.filter((t) => detect(t, { finishReason: 'stop' }).kind !== 'ok').length;
      assert.ok(caught / loops.length >= floor, `1 in ${every}: ${caught}/${loops.length}`);
    }
  });

  it('leaves templated code, tables and a song with a refrain alone', () => {
    const declarations = Array.from(
      { length: 8 },
      (_, i) => `XSLTPUBFUN void XSLTCALL\n\t\txsltStep${i}\t\t(xsltTransformContextPtr ctxt,\n\t\t\t xmlNodePtr node,\n\t\t\t xmlNodePtr inst);`,
    ).join('\n');
    const table = [
      '| GPU | Memory | Backend | Result |',
      '|---|---|---|---|',
      ...['H100', 'H200', 'B200', 'A100', 'L40S', 'RTX 5090'].map((g, i) => `| ${g} | ${40 + 20 * i} GB | flashinfer | ok |`),
    ].join('\n');
    const song = [
      'We walked along the river when the morning light was new,',
      'and every stone we passed that day was shining just for you.',
      'Oh sing it loud and sing it long, the river knows our song,',
      'oh sing it loud and sing it long, the river knows our song.',
      'The boats went out at noon and came back heavy in the rain,',
      'we counted every lantern as they drifted home again.',
      'Oh sing it loud and sing it long, the river knows our song,',
      'oh sing it loud and sing it long, the river knows our song.',
      'And when the winter covers all the water and the reeds,',
      'we will remember summer and the places that it leads.',
      'Oh sing it loud and sing it long, the river knows our song,',
      'oh sing it loud and sing it long, the river knows our song.',
    ].join('\n');
    for (const text of [declarations, table, song]) {
      assert.equal(nearLoop(text), null, text.slice(0, 40));
      assert.equal(detect(text, { finishReason: 'stop' }).kind, 'ok', text.slice(0, 40));
    }
  });

  it('flags real healthy answers said twice, and at most 1% of them said once (the false-positive goal)', () => {
    const pairs = doubledAnswers();
    assert.ok(pairs.length >= 100, `only ${pairs.length} answers`);
    const flagged = pairs.filter((p) => detect(p.doubled, { finishReason: 'stop' }).kind !== 'ok').length;
    assert.ok(flagged / pairs.length >= 0.9, `${flagged}/${pairs.length} doubled answers flagged`);
    const singles = [...new Set(pairs.map((p) => p.single))];
    const flaggedSingles = singles.filter((single) => detect(single, { finishReason: 'stop' }).kind !== 'ok');
    assert.ok(
      flaggedSingles.length <= 0.01 * singles.length,
      `${flaggedSingles.length}/${singles.length} singles flagged: ${flaggedSingles.map((s) => s.slice(0, 40)).join(' | ')}`,
    );
  });
});
