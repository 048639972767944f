/**
 * `inference-doctor eval URL`: the accuracy smoke test. Answers that read fine but are wrong (a
 * dropped FP8 KV-cache scale, a MoE routing bug) pass a NaN detector; a few hundred problems with
 * exact answers do not.
 */
import { readFile, rename, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { version as toolVersion } from '../../../package.json';
import { BaselineError, makeBaseline, parseBaseline, type Baseline } from '../../core/eval/baseline';
import { MAX_PROBLEMS, SUITES, DIFFICULTIES, type Suite } from '../../core/eval/problems';
import { ACCURACY_FLOORS, summarise, type EvalReport, type NamedAnswer } from '../../core/eval/report';
import { runEval, type EvalProgress, type EvalRun } from '../../core/eval/run';
import { errorMessage } from '../../core/errors';
import { fetchModels } from '../../core/probe/server-api';
import type { ServerTarget } from '../../core/probe/types';
import { showControls } from '../../core/text/foreign';
import { EXIT, serverUrlOperand, UsageError, write, type CliIo, type Command } from '../command';

const USAGE = `Usage: inference-doctor eval URL [--model M] [--suite arithmetic|word|mixed] [--n N] [--concurrency C]
                             [--seed S] [--baseline FILE] [--save-baseline FILE] [--api-key K] [--json]

Sends N problems with exact integer answers (integer arithmetic, short word problems, or both),
generated from the seed, at temperature 0, reads each "Answer: <integer>" line and reports the
accuracy with its 95% interval, invalid answers (no number, or judged NaN / degenerate by the
detector), a breakdown by difficulty and latency. With --baseline the accuracy is compared with a
saved run of the same server and model (one-sided two-proportion z-test, p < 0.05); without one,
with accuracy floors per difficulty (easy ${pct(ACCURACY_FLOORS.easy)}, medium ${pct(ACCURACY_FLOORS.medium)}, hard ${pct(ACCURACY_FLOORS.hard)}): a difficulty fails when
its whole 95% interval lies below the floor.

Options:
  --model M             model name (default: the first one /v1/models lists)
  --suite S             arithmetic | word | mixed (default: the baseline's, else mixed)
  --n N                 number of problems, 1 to ${MAX_PROBLEMS} (default: the baseline's, else 100)
  --concurrency C       requests in flight at most (default: 16)
  --seed S              seed of the problem set (default: the baseline's, else 1)
  --baseline FILE       compare with a baseline written by --save-baseline
  --save-baseline FILE  write this run as a baseline (suite, seed, n, model, accuracy, counts, date)
  --api-key K           API key (default: $INFERENCE_DOCTOR_API_KEY)
  --timeout SECONDS     per-request limit (default: 60)
  --max-tokens N        answer length limit (default: 1024)
  --json                print the report as JSON (no progress line)
  -h, --help            this text

Exit status: 0 pass, 1 accuracy below the baseline or a floor, 3 error (server unreachable, too many
failed requests, a baseline that cannot be read or saved), 64 bad usage, 66 the baseline file is
missing, 130 interrupted.`;

function pct(x: number, digits = 0): string {
  return `${(x * 100).toFixed(digits)}%`;
}

interface Args {
  target: ServerTarget;
  model?: string;
  suite?: Suite;
  n?: number;
  seed?: number;
  concurrency: number;
  baseline?: string;
  saveBaseline?: string;
  apiKey?: string;
  timeoutMs?: number;
  maxTokens?: number;
  json: boolean;
}

function wholeNumber(name: string, text: string | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\s*\d+\s*$/.test(text) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} needs a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}, not ${text}`);
  }
  return n;
}

function parse(argv: string[]): Args {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        model: { type: 'string' },
        suite: { type: 'string' },
        n: { type: 'string' },
        concurrency: { type: 'string' },
        seed: { type: 'string' },
        baseline: { type: 'string' },
        'save-baseline': { type: 'string' },
        'api-key': { type: 'string' },
        timeout: { type: 'string' },
        'max-tokens': { type: 'string' },
        json: { type: 'boolean' },
      },
    });
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
  const { values, positionals } = parsed;
  const baseUrl = serverUrlOperand(positionals);
  const suite = values.suite;
  if (suite !== undefined && !SUITES.includes(suite as Suite)) throw new UsageError(`--suite must be ${SUITES.join(', ')}, not ${suite}`);
  const timeout = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeout !== undefined && (!Number.isFinite(timeout) || timeout <= 0))
    throw new UsageError(`--timeout needs a number of seconds > 0, not ${values.timeout}`);
  const n = wholeNumber('n', values.n, 1, MAX_PROBLEMS);
  const seed = wholeNumber('seed', values.seed, 0, 0xffffffff);
  const maxTokens = wholeNumber('max-tokens', values['max-tokens'], 1);
  return {
    target: { baseUrl },
    concurrency: wholeNumber('concurrency', values.concurrency, 1, 1024) ?? 16,
    json: !!values.json,
    ...(values.model ? { model: values.model } : {}),
    ...(suite ? { suite: suite as Suite } : {}),
    ...(n !== undefined ? { n } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(timeout !== undefined ? { timeoutMs: Math.max(1, Math.round(timeout * 1000)) } : {}),
    ...(values.baseline ? { baseline: values.baseline } : {}),
    ...(values['save-baseline'] ? { saveBaseline: values['save-baseline'] } : {}),
    ...(values['api-key'] ? { apiKey: values['api-key'] } : {}),
  };
}

/** A model's text on one terminal line: controls escaped as JSON does, bidi and invisible ones marked. */
function shown(text: string, max = 80): string {
  const flat = text.length > max ? `${text.slice(0, max)}…` : text;
  return showControls(JSON.stringify(flat));
}

function countLine(label: string, k: number, n: number, low: number, high: number): string {
  return `${label}${pct(n ? k / n : 0, 1)} (${k}/${n}), 95% CI ${pct(low, 1)}–${pct(high, 1)}`;
}

const ms = (x: number | null): string => (x === null ? '–' : `${Math.round(x)} ms`);

function describe(a: NamedAnswer): string {
  const why =
    a.why === 'nan'
      ? 'NaN'
      : a.why === 'degenerate'
        ? 'degenerate'
        : a.why === 'no-number'
          ? 'no number'
          : a.why === 'truncated'
            ? 'cut at max tokens'
            : `got ${a.given}`;
  const reasons = a.reasons.length ? ` (${a.reasons.join(', ')})` : '';
  const answer = a.why ? `, answer ${shown(a.answerTail.trim(), 60)}` : '';
  return `  ${a.id} [${a.difficulty}] ${why}${reasons}: ${shown(a.question, 70)} expected ${a.expected}${answer}`;
}

export function formatReport(r: EvalReport): string {
  const lines: string[] = [];
  lines.push(`eval ${r.suite} · seed ${r.seed} · ${r.n} problems${r.model ? ` · model ${r.model}` : ''} · ${r.url}`);
  if (r.status !== 'completed')
    lines.push(r.status === 'cancelled' ? 'cancelled: the figures below cover the answers that came back' : `failed: ${r.failure ?? ''}`);
  lines.push(countLine('accuracy: ', r.counts.correct, r.graded, r.interval.low, r.interval.high));
  const inv = r.invalidBy;
  lines.push(
    `invalid: ${pct(r.invalidRate ?? 0, 1)} (${r.counts.invalid}: ${inv.nan} NaN, ${inv.degenerate} degenerate, ${inv['no-number']} with no number, ${inv.truncated} cut at max tokens)` +
      ` · errors: ${r.counts.errors}`,
  );
  lines.push('by difficulty:');
  for (const d of DIFFICULTIES) {
    const s = r.byDifficulty[d];
    if (!s.graded) continue;
    const floor = r.judgement?.basis === 'floors' ? ` · floor ${pct(s.floor)}${s.belowFloor ? ' BELOW' : ''}` : '';
    lines.push(countLine(`  ${d.padEnd(7)}`, s.correct, s.graded, s.interval.low, s.interval.high) + floor);
  }
  lines.push(
    `latency: p50 ${ms(r.latencyMs.p50)} · p95 ${ms(r.latencyMs.p95)} · ttft p50 ${ms(r.ttftMs.p50)} · p95 ${ms(r.ttftMs.p95)} · ${(r.durationMs / 1000).toFixed(1)} s in all`,
  );
  if (r.judgement) lines.push(`verdict: ${r.judgement.message}`);
  else lines.push(`verdict: none (the run ${r.status === 'cancelled' ? 'was cancelled' : 'failed'})`);
  for (const w of r.judgement?.baseline?.warnings ?? []) lines.push(`warning: ${w}`);
  if (inv.truncated) lines.push(`hint: ${inv.truncated} answers reached the token limit before their Answer line: raise --max-tokens.`);
  const list = (title: string, items: NamedAnswer[]): void => {
    if (!items.length) return;
    const shownCount = Math.min(5, items.length);
    lines.push(`${title} (${shownCount < items.length ? `first ${shownCount} of ${items.length}` : items.length}):`);
    for (const a of items.slice(0, shownCount)) lines.push(describe(a));
  };
  list('invalid answers', r.invalidAnswers);
  list('wrong answers', r.wrongAnswers);
  return lines.join('\n');
}

function exitCodeFor(r: EvalReport): number {
  if (r.status === 'cancelled') return EXIT.interrupted;
  if (r.status === 'failed' || !r.judgement) return EXIT.error;
  return r.judgement.pass ? EXIT.ok : EXIT.degenerate;
}

/** The report as --json prints it: the summary and one row per problem. */
function jsonOf(report: EvalReport, run: EvalRun, exitCode: number, savedBaseline: string | undefined): unknown {
  return {
    ...report,
    exitCode,
    ...(savedBaseline ? { savedBaseline } : {}),
    problems: run.results.map((x) => ({
      id: x.problem.id,
      kind: x.problem.kind,
      difficulty: x.problem.difficulty,
      expected: x.problem.answer,
      given: x.given,
      outcome: x.outcome,
      ...(x.invalid ? { invalid: x.invalid } : {}),
      verdict: x.verdict,
      durationMs: Math.round(x.durationMs * 10) / 10,
      ...(x.error ? { error: x.error.message } : {}),
    })),
  };
}

/** A progress line on stderr that rewrites itself, at most every 100 ms. */
function progressLine(stream: CliIo['stderr']): { update(p: EvalProgress): void; end(): void } {
  let last = 0;
  let width = 0;
  let latest: EvalProgress | undefined;
  const draw = (): void => {
    if (!latest) return;
    const p = latest;
    const text = `eval: ${p.done}/${p.total} · ${p.correct} correct · ${p.wrong} wrong · ${p.invalid} invalid · ${p.errors} errors`;
    stream.write(`\r${text.padEnd(width)}`);
    width = text.length;
  };
  return {
    update(p) {
      latest = p;
      const now = performance.now();
      if (now - last < 100 && p.done < p.total) return;
      last = now;
      draw();
    },
    end() {
      draw();
      if (width) stream.write('\n');
    },
  };
}

async function loadBaseline(file: string, io: CliIo): Promise<Baseline | number> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    await write(io.stderr, `Cannot read the baseline ${file}: ${errorMessage(error)}\n`);
    return EXIT.noInput;
  }
  try {
    return parseBaseline(text);
  } catch (error) {
    if (!(error instanceof BaselineError)) throw error;
    await write(io.stderr, `${file} is not a usable baseline: ${error.message}\n`);
    return EXIT.error;
  }
}

export const evalCommand: Command = {
  name: 'eval',
  summary: 'accuracy smoke test: problems with exact answers, compared with a baseline',
  usage: USAGE,
  async run(argv: string[], io: CliIo): Promise<number> {
    const args = parse(argv);
    const key = args.apiKey ?? io.env.INFERENCE_DOCTOR_API_KEY;
    if (key) args.target.apiKey = key;

    let baseline: Baseline | undefined;
    if (args.baseline) {
      const loaded = await loadBaseline(args.baseline, io);
      if (typeof loaded === 'number') return loaded;
      baseline = loaded;
      // A baseline is for one suite; another suite would compare unlike with unlike.
      if (args.suite && args.suite !== baseline.suite) throw new UsageError(`the baseline ${args.baseline} is for suite ${baseline.suite}, not ${args.suite}`);
    }
    const suite = args.suite ?? baseline?.suite ?? 'mixed';
    const n = args.n ?? baseline?.n ?? 100;
    const seed = args.seed ?? baseline?.seed ?? 1;

    let model = args.model;
    if (!model) {
      try {
        model = (await fetchModels(args.target, { signal: io.signal }))[0]?.id;
      } catch (error) {
        const message = errorMessage(error);
        if (args.json) await write(io.stdout, `${JSON.stringify({ url: args.target.baseUrl, error: { message }, exitCode: EXIT.error })}\n`);
        else await write(io.stderr, `Could not list the models (pass --model to skip this): ${message}\n`);
        return EXIT.error;
      }
    }

    const progress = args.json ? undefined : progressLine(io.stderr);
    const run = await runEval(args.target, {
      suite,
      n,
      seed,
      concurrency: args.concurrency,
      signal: io.signal,
      ...(model ? { model } : {}),
      ...(args.timeoutMs ? { timeoutMs: args.timeoutMs } : {}),
      ...(args.maxTokens ? { maxTokens: args.maxTokens } : {}),
      ...(progress ? { onProgress: (p: EvalProgress) => progress.update(p) } : {}),
    });
    progress?.end();
    const report = summarise(run, baseline);
    let code = exitCodeFor(report);

    let saved: string | undefined;
    if (args.saveBaseline && report.status === 'completed' && report.accuracy !== null) {
      try {
        const tmp = `${args.saveBaseline}.${process.pid}.tmp`;
        await writeFile(tmp, `${JSON.stringify(makeBaseline(report, toolVersion), null, 2)}\n`);
        await rename(tmp, args.saveBaseline);
        saved = args.saveBaseline;
      } catch (error) {
        await write(io.stderr, `Cannot save the baseline ${args.saveBaseline}: ${errorMessage(error)}\n`);
        code = EXIT.error;
      }
    } else if (args.saveBaseline) {
      await write(io.stderr, `No baseline saved: the run ${report.status === 'completed' ? 'graded no answers' : `was ${report.status}`}.\n`);
    }

    if (args.json) {
      await write(io.stdout, `${JSON.stringify(jsonOf(report, run, code, saved))}\n`);
      return code;
    }
    await write(io.stdout, `${formatReport(report)}\n`);
    if (saved) await write(io.stdout, `baseline saved to ${saved}\n`);
    if (saved && report.judgement && !report.judgement.pass) await write(io.stderr, 'warning: the saved baseline is from a run that did not pass.\n');
    return code;
  },
};
