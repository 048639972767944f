/** Verdict vocabulary shared by the detector, the probe runner, the panel and the CLI. */

export type VerdictKind = 'ok' | 'degenerate' | 'nan';

/** Why a verdict was reached. One code per signal family, so UIs and tests can key on it. */
export type ReasonCode =
  | 'nan-marker' // matched_stop / native matched == "NaN happened"
  | 'nan-logprob' // NaN, +-Infinity or null logprob for a sampled token
  | 'token0-run' // a run of the vocabulary's token 0 ("!" in byte-level BPE vocabularies)
  | 'char-flood' // one character repeated far past anything prose or code does
  | 'short-loop' // the tail repeats a short period back to back (Holtzman's tail rule)
  | 'long-loop' // a sentence- or paragraph-long period repeats back to back
  | 'compression' // the tail window compresses far better than text does
  | 'seq-rep' // seq-rep-n over the tail window is far above healthy decoding
  | 'token-salad' // script mixing, U+FFFD, byte-level BPE artefacts
  | 'empty' // empty or whitespace-only answer
  | 'length-repetition' // finish_reason "length" while the tail repeats
  | 'tool-calls-missing' // finish_reason "tool_calls" but no tool call came
  | 'repetition-stop' // finish_reason "repetition": vLLM's own repetition detection ended the answer
  | 'nan-counter' // the server's NaN counter (vLLM's vllm:corrupted_requests) rose during the probe
  | 'answer-flood' // most of a (possibly short) answer is one character or a short unit repeated
  | 'special-tokens' // filler/control tokens (<unk>, [PAD], <unusedN>, [control_N], <0xHH>) in the text
  | 'template-leak' // chat-template markers or invented role turns in the answer (runaway past end-of-turn)
  | 'word-repetition' // words doubled back to back, or a prose window made of a handful of words
  | 'word-salad' // words in random order: function-word salad, random vocabulary, scripts switching per word
  | 'mojibake' // UTF-8 read as CP1252/CP1251, or U+FFFD where bytes were lost
  | 'prompt-echo' // the prompt repeated in the answer
  | 'list-cycle' // lines, list items or sentences coming back in a cycle (numbers aside)
  | 'spliced-token' // one word of another script or vocabulary spliced into fluent text
  | 'detok-spacing' // a space inside contractions ("' s", "don' t"): the detokenizer mishandles the apostrophe
  | 'dropped-words' // tokens lost on the way: a determiner with its noun gone ("of the, there"), counting with numbers missing
  | 'garbled-words'; // English prose with many words no English dictionary has (letters dropped, swapped or glued)

/**
 * How strong a reason is. `suspect` is weak evidence (one spliced token, a short salad): it is
 * reported and shown, but the verdict stays what the other reasons make it.
 */
export type ReasonKind = Exclude<VerdictKind, 'ok'> | 'suspect';

export interface Reason {
  code: ReasonCode;
  /** The verdict this reason alone supports; `suspect` supports none. */
  kind: ReasonKind;
  /** One sentence a user can act on. */
  message: string;
  /** UTF-16 offset into the answer's content where the trouble starts. */
  offset: number;
}

export interface Verdict {
  kind: VerdictKind;
  reasons: Reason[];
  /** Earliest offset among the reasons that made the verdict; null when the verdict is ok. */
  onset: number | null;
}

export interface TokenInfo {
  id?: number;
  /** Parsed with NaN/Infinity literals kept, so NaN and +-Infinity arrive as numbers. */
  logprob?: number | null;
  text?: string;
}

export interface StreamDelta {
  text?: string;
  reasoning?: string;
  tokens?: TokenInfo[];
}

export interface FinishInfo {
  finishReason?: string | null;
  /** OpenAI layer: matched_stop; native: meta_info.finish_reason.matched. */
  matchedStop?: string | number | null;
  /** Number of tool calls the answer carried (only read when finishReason is tool_calls). */
  toolCallCount?: number;
}

export interface DetectorOptions {
  /** Text of token id 0 from the server's tokenizer, when known. Defaults to "!". */
  token0Text?: string;
  /** Id of the token that all-NaN argmax lands on. Defaults to 0. */
  token0Id?: number;
  /** The prompt the answer replies to, when known: lets the detector see it echoed. */
  prompt?: string;
}

export const OK_VERDICT: Verdict = Object.freeze<Verdict>({ kind: 'ok', reasons: [], onset: null });
