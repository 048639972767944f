/**
 * Simulator scenarios: which answer each model name gets. A scenario is a JSON file or object;
 * every behaviour is deterministic for a given seed and request.
 */
import { readFileSync } from 'node:fs';
import { errorMessage } from '../core/errors';
import { driftProblem, type DriftSpec } from './drift';

export type Behaviour =
  | 'healthy' // prompt-appropriate text that reads like a model's, EOS stop
  | 'token0-run' // "!!!!…" until max_tokens (silent NaN, greedy argmax lands on token 0)
  | 'nan-marker' // "!!!!…" then finish stop with matched_stop "NaN happened"
  | 'short-loop' // a short healthy start, then one word repeated back to back
  | 'sentence-loop' // a healthy start, then one sentence repeated until max_tokens
  | 'token-salad' // random multilingual tokens that never reach EOS
  | 'empty' // empty answer, stop on EOS at once
  | 'tool-calls-lost' // NaN on a tool-call request: the chat layer reports tool_calls, no calls, no marker
  | 'slow' // healthy text with a delay per token (tokenDelayMs, default 200)
  | 'cut' // the connection drops in the middle of a chunk
  | 'http-500' // 500 with an OpenAI-shaped (or native) JSON error
  | 'http-503' // 503 with a JSON error
  | 'html-error' // 502 with an HTML page, like a reverse proxy
  | 'hang' // accepts the request and never answers
  | 'error-midstream' // a few tokens, then data: {"error":{...}}
  | 'bad-json' // a few tokens, then a data: line that is not JSON
  | 'no-done' // a complete answer whose stream ends without data: [DONE]
  | 'huge' // a very long answer in big chunks (totalChars, chunkChars)
  // Shapes seen in real broken answers (test/corpus/real), played with text written here:
  | 'symbol-flood' // "+" until max_tokens: the NaN failure on a vocabulary whose token 0 is not "!"
  | 'special-tokens' // "<unk>" filler tokens back to back
  | 'unknown-bytes' // a healthy answer whose word-start pieces come as "[UNK_BYTE_0x…]" markers (a tokenizer without byte fallback)
  | 'word-stutter' // a healthy answer with every word said twice
  | 'glued-words' // a healthy answer whose pieces lost their leading spaces (a detokenizer decoding piece by piece)
  | 'symbol-salad' // the answer's first line, then symbols and digits with no word among them, until max_tokens
  | 'function-word-salad' // function words in random order ("the to and of the a")
  | 'mojibake' // a healthy answer whose UTF-8 bytes were decoded as Latin-1
  | 'byte-pieces' // a Chinese answer whose byte-level BPE pieces were never mapped back to bytes ("ä¸ŃåĽ½" for 中国)
  | 'runaway-template' // the answer, then <|im_end|> and an invented user turn, until max_tokens
  | 'list-cycle' // a numbered list whose items come back
  | 'spliced-token' // a healthy answer with one Cyrillic word spliced in (a suspect, not a verdict)
  | 'tokenizer-marks' // a healthy answer whose word-start pieces keep SentencePiece's "▁" instead of a space
  | 'item-loop' // a numbered plan stuck on one step: the same item again while its number counts up
  | 'stuck-mark' // the answer's first sentence, then "?" until max_tokens
  | 'code-salad' // random pieces of a code-heavy vocabulary until max_tokens
  | 'inst-runaway' // the answer, then invented [INST] … [/INST] turns with no </s> between, until max_tokens
  | 'dropped-tokens' // counting from 1 with every seventh number's token lost on the way, EOS stop
  | 'garbled-letters' // a healthy paragraph whose longer words lost a letter each ("cahe", "memry"), EOS stop
  | 'offer-runaway' // a greeting that offers help, then two other answers with no marker between (a suspect, not a verdict)
  | 'answer-twice' // the whole healthy answer, a blank line, then the same answer again, EOS stop
  | 'restate' // a sentence of a coding agent's report said twice back to back, then a new one, EOS stop
  | 'prompt-echo' // the prompt itself as the answer (a quantized model returning its input)
  | 'fluent-wrong' // well-formed text that answers another question, EOS stop (an accuracy failure)
  | 'arithmetic'; // answers the eval problems with working and "Answer: N"; wrong at wrongRate

export const BEHAVIOURS: readonly Behaviour[] = [
  'healthy',
  'token0-run',
  'nan-marker',
  'short-loop',
  'sentence-loop',
  'token-salad',
  'empty',
  'tool-calls-lost',
  'slow',
  'cut',
  'http-500',
  'http-503',
  'html-error',
  'hang',
  'error-midstream',
  'bad-json',
  'no-done',
  'huge',
  'symbol-flood',
  'special-tokens',
  'unknown-bytes',
  'word-stutter',
  'glued-words',
  'symbol-salad',
  'function-word-salad',
  'mojibake',
  'byte-pieces',
  'runaway-template',
  'list-cycle',
  'spliced-token',
  'tokenizer-marks',
  'item-loop',
  'stuck-mark',
  'code-salad',
  'inst-runaway',
  'dropped-tokens',
  'garbled-letters',
  'offer-runaway',
  'answer-twice',
  'restate',
  'prompt-echo',
  'fluent-wrong',
  'arithmetic',
];

export interface ModelBehaviour {
  behaviour: Behaviour;
  /** Milliseconds between tokens (stream) or added per token before a non-stream answer. */
  tokenDelayMs?: number;
  /** Extra milliseconds before the first token. */
  firstTokenDelayMs?: number;
  /** Tokens per streamed chunk. Default 1, as SGLang's default stream_interval. */
  tokensPerChunk?: number;
  /** Logprobs the sampled tokens carry when asked: normal (default), nan, or -inf. */
  logprobs?: 'normal' | 'nan' | '-inf';
  /** Reference-check modes (drift.ts): logprobs nudged, or the text leaving the healthy answer, from a token on. */
  drift?: DriftSpec;
  /** Reasoning text streamed before the answer (reasoning_content with a reasoning parser). */
  reasoning?: string;
  /** 'nan-marker': how many `!` tokens come before the marker (default 24–39, seeded). */
  nanAfterTokens?: number;
  /** 'cut': how many tokens stream before the connection drops. */
  cutAfterTokens?: number;
  /** 'huge': answer length in characters and chunk size. */
  totalChars?: number;
  chunkChars?: number;
  /** 'arithmetic': share of eval problems answered wrong, fluently (0 to 1, default 0). */
  wrongRate?: number;
  /** Token count used when the request sets no max_tokens. Default 256. */
  defaultMaxTokens?: number;
}

/** Which server the simulator plays: SGLang's routes and shapes, or vLLM's (vllm.ts). */
export type SimEngine = 'sglang' | 'vllm';

export interface Scenario {
  name?: string;
  /** Default sglang. vllm: vLLM's OpenAI server (no native routes, /version, /metrics, nested errors). */
  engine?: SimEngine;
  /**
   * The server process's environment, as far as the simulator reads it (vLLM: VLLM_COMPUTE_NANS_IN_LOGITS
   * counts corrupted requests in /metrics, VLLM_SERVER_DEV_MODE opens /server_info).
   */
  env?: Record<string, string>;
  /** vLLM: the context length /v1/models reports (default 32768). */
  maxModelLen?: number;
  description?: string;
  /** Seed for the pseudo-random parts (answer choice, salad, logprobs). */
  seed?: number;
  /** Server version string for /server_info. */
  version?: string;
  /** Launched with --reasoning-parser: reasoning goes to reasoning_content, else inline <think>. */
  reasoningParser?: string | null;
  /** Requires Authorization: Bearer <apiKey> (the CLI --api-key wins). */
  apiKey?: string;
  /** Old server: only /get_server_info and /get_model_info exist. */
  legacyRoutes?: boolean;
  /** /health_generate status (default 200: even a NaN server passes it). */
  healthGenerateStatus?: number;
  /** Field overrides merged into the /server_info args. */
  serverArgs?: Record<string, unknown>;
  /** Extra fields for internal_states[0]; the strings "NaN"/"Infinity"/"-Infinity" are written as bare literals. */
  internalState?: Record<string, unknown>;
  /** Model name -> behaviour. The first entry is what /v1/models lists first. */
  models: Record<string, ModelBehaviour | Behaviour>;
  /** Behaviour for model names not in `models` (else 404 model not found). */
  default?: ModelBehaviour | Behaviour;
}

export class ScenarioError extends Error {}

function normaliseBehaviour(value: unknown, where: string): ModelBehaviour {
  const b: unknown = typeof value === 'string' ? { behaviour: value } : value;
  if (!b || typeof b !== 'object' || !BEHAVIOURS.includes((b as ModelBehaviour).behaviour)) {
    throw new ScenarioError(`${where}: behaviour must be one of ${BEHAVIOURS.join(', ')}`);
  }
  const drift = driftProblem((b as ModelBehaviour).drift, where);
  if (drift) throw new ScenarioError(drift);
  return b as ModelBehaviour;
}

export interface ResolvedScenario extends Omit<Scenario, 'models' | 'default' | 'engine'> {
  seed: number;
  engine: SimEngine;
  models: Map<string, ModelBehaviour>;
  default?: ModelBehaviour;
}

/** Validates a scenario object, or reads one from a JSON file path. */
export function loadScenario(source: Scenario | string): ResolvedScenario {
  let raw: unknown = source;
  if (typeof source === 'string') {
    try {
      raw = JSON.parse(readFileSync(source, 'utf8')) as unknown;
    } catch (error) {
      throw new ScenarioError(`Cannot read scenario ${source}: ${errorMessage(error)}`);
    }
  }
  if (!raw || typeof raw !== 'object' || !('models' in raw) || typeof raw.models !== 'object' || !raw.models) {
    throw new ScenarioError('A scenario needs a "models" object mapping model names to behaviours');
  }
  const s = raw as Scenario;
  const models = new Map<string, ModelBehaviour>();
  for (const [name, value] of Object.entries(s.models)) models.set(name, normaliseBehaviour(value, `models.${name}`));
  if (models.size === 0 && !s.default) throw new ScenarioError('A scenario needs at least one model');
  if (s.engine !== undefined && s.engine !== 'sglang' && s.engine !== 'vllm') throw new ScenarioError('engine must be "sglang" or "vllm"');
  return {
    ...s,
    engine: s.engine ?? 'sglang',
    seed: typeof s.seed === 'number' ? s.seed : 1,
    models,
    default: s.default === undefined ? undefined : normaliseBehaviour(s.default, 'default'),
  };
}
