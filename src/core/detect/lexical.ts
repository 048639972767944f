/**
 * Word-, line- and marker-level evidence for one text stream, fed the same pieces as Channel.
 *
 * Channel sees characters (runs, loops, n-grams); this scanner sees what those miss in real
 * broken answers: words doubled or in random order, scripts switching from word to word,
 * chat-template markers and filler tokens, role turns after the answer, UTF-8 read in the wrong
 * code page, lines that cycle with only their numbers changing, and a mostly-one-character
 * answer too short for Channel's absolute thresholds.
 *
 * Bounded: fixed rings of the last WINDOW words and ITEM_RING list items, a marker buffer of at
 * most MARKER_MAX code units, counters. Per character the hot path is one class lookup; an ASCII
 * word's letters come hashed from WordScanner's LetterRuns for the same piece (or a hash step per
 * letter without them); the rest runs once per word, line or marker.
 *
 * Words are hand-tokenised on purpose: a segmenter (Intl.Segmenter) allocates a segment object
 * per word and cannot be fed a stream in pieces, and this scan needs neither its dictionary-based
 * CJK splitting nor anything beyond "letters between non-letters".
 */
import { BYTE_ALPHABET, SHIFTED_FIRST, SHIFTED_LAST } from './byteAlphabet';
import { CodeSpans } from './codeSpans';
import * as stopwords from './stopwords';
import { LEX as LIMITS_LEX, LIMITS } from './limits';
import * as scripts from './script';
import type { ReasonCode, ReasonKind } from './types';
import { FNV_BASIS, FNV_PRIME, lowerUnit, wordHash } from './wordHash';
import { RUN_FIELDS, type LetterRuns } from './words';

// Module-level copies: imported bindings compile to getter calls under some loaders (tsx, the
// bench and the tests), which costs more than the scan itself on the per-character path.
const LEX = LIMITS_LEX;
const L_floodStreamChars = LIMITS_LEX.floodStreamChars;
const L_saladEvents = LIMITS.saladEvents;
const L_saladSpan = LIMITS.saladSpan;
const scriptOf = scripts.scriptOf;
const incompatibleScripts = scripts.incompatibleScripts;
const endsSentence = scripts.endsSentence;
const SCRIPT_CJK = scripts.SCRIPT_CJK;
const SCRIPT_CYRILLIC = scripts.SCRIPT_CYRILLIC;
const SCRIPT_HANGUL = scripts.SCRIPT_HANGUL;
const SCRIPT_INHERIT = scripts.SCRIPT_INHERIT;
const SCRIPT_LATIN = scripts.SCRIPT_LATIN;
const SCRIPT_NONE = scripts.SCRIPT_NONE;

export type LexSink = (code: ReasonCode, offset: number, detail: string, kind: ReasonKind) => void;

const WINDOW = LEX.wordWindow;
const WMASK = WINDOW - 1;
const ITEM_RING = 64;
const IMASK = ITEM_RING - 1;
export const MARKER_MAX = 48;
const FNV = FNV_BASIS;
/** Character statistics (answer-flood, symbols only, blank) cover the first FLOOD_SPAN characters. */
const FLOOD_SPAN = 4096;
const FNV_P = FNV_PRIME;
const lower = lowerUnit;
const STOPWORDS = stopwords.STOPWORDS;

/** SPREAD[x]: the five bits of x moved to six-bit lanes, so that adding it counts each bit. */
const SPREAD = Int32Array.from({ length: 32 }, (_, x) => {
  let v = 0;
  for (let b = 0; b < 5; b++) if (x & (1 << b)) v |= 1 << (6 * b);
  return v;
});

/** Per-word flags kept in the window ring. */
const F_REPEAT = 1; // same word as the previous one, only spaces between
const F_STOP = 2; // a function word (stopword) of one of the listed languages
const F_CODEGAP = 4; // the gap before it holds code-ish symbols (= { } < > / \ | _ * # ` @ $ ...)
const F_SWITCH = 8; // its script cannot share a text with the previous word's (Latin/Cyrillic/Thai/...)
const F_ODD = 16; // odd inside: a script clash, a lower->UPPER turn after two lower-case letters, a doubled half
const F_LISTED = 32; // Latin or Cyrillic: a script whose languages have stopword lists here
const F_SPACE = 64; // the gap before it is exactly one space
const F_RARE_SWITCH = 256; // a switch other than Latin <-> Cyrillic (which Russian technical text does all the time)
const F_PROSE = 128;
const F_NEAR = 512; // the same word as one of the four before it // the gap before it is what prose puts between words: " ", ", ", ". ", " (" ...

// Character classes for ASCII.
const C_SPACE = 1;
const C_NEWLINE = 2;
const C_PROSE = 3; // , . ; : ! ? ' " ( ) - and digits: prose punctuation
const C_CODE = 4; // symbols that mark code, markup or data
const C_LETTER = 5;
/** The values LexicalScanner.scan spells out (V8 reads module constants from the context at every use). */
if (FNV !== -0x7ee3623b || FNV_P !== 0x01000193 || C_LETTER !== 5 || RUN_FIELDS !== 4) {
  throw new Error('LexicalScanner.scan spells FNV_BASIS, FNV_PRIME, C_LETTER or RUN_FIELDS out of step');
}
const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if (c === 32 || c === 9) ASCII_CLASS[c] = C_SPACE;
  else if (c === 10 || c === 13 || c === 11 || c === 12) ASCII_CLASS[c] = C_NEWLINE;
  else if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) ASCII_CLASS[c] = C_LETTER;
  else if ((c >= 48 && c <= 57) || ',.;:!?\'"()-'.includes(String.fromCharCode(c))) ASCII_CLASS[c] = C_PROSE;
  else ASCII_CLASS[c] = C_CODE;
}

function isUpper(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 0xc0 && c <= 0xde && c !== 0xd7) || (c >= 0x400 && c <= 0x42f);
}

function isLower(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 0xdf && c <= 0xff && c !== 0xf7) || (c >= 0x430 && c <= 0x45f);
}

/** Role classes in ROLE_TABLE. */
const W_USER = 2;
const W_OTHER_ROLE = 4;

/** Open-addressing table of word hashes -> W_* bits: one typed-array probe per word instead of a Map look-up. */
class WordTable {
  private readonly keys: Int32Array;
  private readonly vals: Uint8Array;
  private readonly mask: number;

  constructor(entries: ReadonlyMap<number, number>) {
    let size = 1;
    while (size < entries.size * 4) size <<= 1;
    this.keys = new Int32Array(size);
    this.vals = new Uint8Array(size);
    this.mask = size - 1;
    for (const [h, v] of entries) {
      let slot = this.slot(h);
      while (this.vals[slot] !== 0 && this.keys[slot] !== h) slot = (slot + 1) & this.mask;
      this.keys[slot] = h;
      this.vals[slot] |= v;
    }
  }

  private slot(h: number): number {
    return (Math.imul(h, 0x9e3779b1) >>> 0) & this.mask;
  }

  get(h: number): number {
    let slot = this.slot(h);
    for (;;) {
      const v = this.vals[slot];
      if (v === 0) return 0;
      if (this.keys[slot] === h) return v;
      slot = (slot + 1) & this.mask;
    }
  }
}

/** The items of one list (numbered or bulleted), as hashes in a ring, and how many came back. */
class ListItems {
  private readonly hashes = new Int32Array(ITEM_RING);
  private count = 0;
  duplicates = 0;
  /** Offset of the first item that repeated an earlier one. */
  firstDuplicate = -1;

  /** A new list starts. */
  reset(): void {
    this.count = 0;
    this.duplicates = 0;
  }

  /** Adds an item at offset at; true once LEX.itemDuplicates items have repeated an earlier item of the list. */
  add(h: number, at: number): boolean {
    let repeats = false;
    for (let k = 1, n = Math.min(this.count, ITEM_RING); k <= n && !repeats; k++) repeats = this.hashes[(this.count - k) & IMASK] === h;
    if (repeats && this.duplicates++ === 0) this.firstDuplicate = at;
    this.hashes[this.count & IMASK] = h;
    this.count++;
    return repeats && this.duplicates === LEX.itemDuplicates;
  }
}

/** Chat-template markers: an answer never contains one unless the server failed to stop or strip. */
// The names are those of the chat templates of common model families (Qwen/ChatML, Llama 3 and 4,
// Gemma, Mistral, Phi, DeepSeek with full-width or ASCII bars, Command R, Granite 3, MiniCPM, Kimi K2,
// Seed-OSS, GLM-4), and the document separators of code models (StarCoder's <file_sep>, Qwen2.5-Coder's
// <|file_sep|>): a completion that crosses one has run past the end of its file into another.
const END_MARKER =
  /^(?:<\|(?:im_end|eot_id|eom_id|eot|eom|EOT|endoftext|end_of_text|end|return|endofprompt|END_OF_TURN_TOKEN|file_sep)\|>|<file_sep>|<\/s>|<\/?end_of_turn>|<eos>|<EOS_TOKEN>|<seed:eos>|<[｜|]end▁of▁sentence[｜|]>|\[\/INST\])$/;
const START_MARKER =
  /^(?:<\|(?:im_start|start_header_id|end_header_id|header_start|header_end|begin_of_text|user|assistant|system|im_sep|prompter|START_OF_TURN_TOKEN|USER_TOKEN|CHATBOT_TOKEN|SYSTEM_TOKEN|start_of_role|end_of_role|im_user|im_assistant|im_system|im_middle|observation)\|>|<start_of_turn>|<[｜|](?:User|Assistant|begin▁of▁sentence)[｜|]>|<用户>|<seed:bos>|\[INST\]|<\|repo_name\|>|<(?:gh_stars|issue_start|jupyter_start|commit_before)>)$/;
/**
 * Start-of-sequence markers. One that opens the answer is the tokenizer's own mark, shown by a
 * client that prints special tokens (as a leading "<s>" is), not a new turn: a suspect alone.
 */
const SEQUENCE_START = /^(?:<\|(?:begin_of_text|startoftext)\|>|<bos>|<BOS_TOKEN>|<seed:bos>|<[｜|]begin▁of▁sentence[｜|]>)$/;
/**
 * Filler and control tokens (Cohere's, Command R and Aya, in capitals: <PAD>, <MASK_TOKEN>;
 * MiniCPM's <reserved_N>),
 * fill-in-the-middle markers (Qwen, StarCoder, DeepSeek: a completion answer never holds one), and
 * byte tokens the detokenizer failed to merge.
 */
const FILLER =
  /^(?:<(?:UNK|PAD|CLS|SEP|MASK_TOKEN|EOP_TOKEN)>|<(?:unk|pad|mask|s|unused\d+|extra_id_\d+|mask_\d+|reserved_\d+|0x[0-9A-Fa-f]{2}|\|reserved_special_token_\d+\||\|reserved_\d+\||\|(?:pad|fim_pad|vision_pad|image_pad|video_pad|finetune_right_pad_id|fim_prefix|fim_middle|fim_suffix)\||fim_(?:prefix|middle|suffix|pad)|[｜|]fim▁(?:begin|hole|end)[｜|])>|\[(?:PAD|UNK|CLS|SEP|MASK|control_\d+|unused\d+|UNK_BYTE_0x[0-9A-Fa-f]+[^\]]*)\])$/;

/** A prompt that asks for a dialogue, a script or a role play: its answer may open with a user's label. */
const ASKS_DIALOGUE = /dialog|conversation|transcript|script|role[- ]?play|interview|exchange|chat ?log|scene|roles?\b|turns?\b|human:|user:/i;

/** Role names that open a turn: "User:", "Human:", "### Instruction:", or the word alone on a line. */
const USER_ROLES = ['user', 'human', 'instruction', 'you', '用户', '人类'];
const OTHER_ROLES = ['assistant', 'system', 'gpt', 'question', '助手', '系统'];

const ROLE_NAMES = new Map([...USER_ROLES, ...OTHER_ROLES].map((w) => [wordHash(w), w[0].toUpperCase() + w.slice(1)]));
/** The assistant's own names among them: a second turn under one is the model talking on by itself ("Question:" twice can be a quiz). */
const ASSISTANT_ROLES = new Set(['assistant', 'gpt', '助手'].map(wordHash));

/** The role names' table: a few entries, so it stays in the cache (stopwords are STOPWORDS'). */
const ROLE_TABLE = (() => {
  const m = new Map<number, number>();
  const put = (h: number, v: number): void => void m.set(h, (m.get(h) ?? 0) | v);
  for (const w of USER_ROLES) put(wordHash(w), W_USER);
  for (const w of OTHER_ROLES) put(wordHash(w), W_OTHER_ROLE);
  return new WordTable(m);
})();

/** Byte value of a code unit in CP1252 (Latin-1 where CP1252 has a hole) and CP1251; 0 = none. */
function codePageTable(label: string, latin1Holes: boolean): Uint8Array {
  const table = new Uint8Array(0x2200);
  const dec = new TextDecoder(label);
  for (let b = 0x80; b <= 0xff; b++) {
    const ch = dec.decode(Uint8Array.of(b)).charCodeAt(0);
    if (ch < table.length && ch !== 0xfffd) table[ch] = b;
    if (latin1Holes && b < 0xa0 && table[b] === 0) table[b] = b;
  }
  return table;
}
const CP1252 = codePageTable('windows-1252', true);
/** GBK's curly quotes and dashes are A1 xx: read as Latin-1 they show as "¡¯", "¡°", "¡±". */
const GBK_LEAD = 0xa1;
const CP1251 = codePageTable('windows-1251', false);
/** Bytes 0x80 and up of GPT-2's byte alphabet, by character (byteAlphabet.ts). */
const BYTE_ALPHABET_TABLE = (() => {
  const table = new Uint8Array(0x2200);
  for (let b = 0x80; b <= 0xff; b++) table[BYTE_ALPHABET[b].charCodeAt(0)] = b;
  return table;
})();

/** Follows one code page's bytes through UTF-8's lead/continuation grammar. */
class Utf8Misread {
  private need = 0;
  private got = 0;
  private start = 0;
  events = 0;
  firstAt = -1;
  sample = '';
  private pending = '';

  /**
   * page: what the bytes were read as, for the reason. partial: a lead byte and at least one
   * continuation byte count, complete or not (a lost third byte is common: "ç§" for 私). Only for
   * CP1252, where a lead next to a continuation never happens in real text; in CP1251 every
   * Cyrillic letter is a lead and Ukrainian і/ї/є are continuations, so only complete sequences
   * count there. byteAlphabet (BYTE_ALPHABET_TABLE): only complete three-byte sequences (CJK,
   * curly quotes) holding a shifted character count; two-byte ones are everyday Turkish and Polish
   * there ("Çı", "ół").
   */
  constructor(
    readonly page: string,
    private readonly table: Uint8Array,
    private readonly partial: boolean,
    private readonly minRun = 1,
    private readonly byteAlphabet = false,
  ) {}

  private shifted = false;
  private run = 0;
  private lastEnd = -2;

  /**
   * minRun > 1 (CP1251): only D0/D1 leads, the two that start every Cyrillic letter in UTF-8, and
   * only back-to-back sequences count, minRun at least ("РїСЂРёРІРµС‚" is five): Ukrainian "дії"
   * or "РІ" in capitals are one sequence alone.
   */
  private event(): void {
    if (this.byteAlphabet && !this.shifted) return;
    if (this.minRun > 1) {
      this.run = this.start === this.lastEnd + 1 ? this.run + 1 : 1;
      this.lastEnd = this.start + this.pending.length - 1;
      if (this.run < this.minRun) return;
      if (this.run > this.minRun) {
        this.events++;
        return;
      }
      this.events += this.minRun - 1;
    }
    if (this.events === 0) {
      this.firstAt = this.start;
      this.sample = this.pending;
    }
    this.events++;
  }

  reset(): void {
    if (this.partial && this.need > 0 && this.got > 0) this.event();
    this.need = 0;
  }

  step(c: number, pos: number): void {
    const b = c < this.table.length ? this.table[c] : 0;
    if (this.need > 0) {
      if (b >= 0x80 && b <= 0xbf) {
        this.pending += String.fromCharCode(c);
        this.got++;
        if (c >= SHIFTED_FIRST && c <= SHIFTED_LAST) this.shifted = true;
        if (--this.need === 0) this.event();
        return;
      }
      if (this.partial && this.got > 0) this.event();
      this.need = 0;
    }
    if (this.minRun > 1 ? b === 0xd0 || b === 0xd1 : this.byteAlphabet ? b >= 0xe0 && b <= 0xef : b >= 0xc2 && b <= 0xf4) {
      this.need = b < 0xe0 ? 1 : b < 0xf0 ? 2 : 3;
      this.got = 0;
      this.shifted = false;
      this.start = pos;
      this.pending = String.fromCharCode(c);
    }
  }
}

export class LexicalScanner {
  private pos = 0;
  private readonly flagged = new Set<ReasonCode>();
  /** Whether the streaming answer-flood check can still change its mind. */
  private floodLive = true;

  // Current word.
  private wLen = 0;
  private wHash = FNV;
  private wStart = 0;
  private wScript = 0;
  private wLowerRun = 0;
  private wOdd = false;

  private wFirst = 0;
  private sameRun = 0;
  /** Single letters joined by hyphens so far, this one included ("r-a-s" is 3). */
  private hyphenLetters = 0;
  private sameRunStart = 0;
  /** The current word is made of a-f only ("ffff", "dead"): in hex dumps such words repeat. */
  private wHex = true;
  private lastRole = 0;
  private lastRoleAt = 0;
  /** The last line with words ended with a colon; the first role line came right after such a line. */
  private lineIntroduces = false;
  private dialogueExample = false;
  /** Offset of the first assistant label ("Assistant:") that started a turn inside the answer, or -1. */
  private firstAssistantTurn = -1;
  /** The last role name was its line's first word. */
  private lastRoleOpensLine = false;
  private lastRoleCapital = false;
  private lastRoleHash = 0;

  // Current run of letters and digits.
  private tokKind = 0; // 0 none, 1 letter, 2 digit
  private tokTurns = 0;
  private tokHex = true;

  // Gap since the previous word.
  private gapSpacesOnly = true;
  private gapLast = 0;
  private gapCode = false;
  private gapLen = 0;
  private gapFirst = 0;
  /** The gap's last character other than whitespace is a colon ("…(in French):", "**Note**:"). */
  private gapColon = false;

  // Word window.
  private words = 0;
  private readonly wFlags = new Uint16Array(WINDOW);
  private readonly wHashes = new Int32Array(WINDOW);
  private readonly wScripts = new Uint8Array(WINDOW);
  private readonly wStarts = new Float64Array(WINDOW);
  /** The line each word of the window is on (lines counted from the answer's start). */
  private readonly wLines = new Int32Array(WINDOW);
  private lineNo = 0;
  private sumsLow = 0;
  private sumsHigh = 0;
  private prevHash = 0;
  /** Whether the previous word starts with a capital. */
  private prevUpper = false;
  /** The previous word follows a "-" or "_": an option or identifier, whose metavar may repeat it. */
  private prevOption = false;
  private prevScript = 0;
  private prevPrevScript = 0;
  private prevWordStart = 0;
  private spliced = -1;

  // Lines.
  private lineWords = 0;
  private lineHash = FNV;
  private lineLetters = 0;
  private lineFirstWord = 0;
  private lineFirstGap = 0;
  /** The line's first word does not start the line. */
  private lineIndented = false;
  /** A gap inside the line held code symbols: code and data lines repeat legitimately. */
  private lineCode = false;
  private lineStart = 0;
  private lineLead = true;
  private readonly code = new CodeSpans();
  /** Numbered list items ("12. x") of the current list: hashes with the enumerator left out, other digits in. */
  private readonly numberedItems = new ListItems();
  /** Where the line is in its enumerator: 0 leading spaces, 1 digits, 2 after "." or ")" or a bullet, 3 item text, 4 not an item. */
  private enumState = 0;
  /** The enumerator's number, and the last item's: a number that does not go up starts a new list. */
  private enumValue = 0;
  private lastItemNumber = 0;
  /** The line's enumerator is a bullet ("- ", "* ", "+ ", "• "), and whether it starts the line. */
  private enumBullet = false;
  private bulletTopLevel = false;
  /** Top-level bullet items since the last line of other text. */
  private readonly bulletItems = new ListItems();
  /** Numbered items with nothing after the number since the last line of words, and where the run began. */
  private emptyItems = 0;
  private emptyItemsStart = 0;
  private wordsBeforeLine = 0;
  /** Words after a sentence's end and a space: capitalised, and lower-case. */
  private sentenceCaps = 0;
  private sentenceLowers = 0;
  private newlinesAfterText = 0;
  /** Newlines since the last visible character: an answer that ends in a flood of blank lines. */
  private trailingNewlines = 0;

  // Markers.
  /** Code units of the open marker, from its "<" or "["; 0 when none is open (a string per unit cost more than the scan). */
  private markerLen = 0;
  private readonly markerUnits = new Uint16Array(MARKER_MAX + 1);
  private markerStart = 0;
  /** The open marker stands in a sentence: a space or a quote before it, words and no marker before it on its line. */
  private markerInSentence = false;
  /** The marker follows a sentence's end mark and a space ("… today? <|im_end|>"). */
  private markerAfterSentence = false;
  /** A template marker in a sentence, judged when its line ends: prose after it means it is named, not leaked. */
  private named: { text: string; at: number; wordsAt: number } | null = null;
  private fillerRun = 0;
  private fillerRunStart = 0;
  private fillers = 0;
  private fillerChars = 0;
  private firstFiller = -1;
  private firstFillerText = '';
  private byteRun = 0;
  private textSinceMarker = false;
  /** The first end-of-turn marker, and whether answer text came before it. */
  private endMarker: { text: string; at: number; after: boolean } | null = null;
  /** End-of-turn markers in a row (only spaces or other markers between), and where the run starts. */
  private endRun = 0;
  private endRunStart = 0;

  // Characters.
  private readonly counts = new Int32Array(128);
  private readonly firstAt = new Float64Array(128);
  private top = 0;
  private nonWs = 0;
  private ws = 0;
  private firstNonWs = -1;
  private thinkTagChars = 0;
  private fffd = 0;
  private firstFffd = -1;
  private readonly cp1252 = new Utf8Misread('CP1252/Latin-1', CP1252, true);
  private readonly cp1251 = new Utf8Misread('CP1251', CP1251, false, 3);
  private readonly byteLevel = new Utf8Misread("GPT-2's byte alphabet (byte-level BPE pieces not mapped back)", BYTE_ALPHABET_TABLE, false, 1, true);
  /** The last non-ASCII character (GBK pairs, "âĢ"). */
  private prevWide = 0;
  /** Letters right after a backslash are an escape (roff "\\fI", C "\\n"), not part of a word's script. */
  private afterBackslash = false;
  /** The first run of the piece's LetterRuns that may still start at or after the scan's position. */
  private runAt = 0;
  private readonly saladRing = new Float64Array(L_saladEvents);
  private saladCount = 0;
  private gbk = 0;
  private firstGbk = -1;
  private unknownPieces = 0;
  private letterOrDigit = 0;
  private misreadArmed = false;

  // Prompt echo (KMP over the whitespace-collapsed, lower-cased text).
  private readonly echo: string | null;
  private readonly echoFail: Int32Array | null;
  private echoK = 0;
  private echoLastSpace = true;
  private echoes = 0;
  /** Characters fed to the echo matcher (whitespace runs as one), and how far the answer is the prompt's opening. */
  private echoSeen = 0;
  private echoPrefix = 0;
  private echoPrefixOk = true;
  private firstEcho = -1;

  /** Token 0's text when it is one character (the NaN signature); -1 otherwise. */
  private readonly token0: number;
  /** A prompt was given, and it does not ask for a dialogue: an answer that opens with a user turn did not answer it. */
  private readonly promptWantsAnswer: boolean;
  /** The answer's first word is a user's label ("Human:"): its offset until its line ends, else -1. */
  private openingTurnAt = -1;
  /** Function words on that line after the label: a turn says a sentence, a field ("User: admin") a value. */
  private openingTurnStops = 0;

  constructor(
    private readonly sink: LexSink,
    prompt?: string,
    token0Text = '!',
  ) {
    this.token0 = token0Text.length === 1 ? token0Text.charCodeAt(0) : -1;
    this.promptWantsAnswer = typeof prompt === 'string' && prompt.trim().length > 0 && !ASKS_DIALOGUE.test(prompt);
    const norm = typeof prompt === 'string' ? normalisePrompt(prompt).slice(0, LEX.echoChars) : '';
    if (norm.length >= LEX.echoMinChars) {
      this.echo = norm;
      this.echoFail = kmpTable(norm);
    } else {
      this.echo = null;
      this.echoFail = null;
    }
  }

  private flag(code: ReasonCode, offset: number, detail: string, kind: ReasonKind = 'degenerate'): void {
    if (kind !== 'suspect') {
      if (this.flagged.has(code)) return;
      this.flagged.add(code);
    }
    this.sink(code, Math.max(0, offset), detail, kind);
  }

  /**
   * Scan the first n code units of u (a piece of the text, decoded once for every scanner). runs:
   * the letter runs a WordScanner found in the same piece, which the fast path takes whole.
   */
  feed(u: Uint16Array, n: number, runs: LetterRuns | null = null): void {
    if (n === 0) return;
    this.runAt = 0;
    // Its own pass, so that a probe with a prompt keeps the fast path below.
    if (this.echo !== null) for (let i = 0; i < n; i++) this.echoStep(u[i], this.pos + i);
    let i = 0;
    // The first FLOOD_SPAN characters go in steps of 16 that end at fixed offsets: there the
    // streaming answer-flood check sees the counts of exactly the characters before it, however
    // the text was split.
    while (i < n && this.pos < FLOOD_SPAN) {
      const to = Math.min(n, i + 16 - (this.pos & 15));
      this.countChars(u, i, to);
      this.scan(u, i, to, runs);
      i = to;
      if ((this.pos & 15) === 0 && this.floodLive && this.nonWs >= L_floodStreamChars) this.streamFlood();
    }
    if (i < n) this.scan(u, i, n, runs);
  }

  private scan(s: Uint16Array, from: number, to: number, runs: LetterRuns | null): void {
    let pos = this.pos + 0;
    // The fast path: an ASCII letter that continues a Latin word, outside markers, escapes and
    // code-page tracking. Only the position and `fast` live in locals across the loop: the word's
    // state stays in its fields (a loop that carried it too spilled it at every character), and a
    // word's letters are taken whole from `runs` or in an inner loop that holds them in locals.
    let fast = this.fastAllowed() ? 1 : 0;
    // A local: V8 reads a module constant from the context, with a check, at every use.
    const classOf = ASCII_CLASS;
    for (let i = from; i < to; i++, pos++) {
      const c = s[i];
      const lc = c | 32;
      // An ASCII letter by arithmetic: cheaper than the class table, which V8 reads through the
      // module context with a map and bounds check.
      if (lc - 97 < 26 && lc >= 97 && fast !== 0 && (this.wLen === 0 || this.wScript === SCRIPT_LATIN)) {
        // C_LETTER
        if (this.wLen === 0) {
          this.startAsciiWord(pos, c);
          // The word's letters as WordScanner hashed them, when it found the same run here.
          const r = runs !== null ? this.runFrom(runs, i, to) : -1;
          if (r >= 0) {
            const all = runs!.runs;
            const end = all[r + 1];
            const bits = all[r + 3];
            this.wHash = all[r + 2];
            this.wLowerRun = bits >> 2;
            this.wOdd = (bits & 1) !== 0;
            this.wHex = (bits & 2) !== 0;
            this.wLen = end - i;
            pos += end - i - 1;
            i = end - 1;
            continue;
          }
          this.wHash = -0x7ee3623b; // FNV_BASIS
          this.wLowerRun = 0;
          this.wOdd = false;
          this.wHex = true;
        }
        // The word's letters from here in a loop of their own, its state in locals.
        let wHash = this.wHash;
        let wLowerRun = this.wLowerRun;
        let wOdd = this.wOdd ? 1 : 0;
        let wHex = this.wHex ? 1 : 0;
        let k = i;
        while (k < to) {
          const d = s[k];
          const ld = d | 32;
          if (ld - 97 >= 26 || ld < 97) break;
          if (d < 97) {
            if (wLowerRun >= 2) wOdd = 1;
            wLowerRun = 0;
          } else wLowerRun = (wLowerRun + 1) | 0;
          if (ld > 102) wHex = 0;
          wHash = Math.imul(wHash ^ ld, 0x01000193); // FNV_PRIME
          k = (k + 1) | 0;
        }
        this.wHash = wHash;
        this.wLowerRun = wLowerRun;
        this.wOdd = wOdd !== 0;
        this.wHex = wHex !== 0;
        this.wLen += k - i;
        pos += k - i - 1;
        i = k - 1;
        continue;
      }
      if (c === 32 && fast !== 0) {
        if (this.wLen !== 0) {
          // A space that ends a word: what step() does for it, without the dispatch.
          this.endWord();
          if (this.tokKind !== 0) this.endToken();
          if (this.enumState < 3) this.enumStep(32, 1); // C_SPACE
        }
        // A space between words: only the gap changes; the spaces after it (indentation) only its length.
        this.gapLast = 32;
        if (this.gapLen++ === 0) this.gapFirst = 32;
        while (i + 1 < to && s[i + 1] === 32) {
          i++;
          pos++;
          this.gapLen++;
        }
        continue;
      }
      const cls = c < 128 ? classOf[c] : 0;
      if ((cls === 3 || cls === 4) && fast !== 0 && c !== 60 && c !== 91 && c !== 92 && c !== 96 && (c < 48 || c > 57)) {
        // Punctuation or a code symbol that opens no marker, escape or code span: what step()
        // does for it, in its order, without the dispatch. (C_PROSE 3, C_CODE 4.)
        this.trailingNewlines = 0;
        this.textSinceMarker = true;
        if (this.wLen !== 0) this.endWord();
        if (this.tokKind !== 0) this.endToken();
        if (this.enumState < 3) this.enumStep(c, cls);
        this.gapLast = c;
        this.gapColon = c === 58;
        if (this.gapLen++ === 0) {
          this.gapFirst = c;
          if (c === 58 && this.lastRole !== 0) this.inlineRole();
        }
        this.gapSpacesOnly = false;
        if (cls === 4) this.gapCode = true;
        this.lineLead = false;
        continue;
      }
      if (c >= 48 && c <= 57 && fast !== 0) {
        // A digit: what step() does for it, in its order, without the dispatch.
        this.trailingNewlines = 0;
        this.textSinceMarker = true;
        if (this.wLen !== 0) this.endWord();
        if (this.tokKind === 1) this.tokTurns++;
        this.tokKind = 2;
        if (this.enumState < 3)
          this.enumStep(c, 3); // C_PROSE
        else this.lineHash = Math.imul(this.lineHash ^ (c + 0x10000), 0x01000193); // FNV_PRIME
        this.gapLast = c;
        this.gapColon = false;
        if (this.gapLen++ === 0) this.gapFirst = c;
        this.gapSpacesOnly = false;
        this.lineLead = false;
        continue;
      }
      this.step(c, pos);
      fast = this.fastAllowed() ? 1 : 0;
    }
    this.pos = pos;
  }

  /** The streaming answer-flood check; it stops once flagged or once the counts no longer change. */
  private streamFlood(): void {
    if (this.flagged.has('answer-flood')) {
      this.floodLive = false;
      return;
    }
    this.checkFlood(false);
    if (this.pos >= FLOOD_SPAN) this.floodLive = false;
  }

  /** The first letter of an ASCII word, on the fast path: what step() does for it, less the checks. */
  private startAsciiWord(pos: number, c: number): void {
    if (this.tokKind === 2) this.tokTurns++;
    this.tokKind = 1;
    if (this.enumState < 3) this.enumState = this.enumState === 2 ? 3 : 4;
    this.wStart = pos;
    this.wFirst = c;
    this.wScript = SCRIPT_LATIN;
    this.lineLead = false;
    this.textSinceMarker = true;
    this.trailingNewlines = 0;
  }

  /** The run of `runs` that starts at i and ends by this scan's end (its offset in runs.runs), or -1. */
  private runFrom(runs: LetterRuns, i: number, to: number): number {
    const all = runs.runs;
    let at = this.runAt;
    const count = runs.count;
    while (at < count && all[4 * at] < i) at++;
    if (at < count && all[4 * at] === i && all[4 * at + 1] <= to) {
      // Taken: the next word starts after it.
      this.runAt = at + 1;
      return 4 * at;
    }
    this.runAt = at;
    return -1;
  }

  /** Whether ASCII letters can skip step(): nothing but the word's own state can change. */
  private fastAllowed(): boolean {
    return this.markerLen === 0 && !this.misreadArmed && !this.afterBackslash;
  }

  /** Character statistics of the first FLOOD_SPAN characters, for the answer-flood rules. */
  private countChars(u: Uint16Array, from: number, to: number): void {
    const counts = this.counts;
    for (let i = from; i < to; i++) {
      const c = u[i];
      const pos = this.pos + i - from;
      if (c < 128) {
        const cls = ASCII_CLASS[c];
        const k = ++counts[c];
        if (k === 1) this.firstAt[c] = pos;
        if (k > counts[this.top]) this.top = c;
        if (cls === C_SPACE || cls === C_NEWLINE) {
          this.ws++;
          continue;
        }
        if (cls === C_LETTER || (c >= 48 && c <= 57)) this.letterOrDigit++;
        if (c <= 32 || c === 127) continue;
      } else {
        if (isSpaceUnit(c)) {
          this.ws++;
          continue;
        }
        // Letters of any script, and astral characters (CJK extensions, but emoji too: an
        // emoji-only answer is not a symbol flood).
        if (scriptOf(c) !== SCRIPT_NONE || (c >= 0xd800 && c < 0xe000)) this.letterOrDigit++;
      }
      this.nonWs++;
      if (this.firstNonWs < 0) this.firstNonWs = pos;
    }
  }

  /** A letter of script sc inside a word whose letters so far were of another script. */
  private scriptTurn(sc: number, pos: number): void {
    if (this.wScript !== SCRIPT_NONE && incompatibleScripts(this.wScript, sc)) {
      this.wOdd = true;
      this.saladEvent(pos);
    }
    this.wScript = sc;
  }

  /**
   * Token salad: script clashes inside a word, U+FFFD and byte-level BPE artefacts (Ġ, Ċ, ĉ,
   * "âĢ"), saladEvents of them within saladSpan characters.
   */
  private saladEvent(pos: number): void {
    if (this.flagged.has('token-salad')) return;
    const ring = this.saladRing;
    const k = ring.length;
    ring[this.saladCount % k] = pos;
    this.saladCount++;
    if (this.saladCount >= k) {
      const oldest = ring[this.saladCount % k];
      if (pos - oldest <= L_saladSpan) {
        this.flag('token-salad', oldest, `${k} script clashes, U+FFFD or byte-level BPE artefacts within ${pos - oldest + 1} characters`);
      }
    }
  }

  /** Every character the fast path does not take. */
  private step(c: number, pos: number): void {
    let cls: number;
    let sc = 0;
    if (c < 128) {
      cls = ASCII_CLASS[c];
      if (cls === C_LETTER) sc = this.afterBackslash ? SCRIPT_NONE : SCRIPT_LATIN;
      if (this.misreadArmed) {
        this.cp1252.reset();
        this.cp1251.reset();
        this.byteLevel.reset();
        this.misreadArmed = false;
        this.prevWide = 0;
      }
    } else {
      sc = scriptOf(c);
      cls = sc !== SCRIPT_NONE ? C_LETTER : isSpaceUnit(c) ? C_SPACE : C_PROSE;
      this.wide(c, pos);
    }
    if (c !== 92 && cls !== C_LETTER) this.afterBackslash = false;
    if (c === 10) this.trailingNewlines++;
    else if (cls !== C_SPACE && cls !== C_NEWLINE) this.trailingNewlines = 0;

    if (this.markerLen !== 0) this.markerChar(c, pos);
    else if ((c === 60 || c === 91) && !this.code.inFence && !this.code.inInline) {
      this.markerUnits[0] = c;
      this.markerLen = 1;
      this.markerStart = pos;
      this.markerInSentence =
        this.wLen === 0 && this.gapLen > 0 && (this.gapLast === 32 || isOpening(this.gapLast)) && this.lineWords > 0 && this.textSinceMarker;
      this.markerAfterSentence = this.markerInSentence && endsSentence(this.gapFirst);
    } else if (cls !== C_SPACE && cls !== C_NEWLINE) this.textSinceMarker = true;

    if (cls === C_LETTER) {
      if (this.enumState < 3) this.enumState = this.enumState === 2 ? 3 : 4;
      if (this.tokKind === 2) this.tokTurns++;
      this.tokKind = 1;
      if (!(c < 128 && isHexLetter(c))) {
        this.tokHex = false;
        this.wHex = false;
      }
      if (this.wLen === 0) this.startWord(pos, sc, c);
      else if (sc !== SCRIPT_INHERIT && sc !== this.wScript && sc !== SCRIPT_NONE) this.scriptTurn(sc, pos);
      if (isUpper(c)) {
        if (this.wLowerRun >= 2) this.wOdd = true;
        this.wLowerRun = 0;
      } else if (isLower(c)) this.wLowerRun++;
      this.wHash = Math.imul(this.wHash ^ lower(c), FNV_P);
      this.wLen++;
      return;
    }
    if (this.wLen !== 0) this.endWord();
    if (c >= 48 && c <= 57) {
      if (this.tokKind === 1) this.tokTurns++;
      this.tokKind = 2;
    } else if (this.tokKind !== 0) this.endToken();
    if (c === 92) this.afterBackslash = true;
    if (this.enumState < 3) this.enumStep(c, cls);
    else if (c >= 48 && c <= 57) this.lineHash = Math.imul(this.lineHash ^ (c + 0x10000), FNV_P);
    this.gapLast = c;
    if (cls !== C_SPACE && cls !== C_NEWLINE) this.gapColon = isColon(c);
    if (this.gapLen++ === 0) {
      this.gapFirst = c;
      if (c === 58 && this.lastRole !== 0) this.inlineRole();
    }
    if (cls !== C_SPACE) this.gapSpacesOnly = false;
    if (cls === C_CODE) this.gapCode = true;
    if (c === 96) this.code.tick(this.lineLead);
    else if (cls === C_NEWLINE) {
      if (c === 10) this.endLine(pos);
    } else if (cls !== C_SPACE) this.lineLead = false;
  }

  /** Non-ASCII evidence: U+FFFD, "⁇", BPE artefacts, code-page misreads. */
  private wide(c: number, pos: number): void {
    if (c === 0xfffd) {
      if (this.fffd++ === 0) this.firstFffd = pos;
      this.saladEvent(pos);
    } else if (c === 0x2047)
      this.unknownPieces++; // "⁇": SentencePiece's rendering of an unknown piece
    else if (c === 0x120 || c === 0x10a || c === 0x109 || (c === 0x122 && this.prevWide === 0xe2)) this.saladEvent(pos);
    this.cp1252.step(c, pos);
    this.cp1251.step(c, pos);
    this.byteLevel.step(c, pos);
    if (this.prevWide === GBK_LEAD && c >= 0xa2 && c <= 0xbe) {
      if (this.gbk++ === 0) this.firstGbk = pos - 1;
    }
    this.prevWide = c;
    this.misreadArmed = true;
  }

  private startWord(pos: number, sc: number, c: number): void {
    this.wStart = pos;
    this.wFirst = c;
    this.wScript = sc;
    this.wHash = FNV;
    this.wLowerRun = 0;
    this.wOdd = false;
    this.wHex = true;
    this.lineLead = false;
  }

  /** End of a run of letters and digits: many letter/digit turns inside one ("i3la90oller") is glued junk. */
  private endToken(): void {
    if (this.tokTurns >= LEX.tokenTurns && !this.tokHex && this.words > 0) {
      const slot = (this.words - 1) & WMASK;
      const f = this.wFlags[slot];
      if (!(f & F_ODD)) {
        this.wFlags[slot] = f | F_ODD;
        this.sumsLow += SPREAD[F_ODD];
      }
    }
    this.tokKind = 0;
    this.tokTurns = 0;
    this.tokHex = true;
  }

  /** "Human:" inside a line, after a sentence: the model writes the other side of the dialogue. */
  private inlineRole(): void {
    if (this.words === 1 && this.lastRole === 1 && this.lastRoleCapital && !this.code.inFence && !this.code.inInline) {
      this.openingTurnAt = this.lastRoleAt;
      return;
    }
    // Code names keys "User:" too (an SSH config, a YAML mapping).
    if (this.words < LEX.roleMinWords || !this.lastRoleCapital || this.code.inFence || this.code.inInline || this.inExampleDialogue(this.lastRoleOpensLine))
      return;
    const at = this.lastRoleAt;
    if (this.lastRole === 1) {
      this.flag(
        'template-leak',
        at,
        `a user turn ("${ROLE_NAMES.get(this.lastRoleHash) ?? 'role'}:") starts at offset ${at} inside the answer: the model writes the user's part`,
      );
    } else if (this.lastRole === 2) {
      const label = ROLE_NAMES.get(this.lastRoleHash) ?? 'role';
      const assistant = ASSISTANT_ROLES.has(this.lastRoleHash);
      if (assistant && this.firstAssistantTurn >= 0) {
        this.flag(
          'template-leak',
          this.firstAssistantTurn,
          `role labels ("${label}:") at offset ${this.firstAssistantTurn} and again at ${at} start new turns inside the answer: the model writes turn after turn`,
        );
        return;
      }
      if (assistant) this.firstAssistantTurn = at;
      this.flag('template-leak', at, `a role label ("${label}:") at offset ${at} looks like a new turn`, 'suspect');
    }
  }

  /**
   * The answer opens with a user's label ("Human: What is…"): instead of answering, the model
   * writes the user's next turn, as a base model or one with no chat template does. Degenerate
   * when the prompt is known and asks for no dialogue; else a suspect (asked for a dialogue, an
   * answer may start with one).
   */
  private openingUserTurn(lineWords: number): void {
    const at = this.openingTurnAt;
    this.openingTurnAt = -1;
    if (lineWords < LEX.openingTurnWords || this.openingTurnStops === 0) return;
    const role = ROLE_NAMES.get(this.lastRoleHash) ?? 'User';
    this.flag(
      'template-leak',
      at,
      `the answer opens with a user turn ("${role}:") at offset ${at}: the model writes the user's part instead of answering`,
      this.promptWantsAnswer ? 'degenerate' : 'suspect',
    );
  }

  /**
   * The first role label that opens a line right after a line ending in a colon ("Here is a practice
   * dialogue:") starts an example dialogue: from then on, role turns are the answer's own.
   */
  private inExampleDialogue(opensLine: boolean): boolean {
    if (opensLine && this.lineIntroduces) this.dialogueExample = true;
    return this.dialogueExample;
  }

  private endWord(): void {
    // The fast path keeps a word's hex flag until the word ends; step() clears tokHex letter by
    // letter. Only here, so that a finished word's flag never reaches the next token.
    if (!this.wHex) this.tokHex = false;
    const h = this.wHash | 0;
    const len = this.wLen;
    const sc = this.wScript;
    const data = this.wHex && len >= 4;
    if (this.words > 0 && h === this.prevHash && this.gapLen > 0 && this.gapSpacesOnly && !data && !this.code.inFence) {
      if (
        ++this.sameRun >= LEX.sameWordRun &&
        !this.flagged.has('word-repetition') &&
        this.sum(F_CODEGAP) <= LEX.proseMaxCodeGaps * Math.min(this.words, WINDOW)
      ) {
        this.flag('word-repetition', this.sameRunStart, `the word at offset ${this.sameRunStart} comes ${this.sameRun} times in a row`);
      }
    } else {
      this.sameRun = 1;
      this.sameRunStart = this.wStart;
    }
    const upper = isUpper(this.wFirst);
    // A word right after a sentence's end and a space: prose capitalises it, salad seldom does.
    if (this.gapLen >= 2 && endsSentence(this.gapFirst) && (this.gapLast === 32 || this.gapLast === 10)) {
      if (upper) this.sentenceCaps++;
      else if (isLower(this.wFirst)) this.sentenceLowers++;
    }
    const cls = ROLE_TABLE.get(h);
    this.lastRole = cls & W_USER ? 1 : cls & W_OTHER_ROLE ? 2 : 0;
    if (this.lastRole !== 0) {
      this.lastRoleAt = this.wStart;
      this.lastRoleCapital = upper;
      this.lastRoleHash = h;
      this.lastRoleOpensLine = this.lineWords === 0;
    }
    let f = 0;
    // Doubled tokens keep their case; help text pairs an option with its metavar ("--port PORT"),
    // and code prints arrays of repeated values ("[ True  True False]"): a stutter shows in the prose.
    if (
      this.words > 0 &&
      h === this.prevHash &&
      this.gapSpacesOnly &&
      this.gapLen > 0 &&
      !data &&
      upper === this.prevUpper &&
      !this.prevOption &&
      !this.code.inFence
    ) {
      f |= F_REPEAT;
    }
    // A letter or two after a code symbol is a name ("x/a", "R_OK"), not the function word it spells;
    // after an apostrophe it is a contraction's tail ("n't", "'s"), part of the word before it.
    // A capital letter after a comma or hyphen ("R, A, S, P"), or the fourth letter on of a run
    // joined by hyphens ("r-a-s-p"), spells a word out: a letter, not the function word it matches
    // ("a", Spanish "y"). Salad glues a letter or two with hyphens too ("i-s-a").
    const hyphened = len === 1 && this.gapLen === 1 && this.gapFirst === 45;
    this.hyphenLetters = hyphened ? this.hyphenLetters + 1 : len === 1 ? 1 : 0;
    const spelt = len === 1 && ((upper && (this.gapFirst === 44 || this.gapFirst === 45)) || this.hyphenLetters >= 4);
    if (!(len <= 2 && (this.gapCode || this.gapLast === 39 || this.gapLast === 0x2019)) && !spelt && STOPWORDS.has(h)) {
      f |= F_STOP;
      if (this.openingTurnAt >= 0) this.openingTurnStops++;
    }
    // Words in a fenced block count as code: the prose rules (function words, vocabulary) skip them.
    if (this.gapCode || this.code.inFence) f |= F_CODEGAP;
    if (this.gapLen === 1 && this.gapFirst === 32) f |= F_SPACE | F_PROSE;
    else if (this.gapLen === 2 && ((this.gapLast === 32 && isClosing(this.gapFirst)) || (this.gapFirst === 32 && isOpening(this.gapLast)))) f |= F_PROSE;
    const listed = sc === SCRIPT_LATIN || sc === SCRIPT_CYRILLIC;
    if (listed) f |= F_LISTED;
    if (this.words > 0 && this.prevScript !== 0 && scriptsClash(this.prevScript, sc)) {
      f |= F_SWITCH;
      if (!((this.prevScript === SCRIPT_LATIN && sc === SCRIPT_CYRILLIC) || (this.prevScript === SCRIPT_CYRILLIC && sc === SCRIPT_LATIN))) f |= F_RARE_SWITCH;
    }
    // Identifiers in code spans and fences are camelCase by design; so are names listed after a comma ("MacBook, AirPods").
    if (this.wOdd && !this.code.inFence && !this.code.inInline && this.gapFirst !== 44) f |= F_ODD;
    if (this.words >= 4) {
      const hs = this.wHashes;
      const w = this.words;
      if (hs[(w - 1) & WMASK] === h || hs[(w - 2) & WMASK] === h || hs[(w - 3) & WMASK] === h || hs[(w - 4) & WMASK] === h) f |= F_NEAR;
    }

    // One word of another script between two of the same script: a spliced token (suspect).
    // Only in Latin text: Russian technical text puts Latin words between Cyrillic ones all the time.
    if (
      this.words >= 2 &&
      this.spliced < 0 &&
      sc === SCRIPT_LATIN &&
      this.prevPrevScript === SCRIPT_LATIN &&
      this.prevScript !== SCRIPT_LATIN &&
      scriptsClash(sc, this.prevScript)
    ) {
      this.spliced = this.prevWordStart;
    }

    const slot = this.words & WMASK;
    // The window's counts: the word that leaves it (none before the window is full) out, this one in.
    const gone = this.words >= WINDOW ? this.wFlags[slot] : 0;
    this.sumsLow += SPREAD[f & 31] - SPREAD[gone & 31];
    this.sumsHigh += SPREAD[(f >>> 5) & 31] - SPREAD[(gone >>> 5) & 31];
    this.wFlags[slot] = f;
    this.wHashes[slot] = h;
    this.wScripts[slot] = sc;
    this.wStarts[slot] = this.wStart;
    this.wLines[slot] = this.lineNo;
    this.words++;

    if (this.lineWords === 0) {
      this.lineFirstWord = h;
      this.lineFirstGap = -1;
      this.lineIndented = this.wStart > this.lineStart;
      // "- item": the bullet and one space, nothing before them.
      this.bulletTopLevel = this.wStart - this.lineStart === 2;
    } else if (this.lineWords === 1 && this.lineFirstGap === -1) this.lineFirstGap = this.gapFirst;
    this.lineWords++;
    this.lineHash = Math.imul(this.lineHash ^ h, FNV_P);
    if (this.gapCode && this.lineWords > 1) this.lineCode = true;
    this.lineLetters += len;

    this.prevPrevScript = this.prevScript;
    this.prevScript = sc === SCRIPT_HANGUL ? SCRIPT_CJK : sc;
    this.prevWordStart = this.wStart;
    this.prevHash = h;
    this.prevUpper = upper;
    // An option's name ("--theme", "-verify_email") is followed by its metavar ("theme", "email").
    this.prevOption = this.gapLast === 45 || this.gapLast === 95;
    this.wLen = 0;
    this.gapSpacesOnly = true;
    this.gapCode = false;
    this.gapLen = 0;
    this.gapColon = false;
    if (this.words >= WINDOW && (this.words & 7) === 0) this.judgeWindow(WINDOW, false);
    this.afterBackslash = false;
  }

  /**
   * A short answer of whole sentences, each one after the first opening with a capital ("I have to
   * go to the bank. I have to go to the post office"): plain prose made of short function words.
   */
  private wellFormedSentences(): boolean {
    return this.sentenceCaps >= LEX.wellFormedSentences && this.sentenceLowers === 0;
  }

  /** The window's count of a flag: sumsLow and sumsHigh pack six bits a flag (a window holds at most 32 words). */
  private sum(flag: number): number {
    const bit = 31 - Math.clz32(flag);
    return bit < 5 ? (this.sumsLow >>> (6 * bit)) & 63 : (this.sumsHigh >>> (6 * (bit - 5))) & 63;
  }

  /** Distinct words among the last n, with a stamped open-addressing table (no garbage per call). */
  private distinct(n: number): number {
    const keys = this.dKeys;
    const stamps = this.dStamps;
    const stamp = ++this.dStamp;
    let count = 0;
    for (let k = 0; k < n; k++) {
      const h = this.wHashes[(this.words - 1 - k) & WMASK];
      let slot = Math.imul(h, 0x9e3779b1) >>> 25; // 7 bits: 128 slots for at most 32 words
      while (stamps[slot] === stamp && keys[slot] !== h) slot = (slot + 1) & 127;
      if (stamps[slot] !== stamp) {
        stamps[slot] = stamp;
        keys[slot] = h;
        count++;
      }
    }
    return count;
  }

  /**
   * A phrase of PHRASE_WORDS words said twice among the last n explains their few distinct words
   * (a base model going back over a clause) when the repeated phrases cover less than
   * PHRASE_LOOP_SHARE of them; more than that is a loop, degenerate whichever rule names it.
   * O(n²) over at most WINDOW words, only once the low-diversity salad test has passed.
   */
  private explainedByPhrase(n: number): boolean {
    const first = this.words - n;
    let covered = 0;
    let end = first;
    for (let a = first; a + PHRASE_WORDS <= this.words; a++) {
      for (let b = first; b + PHRASE_WORDS <= this.words; b++) {
        if (b === a) continue;
        let k = 0;
        while (k < PHRASE_WORDS && this.wHashes[(a + k) & WMASK] === this.wHashes[(b + k) & WMASK]) k++;
        if (k < PHRASE_WORDS) continue;
        // Words a .. a + PHRASE_WORDS are in a repeated phrase: count the ones not counted yet.
        covered += a + PHRASE_WORDS - Math.max(a, end);
        end = a + PHRASE_WORDS;
        break;
      }
    }
    return covered > 0 && covered < PHRASE_LOOP_SHARE * n;
  }

  private readonly dKeys = new Int32Array(128);
  private readonly dStamps = new Int32Array(128);
  private dStamp = 0;

  private scriptsIn(n: number): number {
    let mask = 0;
    for (let k = 0; k < n; k++) mask |= 1 << (this.wScripts[(this.words - 1 - k) & WMASK] & 31);
    mask &= ~(1 << SCRIPT_NONE); // words of no script: roff escapes, words after a backslash
    let count = 0;
    for (; mask; mask &= mask - 1) count++;
    return count;
  }

  /** Offset of the oldest word in the last n words. */
  private windowStart(n: number): number {
    return this.wStarts[(this.words - n) & WMASK];
  }

  private static where(n: number, start: number, atFinish: boolean): string {
    return atFinish ? `in the answer's ${n} words` : `in ${n} words from offset ${start}`;
  }

  /**
   * Word-window rules over the last n words (WINDOW while streaming, fewer for a short answer at
   * finish). Shares, not counts, so one rule serves both.
   */
  private judgeWindow(n: number, atFinish: boolean): void {
    const repeats = this.sum(F_REPEAT);
    const stops = this.sum(F_STOP);
    const codeGaps = this.sum(F_CODEGAP);
    const switches = this.sum(F_SWITCH);
    const odd = this.sum(F_ODD);
    const listed = this.sum(F_LISTED);
    const spaces = this.sum(F_SPACE);
    const start = this.windowStart(n);
    const prose = codeGaps <= LEX.proseMaxCodeGaps * n && this.sum(F_PROSE) >= LEX.proseGaps * n;
    // Words laid out over many lines are a list (font names, one per line): few distinct words
    // and no function words are what lists have.
    const lines = this.lineNo - this.wLines[(this.words - n) & WMASK];
    const running = lines < LEX.listLines * n;
    // Salad glues code fragments in ("_EditPressure", "}`RESS"), so the script-switch rule only
    // asks for text that is not laid out as code: words mostly one space apart, few code gaps.
    // (Glued pieces stay with prose: identifiers in code and its comments are camelCase.)
    const spaced = codeGaps <= LEX.spacedMaxCodeGaps * n && spaces >= LEX.spacedSpaces * n;

    if (!this.flagged.has('word-repetition')) {
      if (repeats >= LEX.stutterShare * n) {
        this.flag('word-repetition', start, `${repeats} of ${n} words repeat the word before them ${LexicalScanner.where(n, start, atFinish)}`);
      } else if (prose && running && n >= LEX.ttrMinWords && this.sum(F_NEAR) >= LEX.ttrNearRepeats * n) {
        // Few distinct words means many near repeats: counting them first spares the count of distinct words.
        const d = this.distinct(n);
        if (d <= LEX.ttrMaxShare * n) this.flag('word-repetition', start, `only ${d} different words among ${n} ${LexicalScanner.where(n, start, atFinish)}`);
      }
    }
    if (!this.flagged.has('word-salad') && (prose || spaced)) {
      if (
        prose &&
        listed >= 0.75 * n &&
        // Function words alone read as salad only when they are the short ones ("the to a v of"):
        // languages with long stopword lists (Indonesian, Swedish) write prose that is mostly listed words.
        ((stops >= LEX.functionOnlyShare * n && this.wStarts[(this.words - 1) & WMASK] - start <= LEX.functionOnlyChars * (n - 1)) ||
          (stops >= LEX.functionSaladShare * n && this.distinct(n) <= LEX.functionSaladDistinct * n && !this.explainedByPhrase(n))) &&
        !(atFinish && n < WINDOW && this.wellFormedSentences())
      ) {
        this.flag(
          'word-salad',
          start,
          `${stops} of ${n} words are function words with few others among them ${LexicalScanner.where(n, start, atFinish)}: function-word salad`,
        );
      } else if (
        this.sum(F_RARE_SWITCH) >= LEX.switchShare * n ||
        (switches >= LEX.switchShare * n && this.sum(F_RARE_SWITCH) >= LEX.switchRareMin && this.scriptsIn(n) >= LEX.switchScripts)
      ) {
        this.flag('word-salad', start, `the script changes between incompatible writing systems ${switches} times ${LexicalScanner.where(n, start, atFinish)}`);
      } else if (prose && odd >= LEX.oddShare * n && spaces >= LEX.spacedSpaces * n) {
        this.flag(
          'word-salad',
          start,
          `${odd} of ${n} words are glued from pieces (script clash or case turn inside the word) ${LexicalScanner.where(n, start, atFinish)}`,
        );
      } else if (
        prose &&
        running &&
        listed >= 0.9 * n &&
        stops <= LEX.noStopShare * n &&
        (odd + switches >= LEX.noStopOdd * n || spaces >= LEX.noStopSpaces * n)
      ) {
        this.flag(
          'word-salad',
          start,
          `${n} words with only ${stops} function words among them ${LexicalScanner.where(n, start, atFinish)}: random vocabulary`,
        );
      }
    }
  }

  private endLine(pos: number): void {
    // By position: countChars runs ahead of scan within a 16-unit step, so nonWs can already hold
    // characters after this newline, and how far ahead depends on where the stream was cut.
    if (this.firstNonWs >= 0 && this.firstNonWs < pos) this.newlinesAfterText++;
    if (this.wLen !== 0) this.endWord();
    this.judgeNamed();
    this.lineNo++;
    const words = this.lineWords;
    if (this.openingTurnAt >= 0) this.openingUserTurn(words);
    if (words > 0 && !this.code.inFence) {
      this.roleTurn(this.lineFirstWord, words, this.lineFirstGap, this.lineStart);
      if (this.enumState === 3 && !this.lineCode) {
        if (!this.enumBullet) this.listItem(this.lineHash | 0, this.lineLetters, this.lineStart);
        else if (this.bulletTopLevel) this.bulletItem(this.lineHash | 0, this.lineLetters, this.lineStart);
      } else this.bulletItems.reset();
    }
    if (words > 0) this.emptyItems = 0;
    else if ((this.enumState === 2 || this.enumState === 3) && !this.enumBullet) this.emptyItem();
    // The line ends with a colon ("… ordering coffee:", "… (in French):"): it introduces what follows.
    if (words > 0) this.lineIntroduces = this.gapColon;
    this.enumState = 0;
    this.enumBullet = false;
    this.lineCode = false;
    this.wordsBeforeLine = this.words;
    this.lineWords = 0;
    this.lineHash = FNV;
    this.lineLetters = 0;
    this.lineStart = pos + 1;
    this.lineLead = true;
    this.code.endLine();
  }

  /**
   * "User:" or "assistant" opening a line after the answer began: the model plays both sides,
   * unless the line opens an example dialogue (inExampleDialogue).
   */
  private roleTurn(first: number, words: number, gap: number, at: number): void {
    if (this.wordsBeforeLine === 0 || this.dialogueExample) return;
    const alone = words === 1;
    // A template's role name starts its line; an indented one is a term of a list ("   user").
    if ((!alone || this.lineIndented) && !isColon(gap)) return;
    const cls = ROLE_TABLE.get(first);
    if (cls !== 0 && this.inExampleDialogue(true)) return;
    if (this.wordsBeforeLine - words < 0) return;
    if (cls & W_USER) {
      this.flag('template-leak', at, `a new user turn starts at offset ${at}: the model went on past the end of its turn and writes the user's part`);
    } else if (cls & W_OTHER_ROLE) {
      this.flag('template-leak', at, `a role line at offset ${at} looks like a new turn`, 'suspect');
    }
  }

  /**
   * "12." or "12)" then a space at the start of a line makes the line a numbered list item.
   * Bullets are left out: " * " opens every line of a JSDoc comment.
   */
  private enumStep(c: number, cls: number): void {
    const st = this.enumState;
    if (cls === C_SPACE) this.enumState = st === 0 ? 0 : st === 2 ? 3 : 4;
    else if (c >= 48 && c <= 57) {
      this.enumValue = st === 0 ? c - 48 : this.enumValue * 10 + (c - 48);
      this.enumState = st <= 1 ? 1 : 4;
    } else if (c === 46 || c === 41) this.enumState = st === 1 ? 2 : 4;
    else if (st === 0 && isBullet(c)) {
      this.enumState = 2;
      this.enumBullet = true;
    } else if (cls !== C_NEWLINE) this.enumState = 4;
  }

  /**
   * A list whose items come back: real lists do not name the same item twice, a looping model
   * does ("29. Sitamarhi" after "23. Sitamarhi"). The item's own numbers count ("step 3" is not
   * "step 4"), only its enumerator is left out.
   */
  private listItem(h: number, letters: number, at: number): void {
    const list = this.numberedItems;
    if (this.enumValue <= this.lastItemNumber) list.reset();
    this.lastItemNumber = this.enumValue;
    if (letters < LEX.itemMinLetters || !list.add(h, at)) return;
    this.flag('list-cycle', list.firstDuplicate, `${list.duplicates} list items from offset ${list.firstDuplicate} repeat earlier items of the same list`);
  }

  /**
   * A bulleted list whose items come back, as listItem for numbered ones. The list is the bullets
   * since the last line of other text, and indented bullets (the details under an item) are left
   * out; an item needs LEX.bulletMinLetters letters ("- Yes", "- N/A" repeat in real lists).
   */
  private bulletItem(h: number, letters: number, at: number): void {
    const list = this.bulletItems;
    if (letters < LEX.bulletMinLetters || !list.add(h, at)) return;
    this.flag('list-cycle', list.firstDuplicate, `${list.duplicates} bullet items from offset ${list.firstDuplicate} repeat earlier items of the same list`);
  }

  /**
   * A numbered item with nothing after its number ("4.", "5. "): a model that lost the list's
   * content goes on writing only the numbers, many of them with no line of words between.
   */
  private emptyItem(): void {
    if (this.emptyItems++ === 0) this.emptyItemsStart = this.lineStart;
    if (this.emptyItems !== LEX.emptyItems) return;
    this.flag('list-cycle', this.emptyItemsStart, `${LEX.emptyItems} numbered list items from offset ${this.emptyItemsStart} hold nothing but their number`);
  }

  private markerChar(c: number, pos: number): void {
    const len = this.markerLen;
    if (c === 62 || c === 93) {
      this.markerLen = 0;
      this.markerUnits[len] = c;
      // apply takes the typed array as it is; a spread would walk it with an iterator.
      this.closeMarker(String.fromCharCode.apply(null, this.markerUnits.subarray(0, len + 1) as unknown as number[]));
      return;
    }
    if (c === 60 || c === 91) {
      // A new opener: start again here.
      this.textSinceMarker = true;
      this.markerUnits[0] = c;
      this.markerLen = 1;
      this.markerStart = pos;
      return;
    }
    if (c <= 32 || len >= MARKER_MAX) {
      this.markerLen = 0;
      this.textSinceMarker = true;
      return;
    }
    this.markerUnits[len] = c;
    this.markerLen = len + 1;
  }

  private closeMarker(text: string): void {
    const at = this.markerStart;
    if (at === this.firstNonWs && SEQUENCE_START.test(text)) {
      this.flag(
        'template-leak',
        at,
        `the answer opens with the start-of-sequence marker ${text}: the tokenizer's own mark, shown because special tokens were not skipped`,
        'suspect',
      );
      this.textSinceMarker = false;
      return;
    }
    if (FILLER.test(text)) {
      const consecutive = !this.textSinceMarker && this.fillers > 0;
      if (consecutive) this.fillerRun++;
      else {
        this.fillerRun = 1;
        this.fillerRunStart = at;
      }
      this.fillerChars += text.length;
      if (this.fillers++ === 0) {
        this.firstFiller = at;
        this.firstFillerText = text;
      }
      const isByte = text.startsWith('<0x');
      this.byteRun = isByte ? (consecutive ? this.byteRun + 1 : 1) : 0;
      if (this.fillerRun >= LEX.fillerRun) {
        this.flag('special-tokens', this.fillerRunStart, `${this.fillerRun} filler or control tokens in a row, such as ${text}`);
      } else if (this.byteRun >= 2) {
        this.flag('special-tokens', this.fillerRunStart, `byte tokens such as ${text} reached the text: the detokenizer did not merge them into characters`);
      }
      this.textSinceMarker = false;
      return;
    }
    if (text === '<think>' || text === '</think>') {
      this.thinkTagChars += text.length;
      return;
    }
    const gluedToMarker = !this.textSinceMarker;
    this.textSinceMarker = true;
    const isEnd = END_MARKER.test(text);
    this.endMarkerRun(isEnd, gluedToMarker, text, at);
    const template = isEnd || START_MARKER.test(text);
    // Markers glued to a named one ("<|im_end|><|im_end|>") make a run of them, not a name.
    if (template && !this.markerInSentence && this.named !== null) {
      this.templateMarker(this.named.text, this.named.at);
      this.named = null;
    }
    // An end marker right after a finished sentence closes a turn ("… Germany? [/INST] Berlin."):
    // prose names a marker inside its sentence ("… wrapped in [INST] and [/INST] tags").
    if (this.markerInSentence && template && !(isEnd && this.markerAfterSentence)) {
      // Several named on one line ("[INST] and [/INST]"): the first is judged by what follows the last.
      if (this.named !== null) this.named.wordsAt = this.lineWords;
      else this.named = { text, at, wordsAt: this.lineWords };
      // A start marker right after an end marker is a new turn, named or not ("</s> [INST]").
      if (END_MARKER.test(text)) this.textSinceMarker = false;
      return;
    }
    this.templateMarker(text, at);
  }

  /**
   * End-of-turn markers one after another with only spaces between ("<|endoftext|><|endoftext|>…"):
   * the model ended its turn again and again and the server stopped on none of them. One alone is
   * judged by what follows it (templateMarker); a run is a flood of them wherever it stands.
   */
  private endMarkerRun(isEnd: boolean, gluedToMarker: boolean, text: string, at: number): void {
    if (!isEnd) {
      this.endRun = 0;
      return;
    }
    if (gluedToMarker && this.endRun > 0) this.endRun++;
    else {
      this.endRun = 1;
      this.endRunStart = at;
    }
    if (this.endRun >= LEX.fillerRun) {
      this.flag(
        'special-tokens',
        this.endRunStart,
        `${this.endRun} end-of-turn markers such as ${text} in a row from offset ${this.endRunStart}: the model ended its turn again and again and the server stopped on none of them`,
      );
    }
  }

  private templateMarker(text: string, at: number): void {
    if (START_MARKER.test(text)) {
      this.flag('template-leak', at, `the chat-template marker ${text} at offset ${at} opens a new turn inside the answer`);
    } else if (END_MARKER.test(text)) {
      if (this.endMarker === null) this.endMarker = { text, at, after: this.firstNonWs >= 0 && this.firstNonWs < at };
      this.textSinceMarker = false;
    }
  }

  /**
   * A marker in a sentence that the sentence goes on after, or ends after with its punctuation, is
   * named ("a turn starts with <|im_start|>user and ends …", "… then with <|im_start|>assistant.").
   */
  private judgeNamed(): void {
    const n = this.named;
    if (n === null) return;
    this.named = null;
    const after = this.lineWords - n.wordsAt;
    const sentenceEnds = after > 0 && this.gapLen > 0 && isClosing(this.gapFirst);
    if (after < LEX.namedMarkerWords && !sentenceEnds) this.templateMarker(n.text, n.at);
  }

  private echoStep(c: number, pos: number): void {
    const p = this.echo!;
    let ch: number;
    if (c < 128 ? ASCII_CLASS[c] === C_SPACE || ASCII_CLASS[c] === C_NEWLINE : isSpaceUnit(c)) {
      if (this.echoLastSpace) return;
      this.echoLastSpace = true;
      ch = 32;
    } else {
      this.echoLastSpace = false;
      ch = lower(c);
    }
    const fail = this.echoFail!;
    let k = this.echoK;
    while (k > 0 && p.charCodeAt(k) !== ch) k = fail[k - 1];
    if (p.charCodeAt(k) === ch) k++;
    const seen = ++this.echoSeen;
    if (k === seen) this.echoPrefix = k;
    else if (ch !== 32) this.echoPrefixOk = false;
    if (k === p.length) {
      if (this.echoes++ === 0) this.firstEcho = pos - p.length + 1;
      if (this.echoes >= 2) this.flag('prompt-echo', this.firstEcho, `the prompt appears ${this.echoes} times in the answer`);
      k = fail[k - 1];
    }
    this.echoK = k;
  }

  /**
   * One echo: degenerate when the prompt is most of the answer or the answer is the prompt's
   * opening (a model that returns its input), else a suspect (an answer may quote its question).
   */
  private judgeEcho(): void {
    if (this.echo === null) return;
    const seen = this.echoSeen;
    if (this.echoes === 1) {
      const most = this.echo.length >= LEX.echoShare * seen;
      this.flag(
        'prompt-echo',
        this.firstEcho,
        most
          ? `the prompt makes ${this.echo.length} of the answer's ${seen} characters (spaces collapsed), from offset ${this.firstEcho}: the model returns its input`
          : `the answer repeats the prompt at offset ${this.firstEcho}`,
        most ? undefined : 'suspect',
      );
    } else if (this.echoes === 0 && this.echoPrefixOk && this.echoPrefix >= LEX.echoMinChars && this.echoPrefix >= seen - 1) {
      this.flag(
        'prompt-echo',
        Math.max(0, this.firstNonWs),
        `the whole answer is the first ${this.echoPrefix} characters of the prompt (spaces collapsed): the model returns its input`,
      );
    }
  }

  /** An answer that is mostly one character: short floods the absolute thresholds never see. */
  private checkFlood(atFinish: boolean): void {
    const nonWs = this.nonWs - this.thinkTagChars;
    const top = this.top;
    const count = this.counts[top];
    if (top <= 32) return;
    const share = nonWs > 0 ? count / nonWs : 0;
    const whole = atFinish && count === nonWs && count >= LEX.floodWholeChars;
    // Markdown draws rules and underlines with these: a short answer can be mostly "-----"; only
    // an answer of nothing else counts (long runs are Channel's char-flood).
    if (isRuleChar(top) && !whole) return;
    if (whole || (atFinish ? count >= LEX.floodMinChars && share >= LEX.floodShare : count >= LEX.floodStreamChars && share >= LEX.floodStreamShare)) {
      this.flag(
        'answer-flood',
        this.firstAt[top],
        `${count} of the answer's ${nonWs} visible characters are ${JSON.stringify(String.fromCharCode(top))}, the first at offset ${this.firstAt[top]}`,
      );
    }
  }

  /** The most frequent visible ASCII character of the first FLOOD_SPAN characters, and its share. */
  private dominant(): { char: string; count: number; share: number; at: number } | null {
    const top = this.top;
    const visible = this.nonWs - this.thinkTagChars;
    if (top <= 32 || visible <= 0) return null;
    return { char: String.fromCharCode(top), count: this.counts[top], share: this.counts[top] / visible, at: this.firstAt[top] };
  }

  /** Finish-time rules: short answers, what only the end can tell, and the suspect reasons. */
  finish(
    unitRun: { start: number; length: number; period: number } | null,
    digitUnitRun: { start: number; length: number; period: number; letters: boolean } | null = null,
  ): void {
    this.markerLen = 0;
    if (this.wLen !== 0) this.endWord();
    this.judgeNamed();
    // A short answer mostly of token 0's text is the NaN signature, before any run reaches Channel's 24.
    const top = this.top === this.token0 ? this.dominant() : null;
    if (top && top.count >= LEX.floodWholeChars && top.share >= LEX.floodShare) {
      this.flag('token0-run', top.at, `${top.count} of the answer's visible characters are token 0's text ${JSON.stringify(top.char)}`, 'nan');
    }
    if (this.openingTurnAt >= 0) this.openingUserTurn(this.lineWords);
    if (this.lineWords > 0 && !this.code.inFence) {
      this.roleTurn(this.lineFirstWord, this.lineWords, this.lineFirstGap, this.lineStart);
      if (this.enumState === 3 && !this.lineCode) this.listItem(this.lineHash | 0, this.lineLetters, this.lineStart);
    }
    if (!this.flagged.has('answer-flood')) {
      this.checkFlood(true);
      const visible = this.pos - Math.max(0, this.firstNonWs);
      if (!this.flagged.has('answer-flood') && unitRun && unitRun.length >= LEX.floodMinChars && unitRun.length >= LEX.unitShare * visible) {
        this.flag('answer-flood', unitRun.start, `a ${unitRun.period}-character unit repeats over ${unitRun.length} of the answer's ${visible} characters`);
      }
      if (
        !this.flagged.has('answer-flood') &&
        digitUnitRun &&
        digitUnitRun.length >= LEX.digitUnitMinChars &&
        digitUnitRun.length >= LEX.digitUnitShare * visible
      ) {
        this.flag(
          'answer-flood',
          digitUnitRun.start,
          `a ${digitUnitRun.period}-${digitUnitRun.letters ? 'character unit of letters and digits' : 'digit unit'} repeats over ${digitUnitRun.length} of the answer's ${visible} characters`,
        );
      }
      if (!this.flagged.has('answer-flood') && this.ws >= LEX.blankMinChars && this.ws >= LEX.blankShare * this.pos && this.nonWs > 0) {
        this.flag('answer-flood', Math.max(0, this.firstNonWs), `${this.ws} of the answer's ${this.pos} characters are blank`);
      }
      if (!this.flagged.has('answer-flood') && this.trailingNewlines >= LEX.trailingBlankLines && this.firstNonWs >= 0) {
        this.flag(
          'answer-flood',
          this.pos - this.trailingNewlines,
          `the answer ends in ${this.trailingNewlines} newlines: the model kept sampling line breaks instead of stopping`,
        );
      }
      const visibleChars = this.nonWs - this.thinkTagChars;
      // One line: ASCII art is symbols too, but drawn over lines.
      if (
        !this.flagged.has('answer-flood') &&
        visibleChars >= LEX.symbolsMinChars &&
        this.letterOrDigit <= LEX.symbolsMaxShare * visibleChars &&
        this.newlinesAfterText === 0
      ) {
        this.flag(
          'answer-flood',
          Math.max(0, this.firstNonWs),
          `only ${this.letterOrDigit} of the answer's ${visibleChars} visible characters are letters or digits: the rest is punctuation and symbols`,
        );
      }
    }
    if (this.words >= LEX.shortMinWords && this.words < WINDOW) this.judgeWindow(this.words, true);

    if (this.endMarker && !this.flagged.has('template-leak')) {
      const e = this.endMarker;
      if (this.textSinceMarker && e.after) {
        this.flag('template-leak', e.at, `text goes on after the end-of-turn marker ${e.text} at offset ${e.at}: the server did not stop there`);
      } else {
        this.flag(
          'template-leak',
          e.at,
          `the answer contains the end-of-turn marker ${e.text} at offset ${e.at}: the server neither stopped on it nor stripped it`,
          'suspect',
        );
      }
    }
    if (this.unknownPieces >= LEX.fillerRun - 1 && !this.flagged.has('special-tokens')) {
      this.flag(
        'special-tokens',
        Math.max(0, this.firstNonWs),
        `${this.unknownPieces} "⁇" marks: SentencePiece shows an unknown piece this way, so the model sampled ids its tokenizer does not have`,
      );
    }
    // Filler tokens with text between them: much of the answer, not a run (a text on BERT names
    // [CLS], [SEP] and [MASK] once each among many words).
    const answerChars = this.pos - Math.max(0, this.firstNonWs);
    if (this.fillers >= LEX.fillerRun && this.fillerChars >= LEX.fillerShare * answerChars && !this.flagged.has('special-tokens')) {
      this.flag(
        'special-tokens',
        this.firstFiller,
        `${this.fillers} filler or control tokens make ${this.fillerChars} of the answer's ${answerChars} characters, such as ${this.firstFillerText} at offset ${this.firstFiller}`,
      );
    }
    if (this.fillers > 0 && !this.flagged.has('special-tokens')) {
      this.flag('special-tokens', this.firstFiller, `the token ${this.firstFillerText} at offset ${this.firstFiller} is a filler or control token`, 'suspect');
    }
    this.cp1252.reset();
    let misread = this.cp1252.events >= this.cp1251.events - LEX.cp1251Extra ? this.cp1252 : this.cp1251;
    if (this.byteLevel.events > 0 && this.byteLevel.events >= misread.events) misread = this.byteLevel;
    const page = misread.page;
    if (misread.events >= LEX.mojibakeEvents + (misread === this.cp1251 ? LEX.cp1251Extra : 0)) {
      this.flag('mojibake', misread.firstAt, `${misread.events} character sequences such as ${JSON.stringify(misread.sample)} are UTF-8 bytes read as ${page}`);
    } else if (this.gbk > 0) {
      this.flag(
        'mojibake',
        this.firstGbk,
        `${this.gbk === 1 ? 'a pair' : `${this.gbk} pairs`} such as "¡¯" at offset ${this.firstGbk}: GBK punctuation (curly quotes, dashes) read as Latin-1`,
      );
    } else if (this.fffd >= LEX.replacementChars) {
      this.flag('mojibake', this.firstFffd, `${this.fffd} U+FFFD replacement characters: bytes were lost when the tokens were decoded`);
    } else if (misread.events > 0) {
      this.flag('mojibake', misread.firstAt, `${JSON.stringify(misread.sample)} looks like UTF-8 read as ${page}`, 'suspect');
    } else if (this.fffd > 0) {
      this.flag('mojibake', this.firstFffd, `a U+FFFD replacement character at offset ${this.firstFffd}`, 'suspect');
    }
    this.judgeEcho();
    if (this.spliced >= 0 && !this.flagged.has('word-salad') && !this.flagged.has('token-salad')) {
      this.flag('spliced-token', this.spliced, `one word in another writing system at offset ${this.spliced} interrupts the text`, 'suspect');
    }
  }
}

/** Words in a phrase that, said twice in a window, explains its few distinct words (LexicalScanner.explainedByPhrase) ... */
const PHRASE_WORDS = 5;
/** ... unless repeated phrases cover this share of the window: then it is a loop. */
const PHRASE_LOOP_SHARE = 0.75;

/** Scripts that do not mix word by word in real text (Latin next to CJK does; Latin next to Thai does not). */
function scriptsClash(a: number, b: number): boolean {
  const x = a === SCRIPT_HANGUL ? SCRIPT_CJK : a;
  const y = b === SCRIPT_HANGUL ? SCRIPT_CJK : b;
  return incompatibleScripts(x, y);
}

/** Punctuation that prose puts right after a word, before a space. */
function isClosing(c: number): boolean {
  return c === 44 || c === 46 || c === 59 || c === 58 || c === 33 || c === 63 || c === 41 || c === 34 || c === 39 || c === 0x2019 || c === 0x201d || c === 0xbb;
}

/** A list bullet that starts a line: "-", "*", "+", "•". */
function isBullet(c: number): boolean {
  return c === 45 || c === 42 || c === 43 || c === 0x2022;
}

/** Punctuation that prose puts after a space, right before a word. */
function isOpening(c: number): boolean {
  return c === 40 || c === 34 || c === 39 || c === 0x2018 || c === 0x201c || c === 0xab;
}

function isRuleChar(c: number): boolean {
  return c === 45 || c === 61 || c === 95 || c === 42 || c === 35 || c === 126;
}

function isHexLetter(c: number): boolean {
  return (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}

function isSpaceUnit(c: number): boolean {
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}

/** The prompt as the echo rules compare it: lower case, whitespace runs as one space, trimmed. */
export function normalisePrompt(p: string): string {
  let out = '';
  let space = true;
  for (let i = 0; i < p.length; i++) {
    const c = p.charCodeAt(i);
    const cls = c < 128 ? ASCII_CLASS[c] : isSpaceUnit(c) ? C_SPACE : 0;
    if (cls === C_SPACE || cls === C_NEWLINE) {
      if (!space) out += ' ';
      space = true;
    } else {
      out += String.fromCharCode(lower(c));
      space = false;
    }
  }
  return out.trimEnd();
}

function kmpTable(p: string): Int32Array {
  const fail = new Int32Array(p.length);
  let k = 0;
  for (let i = 1; i < p.length; i++) {
    while (k > 0 && p.charCodeAt(i) !== p.charCodeAt(k)) k = fail[k - 1];
    if (p.charCodeAt(i) === p.charCodeAt(k)) k++;
    fail[i] = k;
  }
  return fail;
}

/** An ASCII or full-width colon: what ends a role label ("User:", "用户：") or a line that introduces. */
function isColon(c: number): boolean {
  return c === 58 || c === 0xff1a;
}
