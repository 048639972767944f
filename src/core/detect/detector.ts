/**
 * Streaming NaN / degenerate-output detector. See channel.ts for the per-character machinery;
 * this file adds token-level evidence (ids, logprobs), finish-time rules and the verdict.
 */
import { Channel } from './channel';
import { countingGaps } from './dropped';
import * as decoding from './decode';
import { HeadText } from './head';
import { LexicalScanner, normalisePrompt } from './lexical';
import { MARKUP_STARTS, markupLoop } from './markup';
import { nearLoop } from './nearloop';
import { writtenInQaLines } from './template';
import { isLengthFlood, tailRun } from './tailrun';
import { LetterRuns, WordScanner } from './words';
import { DROPPED, LIMITS } from './limits';
import type { DetectorOptions, FinishInfo, Reason, ReasonCode, ReasonKind, StreamDelta, TokenInfo, Verdict, VerdictKind } from './types';
import { OK_VERDICT } from './types';

export interface Detector {
  push(delta: StreamDelta): Verdict;
  finish(info: FinishInfo): Verdict;
  readonly verdict: Verdict;
  readonly charsSeen: number;
}

/** The kind each reason code supports on its own. */
export const REASON_KIND: Readonly<Record<ReasonCode, Exclude<VerdictKind, 'ok'>>> = Object.freeze({
  'nan-marker': 'nan',
  'nan-logprob': 'nan',
  'token0-run': 'nan',
  'char-flood': 'degenerate',
  'short-loop': 'degenerate',
  'long-loop': 'degenerate',
  compression: 'degenerate',
  'seq-rep': 'degenerate',
  'token-salad': 'degenerate',
  empty: 'degenerate',
  'length-repetition': 'degenerate',
  'tool-calls-missing': 'degenerate',
  'repetition-stop': 'degenerate',
  'nan-counter': 'nan',
  'answer-flood': 'degenerate',
  'special-tokens': 'degenerate',
  'template-leak': 'degenerate',
  'word-repetition': 'degenerate',
  'word-salad': 'degenerate',
  mojibake: 'degenerate',
  'prompt-echo': 'degenerate',
  'list-cycle': 'degenerate',
  'spliced-token': 'degenerate',
  'detok-spacing': 'degenerate',
  'dropped-words': 'degenerate',
  'garbled-words': 'degenerate',
});

const ADVICE: Readonly<Record<ReasonCode, string>> = Object.freeze({
  'nan-marker': 'the server reported "NaN happened": the logits were NaN, usually a quantized GEMM, MoE or attention backend that is broken on this GPU',
  'nan-logprob': 'a sampled token has a NaN, infinite or missing logprob: the logits were not finite, check the GEMM/MoE/attention backend and KV-cache dtype',
  'token0-run':
    'argmax over all-NaN logits picks token 0, so NaN logits look like this: try another fp4/fp8 GEMM, MoE or attention backend, or a bf16 KV cache',
  'char-flood': 'no text repeats one character this long: suspect broken logits (backend, KV-cache dtype, CUDA graphs)',
  'short-loop': 'the model is stuck in a short loop: compare with bf16 KV cache, another attention backend, or --disable-cuda-graph',
  'long-loop': 'the model repeats whole sentences back to back: compare with bf16 KV cache, another attention backend, or --disable-cuda-graph',
  compression: 'the tail is far more repetitive than text: the model is looping',
  'seq-rep': 'almost every n-gram in the tail repeats an earlier one: the model is looping',
  'token-salad': 'the output is random multilingual token salad, what sanitized NaN logits (uniform sampling) or a broken kernel produce',
  empty: 'the answer is empty: a broken FP4 GEMM can give all-zero activations; check the GEMM backend',
  'length-repetition': 'the answer ran to max_tokens while repeating itself instead of stopping',
  'tool-calls-missing': 'finish_reason is tool_calls but no tool call came: a stop on "NaN happened" becomes tool_calls and loses its marker',
  'repetition-stop':
    'its repetition detection found a pattern repeating: compare with another attention or MoE backend, a bf16 KV cache, or without CUDA graphs',
  'nan-counter':
    'the server saw NaN in the logits while answering: the quantized GEMM, MoE or attention backend is broken on this GPU (vLLM: try another --moe-backend or attention backend)',
  'answer-flood':
    'an answer made of one repeated character is what NaN or broken logits give once token 0 is not "!": check the quantized GEMM, MoE and attention backends for this GPU',
  'special-tokens':
    'filler and control tokens are never sampled from sound logits: suspect the quantization, the attention backend or a tokenizer that does not match the weights',
  'template-leak':
    'check the chat template and the stop tokens the server uses (--chat-template, generation_config.json eos_token_id); a model that talks past its turn can also have broken logits',
  'word-repetition':
    'words repeating back to back is what a broken attention backend, KV cache or CUDA graph gives: compare with another attention backend, a bf16 KV cache or --disable-cuda-graph',
  'word-salad':
    'words in random order are what sanitized NaN logits or a broken kernel produce: compare with another GEMM/attention backend or without quantization',
  mojibake: 'the tokenizer or detokenizer does not match the model, or a client decoded the bytes in the wrong encoding',
  'prompt-echo': 'the model repeats its input: check the chat template (a base model or a missing template gives this) and the attention backend',
  'list-cycle':
    'the model is going round the same items, or numbering items it no longer fills: compare with bf16 KV cache, another attention backend, or --disable-cuda-graph',
  'spliced-token': 'a single foreign token in fluent text can be a sampling or kernel fault; probe again to see whether it recurs',
  'detok-spacing':
    'the detokenizer does not match the tokenizer (a server-side tokenizer or skip_special_tokens/spaces_between_special_tokens setting), or the logits are broken',
  'dropped-words':
    'tokens went missing between the model and the text: compare the non-streamed answer, turn off speculative decoding, and check the detokenizer and the client that joins the stream',
  'garbled-words':
    'misspelt, clipped or glued words all through the prose come from broken logits or a detokenizer that loses pieces: compare with another GEMM or attention backend, and check that the tokenizer matches the weights',
});

/**
 * Reasons that say the answer repeats itself. A repetition the prompt makes too ("Apple is red.
 * Banana is yellow." 800 times, then "Apple is") is the prompt's pattern carried on: a suspect.
 */
const REPETITION_CODES: ReadonlySet<ReasonCode> = new Set<ReasonCode>([
  'short-loop',
  'long-loop',
  'seq-rep',
  'compression',
  'word-repetition',
  'length-repetition',
  'prompt-echo',
  'list-cycle',
]);
/** How much of the prompt is kept to look the answer's loop unit up in (normalisePrompt: lower case, whitespace collapsed). */
const PROMPT_KEPT = 65536;
/** A loop unit shorter than this (normalised) is too common to tie to the prompt. */
const PROMPTED_UNIT_MIN = 8;

/** Code units decoded per pass of the scanners (Channel, WordScanner, LexicalScanner). */
const CHUNK = 1024;
/** How much of the answer's end the length-flood rule reads (tailrun.ts): far more than its thresholds need. */
const TAIL_RUN_CHARS = 1024;
/** A module-level copy: imported bindings are getter calls under some loaders. The scanners read each piece from a typed array, decoded once. */
const decode = decoding.decodeUnits;
/** 0-9: a tail without them holds no counting. */
const DIGITS = [48, 49, 50, 51, 52, 53, 54, 55, 56, 57];

/** Records a reason found in one channel, its offset in that channel's text. */
type ChannelSink = (code: ReasonCode, offset: number, detail: string, kind?: ReasonKind) => void;

/** Where finish_reason "length" cut the text, and how its reasons are recorded (see cutChannel). */
interface CutChannel {
  ch: Channel;
  report: ChannelSink;
}

class StreamingDetector implements Detector {
  private readonly content: Channel;
  private readonly contentLex: LexicalScanner;
  private readonly contentWords: WordScanner;
  private readonly contentHead: HeadText;
  private reasoningCh: Channel | null = null;
  private reasoningLex: LexicalScanner | null = null;
  private reasoningWords: WordScanner | null = null;
  /** One reason per code. */
  private readonly reasons = new Map<ReasonCode, Reason>();
  private cached: Verdict = OK_VERDICT;
  private readonly token0Text: string;
  private readonly token0Id: number;
  private t0IdRun = 0;
  private t0IdStart = 0;
  private tokensSeen = 0;
  private readonly lpRing = new Float64Array(LIMITS.saladLogprobTokens);
  private lpCount = 0;
  private lpSum = 0;
  private finished = false;
  private readonly units = new Uint16Array(CHUNK);
  private readonly unitBytes = decoding.unitBytes(this.units);
  private readonly runs = new LetterRuns(CHUNK);

  /** The prompt normalised as the echo rule reads it, when one was given: where a prompted loop shows. */
  private readonly prompt: string | null;

  constructor(opts: DetectorOptions = {}) {
    this.prompt = typeof opts.prompt === 'string' && opts.prompt.length > 0 ? normalisePrompt(opts.prompt.slice(0, PROMPT_KEPT)) : null;
    this.token0Text = typeof opts.token0Text === 'string' && opts.token0Text.length > 0 ? opts.token0Text : '!';
    this.token0Id = typeof opts.token0Id === 'number' && Number.isFinite(opts.token0Id) ? opts.token0Id : 0;
    this.content = new Channel((code, offset, detail) => this.add(code, offset, detail), this.token0Text);
    this.contentLex = new LexicalScanner(
      (code, offset, detail, kind) => this.add(code, offset, detail, kind),
      typeof opts.prompt === 'string' ? opts.prompt : undefined,
      this.token0Text,
    );
    this.contentWords = new WordScanner(
      (code, offset, detail, kind) => this.add(code, offset, detail, kind),
      typeof opts.prompt === 'string' && writtenInQaLines(opts.prompt.slice(0, PROMPT_KEPT)),
    );
    this.contentHead = new HeadText((code, offset, detail, kind) => this.add(code, offset, detail, kind));
  }

  /** The passage the answer says twice back to back (Channel.passageTwice) is in the prompt: a repeat asked for. */
  private promptHoldsPassageTwice(): boolean {
    const passage = this.content.passageTwiceText;
    const r = this.reasons.get('long-loop');
    if (passage === null || this.prompt === null || r === undefined || r.kind !== 'degenerate' || r.offset !== this.content.passageTwiceStart) return false;
    const unit = normalisePrompt(passage).trim();
    return unit.length >= PROMPTED_UNIT_MIN && this.prompt.includes(unit);
  }

  /** The answer's current tail loop unit occurs twice or more in the prompt. */
  private promptRepeatsLoop(): boolean {
    const p = this.content.lag;
    if (p < 2 || this.prompt === null) return false;
    const unit = normalisePrompt(this.content.tail(p));
    if (unit.length < PROMPTED_UNIT_MIN) return false;
    const first = this.prompt.indexOf(unit);
    return first >= 0 && this.prompt.indexOf(unit, first + 1) >= 0;
  }

  get verdict(): Verdict {
    return this.cached;
  }

  get charsSeen(): number {
    return this.content.pos + (this.reasoningCh ? this.reasoningCh.pos : 0);
  }

  private reasoning(): { ch: Channel; lex: LexicalScanner; words: WordScanner } {
    if (!this.reasoningCh || !this.reasoningLex || !this.reasoningWords) {
      const inReasoning: ChannelSink = (code, offset, detail, kind) => this.addInReasoning(code, offset, detail, kind);
      this.reasoningCh = new Channel(inReasoning, this.token0Text);
      this.reasoningLex = new LexicalScanner(inReasoning, undefined, this.token0Text);
      this.reasoningWords = new WordScanner(inReasoning);
    }
    return { ch: this.reasoningCh, lex: this.reasoningLex, words: this.reasoningWords };
  }

  /** A reason in the reasoning text: recorded at the answer's end, naming its offset in the reasoning. */
  private addInReasoning(code: ReasonCode, offset: number, detail: string, kind?: ReasonKind): void {
    this.add(code, this.content.pos, `in the reasoning text at offset ${offset}: ${detail}`, kind);
  }

  /**
   * Records a reason. One reason per code: a suspect is replaced when the same code later reaches
   * its full kind, and a suspect never changes the verdict.
   */
  private add(code: ReasonCode, offset: number, detail: string, level?: ReasonKind): void {
    const kind = level ?? REASON_KIND[code];
    const { message } = reasonOf(code, offset, detail);
    const had = this.reasons.get(code);
    // Two scanners can report one code: of two reasons of the same strength the earlier offset
    // wins, so that the reason does not depend on which scanner saw its piece first.
    if (had && had.kind !== 'suspect' && kind === 'suspect') return;
    if (had && (had.kind === 'suspect') === (kind === 'suspect') && (offset > had.offset || (offset === had.offset && message >= had.message))) return;
    this.reasons.set(code, { code, kind, message, offset });
    this.refresh();
  }

  /** The verdict from the reasons recorded. */
  private refresh(): void {
    let onset = Infinity;
    let worst: VerdictKind = 'ok';
    for (const r of this.reasons.values()) {
      if (r.kind === 'suspect') continue;
      if (r.offset < onset) onset = r.offset;
      if (r.kind === 'nan') worst = 'nan';
      else if (worst === 'ok') worst = 'degenerate';
    }
    // In order of offset: where the answer goes wrong first comes first, however it was streamed.
    const reasons = [...this.reasons.values()].sort((a, b) => a.offset - b.offset || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
    this.cached = { kind: worst, reasons, onset: worst === 'ok' ? null : onset };
  }

  push(delta: StreamDelta): Verdict {
    if (!delta || typeof delta !== 'object') return this.cached;
    const start = this.content.pos;
    const text = delta.text;
    if (typeof text === 'string' && text.length) {
      this.feed(text, this.content, this.contentLex, this.contentWords);
      this.contentHead.push(text);
    }
    const reasoning = delta.reasoning;
    if (typeof reasoning === 'string' && reasoning.length) {
      const r = this.reasoning();
      this.feed(reasoning, r.ch, r.lex, r.words);
    }
    const tokens = delta.tokens;
    if (Array.isArray(tokens) && tokens.length) this.tokens(tokens, start, this.content.pos - start);
    return this.cached;
  }

  private feed(s: string, ch: Channel, lex: LexicalScanner, words: WordScanner): void {
    const units = this.units;
    for (let from = 0; from < s.length; from += CHUNK) {
      const n = Math.min(CHUNK, s.length - from);
      decode(s, from, n, units, this.unitBytes);
      ch.feed(units, n);
      // WordScanner first: LexicalScanner takes the letter runs it found instead of hashing them again.
      words.feed(units, n, this.runs);
      lex.feed(units, n, this.runs);
    }
  }

  /**
   * Token evidence. Offsets come from the tokens' texts when every token has one; otherwise they
   * are spread evenly over the delta's text (an estimate).
   */
  private tokens(tokens: readonly TokenInfo[], deltaStart: number, deltaLen: number): void {
    const n = tokens.length;
    const exact = tokens.every((t) => t && typeof t === 'object' && typeof t.text === 'string');
    let offset = deltaStart;
    for (let i = 0; i < n; i++) {
      const t = tokens[i];
      if (!exact) offset = deltaStart + Math.floor((deltaLen * i) / n);
      if (!t || typeof t !== 'object') continue;
      this.tokensSeen++;
      if ('logprob' in t) {
        const lp = t.logprob;
        if (lp === null || typeof lp !== 'number' || !Number.isFinite(lp)) {
          const shown = lp === null ? 'null' : typeof lp === 'number' ? String(lp) : typeof lp;
          this.add('nan-logprob', offset, `token ${this.tokensSeen} has logprob ${shown}`);
        } else {
          this.logprob(lp, offset);
        }
      }
      if (typeof t.id === 'number') {
        if (t.id === this.token0Id) {
          if (this.t0IdRun === 0) this.t0IdStart = offset;
          if (++this.t0IdRun === LIMITS.token0IdRun) {
            this.add('token0-run', this.t0IdStart, `${this.t0IdRun} consecutive sampled tokens have id ${this.token0Id}`);
          }
        } else {
          this.t0IdRun = 0;
        }
      }
      if (exact) offset += t.text!.length;
    }
  }

  private logprob(lp: number, offset: number): void {
    const k = this.lpRing.length;
    const slot = this.lpCount % k;
    if (this.lpCount >= k) this.lpSum -= this.lpRing[slot];
    this.lpRing[slot] = lp;
    this.lpSum += lp;
    this.lpCount++;
    if (this.lpCount >= k && this.lpSum / k < LIMITS.saladLogprob) {
      this.add('token-salad', offset, `the last ${k} tokens average logprob ${(this.lpSum / k).toFixed(1)}, what sampling from a uniform distribution gives`);
    }
  }

  finish(info: FinishInfo): Verdict {
    if (this.finished) return this.cached;
    this.finished = true;
    const fi: FinishInfo = info && typeof info === 'object' ? info : {};
    const end = this.content.pos;
    const matched = fi.matchedStop;
    if (typeof matched === 'string' && /nan happened/i.test(matched)) {
      this.add('nan-marker', end, `the request stopped on matched_stop ${JSON.stringify(matched)}`);
    }
    const reason = typeof fi.finishReason === 'string' ? fi.finishReason : null;
    const toolCalls = typeof fi.toolCallCount === 'number' && fi.toolCallCount > 0 ? fi.toolCallCount : 0;
    if (reason === 'repetition') this.add('repetition-stop', end, 'the server ended the answer with finish_reason "repetition"');
    if (reason === 'tool_calls' && toolCalls === 0) {
      this.add('tool-calls-missing', end, 'finish_reason is "tool_calls" with no tool call');
    }
    const reasoningEmpty = !this.reasoningCh || !this.reasoningCh.nonWhitespace;
    if (!this.content.nonWhitespace && reasoningEmpty && toolCalls === 0 && !this.reasons.has('nan-marker')) {
      this.add('empty', 0, end === 0 ? 'the answer is empty' : `the answer is ${end} whitespace characters`);
    }
    for (const ch of [this.content, this.reasoningCh]) {
      if (!ch) continue;
      ch.checkCompression();
      ch.checkFloodPieces();
    }
    this.contentLex.finish(this.content.longestUnit(), this.content.longestDigitUnit());
    if (this.reasoningCh && this.reasoningLex) this.reasoningLex.finish(this.reasoningCh.longestUnit(), this.reasoningCh.longestDigitUnit());
    this.contentWords.finish();
    if (this.reasoningWords) this.reasoningWords.finish();
    this.contentHead.finish();
    this.checkShortLogprobs();
    this.checkCounting();
    if (reason !== 'length') this.content.checkEndLoop();
    this.content.checkPassageTwice();
    if (reason === null) this.checkCutLoop();
    this.checkMarkupLoop();
    if (reason === 'length') {
      const cut = this.cutChannel();
      const loop = cut.ch.tailLoop();
      if (loop) {
        cut.report(
          'length-repetition',
          loop.start,
          `finish_reason is "length" and the last ${cut.ch.pos - loop.start} characters repeat a ${loop.period}-character period`,
        );
      } else if (this.lengthFlood(cut)) {
        // Reported by lengthFlood.
      } else if (this.content.has('short-loop') || this.content.has('long-loop') || this.content.has('char-flood') || this.content.has('token0-run')) {
        // The earliest reason, not the first recorded: which scanner records first depends on the pieces.
        let first = end;
        for (const r of this.reasons.values()) if (r.code !== 'nan-marker' && r.kind !== 'suspect' && r.offset < first) first = r.offset;
        this.add('length-repetition', first, 'finish_reason is "length" after the output started repeating');
      }
    }
    this.checkNearLoop(this.content, 'answer', (code, offset, detail) => this.add(code, offset, detail));
    if (this.reasoningCh) this.checkNearLoop(this.reasoningCh, 'reasoning', (code, offset, detail) => this.addInReasoning(code, offset, detail));
    this.checkPromptedLoop();
    return this.cached;
  }

  /**
   * At finish, an answer whose tail loop the prompt makes too: its repetition reasons become
   * suspects (only then: while streaming, the loop could still be the model's own).
   */
  private checkPromptedLoop(): void {
    if (this.prompt === null) return;
    let changed = false;
    if (this.promptHoldsPassageTwice()) changed = this.demote('long-loop', 'The prompt holds the same passage, so the answer may repeat it as asked.');
    else if (this.promptRepeatsLoop()) {
      for (const code of REPETITION_CODES) {
        changed = this.demote(code, "The prompt repeats the same passage, so the answer carries the prompt's pattern on.") || changed;
      }
    }
    if (changed) this.refresh();
  }

  /** Makes a degenerate reason a suspect, saying why; whether there was one. The caller refreshes the verdict. */
  private demote(code: ReasonCode, why: string): boolean {
    const r = this.reasons.get(code);
    if (r === undefined || r.kind !== 'degenerate') return false;
    this.reasons.set(code, { ...r, kind: 'suspect', message: `${r.message} ${why}` });
    return true;
  }

  /**
   * No finish reason came (a pasted answer, a record without one), and the answer stops inside a
   * word partway through a copy of a loop at its tail: it was cut while looping, so the laxer needs
   * of a "length" finish apply (Channel.tailLoop).
   */
  private checkCutLoop(): void {
    const ch = this.content;
    if (this.reasons.has('length-repetition') || !ch.endsInWord()) return;
    const loop = ch.tailLoop();
    if (loop === null || (ch.pos - loop.start) % loop.period === 0) return;
    this.add(
      'length-repetition',
      loop.start,
      `no finish reason came, and the answer stops inside a word partway through a copy of a ${loop.period}-character period repeated from offset ${loop.start}: it was cut while looping`,
    );
  }

  /** Counting with numbers skipped or glued (dropped.ts), read from the answer's tail when it holds numbers. */
  private checkCounting(): void {
    const ch = this.content;
    if (!ch.tailHas(LIMITS.ringSize, DIGITS)) return;
    const tail = ch.tail(LIMITS.ringSize);
    const run = countingGaps(tail, ch.pos - tail.length);
    if (run === null) return;
    const what = run.gaps === 1 ? 'a step that skips or glues numbers' : `${run.gaps} steps that skip or glue numbers`;
    this.add(
      'dropped-words',
      run.offset,
      `counting ${run.numbers} numbers has ${what}, the first ${JSON.stringify(run.sample)} at offset ${run.offset}`,
      run.gaps >= DROPPED.countGaps ? 'degenerate' : 'suspect',
    );
  }

  /** An answer of fewer tokens than the streaming window, each about as unlikely as a uniform draw (logprob()). */
  private checkShortLogprobs(): void {
    const n = this.lpCount;
    if (n < LIMITS.saladLogprobMinTokens || n >= this.lpRing.length || this.reasons.has('token-salad')) return;
    const mean = this.lpSum / n;
    if (mean < LIMITS.saladLogprob)
      this.add('token-salad', 0, `all ${n} tokens of the answer average logprob ${mean.toFixed(1)}, what sampling from a uniform distribution gives`);
  }

  /**
   * The text the server cut at max_tokens: the answer, or the reasoning when no answer text came yet
   * (a reasoning model stuck while thinking), recorded as the reasoning scanners' reasons are.
   */
  private cutChannel(): CutChannel {
    const reasoning = this.reasoningCh;
    if (this.content.nonWhitespace || !reasoning?.nonWhitespace) {
      return { ch: this.content, report: (code, offset, detail) => this.add(code, offset, detail) };
    }
    return { ch: reasoning, report: (code, offset, detail) => this.addInReasoning(code, offset, detail) };
  }

  /** finish_reason "length" and the cut text ends in a run of one short unit (tailrun.ts): reports it. */
  private lengthFlood(cut: CutChannel): boolean {
    const ch = cut.ch;
    const tail = ch.tail(TAIL_RUN_CHARS);
    const run = tailRun(tail);
    if (run === null || !isLengthFlood(run)) return false;
    const start = ch.pos - tail.length + run.start;
    const what =
      ch === this.content
        ? `the answer ends in ${run.copies} copies of ${JSON.stringify(run.unit)} from offset ${start}`
        : `the reasoning ends in ${run.copies} copies of ${JSON.stringify(run.unit)}`;
    cut.report('length-repetition', start, `finish_reason is "length" and ${what}: the model was stuck on one token`);
    return true;
  }

  /**
   * A loop whose copies differ a little (nearloop.ts), read from the channel's tail when no loop
   * rule fired on it; the reasoning's is reported at the answer's end, as its other reasons are.
   */
  private checkNearLoop(ch: Channel, name: 'answer' | 'reasoning', report: ChannelSink): void {
    if (ch.has('short-loop') || ch.has('long-loop') || ch.has('seq-rep') || ch.has('compression')) return;
    if (name === 'answer' && (this.reasons.has('length-repetition') || this.reasons.get('list-cycle')?.kind === 'degenerate')) return;
    // A loop's tail repeats most of its 8-grams; healthy prose stays far below, and skips the word pass.
    if (ch.seqRep() < LIMITS.nearLoopMinSeqRep) return;
    const tail = ch.tail(LIMITS.ringSize);
    const loop = nearLoop(tail);
    if (loop === null) return;
    const at = ch.pos - tail.length + loop.start;
    const code = loop.periodChars < LIMITS.shortPeriod ? 'short-loop' : 'long-loop';
    report(
      code,
      at,
      `the ${name} ends in ${loop.copies} near copies of a ${loop.periodWords}-word passage from offset ${at}, ${Math.round(100 * loop.share)}% of their words the same as a copy before: a loop that changes a word here and there`,
    );
  }

  /** A loop the content's copies hide behind differing markup (markup.ts), when no loop was found as it is. */
  private checkMarkupLoop(): void {
    const ch = this.content;
    if (ch.has('short-loop') || ch.has('long-loop')) return;
    const ring = LIMITS.ringSize;
    // Most answers hold no markup: look for where it could start before building the tail's text.
    if (!ch.tailHas(ring, MARKUP_STARTS)) return;
    const loop = markupLoop(ch.tail(ring), Math.max(0, ch.pos - ring), ch.pos <= ring);
    if (loop) this.add(loop.code, loop.offset, loop.detail);
  }
}

/** A reason found outside the text (a server's counter), worded like the detector's own. */
export function reasonOf(code: ReasonCode, offset: number, detail: string): Reason {
  return { code, kind: REASON_KIND[code], message: `${capitalise(detail)}; ${ADVICE[code]}.`, offset };
}

function capitalise(s: string): string {
  return s.length ? s[0].toUpperCase() + s.slice(1) : s;
}

/** A fresh streaming detector. */
export function createDetector(opts?: DetectorOptions): Detector {
  return new StreamingDetector(opts);
}

/** One-shot detection, built on the streaming detector. */
export function detect(text: string, finish?: FinishInfo, tokens?: TokenInfo[], opts?: DetectorOptions): Verdict {
  const d = createDetector(opts);
  const delta: StreamDelta = { text: typeof text === 'string' ? text : '' };
  if (Array.isArray(tokens)) delta.tokens = tokens;
  d.push(delta);
  return d.finish(finish ?? {});
}
