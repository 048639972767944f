/**
 * Thresholds of the degenerate-output detector, in one place so tests, the bench and the docs can
 * quote them. Offsets and lengths are UTF-16 code units.
 *
 * How they were chosen: each is set from what the failure looks like (a NaN server emits token 0
 * until max_tokens; a looping model repeats one period until max_tokens) and then checked against
 * real files (Python sources, licences, man pages, Markdown, JSON, logs) so healthy text keeps a
 * wide margin. See test/corpus/build-corpus.ts for the corpus.
 */
export const LIMITS = Object.freeze({
  /** Consecutive copies of token 0's text ("!") that make a token0-run. */
  token0TextRun: 24,
  /** Consecutive sampled token ids equal to token0Id that make a token0-run. */
  token0IdRun: 16,

  /** Same character repeated: printable characters. */
  floodPrintable: 160,
  /** Same character repeated: spaces (deep indentation stays far below this). */
  floodSpace: 256,
  /** Same character repeated: newlines, tabs, carriage returns and other whitespace. */
  floodOtherWhitespace: 64,

  /** Character n-gram length used for match finding and seq-rep. */
  ngram: 8,
  /** Longest loop period looked for, and the ring buffer that holds the tail. */
  maxPeriod: 4000,
  ringSize: 8192,
  /** Periods shorter than this are "short" loops. */
  shortPeriod: 24,
  /** Short loop made of words: at least this many periods and this many characters. */
  shortLoopPeriods: 4,
  shortLoopChars: 48,
  /** Short loop of list items ("ltree, ", "int, ", "| x "): signatures and tables repeat items. */
  shortListPeriods: 8,
  shortListChars: 64,
  /** Short loop whose period is one line ("        pass\n"): code and tables repeat lines more. */
  shortLinePeriods: 6,
  shortLineChars: 64,
  /** Long loop (sentence, paragraph): periods needed. */
  longLoopPeriods: 3,
  /** Long loop of line-structured text shorter than longLineMax (a code or config block). */
  longLinePeriods: 4,
  longLineMax: 80,
  /** Loops of punctuation/digits only ("0, ", "|---", "\x00"): data legitimately does this. */
  structuralLoopChars: 256,
  structuralShortPeriods: 16,
  structuralLongPeriods: 4,
  /** Holtzman et al.'s "more than 50 times" for any period, with a floor in characters. */
  holtzmanPeriods: 50,
  holtzmanChars: 128,

  /** finish_reason "length": a tail loop of period >= shortPeriod needs this many periods and chars ... */
  lengthLoopPeriods: 2,
  lengthLoopChars: 64,
  /** ... but a period of a few lines (shorter than lengthLinesMax) needs more: song refrains double. */
  lengthLinePeriods: 3,
  lengthLinesMax: 200,
  /** ... and a short-period tail loop made of words this many periods (shortLoopChars still apply). */
  lengthShortPeriods: 3,

  /** seq-rep over the tail window: share of character n-grams already seen in the window. */
  seqRepWindow: 1024,
  seqRep: 0.98,

  /**
   * Compression ratio (bytes / zlib bytes) of the tail window, checked at finish only (zlib is too
   * dear for the per-delta path; seq-rep is its streaming stand-in). Whisper uses 2.4 on whole texts.
   */
  compressionWindow: 1024,
  compressionMinChars: 512,
  compression: 8,
  /** Share of letters (among non-space characters) a window needs for the compression rule. */
  compressionProse: 0.5,

  /** Token salad: this many salad events (script clash inside a word, U+FFFD, BPE artefact) ... */
  saladEvents: 6,
  /** ... within this many characters. */
  saladSpan: 200,
  /** Mean logprob over this many tokens below saladLogprob looks like a uniform distribution. */
  saladLogprobTokens: 16,
  saladLogprob: -8,
});
