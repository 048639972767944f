/** `inference-doctor compare URL_A URL_B`: the reference check, a suspect server against a known-good one. */
import { parseArgs } from 'node:util';
import { sideBySide, visibleLine } from '../../core/compare/format';
import { COMPARE_DEFAULTS, runCompare, type CompareResult } from '../../core/compare/run';
import type { PromptComparison } from '../../core/compare/types';
import { errorMessage } from '../../core/errors';
import { normaliseBaseUrl } from '../../core/servers';
import { EXIT, UsageError, write, type CliIo, type Command } from '../command';

const USAGE = `Usage: inference-doctor compare URL_A URL_B [options]

Sends the same greedy prompts (temperature 0, a fixed seed, logprobs with top-K alternatives)
to a known-good server A and a suspect server B, and tells numerical drift (the answers part
late, logprobs close) from a broken path (they part early, logprobs far off or NaN).

Options:
  --model-a M           A's model (default: the first one A's /v1/models lists)
  --model-b M           B's model (default: the first one B's /v1/models lists)
  --prompts N           how many built-in prompts (default: all 12; more repeat with variants)
  --top-logprobs K      alternatives per token, 0 to 20 (default: ${COMPARE_DEFAULTS.topLogprobs})
  --max-tokens N        answer length limit (default: ${COMPARE_DEFAULTS.maxTokens})
  --concurrency N       prompts in flight at once, each to both servers (default: ${COMPARE_DEFAULTS.concurrency})
  --timeout SECONDS     limit per request (default: ${COMPARE_DEFAULTS.timeoutMs / 1000})
  --no-repeat-check     do not send the first prompt twice to see whether a server repeats itself
  --api-key-a K         A's API key (default: $INFERENCE_DOCTOR_API_KEY)
  --api-key-b K         B's API key (default: $INFERENCE_DOCTOR_API_KEY)
  --json                print the result as JSON (top-level verdict, one row per prompt)
  -h, --help            this text

Exit status: 0 identical or drift, 1 broken, 3 the check could not be made (a server
unreachable, HTTP errors, ...), 64 bad usage, 130 interrupted.`;

interface Parsed {
  urlA: string;
  urlB: string;
  modelA?: string;
  modelB?: string;
  keyA?: string;
  keyB?: string;
  prompts?: number;
  topLogprobs: number;
  maxTokens: number;
  concurrency: number;
  timeoutMs: number;
  repeatCheck: boolean;
  json: boolean;
}

function url(text: string): string {
  try {
    return normaliseBaseUrl(text);
  } catch (error) {
    throw new UsageError(`Bad URL ${text}: ${errorMessage(error)}`);
  }
}

function whole(name: string, text: string | undefined, fallback: number, min: number, max = Infinity): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n < min || n > max) {
    throw new UsageError(`--${name} needs a whole number${max < Infinity ? ` from ${min} to ${max}` : ` ≥ ${min}`}, not ${text}`);
  }
  return n;
}

function parse(argv: string[]): Parsed {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        'model-a': { type: 'string' },
        'model-b': { type: 'string' },
        prompts: { type: 'string' },
        'top-logprobs': { type: 'string' },
        'max-tokens': { type: 'string' },
        concurrency: { type: 'string' },
        timeout: { type: 'string' },
        'no-repeat-check': { type: 'boolean' },
        'api-key-a': { type: 'string' },
        'api-key-b': { type: 'string' },
        json: { type: 'boolean' },
      },
    });
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
  const { values: v, positionals } = parsed;
  if (positionals.length < 2) throw new UsageError(positionals.length ? 'Missing the second server URL (B)' : 'Missing the two server URLs');
  if (positionals.length > 2) throw new UsageError(`Unexpected argument: ${positionals[2]}`);
  const timeout = v.timeout === undefined ? COMPARE_DEFAULTS.timeoutMs / 1000 : Number(v.timeout);
  if (!Number.isFinite(timeout) || timeout <= 0) throw new UsageError(`--timeout needs a number of seconds > 0, not ${v.timeout}`);
  const out: Parsed = {
    urlA: url(positionals[0]),
    urlB: url(positionals[1]),
    topLogprobs: whole('top-logprobs', v['top-logprobs'], COMPARE_DEFAULTS.topLogprobs, 0, 20),
    maxTokens: whole('max-tokens', v['max-tokens'], COMPARE_DEFAULTS.maxTokens, 1),
    concurrency: whole('concurrency', v.concurrency, COMPARE_DEFAULTS.concurrency, 1, 256),
    timeoutMs: Math.max(1, Math.round(timeout * 1000)),
    repeatCheck: !v['no-repeat-check'],
    json: !!v.json,
  };
  if (v.prompts !== undefined) out.prompts = whole('prompts', v.prompts, 0, 1, 10_000);
  if (v['model-a']) out.modelA = v['model-a'];
  if (v['model-b']) out.modelB = v['model-b'];
  if (v['api-key-a']) out.keyA = v['api-key-a'];
  if (v['api-key-b']) out.keyB = v['api-key-b'];
  return out;
}

export function compareExitCode(result: CompareResult): number {
  if (result.verdict === 'broken') return EXIT.broken;
  if (result.cancelled) return EXIT.interrupted;
  if (result.verdict === 'error') return EXIT.error;
  return EXIT.ok;
}

const percent = (x: number | null): string => (x === null ? '—' : `${Math.round(x * 100)}%`);
const nats = (x: number | null): string => (x === null ? '—' : x.toFixed(3));

/** One line per prompt: where it splits, token agreement, logprob distance, top-K overlap, the prompt. */
function promptLine(row: PromptComparison): string {
  const n = String(row.index + 1).padStart(3);
  const prompt = visibleLine(row.prompt.length > 48 ? `${row.prompt.slice(0, 47)}…` : row.prompt);
  const al = row.alignment;
  if (!al) {
    const which = row.a.error ? `A: ${row.a.error.message}` : `B: ${row.b.error?.message ?? 'no answer'}`;
    return `${n}  error ${which}`;
  }
  const d = al.divergence;
  const split = !d ? 'same text' : d.tokenA !== null ? `token ${d.tokenA}${d.tokenB !== d.tokenA ? `/${d.tokenB}` : ''}` : `char ${d.char}`;
  const flags = [
    row.early ? 'early' : '',
    d?.nearTie ? 'near tie' : '',
    al.mode === 'spans' ? 'spans' : '',
    row.b.verdict && row.b.verdict !== 'ok' ? `B ${row.b.verdict}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const lp = al.logprobMeanAbs === null ? '—' : `${nats(al.logprobMeanAbs)}/${nats(al.logprobMax)}`;
  return `${n}  ${split.padEnd(11)} ${percent(al.agreement).padStart(5)}  ${lp.padEnd(13)} ${(al.topKOverlap === null ? '—' : al.topKOverlap.toFixed(2)).padEnd(5)}  ${prompt}${flags ? `  [${flags}]` : ''}`;
}

function report(result: CompareResult): string {
  const lines: string[] = [];
  lines.push(`A  ${result.a.url}  model ${result.a.model ?? '(server default)'}`);
  lines.push(`B  ${result.b.url}  model ${result.b.model ?? '(server default)'}`);
  if (result.prompts.length) {
    lines.push('', `  #  ${'split at'.padEnd(11)} ${'agree'.padStart(5)}  ${'Δlp mean/max'.padEnd(13)} ${'top-K'.padEnd(5)}  prompt`);
    for (const row of result.prompts) lines.push(promptLine(row));
  }
  lines.push('', `verdict: ${result.verdict.toUpperCase()}`);
  for (const r of result.reasons) lines.push(`  - ${r}`);
  for (const note of result.notes) lines.push(`  note: ${note}`);
  const first = result.prompts.find((p) => p.alignment?.divergence);
  const d = first?.alignment?.divergence;
  if (first && d) {
    const prefix = first.prefix ?? '';
    const tail = prefix.length > 60 ? `…${prefix.slice(-60)}` : prefix;
    const at = d.tokenA !== null ? `token ${d.tokenA}` : `character ${d.char}`;
    lines.push('', `first split: prompt ${first.index + 1} at ${at}, after "${visibleLine(tail)}"`);
    for (const l of sideBySide(first.continuationA ?? '', first.continuationB ?? '', [
      `A ${result.a.model ?? ''}`.trim(),
      `B ${result.b.model ?? ''}`.trim(),
    ])) {
      lines.push(`  ${l}`);
    }
  }
  return lines.join('\n');
}

export const compareCommand: Command = {
  name: 'compare',
  summary: 'compare a suspect server with a known-good one on the same greedy prompts',
  usage: USAGE,
  async run(argv: string[], io: CliIo): Promise<number> {
    const p = parse(argv);
    const envKey = io.env.INFERENCE_DOCTOR_API_KEY || undefined;
    const keyA = p.keyA ?? envKey;
    const keyB = p.keyB ?? envKey;
    const result = await runCompare({
      a: { baseUrl: p.urlA, ...(keyA ? { apiKey: keyA } : {}), ...(p.modelA ? { model: p.modelA } : {}) },
      b: { baseUrl: p.urlB, ...(keyB ? { apiKey: keyB } : {}), ...(p.modelB ? { model: p.modelB } : {}) },
      ...(p.prompts !== undefined ? { prompts: p.prompts } : {}),
      topLogprobs: p.topLogprobs,
      maxTokens: p.maxTokens,
      concurrency: p.concurrency,
      timeoutMs: p.timeoutMs,
      repeatCheck: p.repeatCheck,
      signal: io.signal,
    });
    const code = compareExitCode(result);
    if (p.json) await write(io.stdout, `${JSON.stringify({ ...result, exitCode: code })}\n`);
    else await write(io.stdout, `${report(result)}\n`);
    return code;
  },
};
