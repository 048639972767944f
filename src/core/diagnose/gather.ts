/**
 * Evidence from everything a user can point the diagnosis at — launch files, server logs, a
 * running server (its /v1/models, /server_info and a quick probe), a discovery report, pasted
 * check_env / collect_env text and facts the user states — merged into one Evidence. Shared by
 * the CLI's `diagnose`, the Diagnose view and the agent tools. Reading files is the caller's job
 * (it knows the file system); this module reads streams and talks HTTP.
 */
import type { EnvReport } from '../discovery/report';
import { errorMessage } from '../errors';
import { runQuickProbe } from '../probe/quick';
import { fetchModels, fetchServerInfo } from '../probe/server-api';
import type { ServerTarget } from '../probe/types';
import { fromCheckEnv, fromCollectEnv } from './envText';
import { emptyEvidence, fact, mergeAll, putEngine, type Engine, type Evidence } from './evidence';
import { fromDiscovery } from './discovery';
import { fromLaunch } from './launch';
import { fromModelConfig } from './modelConfig';
import type { LineSource } from './lines';
import { hintsOfModelPath } from './modelHints';
import { fromProbe, type ProbeInput } from './probe';
import { fromServerInfo } from './serverInfo';
import { fromSglangLog } from './sglangLog';
import { fromVllmLog } from './vllmLog';
import { evidenceOfSpec } from './rules/spec';
import type { EvidenceSpec } from './rules/types';

export interface GatherInputs {
  launch?: { text: string; fileName: string }[];
  /** Logs as line sources; `engine` when known, else sniffed from `head` (the log's first KB). */
  logs?: { lines: LineSource; label: string; engine?: Engine; head?: string }[];
  server?: { target: ServerTarget; model?: string; probe: boolean; timeoutMs?: number };
  discovery?: EnvReport[];
  /** The model's config.json (and ModelOpt's hf_quant_config.json) as text. */
  modelConfig?: { text: string; where: string; quantText?: string }[];
  /** Pasted `python -m sglang.check_env` or vLLM `collect_env.py` output. */
  envText?: { text: string; label: string }[];
  probes?: ProbeInput[];
  /** What the user says (--gpu, --engine, --version, --model). */
  spec?: EvidenceSpec;
}

export interface GatherOptions {
  signal?: AbortSignal;
  /** One line per step, for a progress bar or stderr. */
  onProgress?: (message: string) => void;
}

export interface Gathered {
  evidence: Evidence;
  /** What could not be read, in the user's words ("/server_info: HTTP 404"). */
  notes: string[];
}

/** vLLM or SGLang from a log's first lines; undefined when neither says. */
export function sniffLogEngine(head: string): Engine | undefined {
  const t = head.slice(0, 256 * 1024);
  const vllm = /\bvLLM\b|vllm\.(?:entrypoints|engine|v1)|\(EngineCore|\bAPIServer pid=|\[vllm\]/i.test(t) ? t.search(/\bvLLM\b|vllm\./i) : -1;
  const sglang = /\bsglang\b|server_args=ServerArgs\(|\[TP\d+\] |Scheduler hit an exception/i.test(t)
    ? t.search(/sglang|server_args=ServerArgs|\[TP\d+\]/i)
    : -1;
  if (vllm >= 0 && (sglang < 0 || vllm < sglang)) return 'vllm';
  if (sglang >= 0) return 'sglang';
  return undefined;
}

/** check_env (SGLang) or collect_env (vLLM) from the text itself. */
export function sniffEnvText(text: string): 'check-env' | 'collect-env' {
  return /Collecting environment information|vLLM Version|PyTorch version\s*:|Is debug build/i.test(text.slice(0, 64 * 1024)) ? 'collect-env' : 'check-env';
}

/** The user's own facts: their spec, with the model path's hints as guesses. */
function fromUser(spec: EvidenceSpec): Evidence {
  const ev = evidenceOfSpec(spec);
  if (spec.model) {
    const hints = hintsOfModelPath(spec.model);
    if (hints.quantization && !spec.quantization) ev.model.quantization = fact(hints.quantization, 'user', 'guess', 'model name');
    for (const [t, v] of Object.entries(hints.traits)) {
      const key = t as keyof typeof ev.model.traits;
      if (v && !ev.model.traits[key]) ev.model.traits[key] = fact(true, 'user', 'guess', 'model name');
    }
  }
  return ev;
}

async function fromServer(server: NonNullable<GatherInputs['server']>, opts: GatherOptions, notes: string[]): Promise<Evidence[]> {
  const out: Evidence[] = [];
  const api = { timeoutMs: server.timeoutMs ?? 10_000, ...(opts.signal ? { signal: opts.signal } : {}) };
  const url = server.target.baseUrl;
  let model = server.model;
  opts.onProgress?.(`Reading ${url}/v1/models`);
  try {
    const models = await fetchModels(server.target, api);
    model ??= models[0]?.id;
    const owner = models[0]?.ownedBy;
    if (owner === 'vllm' || owner === 'sglang') {
      const ev = emptyEvidence();
      putEngine(ev, fact<Engine>(owner, 'server-info', 'certain', `${url}/v1/models owned_by`));
      out.push(ev);
    }
    if (models[0]?.root ?? models[0]?.id) {
      const ev = emptyEvidence();
      const path = models[0].root ?? models[0].id;
      ev.model.path = fact(path, 'server-info', 'likely', `${url}/v1/models`);
      const hints = hintsOfModelPath(path);
      if (hints.quantization) ev.model.quantization = fact(hints.quantization, 'server-info', 'guess', 'model name');
      out.push(ev);
    }
  } catch (error) {
    notes.push(`${url}/v1/models: ${errorMessage(error)}`);
  }
  opts.onProgress?.(`Reading ${url}/server_info`);
  try {
    out.push(fromServerInfo(await fetchServerInfo(server.target, api), { where: `${url}/server_info` }));
  } catch (error) {
    notes.push(`${url}/server_info: ${errorMessage(error)} (vLLM serves it only with VLLM_SERVER_DEV_MODE=1)`);
  }
  if (server.probe) {
    opts.onProgress?.(`Probing ${url} with the quick prompts`);
    try {
      const quick = await runQuickProbe(
        server.target,
        { ...(model ? { model } : {}), maxTokens: 192, timeoutMs: server.timeoutMs ?? 60_000 },
        opts.signal ? { signal: opts.signal } : {},
      );
      out.push(fromProbe(quick, { where: url }));
    } catch (error) {
      notes.push(`probe of ${url}: ${errorMessage(error)}`);
    }
  }
  return out;
}

/** Reads every input (logs streamed) and merges what they say; an input that fails becomes a note. */
export async function gatherEvidence(inputs: GatherInputs, opts: GatherOptions = {}): Promise<Gathered> {
  const notes: string[] = [];
  const parts: Evidence[] = [];
  // The user's word first: on a tie between equally certain sources the first one stays.
  if (inputs.spec) parts.push(fromUser(inputs.spec));
  for (const r of inputs.discovery ?? []) parts.push(fromDiscovery(r));
  for (const f of inputs.launch ?? []) {
    opts.onProgress?.(`Reading ${f.fileName}`);
    parts.push(fromLaunch(f.text, f.fileName));
  }
  for (const log of inputs.logs ?? []) {
    opts.onProgress?.(`Reading ${log.label}`);
    const engine = log.engine ?? (log.head !== undefined ? sniffLogEngine(log.head) : undefined) ?? inputs.spec?.engine;
    try {
      parts.push(engine === 'vllm' ? await fromVllmLog(log.lines, { label: log.label }) : await fromSglangLog(log.lines, { label: log.label }));
    } catch (error) {
      notes.push(`${log.label}: ${errorMessage(error)}`);
    }
  }
  for (const t of inputs.envText ?? [])
    parts.push(sniffEnvText(t.text) === 'collect-env' ? fromCollectEnv(t.text, { label: t.label }) : fromCheckEnv(t.text, { label: t.label }));
  for (const m of inputs.modelConfig ?? []) parts.push(fromModelConfig(m.text, { where: m.where, ...(m.quantText ? { quantConfig: m.quantText } : {}) }));
  for (const p of inputs.probes ?? []) parts.push(fromProbe(p));
  if (inputs.server) parts.push(...(await fromServer(inputs.server, opts, notes)));
  return { evidence: mergeAll(...parts), notes };
}
