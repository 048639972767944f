/**
 * Launch behaviour files: an ordered rule list mapping (GPU, resolved server args, model traits,
 * environment, sgl-kernel build) to what the launched server does. The first rule whose `when`
 * holds wins. Format and the built-in rules: README.md and behaviours.json beside this file.
 */
import { readFileSync } from 'node:fs';
import { errorMessage } from '../../core/errors';
import { BEHAVIOURS, type Behaviour, type ModelBehaviour } from '../scenario';
import { capability, smNumber, type SimGpu } from './gpus';
import type { ModelTraits } from './resolve';
import builtIn from './behaviours.json';

/** What a launch can do; answer behaviours of scenario.ts are accepted as well. */
export const LAUNCH_BEHAVIOURS = [
  'healthy',
  'token0-nan',
  'salad',
  'loop',
  'fluent-wrong',
  'crash-at-start',
  'hang-at-start',
  'slow-start',
  'crash-mid-answer',
] as const;
export type LaunchBehaviour = (typeof LAUNCH_BEHAVIOURS)[number] | Behaviour;

type Scalar = string | number | boolean | null;
/** A value, any of a list, `{"not": …}`, or a numeric range `{"min", "max"}`. */
export type Match = Scalar | Scalar[] | { not: Scalar | Scalar[] } | { min?: number; max?: number };

export interface Conditions {
  /** --sim-gpu names. */
  gpu?: string[];
  /** Compute capabilities: "12" any 12.x, "12.0" exactly. */
  sm?: string[];
  /** Resolved server args by dataclass field. */
  args?: Record<string, Match>;
  model?: { quantization?: Match; moe?: boolean; path?: string };
  /** Environment of the simulator process; null: unset. */
  env?: Record<string, Match>;
  /** Does the simulated sgl-kernel build carry code for this GPU (--sim-sgl-kernel-archs). */
  sglKernelHasGpuArch?: boolean;
}

export interface LaunchRule {
  name: string;
  note?: string;
  when?: Conditions;
  behaviour: LaunchBehaviour;
  /** The simulator answer that plays it (scenario.ts behaviour), instead of the usual one. */
  answer?: Behaviour;
  logprobs?: ModelBehaviour['logprobs'];
  /** Extra lines for the startup log, written after the backend lines. */
  log?: string[];
  /** crash-at-start: the error line the log ends with, and the exit status (default 1). */
  error?: string;
  exitCode?: number;
  /** slow-start: seconds added to --sim-start-seconds (default 20). */
  extraStartSeconds?: number;
  /** crash-mid-answer: response chunks written before the process dies (default 6). */
  crashAfterChunks?: number;
}

export interface BehaviourFile {
  description?: string;
  rules: LaunchRule[];
}

export class BehaviourFileError extends Error {}

const CONDITION_KEYS = new Set(['gpu', 'sm', 'args', 'model', 'env', 'sglKernelHasGpuArch']);
const RULE_KEYS = new Set(['name', 'note', 'when', 'behaviour', 'answer', 'logprobs', 'log', 'error', 'exitCode', 'extraStartSeconds', 'crashAfterChunks']);
const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

function checkRule(raw: unknown, at: string): LaunchRule {
  if (!isObject(raw)) throw new BehaviourFileError(`${at}: a rule is an object`);
  for (const k of Object.keys(raw)) if (!RULE_KEYS.has(k)) throw new BehaviourFileError(`${at}: unknown key "${k}"`);
  if (typeof raw.name !== 'string' || !raw.name) throw new BehaviourFileError(`${at}: "name" is required`);
  const b = raw.behaviour;
  if (typeof b !== 'string' || !((LAUNCH_BEHAVIOURS as readonly string[]).includes(b) || (BEHAVIOURS as readonly string[]).includes(b))) {
    throw new BehaviourFileError(`${at} (${raw.name}): "behaviour" must be one of ${LAUNCH_BEHAVIOURS.join(', ')} or a scenario behaviour`);
  }
  if (raw.answer !== undefined && !(BEHAVIOURS as readonly unknown[]).includes(raw.answer)) {
    throw new BehaviourFileError(`${at} (${raw.name}): "answer" must be a scenario behaviour (${BEHAVIOURS.join(', ')})`);
  }
  if (raw.log !== undefined && !(Array.isArray(raw.log) && raw.log.every((l) => typeof l === 'string'))) {
    throw new BehaviourFileError(`${at} (${raw.name}): "log" is a list of strings`);
  }
  for (const k of ['exitCode', 'extraStartSeconds', 'crashAfterChunks'] as const) {
    const v = raw[k];
    if (v !== undefined && !(typeof v === 'number' && Number.isFinite(v) && v >= 0))
      throw new BehaviourFileError(`${at} (${raw.name}): "${k}" is a number ≥ 0`);
  }
  const when = raw.when;
  if (when !== undefined) {
    if (!isObject(when)) throw new BehaviourFileError(`${at} (${raw.name}): "when" is an object`);
    for (const k of Object.keys(when)) if (!CONDITION_KEYS.has(k)) throw new BehaviourFileError(`${at} (${raw.name}): unknown condition "${k}"`);
    if (typeof (when.model as { path?: unknown } | undefined)?.path === 'string') {
      try {
        new RegExp((when.model as { path: string }).path, 'i');
      } catch (error) {
        throw new BehaviourFileError(`${at} (${raw.name}): model.path: ${errorMessage(error)}`);
      }
    }
  }
  return raw as unknown as LaunchRule;
}

/** Validates a behaviour file (a path, an object, or undefined for the built-in rules). */
export function loadBehaviourFile(source?: string | BehaviourFile): BehaviourFile {
  let raw: unknown = source ?? builtIn;
  if (typeof source === 'string') {
    try {
      raw = JSON.parse(readFileSync(source, 'utf8')) as unknown;
    } catch (error) {
      throw new BehaviourFileError(`Cannot read behaviour file ${source}: ${errorMessage(error)}`);
    }
  }
  if (!isObject(raw) || !Array.isArray(raw.rules)) throw new BehaviourFileError('A behaviour file needs a "rules" list');
  return { description: typeof raw.description === 'string' ? raw.description : undefined, rules: raw.rules.map((r, i) => checkRule(r, `rules[${i}]`)) };
}

function matches(m: Match, value: unknown): boolean {
  const v = value === undefined ? null : value;
  if (Array.isArray(m)) return m.some((x) => x === v);
  if (isObject(m)) {
    if ('not' in m) return !matches(m.not, v);
    const n = typeof v === 'number' ? v : Number(v);
    if (v === null || !Number.isFinite(n)) return false;
    return (m.min === undefined || n >= m.min) && (m.max === undefined || n <= m.max);
  }
  return m === v;
}

export interface LaunchFacts {
  gpu: SimGpu;
  args: Record<string, unknown>;
  traits: ModelTraits;
  env: Record<string, string | undefined>;
  sglKernelArchs: readonly number[];
}

function holds(when: Conditions | undefined, f: LaunchFacts): boolean {
  if (!when) return true;
  if (when.gpu && !when.gpu.includes(f.gpu.id)) return false;
  if (when.sm && !when.sm.some((s) => (s.includes('.') ? s === capability(f.gpu) : Number(s) === f.gpu.major))) return false;
  for (const [field, m] of Object.entries(when.args ?? {})) if (!matches(m, f.args[field])) return false;
  const model = when.model;
  if (model) {
    if (model.quantization !== undefined && !matches(model.quantization, f.traits.quantization)) return false;
    if (model.moe !== undefined && model.moe !== f.traits.moe) return false;
    if (model.path !== undefined && !new RegExp(model.path, 'i').test(typeof f.args.model_path === 'string' ? f.args.model_path : '')) return false;
  }
  for (const [name, m] of Object.entries(when.env ?? {})) if (!matches(m, f.env[name] ?? null)) return false;
  if (when.sglKernelHasGpuArch !== undefined && when.sglKernelHasGpuArch !== f.sglKernelArchs.includes(smNumber(f.gpu))) return false;
  return true;
}

const HEALTHY: LaunchRule = { name: 'no-rule-matched', behaviour: 'healthy' };

/** The first rule that holds (a healthy one when none does). */
export function pickRule(file: BehaviourFile, facts: LaunchFacts): LaunchRule {
  return file.rules.find((r) => holds(r.when, facts)) ?? HEALTHY;
}

/** The answer a launched server gives under this rule; undefined for a server that never answers. */
export function answerBehaviour(rule: LaunchRule): ModelBehaviour | undefined {
  const standard: Partial<Record<LaunchBehaviour, ModelBehaviour>> = {
    healthy: { behaviour: 'healthy' },
    'slow-start': { behaviour: 'healthy' },
    // A long run before the marker, as the incident's were: the verdict arrives while it streams.
    'token0-nan': { behaviour: 'nan-marker', logprobs: 'nan', nanAfterTokens: 120 },
    salad: { behaviour: 'token-salad' },
    loop: { behaviour: 'short-loop' },
    'fluent-wrong': { behaviour: 'fluent-wrong' },
    'crash-mid-answer': { behaviour: 'healthy' },
  };
  if (rule.behaviour === 'crash-at-start' || rule.behaviour === 'hang-at-start') return undefined;
  const base = standard[rule.behaviour] ?? { behaviour: rule.behaviour as Behaviour };
  return { ...base, ...(rule.answer ? { behaviour: rule.answer } : {}), ...(rule.logprobs ? { logprobs: rule.logprobs } : {}) };
}
