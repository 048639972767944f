/**
 * Evidence from SGLang's /server_info (alias /get_server_info): the server args keyed by dataclass
 * field with the values the server resolved, `version`, and `internal_states` (one dict per
 * data-parallel rank: what rank 0 actually runs wins over the top-level field). Text is parsed
 * with pyjson, so bare NaN/Infinity from Python's encoder are fine.
 */
import { tryParsePyJson } from '../pyjson';
import { deriveFromArgs } from './derive';
import { emptyEvidence, fact, MAX_RECORD_KEYS, putEngine, putFact, putSlot, setOwn, type Certainty, type Evidence, type FlagValue } from './evidence';
import { ccString, gpuFamilyOf } from './gpuFamily';

const SECRET = /(?:^|_)(?:api_key|token|password|secret)(?:$|_)/i;
/** Top-level keys that are not server args. */
const NOT_ARGS = new Set(['internal_states', 'version']);
/** Fields of an internal state worth keeping: what the rank runs. */
const STATE_FIELD = /_backend$|^kv_cache_dtype$|^cuda_graph|^disable_cuda_graph$|^speculative_algorithm$/;

/** A JSON value as a FlagValue (objects rebuilt so `__proto__` stays a key); depth-bounded. */
export function toFlagValue(v: unknown, depth = 0): FlagValue {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (depth > 32) return null;
  if (Array.isArray(v)) return v.slice(0, 10_000).map((x) => toFlagValue(x, depth + 1));
  if (typeof v === 'object') {
    const out: Record<string, FlagValue> = {};
    let n = 0;
    for (const k of Object.keys(v)) {
      if (n++ >= 10_000) break;
      setOwn(out, k, toFlagValue((v as Record<string, unknown>)[k], depth + 1));
    }
    return out;
  }
  return typeof v === 'bigint' ? v.toString() : null;
}

export interface ServerInfoOptions {
  /** `where` text; default "/server_info". */
  where?: string;
}

/** Evidence from a /server_info body: the parsed object, or its text. Anything else gives empty evidence. */
export function fromServerInfo(json: unknown, options: ServerInfoOptions = {}): Evidence {
  const ev = emptyEvidence();
  let body = json;
  if (typeof json === 'string') {
    const r = tryParsePyJson(json);
    if (!r.ok) return ev;
    body = r.value;
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return ev;
  const info = body as Record<string, unknown>;
  const where = options.where ?? '/server_info';
  const make = <T>(value: T, certainty: Certainty) => fact(value, 'server-info', certainty, where);
  const put = (field: string, value: FlagValue, w = where): void => {
    putFact(ev.flags.resolved, field, fact(value, 'server-info', 'certain', w), ev.conflicts, `flags.resolved.${field}`, MAX_RECORD_KEYS);
  };
  putEngine(ev, make('sglang', 'likely'));
  const own = (k: string): unknown => (Object.prototype.hasOwnProperty.call(info, k) ? info[k] : undefined);
  const version = own('version');
  if (typeof version === 'string' && version.trim()) {
    putSlot(ev, ev.versions, 'sglang', make(version.trim().replace(/^v/, ''), 'certain'), 'versions.sglang');
    putEngine(ev, make('sglang', 'certain'));
  }
  // What rank 0 runs first: on a tie the fact already there is kept, so it wins over the top-level value.
  const states = own('internal_states');
  if (Array.isArray(states) && states[0] && typeof states[0] === 'object') {
    const s0 = states[0] as Record<string, unknown>;
    for (const k of Object.keys(s0)) if (STATE_FIELD.test(k) && !SECRET.test(k)) put(k, toFlagValue(s0[k]), `${where} internal_states[0]`);
  }
  const args: Record<string, FlagValue> = {};
  for (const k of Object.keys(info)) {
    if (NOT_ARGS.has(k) || SECRET.test(k)) continue;
    const v = toFlagValue(info[k]);
    setOwn(args, k, v);
    put(k, v);
  }
  deriveFromArgs(ev, args, make, { direct: 'certain', count: 'likely' });
  // GPU fields some builds and forks add.
  const name = [own('gpu_name'), own('device_name'), own('gpu_type')].find((x): x is string => typeof x === 'string' && x.trim() !== '');
  const ccRaw = own('compute_capability') ?? own('cuda_capability') ?? own('gpu_compute_capability');
  const cc = ccString(typeof ccRaw === 'string' || typeof ccRaw === 'number' ? ccRaw : Array.isArray(ccRaw) ? (ccRaw as number[]) : undefined);
  if (name) putSlot(ev, ev.gpu, 'name', make(name.trim(), 'certain'), 'gpu.name');
  if (cc) putSlot(ev, ev.gpu, 'computeCapability', make(cc, 'certain'), 'gpu.computeCapability');
  if (name || cc) putSlot(ev, ev.gpu, 'family', make(gpuFamilyOf(cc, name), cc ? 'certain' : 'likely'), 'gpu.family');
  return ev;
}
