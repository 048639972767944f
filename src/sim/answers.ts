/**
 * Answer texts and the token plans the simulator streams. All text here was written for this
 * project; healthy answers are meant to read like an instruction-tuned model's output.
 */
import type { Behaviour, ModelBehaviour } from './scenario';
import { inByteAlphabet } from '../core/detect/byteAlphabet';
import { seededRandom as mulberry32 } from '../core/random';
import { arithmeticAnswer } from './arithmetic';

/** End-of-sequence token id reported as matched_stop for a natural stop (Qwen's <|im_end|>). */
export const EOS_TOKEN_ID = 151645;

const GREETING = `Hello! I'm doing well, thank you for asking. I'm a language model running on this server, and I'm ready to help.

You can ask me to explain a concept, draft an email, review a piece of code, or work through a problem step by step. What would you like to start with?`;

const PRIME = `Here is a straightforward way to check whether a number is prime in Python:

\`\`\`python
def is_prime(n: int) -> bool:
    """Return True if n is a prime number, False otherwise."""
    if n < 2:
        return False
    if n in (2, 3):
        return True
    if n % 2 == 0 or n % 3 == 0:
        return False
    # Every prime above 3 has the form 6k - 1 or 6k + 1.
    i = 5
    while i * i <= n:
        if n % i == 0 or n % (i + 2) == 0:
            return False
        i += 6
    return True


print([x for x in range(30) if is_prime(x)])
\`\`\`

How it works:

- Numbers below 2 are not prime, and 2 and 3 are handled directly.
- Any multiple of 2 or 3 is rejected early.
- The loop only tests divisors up to the square root of \`n\`, stepping through candidates of the form 6k ± 1, so it runs in O(√n) time.

Running the last line prints \`[2, 3, 5, 7, 11, 13, 17, 19, 23, 29]\`.`;

const COUNTING = `Sure, here are the numbers from 1 to 20:

1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20.

That's twenty numbers in total. Let me know if you'd like them in a different format, such as one per line or written out as words.`;

const KV_CACHE = `A KV cache stores the key and value tensors that the attention layers compute for tokens the model has already processed. Without it, generating each new token would mean recomputing attention inputs for the whole prefix, so the cost of a long answer would grow roughly with the square of its length.

With the cache, each decoding step only computes keys and values for the newest token and reads the rest from memory. The trade-off is memory: the cache grows linearly with sequence length, batch size, number of layers and the width of each attention head. That is why serving engines page the cache into fixed-size blocks, share blocks between requests with a common prefix, and sometimes store it in FP8 to fit more concurrent requests on a GPU.

Lower-precision caches save memory but can cost accuracy on some models, so it is worth comparing answers against a BF16 cache when output quality looks off.`;

const CHECKLIST = `When a model server starts returning strange output, a few checks usually narrow the problem down quickly:

1. **Confirm the weights loaded correctly.** Compare the checkpoint's hash or size with the published one, and check the logs for warnings about missing or unexpected keys.
2. **Try a smaller, known-good prompt.** A short greeting at temperature 0 removes sampling and long-context effects from the picture.
3. **Switch one backend at a time.** Attention, MoE and GEMM kernels each have alternatives; changing them one by one shows which component misbehaves.
4. **Disable CUDA graphs as a diagnostic.** If the output recovers, the problem is in graph capture rather than in the kernels themselves.
5. **Check driver and library versions.** Kernel libraries built for another GPU architecture can load without complaint and still produce wrong results.

Write down each change and its result, so the fix can be reproduced on the next deployment.`;

const TIDES = `Tides are caused mainly by the Moon's gravity, with a smaller contribution from the Sun. The Moon pulls slightly harder on the side of the Earth facing it than on the Earth's centre, and slightly less on the far side. That difference stretches the oceans into two bulges, one towards the Moon and one away from it.

As the Earth rotates through these bulges, most coastlines see two high tides and two low tides roughly every 24 hours and 50 minutes; the extra 50 minutes comes from the Moon moving along its orbit. When the Sun and Moon line up, at new and full moon, their effects add together and produce larger spring tides. When they sit at right angles, the result is the weaker neap tides.

Local geography matters a great deal as well: the shape of a bay can amplify the range to more than ten metres, while some enclosed seas barely notice the tide at all.`;

/** The probe panel's default prompt asks for one sentence about the sea: the tryout's healthy model gives one. */
const SEA = `The sea covers about seven tenths of the Earth, holds far more heat than the whole atmosphere, and carries it from the tropics towards the poles in slow currents that shape the weather on every coast.`;

export const HEALTHY_ANSWERS: readonly string[] = [GREETING, PRIME, COUNTING, KV_CACHE, CHECKLIST, TIDES];

const LOOP_SENTENCE = ' The answer depends on the configuration of the server and the model.';

/** Written for the simulator: what a coding agent reports, said twice by the 'restate' behaviour. */
const RESTATED = 'I switched the attention backend to triton and restarted the server; the health check passes now.';

/** Written for the simulator: accented and CJK text, so a Latin-1 misread shows. */
const ACCENTED = 'Voilà : le café est prêt à 8 h. Die Größe des Caches wächst linear. 缓存命中率提高了。';

/** A healthy answer in Chinese, for the byte-pieces behaviour. */
const CHINESE_KV_CACHE = 'KV 缓存保存模型已经算过的键和值。生成下一个词时，只需要计算最新的一个位置，其余的从显存里读取，所以长回答不会越来越慢。';

/** Symbols and digits a broken fp16 accumulation samples once the logits overflow (no brackets, no backslash). */
const SYMBOL_SALAD = '!#$%&*+-/:;<=>?@^~0123456789';
const FUNCTION_WORDS = [' the', ' to', ' and', ' of', ' a', ' that', ' it', ' is', ' in', ' like', ' with', ' which', ' for', ' as', ' on'];

const RUNAWAY_TURN =
  '<|im_end|>\n<|im_start|>user\nThanks! Can you also explain how the scheduler batches requests?<|im_end|>\n' +
  '<|im_start|>assistant\nOf course. The scheduler groups waiting requests by their prefix and admits them while memory allows.<|im_end|>\n';

const LIST_ITEMS = ['Check the driver version', 'Restart the server', 'Clear the kernel cache', 'Probe the model again'];
const STUCK_ITEM = 'Set the attention backend to triton and restart.';
/** Syllables that code-salad glues into words no vocabulary repeats, capitalised at random (case turns). */
const SALAD_SYLLABLES = ['ka', 'lor', 'ven', 'tis', 'mu', 'dre', 'pon', 'sel', 'qua', 'bri', 'nox', 'fel', 'ra', 'gu', 'thim', 'zo'];
/** Operators and punctuation pieces, as a code-heavy vocabulary holds them; written here. */
const CODE_SALAD_PIECES = ["']=", '();', '(`', ' ?>', ' /*', '::', '#[', ' {%', '$_', '.', '_', ' ->', '"]', ' <=', '@{', ',', ' |', '!('];
const INST_TURN = ' [INST] And how does the scheduler batch requests? [/INST] It groups waiting requests and admits them while memory allows.';
const LOOP_WORD = ' claus';
const OFFER = 'Hello! How can I help you today?';

/** FNV-1a hash of a string. */
export function hashString(text: string, seed = 0): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Picks a healthy answer that fits the prompt, else one chosen by the seed. */
export function healthyAnswerFor(prompt: string, seed: number): string {
  const p = prompt.toLowerCase();
  if (/\bprime\b/.test(p)) return PRIME;
  if (/\bcount/.test(p)) return COUNTING;
  if (/\b(hello|hi|hey|greetings|how are you)\b/.test(p)) return GREETING;
  if (/\b(kv|cache|attention)\b/.test(p)) return KV_CACHE;
  if (/\b(tide|moon|ocean)\b/.test(p)) return TIDES;
  if (/\bsea\b/.test(p)) return SEA;
  if (/\b(debug|server|checklist|broken)\b/.test(p)) return CHECKLIST;
  return HEALTHY_ANSWERS[hashString(prompt, seed) % HEALTHY_ANSWERS.length];
}

/** GPT-2-style pre-tokenisation: words with their leading space, digits, punctuation runs. */
const TOKEN_RE = / ?\p{L}+| ?\p{N}| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

export function tokenize(text: string): string[] {
  return text.match(TOKEN_RE) ?? [];
}

/** Vocabulary id for a token text; "!" is id 0 as in byte-level BPE vocabularies. */
export function tokenId(text: string): number {
  if (text === '!') return 0;
  return 1 + (hashString(text) % 151000);
}

export interface SimToken {
  text: string;
  id: number;
  logprob: number;
  /** Seeds the top-K alternatives (drift.ts) when they should differ from the usual ones for this text. */
  altSeed?: number;
}

export interface AnswerPlan {
  /** Reasoning tokens (streamed before content). */
  reasoning: SimToken[];
  /** Content tokens, lazily produced so huge answers never sit in memory whole. */
  content: Iterable<SimToken>;
  /** 'repetition': vLLM's repetition detection ended it (vllm.ts). */
  finishReason: 'stop' | 'length' | 'repetition';
  matchedStop: string | number | null;
  /**
   * The request ran with a tool-call parser: SGLang's chat layer turns a "stop" into
   * finish_reason "tool_calls" and drops matched_stop, even when no call was produced.
   */
  toolCallStop?: boolean;
  /** Number of content tokens the plan yields. */
  completionTokens: number;
}

const SALAD_PIECES = [
  ' помощь',
  '的',
  ' Krankenhaus',
  ' يوم',
  'ปี',
  ' 東京',
  ' zwischen',
  ' προς',
  '자',
  ' निर्माण',
  'ção',
  ' stał',
  'Ġ',
  ' 了',
  ' herşey',
  '\u0e31',
  ' città',
  ' עם',
  '】',
  ' weiß',
  ' поэтому',
  ' các',
  'ĊĊ',
  ' 부분',
];

interface PlanInput {
  behaviour: ModelBehaviour;
  prompt: string;
  maxTokens: number;
  seed: number;
}

function makeToken(text: string, logprobs: ModelBehaviour['logprobs'], rand: () => number): SimToken {
  const logprob = logprobs === 'nan' ? NaN : logprobs === '-inf' ? -Infinity : -(rand() ** 3) * 2.5 - 0.0005;
  return { text, id: tokenId(text), logprob };
}

/** Builds what the server will say. The HTTP layer decides how to ship it (and faults). */
export function planAnswer({ behaviour, prompt, maxTokens, seed }: PlanInput): AnswerPlan {
  const rand = mulberry32(hashString(prompt, seed));
  const lp = behaviour.logprobs;
  const tok = (t: string): SimToken => makeToken(t, lp, rand);
  const reasoning = behaviour.reasoning ? tokenize(behaviour.reasoning).map(tok) : [];
  const kind: Behaviour = behaviour.behaviour;

  const fromTexts = (texts: string[], natural: { reason: 'stop'; matched: string | number } | null): AnswerPlan => {
    const limited = texts.slice(0, maxTokens);
    const hitLimit = texts.length > maxTokens || !natural;
    return {
      reasoning,
      content: limited.map(tok),
      finishReason: hitLimit ? 'length' : 'stop',
      matchedStop: hitLimit ? null : natural.matched,
      completionTokens: limited.length,
    };
  };

  switch (kind) {
    case 'token0-run':
      return fromTexts(Array<string>(maxTokens).fill('!'), null);
    case 'nan-marker': {
      // NaN appears after a few tokens; SGLang then stops with the marker.
      const n = Math.min(maxTokens, behaviour.nanAfterTokens ?? 24 + Math.floor(rand() * 16));
      const plan = fromTexts(Array<string>(n).fill('!'), { reason: 'stop', matched: 'NaN happened' });
      plan.finishReason = 'stop';
      plan.matchedStop = 'NaN happened';
      return plan;
    }
    case 'short-loop': {
      const start = tokenize('Sure, I can explain that. The main reason is');
      const texts = [...start];
      while (texts.length < maxTokens) texts.push(LOOP_WORD);
      return fromTexts(texts, null);
    }
    case 'sentence-loop': {
      const healthy = tokenize(healthyAnswerFor(prompt, seed));
      const texts = healthy.slice(0, Math.min(60, Math.floor(healthy.length / 2)));
      const sentence = tokenize(LOOP_SENTENCE);
      while (texts.length < maxTokens) texts.push(...sentence);
      return fromTexts(texts.slice(0, maxTokens), null);
    }
    case 'token-salad': {
      const texts: string[] = [];
      for (let i = 0; i < maxTokens; i++) texts.push(SALAD_PIECES[Math.floor(rand() * SALAD_PIECES.length)]);
      return fromTexts(texts, null);
    }
    case 'symbol-flood':
      return fromTexts(Array<string>(maxTokens).fill('+'), null);
    case 'special-tokens':
      return fromTexts(Array<string>(maxTokens).fill('<unk>'), null);
    case 'unknown-bytes': {
      // Every other word-start piece ("▁word", "▁" being the bytes e2 96 81) printed as a marker, then the word.
      const texts: string[] = [];
      let words = 0;
      for (const t of tokenize(healthyAnswerFor(prompt, seed))) {
        const word = /^ (\p{L}+)$/u.exec(t);
        texts.push(word && words++ % 2 === 1 ? `[UNK_BYTE_0xe29681▁${word[1]}]${word[1]}` : t);
      }
      return fromTexts(texts, { reason: 'stop', matched: EOS_TOKEN_ID });
    }
    case 'word-stutter': {
      const texts: string[] = [];
      for (const t of tokenize(healthyAnswerFor(prompt, seed))) texts.push(t, /^\s*\p{L}/u.test(t) ? ` ${t.trimStart()}` : '');
      return fromTexts(
        texts.filter((t) => t !== ''),
        { reason: 'stop', matched: EOS_TOKEN_ID },
      );
    }
    case 'glued-words':
      // Each piece decoded alone: the word-initial space of sentencepiece pieces is lost.
      return fromTexts(
        tokenize(healthyAnswerFor(prompt, seed)).map((t) => t.replace(/^ +/, '')),
        { reason: 'stop', matched: EOS_TOKEN_ID },
      );
    case 'symbol-salad': {
      const texts = tokenize(`${healthyAnswerFor(prompt, seed).split('\n')[0] ?? ''}\n`);
      while (texts.length < maxTokens) {
        let piece = '';
        for (let n = 1 + Math.floor(rand() * 3); n > 0; n--) piece += SYMBOL_SALAD[Math.floor(rand() * SYMBOL_SALAD.length)];
        texts.push(piece);
      }
      return fromTexts(texts.slice(0, maxTokens), null);
    }
    case 'function-word-salad': {
      const texts: string[] = [];
      for (let i = 0; i < maxTokens; i++) texts.push(FUNCTION_WORDS[Math.floor(rand() * FUNCTION_WORDS.length)]);
      return fromTexts(texts, null);
    }
    case 'mojibake': {
      const misread = Buffer.from(ACCENTED, 'utf8').toString('latin1');
      return fromTexts(tokenize(misread), { reason: 'stop', matched: EOS_TOKEN_ID });
    }
    case 'byte-pieces': {
      // Spaces come out as "Ġ" too: the whole answer is the pieces' stored form.
      return fromTexts(tokenize(inByteAlphabet(CHINESE_KV_CACHE)), { reason: 'stop', matched: EOS_TOKEN_ID });
    }
    case 'runaway-template': {
      const texts = tokenize(healthyAnswerFor(prompt, seed).split('\n')[0] ?? '');
      const turn = tokenize(RUNAWAY_TURN);
      while (texts.length < maxTokens) texts.push(...turn);
      return fromTexts(texts.slice(0, maxTokens), null);
    }
    case 'list-cycle': {
      const texts = tokenize('Here is what to try, in order:\n');
      for (let i = 0; texts.length < maxTokens; i++) texts.push(...tokenize(`${i + 1}. ${LIST_ITEMS[i % LIST_ITEMS.length]}\n`));
      return fromTexts(texts.slice(0, maxTokens), null);
    }
    case 'spliced-token': {
      const words = tokenize(healthyAnswerFor(prompt, seed));
      const at = words.findIndex((t, i) => i > 8 && /^ \p{L}+$/u.test(t));
      if (at > 0) words.splice(at, 0, ' которые');
      return fromTexts(words, { reason: 'stop', matched: EOS_TOKEN_ID });
    }
    case 'tokenizer-marks':
      // The pieces decoded as their vocabulary strings: the word-start space stays "▁".
      return fromTexts(
        tokenize(healthyAnswerFor(prompt, seed)).map((t) => t.replace(/^ /, '▁')),
        { reason: 'stop', matched: EOS_TOKEN_ID },
      );
    case 'item-loop': {
      const texts = tokenize('Here is the plan:\n1. Check the driver version.\n');
      for (let step = 2; texts.length < maxTokens; step++) texts.push(...tokenize(`Step ${step}: ${STUCK_ITEM}\n`));
      return fromTexts(texts.slice(0, maxTokens), null);
    }
    case 'stuck-mark': {
      const texts = tokenize('Let me check that for you. ');
      while (texts.length < maxTokens) texts.push('?');
      return fromTexts(texts.slice(0, maxTokens), null);
    }
    case 'code-salad': {
      // A vocabulary of 100k pieces seldom draws one twice: pieces of code, then syllables glued into new words.
      const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];
      const texts: string[] = [];
      for (let i = 0; i < maxTokens; i++) {
        if (i % 3 === 0) texts.push(pick(CODE_SALAD_PIECES));
        else {
          let word = rand() < 0.5 ? ' ' : '';
          for (let k = 3; k > 0; k--) word += pick(SALAD_SYLLABLES);
          texts.push(rand() < 0.4 ? word.replace(/[a-z]/, (c) => c.toUpperCase()) : word);
        }
      }
      return fromTexts(texts, null);
    }
    case 'inst-runaway': {
      const texts = tokenize(healthyAnswerFor(prompt, seed).split('\n')[0] ?? '');
      const turn = tokenize(INST_TURN);
      while (texts.length < maxTokens) texts.push(...turn);
      return fromTexts(texts.slice(0, maxTokens), null);
    }
    case 'dropped-tokens': {
      const texts = tokenize('Sure, counting from one:');
      for (let n = 1; texts.length < maxTokens && n <= 120; n++) if (n % 7 !== 5) texts.push(` ${n}`);
      return fromTexts(texts.slice(0, maxTokens), { reason: 'stop', matched: EOS_TOKEN_ID });
    }
    case 'garbled-letters': {
      // Prose with a letter lost from the middle of every second word of five letters or more.
      let long = 0;
      const garbled = KV_CACHE.replace(/\p{L}{5,}/gu, (word) =>
        long++ % 2 === 0 ? word.slice(0, word.length >> 1) + word.slice((word.length >> 1) + 1) : word,
      );
      return fromTexts(tokenize(garbled).slice(0, maxTokens), { reason: 'stop', matched: EOS_TOKEN_ID });
    }
    case 'offer-runaway': {
      // The greeting, then two other answers: no chat marker, so the detector can only suspect it.
      const texts = tokenize(`${OFFER}\n\n${HEALTHY_ANSWERS[0]}\n\n${HEALTHY_ANSWERS[1]}`);
      return fromTexts(texts, { reason: 'stop', matched: EOS_TOKEN_ID });
    }
    case 'answer-twice': {
      // The model says its whole answer again before it stops.
      const answer = healthyAnswerFor(prompt, seed);
      const texts = tokenize(`${answer}\n\n${answer}`);
      return fromTexts(texts, { reason: 'stop', matched: EOS_TOKEN_ID });
    }
    case 'restate': {
      // An agent's report that says its last sentence again and then goes on, as coding agents' replies do.
      const texts = tokenize(`${RESTATED}\n${RESTATED} Next, run a probe to see that the answers are sound.`);
      return fromTexts(texts, { reason: 'stop', matched: EOS_TOKEN_ID });
    }
    case 'prompt-echo':
      return fromTexts(tokenize(prompt).slice(0, maxTokens), { reason: 'stop', matched: EOS_TOKEN_ID });
    case 'fluent-wrong': {
      // A well-formed answer to another question: the one after the fitting answer in the list.
      const right = HEALTHY_ANSWERS.indexOf(healthyAnswerFor(prompt, seed));
      return fromTexts(tokenize(HEALTHY_ANSWERS[(right + 1) % HEALTHY_ANSWERS.length]), { reason: 'stop', matched: EOS_TOKEN_ID });
    }
    case 'arithmetic': {
      const text = arithmeticAnswer(prompt, behaviour.wrongRate ?? 0, rand) ?? healthyAnswerFor(prompt, seed);
      return fromTexts(tokenize(text), { reason: 'stop', matched: EOS_TOKEN_ID });
    }
    case 'empty':
      return { reasoning, content: [], finishReason: 'stop', matchedStop: EOS_TOKEN_ID, completionTokens: 0 };
    case 'tool-calls-lost':
      return { reasoning, content: [], finishReason: 'stop', matchedStop: 'NaN happened', toolCallStop: true, completionTokens: 0 };
    case 'huge': {
      const total = behaviour.totalChars ?? 50 * 1024 * 1024;
      const size = Math.max(1, behaviour.chunkChars ?? 64 * 1024);
      const count = Math.min(maxTokens, Math.ceil(total / size));
      const source = HEALTHY_ANSWERS.join('\n\n') + '\n\n';
      let block = source;
      while (block.length < size * 2) block += source;
      function* gen(): Generator<SimToken> {
        let emitted = 0;
        for (let i = 0; i < count; i++) {
          const len = Math.min(size, total - emitted);
          const offset = (i * 7919) % (block.length - size);
          emitted += len;
          yield { text: block.slice(offset, offset + len), id: 1 + i, logprob: -0.1 };
        }
      }
      return {
        reasoning,
        content: gen(),
        finishReason: count * size >= total ? 'stop' : 'length',
        matchedStop: count * size >= total ? EOS_TOKEN_ID : null,
        completionTokens: count,
      };
    }
    default:
      // healthy, slow and the fault behaviours share a healthy answer.
      return fromTexts(tokenize(healthyAnswerFor(prompt, seed)), { reason: 'stop', matched: EOS_TOKEN_ID });
  }
}
