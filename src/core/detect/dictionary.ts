/**
 * English words for the garbled-word rule (garbled.ts): the SCOWL lists in data/english-words.json
 * (scripts/build-english-words.ts writes it) as a set of the word hashes the scanners compute,
 * built on first use (80,000 words, a few milliseconds).
 */
import englishWordsFile from '../../../data/english-words.json';
import { HashSet } from './stopwords';
import { wordHash } from './wordHash';

let englishWords: HashSet | null = null;

/** The set of every English word's hash. */
export function englishWordSet(): HashSet {
  englishWords ??= new HashSet(englishWordsFile.words.split(' ').map(wordHash));
  return englishWords;
}
