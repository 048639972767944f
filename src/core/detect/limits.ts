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
  /**
   * A flood cut into pieces (quoted strings of one digit, one per line): at least floodPiecesMin
   * runs of one printable character, 16 or more each, making floodPiecesShare of the answer.
   * Healthy files with rule lines ("-----", "~~~~") stay near half the text with few runs.
   */
  floodPiecesMin: 8,
  floodPiecesShare: 0.6,

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
  /**
   * ... and an answer that ends in this many copies of a unit of 1 to 4 characters that draws no
   * rule, banner, leader or padding ("?", "。", "!, ", an emoji; tailrun.ts).
   */
  lengthTailCopies: 32,

  /**
   * Any other finish: an answer that ends inside a loop of words (the model never got out of it) needs
   * endLoopPeriods periods and endLoopChars characters, and either covers endLoopShare of the answer or
   * repeats endLoopManyPeriods times.
   */
  endLoopPeriods: 3,
  endLoopChars: 24,
  /** ... counting a CJK character as this many characters (a token each, as about four Latin letters are). */
  endLoopCjkWeight: 3,
  endLoopShare: 0.5,
  endLoopManyPeriods: 5,
  /** ... or, for a period of shortPeriod or more, endLoopMostPeriods periods over endLoopMostShare of the answer. */
  endLoopMostPeriods: 2.5,
  endLoopMostShare: 0.75,
  /**
   * The whole answer said twice (Channel.passageTwice, at finish): a period of endLoopWholeChars or
   * more that holds endLoopWholeSentences sentence ends (prose: templated code and data blocks repeat
   * whole), two copies (up to endLoopWholeGap characters of separator short) over endLoopWholeShare
   * of the answer.
   */
  endLoopWholeChars: 100,
  endLoopWholeSentences: 1,
  endLoopWholeGap: 4,
  endLoopWholeShare: 0.95,
  /**
   * A passage of prose said twice back to back anywhere in the answer (the second copy may go on
   * differently): at least passageTwiceChars characters, up to endLoopWholeGap of separator short,
   * a sentence end in it, letters passageTwiceLetters of its visible characters, code symbols at most
   * passageTwiceCode of it, and lines of passageTwiceLine characters on average (a song's chorus
   * sung twice has short lines).
   */
  passageTwiceChars: 64,
  passageTwiceLetters: 0.7,
  passageTwiceCode: 0.02,
  passageTwiceLine: 60,

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
  /**
   * A whole answer shorter than saladLogprobTokens is judged at finish on all its tokens, from this
   * many: sound logits seldom sample even one token below e^-8 (0.03%), a uniform draw over a 32k+
   * vocabulary gives about -10.4 each.
   */
  saladLogprobMinTokens: 4,
  /**
   * nearloop.ts reads a tail only when this share of its last 1024 characters' 8-grams repeat an
   * earlier one (seq-rep): near-copy loops of the tune split keep 0.6 or more, healthy prose stays
   * far below, and most answers skip the word pass.
   */
  nearLoopMinSeqRep: 0.4,
});

/**
 * Thresholds of the word-, line- and marker-level signals (lexical.ts). Shares are of the words
 * in one window (LEX.wordWindow words while streaming, all of a short answer at finish).
 *
 * How they were chosen: from the tuning split of the corpus of real broken and healthy outputs
 * (test/corpus/real), never from its validation split, with the healthy part of the generated
 * corpus (test/corpus/corpus.jsonl) as a check on code, tables, licences and logs.
 */
export const LEX = Object.freeze({
  /** Words in the sliding window (a power of two). */
  wordWindow: 32,
  /** A short answer is judged on all its words at finish from this many words. */
  shortMinWords: 8,
  /** A window reads as prose when at most this share of its gaps hold code-ish symbols. */
  proseMaxCodeGaps: 0.25,
  /** ... and at least this share are the gaps prose has (" ", ", ", ". ", " ("). */
  proseGaps: 0.7,
  /** The mixing rules (scripts, glued pieces) ask less: at most this share of code gaps ... */
  spacedMaxCodeGaps: 0.35,
  /** ... and at least this share of words one space apart. */
  spacedSpaces: 0.45,
  /** Share of words equal to the word before them (only spaces between): stutter. */
  stutterShare: 0.15,
  /** A window whose words span this many lines per word is a list, not running text (the vocabulary rules skip it). */
  listLines: 0.15,
  /** Low type-token ratio in prose: at most this share of distinct words, from ttrMinWords words. */
  ttrMaxShare: 0.28,
  ttrMinWords: 16,
  /** ... checked only when this share of words repeats one of the four before it. */
  ttrNearRepeats: 0.25,
  /** Function-word salad: this share of function words, ... */
  functionOnlyShare: 0.8,
  /** ... when its words start at most this many characters apart on average (gaps included): short words. */
  functionOnlyChars: 4.5,
  /** ... or this share with at most functionSaladDistinct distinct words. */
  functionSaladShare: 0.7,
  functionSaladDistinct: 0.5,
  /** A short answer whose sentences, this many of them after the first, all open with a capital is prose, not function-word salad. */
  wellFormedSentences: 2,
  /** Multilingual salad: share of words whose script cannot follow the previous word's. */
  switchShare: 0.2,
  /** ... among at least this many writing systems in the window (Russian with English terms has two). */
  switchScripts: 3,
  /** ... of which at least this many are not Latin <-> Cyrillic (one text ending and another starting is one). */
  switchRareMin: 3,
  /** BPE salad: share of words glued from pieces (script clash or case turn inside, doubled halves). */
  oddShare: 0.3,
  /** Random vocabulary: almost no function words, and this share of glued or foreign words ... */
  noStopShare: 0.07,
  noStopOdd: 0.1,
  /** ... or words strung together by single spaces (no commas, no lines: not a list). */
  noStopSpaces: 0.8,
  /** An answer of nothing but one character is a flood from this many copies ("GGGGGGGG"). */
  floodWholeChars: 8,
  /** Symbols only: at most this share of letters and digits among symbolsMinChars or more visible characters. */
  symbolsMinChars: 12,
  symbolsMaxShare: 0.15,
  /** The same word this many times in a row (only spaces between) is stutter at any length. */
  sameWordRun: 4,
  /** Letter/digit turns inside one run of letters and digits that make it glued junk (hex aside). */
  tokenTurns: 3,
  /** Words before an inline "Human:" for it to count as a new turn. */
  roleMinWords: 3,
  /** An answer that opens with "Human:" holds a user turn when the label's line has this many words (the label's included) and a function word. */
  openingTurnWords: 3,
  /** A template marker in a sentence is named, not leaked, when this many words follow it on its line. */
  namedMarkerWords: 3,
  /** Answer flood: the most frequent character's share of visible characters at finish, from floodMinChars. */
  floodMinChars: 16,
  floodShare: 0.6,
  /** ... and while streaming, once floodStreamChars copies make floodStreamShare of the answer. */
  floodStreamChars: 48,
  floodStreamShare: 0.95,
  /** A short unit (period <= 8) repeating over this share of the answer, from floodMinChars. */
  unitShare: 0.5,
  /**
   * A unit of 2 to 8 digits ("12341234…") over this share of an answer of at least digitUnitMinChars:
   * digits repeat in data ("0000", "1010" in a table), so only an answer that is nearly all one digit
   * unit counts (the digit runs; a whole answer of one digit is the character flood above).
   */
  digitUnitShare: 0.8,
  digitUnitMinChars: 32,
  /** An answer that ends in this many newlines (blank lines after the text). */
  trailingBlankLines: 8,
  /** Blank answer: whitespace share, from blankMinChars whitespace characters. */
  blankMinChars: 32,
  blankShare: 0.9,
  /** Filler/control tokens in a row that make special-tokens degenerate (one alone is suspect). */
  fillerRun: 3,
  /** ... or that many in all, with text between them, making this share of the answer's characters. */
  fillerShare: 0.3,
  /** UTF-8-read-as-code-page sequences that make mojibake degenerate (one is suspect). */
  mojibakeEvents: 2,
  /** CP1251 needs this many more: Cyrillic text has the most lead/continuation look-alikes. */
  cp1251Extra: 1,
  /** U+FFFD characters that make mojibake degenerate (one is suspect). */
  replacementChars: 2,
  /** List items need this many letters; this many repeating an earlier item of the list make list-cycle. */
  itemMinLetters: 3,
  itemDuplicates: 4,
  /** A bullet item needs this many letters to count ("- Yes" and "- N/A" repeat in real lists). */
  bulletMinLetters: 8,
  /** Numbered items with nothing after the number, this many with no line of words between them. */
  emptyItems: 16,
  /** Prompt echo: the first echoChars of the normalised prompt, when it has echoMinChars. */
  echoChars: 64,
  echoMinChars: 16,
  /** One echo is degenerate when it makes this share of the answer (spaces collapsed). */
  echoShare: 0.6,
});

/**
 * Thresholds of the word-by-word signals (words.ts and the signals it feeds), chosen on the tune
 * split of test/corpus/real with the generated corpus's healthy files as a check.
 */
/** stutter.ts: words said twice, punctuation doubled, a phrase said twice, in short answers. */
export const STUTTER = Object.freeze({
  /** Below this many words one doubled word is stutter (LexicalScanner's windows start at 8 words). */
  shortWords: 8,
  /** ... and up to shortMaxWords, this many doubled words. */
  dupsInShort: 2,
  shortMaxWords: 32,
  /** Punctuation runs (",,,", ";;;" after a word, then a space or the end) that count at any length. */
  punctuationRuns: 2,
  /**
   * A phrase of two or more words said twice back to back covering this share of a short answer:
   * suspect only (as degenerate it raised a false alarm on a healthy real output).
   */
  phraseShare: 0.6,
  phraseMinWords: 5,
  /** Words in the phrase. */
  phraseMinLength: 2,
  phraseMaxWords: 32,
});

/** salad.ts: shares are of the words in one block (64 words, or a short answer at finish). */
export const SALAD = Object.freeze({
  /** An answer of at most this many words with a word glued from pieces is a suspect. */
  shortSuspectWords: 5,
  /** Words a block (or a short answer) needs for the vocabulary and glued-pieces rules. */
  minWords: 12,
  /** A short answer is judged at finish from this many words; a last partial block from tailMinWords. */
  shortMinWords: 8,
  tailMinWords: 32,
  /** Layout: at most this share of gaps with code symbols, and of gaps with a line break. */
  maxCodeGaps: 0.15,
  maxLineGaps: 0.15,
  /** Share of gaps that are one space, for the vocabulary and few-words rules. */
  spaced: 0.7,
  /** Random vocabulary: this share of Latin-only words and at most this share of function words. */
  latinShare: 0.9,
  noStopShare: 0.04,
  /** Words strung together: this many words, almost all one space apart, no punctuation, no line break, few code gaps. */
  bareMinWords: 20,
  bareSpaced: 0.85,
  bareCodeGaps: 0.05,
  /** ... and at most this share of function words (prose has about half; the lists cover 42 languages, so salad hits some). */
  bareStops: 0.3,
  /** A handful of words: at most this share of distinct words, from fewMinWords words. */
  fewMinWords: 48,
  fewDistinct: 0.35,
  /** ... in random order: at least this share of the word pairs differ (templated lines and loops repeat their pairs). */
  fewPairs: 0.6,
  /** One content word: this share of the words and this many copies, from topMinWords words. */
  topMinWords: 10,
  topShare: 0.4,
  topCount: 5,
  topSpaced: 0.4,
  /** Glued words (case turns, letter/digit turns, clashing scripts inside): share, with this share of single spaces. */
  oddShare: 0.2,
  oddSpaced: 0.5,
  /**
   * Random tokens of a code-heavy vocabulary, per block of at least shredMinWords words: this share of
   * distinct words, at most these shares of function words and line breaks, this share of words
   * glued from pieces, and this many distinct symbol runs per gap with symbols.
   */
  shredMinWords: 32,
  shredDistinct: 0.95,
  shredStops: 0.2,
  shredLineGaps: 0.08,
  shredPieces: 0.1,
  shredGapShapes: 0.3,
  /** A whole answer of shredShortMinWords to shredMinWords words: these stricter shares of line breaks, pieces and symbol shapes. */
  shredShortMinWords: 24,
  shredShortLineGaps: 0.05,
  shredShortPieces: 0.15,
  shredShortGapShapes: 0.4,
  /** Letter/digit turns that make one word glued ("i3la90oller"); one is "H200" or "GPT4". */
  digitTurns: 3,
  /** Words with clashing scripts inside in one block. */
  clashWords: 3,
  /** CJK glued to Latin letters: Latin text (this many Latin letters, this many times the CJK ones) ... */
  gluedMinLatin: 40,
  gluedLatinRatio: 5,
  /** ... with this many glued words, or one glued run of this many CJK characters. */
  gluedWords: 2,
  gluedRun: 3,
  /**
   * A word of another script (not Latin, not CJK) glued by a clash inside a word of the answer's
   * script, holding all the answer's letters of that script, from this many letters (one letter is
   * more often a homoglyph typed by a person: "identiсal" with a Cyrillic "с").
   */
  spliceMinLetters: 2,
  /** A long word of one piece repeated: length, distinct letters, four-letter pieces that repeat. */
  loopedWordMin: 16,
  loopedWordLetters: 5,
  loopedWordRepeats: 6,
  /** Lines of stray symbols only (not closers or rules): this share of the answer's lines, from strayMinLines lines. */
  strayMinLines: 8,
  strayShare: 0.6,
  /** Looped words that count in a long answer (one is enough in a short one). */
  loopedWords: 2,
  /**
   * Sliding run: runWords words one space apart (digits aside) with at most runStops function
   * words and at least runOdd glued from pieces (case turns; letter/digit turns in words of
   * runOddLetters letters or more). Prose has a function word every few words.
   */
  runWords: 16,
  runStops: 1,
  runOdd: 2,
  runOddLetters: 4,
});

/**
 * head.ts: finish-time rules over the head of the answer (its first `chars` code units; the rules
 * that judge shares of the answer only when the whole answer fits).
 */
export const HEAD = Object.freeze({
  chars: 4096,
  /** One letter repeated: from letterRunMin copies, letterRun copies anywhere or letterRunShare of the answer's visible characters. */
  letterRunMin: 12,
  letterRun: 24,
  letterRunShare: 0.15,
  /** Sentence marks in a row (",..,.,,,"): markRunMin of them switching mark markRunTurns times (an ellipsis or a dot leader never switches). */
  markRunMin: 24,
  markRunTurns: 8,
  /** Lines of one sentence mark alone: this many, and this share of the answer's non-blank lines. */
  loneMarkLines: 3,
  loneMarkShare: 0.34,
  /** Closing brackets that close nothing: this many, and this share of the brackets. */
  closers: 5,
  closersShare: 0.5,
});

/**
 * pieces.ts: finish-time rules over the head's pieces (runs between whitespace), chosen on the tune
 * split of test/corpus/real (glued sentences from a sentencepiece detokenizer that dropped its
 * spaces; a salad of symbols after a sound first line; answers of symbol pieces) with the generated
 * corpus's healthy files (code, tables, man pages, JSON) as a check: each sits halfway between the
 * first setting that caught the tune outputs and the loosest one that raised no false alarm on
 * either corpus (symbol pieces: 12 characters, 5 symbols, a 20% share already flag 9 healthy files;
 * glued words: 13-letter runs over 25% of the letters still flag none).
 */
export const PIECES = Object.freeze({
  /** Glued words: a Latin letter run of this many letters is longer than words are ... */
  gluedRunLetters: 16,
  /** ... and such runs hold this many letters and this share of the answer's Latin letters. */
  gluedMinLetters: 20,
  gluedShare: 0.4,
  /** A piece holds a word when it has this many letters in a row. */
  junkWordLetters: 3,
  /** Pieces shorter than this are not judged (an emoticon, "+=", "->"). */
  junkMinChars: 3,
  /** One piece of symbols and digits this long, with this many different symbols and at most this share of letters. */
  junkPieceChars: 20,
  junkPieceSymbols: 7,
  junkLetterShare: 0.25,
  /**
   * A piece of capitals, digits and symbols without a lower-case letter: this long, with this many
   * different symbols, letters at most this share (symbol salad sampled from an ASCII range).
   */
  capitalJunkChars: 128,
  capitalJunkSymbols: 16,
  capitalJunkLetterShare: 0.5,
  /** Many pieces: this many characters, this share of the answer's visible ones, this many different symbols. */
  junkMinTotal: 40,
  junkShare: 0.35,
  junkSymbols: 9,
});

/** controlChars.ts: stray C0 control characters (not tab, LF, VT, FF, CR, ESC) that make an answer degenerate. */
export const CONTROLS = Object.freeze({
  degenerate: 2,
});

/** tokenMarks.ts: words that start right after a tokenizer's space mark ("▁", "Ġ", "Ċ"): this many, and this share of the words. */
export const TOKEN_MARKS = Object.freeze({
  min: 3,
  share: 0.5,
});

/** listrun.ts: one content word of this many letters repeated this many times with list punctuation between ("Odin, Odin, …"). */
export const LISTRUN = Object.freeze({
  minLetters: 3,
  copies: 6,
});

/** template.ts: a bare lower-case role line after this many words of answer. */
export const TEMPLATE = Object.freeze({
  roleLineMinWords: 3,
  /** A role name glued to a sentence's end counts from this many words on its line (itself included). */
  gluedRoleLineWords: 4,
});

/** linecycle.ts: lines of at least minLetters letters that repeat as a cycle of 2 to maxPeriod lines, cycles times. */
export const LINECYCLE = Object.freeze({
  maxPeriod: 8,
  cycles: 3,
  minLetters: 4,
  /** The same numbered item this many times in a row, with at least sameItemWords words after its number. */
  sameItems: 4,
  sameItemWords: 4,
});

/** nearloop.ts: a loop whose copies differ a little, read as words over the tail at finish. */
export const NEAR_LOOP = Object.freeze({
  minChars: 64,
  minWords: 12,
  /** Periods of 2 to maxPeriodWords words; the candidates most words' last occurrences point at, each from minVotes of the words. */
  minPeriodWords: 2,
  maxPeriodWords: 600,
  candidates: 4,
  minVotes: 0.25,
  /** Each period has periodShare of its words equal to the word a period or two before; the loop as a whole, share. */
  periodShare: 0.6,
  share: 0.8,
  /** ... and atPeriodShare of each period's words equal the word one period before. */
  atPeriodShare: 0.5,
  /** At least this many copies (the first included), covering this share of the text read. */
  copies: 3,
  minCover: 0.5,
  /** Prose: code symbols at most maxCodeShare of the characters, letters minLetterShare of the visible ones, a sentence or line end per wordsPerEnd words. */
  maxCodeShare: 0.01,
  minLetterShare: 0.6,
  wordsPerEnd: 40,
});

/** closing.ts: words after a chat turn's closing offer ("How can I help you today?") that make a runaway turn. */
export const CLOSING = Object.freeze({
  wordsAfter: 60,
});

/** dropped.ts: determiners with the noun gone that make dropped-words degenerate (one is suspect); counting with gaps. */
export const DROPPED = Object.freeze({
  determiners: 2,
  /** A counting run has this many numbers, this share of its steps counting up by one ... */
  countNumbers: 20,
  countPlainShare: 0.7,
  /** ... and a skip drops at most this many numbers. Two skipped or glued steps are degenerate, one suspect. */
  countSkipMax: 4,
  countGaps: 2,
});

/** detok.ts: contractions with a space inside that count at any length; one counts below shortWords words. */
export const DETOK = Object.freeze({
  events: 2,
  shortWords: 16,
  /** Suffixes standing alone ("design ing") that make an answer degenerate; fewer are a suspect unless its commas stand alone too (" , "). */
  suffixPieces: 3,
  /**
   * Chinese or Japanese characters one by one between spaces: runs of spacedRun or more count, and
   * spacedMin such characters that make spacedShare of the answer's CJK characters are degenerate
   * (a list of single characters, "一 二 三", is one short run in a longer answer).
   */
  spacedRun: 6,
  spacedMin: 12,
  spacedShare: 0.3,
});

/**
 * sentences.ts: the same sentence said again, not back to back (a model cycling between a few
 * sentences, or a paragraph coming back with new ones around it). A sentence counts from minChars
 * characters and minWords words (or minWide wide letters: CJK has no spaces), letters at least
 * minLetterShare of its visible characters, no code symbol in it. A suspect when one sentence
 * comes `copies` times or `sentences` sentences come twice, the repeats (copies after the first)
 * cover minShare of the answer, and the answer's code symbols stay under maxCodeShare (docs and
 * code repeat their boilerplate lines).
 */
export const SENTENCES = Object.freeze({
  minChars: 24,
  minWords: 5,
  minWide: 12,
  minLetterShare: 0.7,
  copies: 3,
  sentences: 2,
  minShare: 0.15,
  maxCodeShare: 0.01,
  /** Sentences remembered (a fixed table); later ones are not counted. */
  table: 512,
});

/**
 * garbled.ts: English prose whose words no English dictionary has ("specical", "brised",
 * "extapters"). A block of at least minChecked checked words (lower-case ASCII words of minLetters
 * to maxLetters letters, outside code, with no code symbol beside them) is English prose when
 * English function words make minEnglishShare of its Latin-script words; it is garbled when words
 * in no dictionary (nor any stopword list) make minUnknownShare of the checked words, at least
 * minDistinct different ones and distinctShare of them different (prose about one tool names the
 * same jargon again and again). Blocks end every `block` checked words, and at finish.
 */
export const GARBLED = Object.freeze({
  minLetters: 3,
  maxLetters: 24,
  minChecked: 20,
  minEnglishShare: 0.3,
  /** ... and English function words at least this many times those of other languages only ... */
  englishOverForeign: 3,
  /** ... and at most this share of its words after a code symbol (code outside fences names its identifiers). */
  maxCodeShare: 0.15,
  minUnknownShare: 0.2,
  minDistinct: 8,
  distinctShare: 0.8,
  /** Words run together ("ofthe", "nowlet"): distinct ones in a block of English prose, and their share of its checked words. */
  minGlued: 4,
  gluedShare: 0.05,
  /**
   * Function words hidden in words run together ("rangeof") count as the function words and words
   * they are when the block's distinct words run together make this share of its checked words.
   */
  hiddenShare: 0.2,
  /** ... and both need words run together with this many different function words (a family of names, "onclick", "onload", has one). */
  minGluedStops: 3,
  block: 256,
});
