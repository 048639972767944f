/**
 * Seeded streams for the detector's differential check (test/unit/detect-differential.test.ts):
 * every corpus and real output cut into random pieces, and synthetic streams that splice floods,
 * loops, markers, mojibake and stutter into slices of them. Each stream's verdict is hashed; the
 * hashes of a reference detector are kept in detect-golden.json, so a speed change that moves a
 * verdict (kind, reasons, offsets, messages) shows up.
 *
 *   npx tsx test/corpus/streams.ts --write   # after a verdict change made on purpose
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDetector, parseJsonLenient, tokensFromLogprobs } from '../../src/core/detect';
import type { FinishInfo, StreamDelta, Verdict } from '../../src/core/detect';
import { seededRandom } from '../../src/core/random';
import type { CorpusCase } from './corpusCase';
import type { RealCase } from './real/realCase';

export const GOLDEN = join(__dirname, 'detect-golden.json');

export interface Stream {
  name: string;
  deltas: StreamDelta[];
  finish: FinishInfo;
  token0Text?: string;
  prompt?: string;
}

function lines(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim().length > 0);
}

function texts(): { corpus: CorpusCase[]; real: RealCase[] } {
  const corpus = lines(join(__dirname, 'corpus.jsonl')).map((l) => parseJsonLenient(l) as CorpusCase);
  const real = lines(join(__dirname, 'real', 'outputs.jsonl')).map((l) => JSON.parse(l) as RealCase);
  return { corpus, real };
}

/** Cuts text into pieces: mostly token-sized, sometimes one long piece, sometimes single units. */
function cut(text: string, rand: () => number): string[] {
  const out: string[] = [];
  const mode = rand();
  for (let i = 0; i < text.length; ) {
    let n: number;
    if (mode < 0.15) n = 1;
    else if (mode < 0.3) n = 1 + Math.floor(rand() * 3000);
    else n = rand() < 0.02 ? 1 + Math.floor(rand() * 1500) : 1 + Math.floor(rand() * 8);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

const MARKERS = ['<|im_end|>', '<|im_start|>user\n', '[PAD]', '<unk>', '<unused12>', '[control_7]', '<0x0A>', '</s>', '<think>', '\ufffd', '⁇'];
const FINISH = ['stop', 'length', null, 'tool_calls', 'stop'];

function slice(pool: string[], rand: () => number, max: number): string {
  const t = pool[Math.floor(rand() * pool.length)];
  if (t.length <= max) return t;
  const from = Math.floor(rand() * (t.length - max));
  return t.slice(from, from + 1 + Math.floor(rand() * max));
}

/** One synthetic answer: slices of real text with one or two failure shapes spliced in. */
function synthetic(pool: string[], rand: () => number): string {
  let text = '';
  const parts = 1 + Math.floor(rand() * 3);
  for (let p = 0; p < parts; p++) {
    text += slice(pool, rand, rand() < 0.5 ? 300 : 2500);
    const r = rand();
    if (r < 0.12) {
      const ch = String.fromCharCode(rand() < 0.7 ? 33 + Math.floor(rand() * 94) : [32, 10, 9, 0x3002, 0xff01][Math.floor(rand() * 5)]);
      text += ch.repeat(1 + Math.floor(rand() * 120));
    } else if (r < 0.3) {
      const unit = slice(pool, rand, 1 + Math.floor(rand() * 90));
      text += unit.repeat(1 + Math.floor(rand() * 12));
    } else if (r < 0.4) {
      const m = MARKERS[Math.floor(rand() * MARKERS.length)];
      text += m.repeat(1 + Math.floor(rand() * 6)) + slice(pool, rand, 200);
    } else if (r < 0.47) {
      text += Buffer.from(slice(pool, rand, 200), 'utf8').toString('latin1');
    } else if (r < 0.57) {
      text += slice(pool, rand, 400)
        .split(' ')
        .map((w) => (rand() < 0.6 ? `${w} ${w}` : w))
        .join(' ');
    } else if (r < 0.67) {
      const words = slice(pool, rand, 600).split(/\s+/);
      for (let i = words.length - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1));
        [words[i], words[j]] = [words[j], words[i]];
      }
      text += words.join(' ');
    } else if (r < 0.72) {
      text += '\n\n';
    }
  }
  return text;
}

export function streams(): Stream[] {
  const { corpus, real } = texts();
  const rand = seededRandom(20261201);
  const out: Stream[] = [];
  for (const c of corpus) {
    const deltas: StreamDelta[] = cut(c.text ?? '', rand).map((t) => ({ text: t }));
    // The corpus' logprobs travel whole with the first piece: offsets then are estimates either way.
    const tokens = c.logprobs !== undefined ? tokensFromLogprobs(c.logprobs) : null;
    if (Array.isArray(tokens) && tokens.length && deltas.length) deltas[0] = { ...deltas[0], tokens };
    const toolCallCount = Array.isArray(c.tool_calls) ? c.tool_calls.length : 0;
    out.push({
      name: `corpus ${c.id}`,
      deltas,
      finish: { finishReason: c.finish_reason ?? null, matchedStop: c.matched_stop ?? null, toolCallCount },
      token0Text: c.token0_text,
    });
  }
  for (const c of real) {
    out.push({
      name: `real ${c.id}`,
      deltas: cut(c.text, rand).map((t) => ({ text: t })),
      finish: { finishReason: c.finish_reason ?? null, matchedStop: c.matched_stop ?? null },
      prompt: c.prompt,
    });
  }
  const pool = [...corpus.map((c) => c.text ?? ''), ...real.map((c) => c.text)].filter((t) => t.length > 0);
  for (let i = 0; i < 3000; i++) {
    const text = synthetic(pool, rand);
    const pieces = cut(text, rand);
    let deltas: StreamDelta[] = pieces.map((t) => ({ text: t }));
    if (rand() < 0.15) {
      // A reasoning part first, as reasoning parsers stream it.
      const reasoning = cut(synthetic(pool, rand), rand).map((t) => ({ reasoning: t }));
      deltas = [...reasoning, ...deltas];
    }
    if (rand() < 0.1) deltas = deltas.map((d) => (d.text ? { ...d, tokens: [{ id: rand() < 0.5 ? 0 : 7, logprob: rand() < 0.02 ? NaN : -rand() * 12, text: d.text }] } : d));
    const prompt = rand() < 0.1 ? slice(pool, rand, 120) : undefined;
    out.push({
      name: `synthetic ${i}`,
      deltas,
      finish: { finishReason: FINISH[Math.floor(rand() * FINISH.length)], toolCallCount: rand() < 0.05 ? 1 : 0 },
      token0Text: rand() < 0.05 ? '+' : undefined,
      prompt: prompt && rand() < 0.5 ? prompt : undefined,
    });
  }
  return out;
}

export function verdictOf(s: Stream): Verdict {
  const d = createDetector({ token0Text: s.token0Text, prompt: s.prompt });
  for (const delta of s.deltas) d.push(delta);
  return d.finish(s.finish);
}

export function verdictHash(v: Verdict): string {
  return createHash('sha1').update(JSON.stringify(v)).digest('hex').slice(0, 12);
}

if (process.argv.includes('--write')) {
  const all = streams();
  const golden = all.map((s) => verdictHash(verdictOf(s)));
  writeFileSync(GOLDEN, `${JSON.stringify(golden)}\n`);
  console.log(`wrote ${golden.length} verdict hashes to ${GOLDEN}`);
}
const dump = process.argv.indexOf('--dump');
if (dump > 0) {
  // Whole verdicts, one a line, to diff two detectors while changing one.
  writeFileSync(process.argv[dump + 1], streams().map((s) => `${s.name}\t${JSON.stringify(verdictOf(s))}\n`).join(''));
}
