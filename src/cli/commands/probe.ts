/** `inference-doctor probe URL ...`: one probe, the answer and the verdict. */
import { parseArgs } from 'node:util';
import { errorMessage } from '../../core/errors';
import { serverWatchText } from '../../core/probe/serverText';
import { runWatchedProbe } from '../../core/probe/watch';
import { fetchModels } from '../../core/probe/server-api';
import type { Endpoint, ProbeParams, ProbeResult, ServerTarget } from '../../core/probe/types';
import { EXIT, serverUrlOperand, UsageError, write, type CliIo, type Command } from '../command';

const USAGE = `Usage: inference-doctor probe URL [options]

Sends one prompt to an SGLang, vLLM (or OpenAI-compatible) server and judges the answer. It
first asks which engine answers (/v1/models, vLLM's /version): a vLLM 0.17+ server is asked to
detect repetition itself, and vLLM's NaN counter (/metrics, vllm:corrupted_requests, exported
with VLLM_COMPUTE_NANS_IN_LOGITS=1) is read before and after; "result.server" in --json says what was seen.

Options:
  --model M             model name (default: the first one /v1/models lists)
  --prompt P            prompt text (default: a short question)
  --system S            system prompt
  --api-key K           API key (default: $INFERENCE_DOCTOR_API_KEY)
  --endpoint E          chat | completions | generate (default: chat)
  --no-stream           ask for the whole answer at once
  --max-tokens N        answer length limit (default: 512)
  --temperature T       sampling temperature (default: the server's)
  --logprobs            ask for logprobs (lets the detector see NaN logprobs)
  --early-stop          abort as soon as the answer turns degenerate
  --timeout SECONDS     give up after this long without a byte (default: 120)
  --json                print the whole result as JSON
  -h, --help            this text

Exit status: 0 ok, 1 degenerate, 2 nan, 3 the probe failed (server unreachable, HTTP error,
cut stream, ...) and the partial answer shows nothing wrong, 64 bad usage, 130 interrupted.`;

const DEFAULT_PROMPT = 'In two or three sentences, explain what a GPU does when a language model generates text.';

function parse(argv: string[]): { target: ServerTarget; params: ProbeParams; json: boolean; apiKey?: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        model: { type: 'string' },
        prompt: { type: 'string' },
        system: { type: 'string' },
        'api-key': { type: 'string' },
        endpoint: { type: 'string' },
        'no-stream': { type: 'boolean' },
        'max-tokens': { type: 'string' },
        temperature: { type: 'string' },
        logprobs: { type: 'boolean' },
        'early-stop': { type: 'boolean' },
        timeout: { type: 'string' },
        json: { type: 'boolean' },
      },
    });
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
  const { values, positionals } = parsed;
  const baseUrl = serverUrlOperand(positionals);
  const endpoint = (values.endpoint ?? 'chat') as Endpoint;
  if (!['chat', 'completions', 'generate'].includes(endpoint)) throw new UsageError(`--endpoint must be chat, completions or generate, not ${values.endpoint}`);
  const number = (name: string, text: string | undefined, integer: boolean): number | undefined => {
    if (text === undefined) return undefined;
    const n = Number(text);
    if (!Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n)))
      throw new UsageError(`--${name} needs a ${integer ? 'whole ' : ''}number ≥ 0, not ${text}`);
    return n;
  };
  const maxTokens = number('max-tokens', values['max-tokens'], true);
  const temperature = number('temperature', values.temperature, false);
  const timeout = number('timeout', values.timeout, false);
  const params: ProbeParams = {
    endpoint,
    prompt: values.prompt ?? DEFAULT_PROMPT,
    stream: !values['no-stream'],
    ...(values.model ? { model: values.model } : {}),
    ...(values.system ? { systemPrompt: values.system } : {}),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(values.logprobs ? { logprobs: true } : {}),
    ...(values['early-stop'] ? { earlyStop: true } : {}),
    ...(timeout !== undefined ? { timeoutMs: Math.max(1, Math.round(timeout * 1000)) } : {}),
  };
  return { target: { baseUrl }, params, json: !!values.json, ...(values['api-key'] ? { apiKey: values['api-key'] } : {}) };
}

export function exitCodeFor(result: ProbeResult): number {
  if (result.verdict.kind === 'nan') return EXIT.nan;
  if (result.verdict.kind === 'degenerate') return EXIT.degenerate;
  if (result.status === 'stopped') return EXIT.interrupted;
  if (result.status === 'error') return EXIT.error;
  return EXIT.ok;
}

function summary(result: ProbeResult, model: string | undefined): string {
  const lines: string[] = [];
  const v = result.verdict;
  if (result.status === 'error' && v.kind === 'ok' && result.totalChars === 0) lines.push('verdict: none (no answer to judge)');
  else {
    const made = v.reasons.filter((r) => r.kind !== 'suspect');
    lines.push(`verdict: ${v.kind.toUpperCase()}${made.length ? ` (${made.map((r) => r.code).join(', ')})` : ''}`);
  }
  for (const r of v.reasons) lines.push(`  - ${r.kind === 'suspect' ? 'suspect: ' : ''}${r.message}`);
  const bits: string[] = [];
  if (result.server) bits.push(serverWatchText(result.server));
  if (model) bits.push(`model ${model}`);
  bits.push(`status ${result.status}`);
  if (result.finishReason) bits.push(`finish ${result.finishReason}`);
  if (result.matchedStop !== null) bits.push(`matched_stop ${JSON.stringify(result.matchedStop)}`);
  bits.push(`${result.completionTokens} tokens`);
  if (result.ttftMs !== null) bits.push(`ttft ${Math.round(result.ttftMs)} ms`);
  bits.push(`${(result.durationMs / 1000).toFixed(2)} s`);
  if (result.tokensPerSecond !== null) bits.push(`${result.tokensPerSecond.toFixed(1)} tok/s`);
  if (result.contentDroppedChars) bits.push(`showing the last ${result.content.length} of ${result.totalChars} chars`);
  lines.push(bits.join(' · '));
  return lines.join('\n');
}

export const probeCommand: Command = {
  name: 'probe',
  summary: 'send one prompt to a server and judge the answer',
  usage: USAGE,
  async run(argv: string[], io: CliIo): Promise<number> {
    const { target, params, json, apiKey } = parse(argv);
    const key = apiKey ?? io.env.INFERENCE_DOCTOR_API_KEY;
    if (key) target.apiKey = key;

    if (!params.model && params.endpoint !== 'generate') {
      try {
        const models = await fetchModels(target, { signal: io.signal });
        if (models[0]) params.model = models[0].id;
      } catch (error) {
        const message = errorMessage(error);
        if (json) await write(io.stdout, `${JSON.stringify({ url: target.baseUrl, error: { message } })}\n`);
        else await write(io.stderr, `Could not list the models (pass --model to skip this): ${message}\n`);
        return EXIT.error;
      }
    }

    let streamed = false;
    const result = await runWatchedProbe(target, params, {
      signal: io.signal,
      ...(json
        ? {}
        : {
            onEvent: (e) => {
              if (e.type === 'delta') {
                if (e.reasoning) io.stderr.write(e.reasoning);
                if (e.content) {
                  io.stdout.write(e.content);
                  streamed = true;
                }
              }
            },
          }),
    });

    if (json) {
      await write(
        io.stdout,
        `${JSON.stringify({ url: target.baseUrl, model: params.model ?? null, endpoint: params.endpoint, exitCode: exitCodeFor(result), result })}\n`,
      );
      return exitCodeFor(result);
    }
    if (!streamed && result.content) await write(io.stdout, result.content);
    await write(io.stdout, '\n\n');
    if (result.error) await write(io.stderr, `error (${result.error.kind}): ${result.error.message}\n`);
    await write(io.stdout, `${summary(result, params.model)}\n`);
    return exitCodeFor(result);
  },
};
