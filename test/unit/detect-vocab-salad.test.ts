/**
 * Salad recall on BPE salad sampled from real vocabularies (test/corpus/vocabSalad.ts), streamed a
 * token per delta: a distribution no rule here was written from by hand. Floors sit a little under
 * what the detector reached when they were set (bench/detector.bench.ts prints the figures).
 */
import assert from 'node:assert/strict';
import { createDetector } from '../../src/core/detect';
import { vocabularySalads, type VocabularyName } from '../corpus/vocabSalad';

const SAMPLES = 100;

function recall(vocabulary: VocabularyName, tokens: number): number {
  let flagged = 0;
  for (const salad of vocabularySalads(vocabulary, tokens, SAMPLES)) {
    const d = createDetector();
    for (const text of salad) d.push({ text });
    if (d.finish({ finishReason: 'length' }).kind !== 'ok') flagged++;
  }
  return flagged / SAMPLES;
}

describe('detector on BPE salad from real vocabularies', function () {
  this.timeout(60_000);
  const floors: [VocabularyName, number, number][] = [
    ['cl100k', 96, 0.9],
    ['gpt2', 96, 0.9],
    ['o200k', 96, 0.95],
    ['cl100k', 48, 0.6],
    ['gpt2', 48, 0.7],
    ['o200k', 48, 0.95],
  ];
  for (const [vocabulary, tokens, floor] of floors) {
    it(`flags at least ${floor} of ${SAMPLES} ${vocabulary} salads of ${tokens} tokens`, () => {
      const r = recall(vocabulary, tokens);
      assert.ok(r >= floor, `recall ${r} < ${floor}`);
    });
  }
});
