/**
 * The simulator's vLLM personality (scenario `engine: "vllm"`): vLLM's OpenAI server answers the
 * same generation routes, but has no native /generate or /health_generate, reports itself in
 * /v1/models (`owned_by: "vllm"`, `max_model_len`) and /version, serves Prometheus /metrics (the
 * corrupted-requests counter only when the server runs with VLLM_COMPUTE_NANS_IN_LOGITS=1), opens
 * /server_info only in dev mode (VLLM_SERVER_DEV_MODE=1), nests errors under `error`, has no
 * "NaN happened" marker, and on 0.17+ ends an answer with finish_reason "repetition" when the
 * request's `repetition_detection` finds a pattern repeating. The text here is our own.
 */
import type { ServerResponse } from 'node:http';
import { vllmHasRepetitionDetection } from '../core/probe/engine';
import type { AnswerPlan, SimToken } from './answers';
import { HttpError, sendJson } from './http';
import type { ModelBehaviour } from './scenario';
import type { SimState } from './state';

export const VLLM_DEFAULT_VERSION = '0.17.1';
export const VLLM_DEFAULT_MAX_MODEL_LEN = 32768;

/** Behaviours whose tokens come from NaN logits: vLLM counts them as corrupted when asked to. */
const NAN_BEHAVIOURS = new Set<ModelBehaviour['behaviour']>(['token0-run', 'nan-marker', 'symbol-flood', 'tool-calls-lost']);

export function isNanAnswer(b: ModelBehaviour): boolean {
  return NAN_BEHAVIOURS.has(b.behaviour) || b.logprobs === 'nan';
}

const truthy = (v: string | undefined): boolean => !!v && !['0', 'false', ''].includes(v.toLowerCase());

export const vllmVersion = (sim: SimState): string => sim.scenario.version ?? VLLM_DEFAULT_VERSION;
export const countsNans = (sim: SimState): boolean => truthy(sim.scenario.env?.VLLM_COMPUTE_NANS_IN_LOGITS);
const devMode = (sim: SimState): boolean => truthy(sim.scenario.env?.VLLM_SERVER_DEV_MODE);

interface RepetitionDetection {
  maxPatternSize: number;
  minPatternSize: number;
  minCount: number;
}

/** The request's `repetition_detection`, checked as vLLM checks it; undefined when absent or off. */
export function repetitionDetectionOf(body: Record<string, unknown>): RepetitionDetection | undefined {
  const raw = body.repetition_detection;
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw new HttpError(400, 'repetition_detection must be an object', 'BadRequestError', 'repetition_detection');
  const field = (name: string): number => {
    const v = (raw as Record<string, unknown>)[name] ?? 0;
    if (typeof v !== 'number' || !Number.isInteger(v))
      throw new HttpError(400, `repetition_detection.${name} must be an integer`, 'BadRequestError', 'repetition_detection');
    return v;
  };
  const d = { maxPatternSize: field('max_pattern_size'), minPatternSize: field('min_pattern_size'), minCount: field('min_count') };
  if (d.maxPatternSize < 0 || d.minPatternSize < 0 || d.minPatternSize > d.maxPatternSize) {
    throw new HttpError(
      400,
      'repetition_detection: the pattern sizes must be >= 0 and min_pattern_size <= max_pattern_size',
      'BadRequestError',
      'repetition_detection',
    );
  }
  if (d.maxPatternSize > 0 && d.minCount < 2)
    throw new HttpError(400, 'repetition_detection.min_count must be >= 2', 'BadRequestError', 'repetition_detection');
  return d.maxPatternSize > 0 ? { ...d, minPatternSize: Math.max(1, d.minPatternSize) } : undefined;
}

/** True when the last `size * count` tokens are one `size`-token pattern said `count` times. */
function tailRepeats(ids: number[], size: number, count: number): boolean {
  const n = ids.length;
  if (size * count > n) return false;
  for (let i = 1; i <= size * (count - 1); i++) if (ids[n - i] !== ids[n - i - size]) return false;
  return true;
}

function* untilRepetition(tokens: Iterable<SimToken>, d: RepetitionDetection, plan: AnswerPlan): Generator<SimToken> {
  const ids: number[] = [];
  for (const t of tokens) {
    yield t;
    ids.push(t.id);
    for (let size = d.minPatternSize; size <= d.maxPatternSize; size++) {
      if (!tailRepeats(ids, size, d.minCount)) continue;
      plan.finishReason = 'repetition';
      plan.matchedStop = null;
      return;
    }
  }
}

/** The plan as vLLM plays it: no NaN marker, and cut at a repetition when the request asked (0.17+). */
export function vllmPlan(sim: SimState, body: Record<string, unknown>, plan: AnswerPlan): AnswerPlan {
  const asked = repetitionDetectionOf(body);
  const out: AnswerPlan = { ...plan, matchedStop: null };
  if (asked && vllmHasRepetitionDetection(vllmVersion(sim))) out.content = untilRepetition(plan.content, asked, out);
  return out;
}

function labels(l: Record<string, string | number | boolean>): string {
  return `{${Object.entries(l)
    .map(([k, v]) => `${k}="${String(v).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`)
    .join(',')}}`;
}

/** A Prometheus text body with the counters a probe reads and a few it does not. */
export function vllmMetricsText(sim: SimState): string {
  const model = sim.firstModel;
  const args = sim.scenario.serverArgs ?? {};
  const lines: string[] = [];
  const metric = (name: string, type: string, help: string, samples: [Record<string, string | number | boolean>, number][]): void => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    for (const [l, v] of samples) lines.push(`${name}${type === 'counter' ? '_total' : ''}${labels(l)} ${v.toFixed(1)}`);
  };
  const who = { engine: 0, model_name: model };
  metric('vllm:num_requests_running', 'gauge', 'Requests in the running batch.', [[who, sim.running]]);
  metric('vllm:num_requests_waiting', 'gauge', 'Requests waiting to be scheduled.', [[who, 0]]);
  metric(
    'vllm:request_success',
    'counter',
    'Finished requests by finish reason.',
    ['stop', 'length', 'abort', 'repetition'].map((reason) => [{ ...who, finished_reason: reason }, sim.finished.get(reason) ?? 0]),
  );
  if (countsNans(sim)) metric('vllm:corrupted_requests', 'counter', 'Requests whose logits held NaN.', [[who, sim.corruptedRequests]]);
  metric('vllm:cache_config_info', 'gauge', 'The KV cache configuration.', [
    [
      {
        block_size: Number(args.block_size ?? 16),
        cache_dtype: typeof args.kv_cache_dtype === 'string' ? args.kv_cache_dtype : 'auto',
        enable_prefix_caching: args.enable_prefix_caching !== false,
        gpu_memory_utilization: Number(args.gpu_memory_utilization ?? 0.9),
        num_gpu_blocks: 24576,
      },
      1,
    ],
  ]);
  return `${lines.join('\n')}\n`;
}

/** GET routes of vLLM's OpenAI server that describe it. */
export function vllmInfoRoutes(sim: SimState): Map<string, (res: ServerResponse) => void> {
  const routes = new Map<string, (res: ServerResponse) => void>([
    [
      '/v1/models',
      (res) =>
        sendJson(res, 200, {
          object: 'list',
          data: sim.modelNames.map((id) => ({
            id,
            object: 'model',
            created: sim.startedAt,
            owned_by: 'vllm',
            root: id,
            parent: null,
            max_model_len: sim.scenario.maxModelLen ?? VLLM_DEFAULT_MAX_MODEL_LEN,
            permission: [],
          })),
        }),
    ],
    ['/version', (res) => sendJson(res, 200, { version: vllmVersion(sim) })],
    [
      '/metrics',
      (res) => {
        const text = vllmMetricsText(sim);
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'content-length': Buffer.byteLength(text) });
        res.end(text);
      },
    ],
  ]);
  // Dev mode's /server_info is one text dump of the engine config.
  const config = Object.entries({ model: sim.firstModel, ...sim.scenario.serverArgs })
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(', ');
  if (devMode(sim)) routes.set('/server_info', (res) => sendJson(res, 200, { vllm_config: config }));
  return routes;
}
