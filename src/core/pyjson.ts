/**
 * JSON as written by Python's `json` module, which emits the bare literals `NaN`, `Infinity`
 * and `-Infinity` for non-finite floats. `JSON.parse` rejects them; this module keeps them as
 * the JS numbers NaN / +-Infinity. Text inside strings is never touched.
 */
import { errorMessage } from './errors';

const NAN_TOKEN = 'NaN';
const INF_TOKEN = 'Infinity';

/**
 * Placeholder strings the slow path substitutes before handing the text to JSON.parse. A random
 * nonce keeps a string in the payload from ever equalling one by accident.
 */
function makeSentinels(text: string): { nan: string; pos: string; neg: string } {
  let base: string;
  do {
    base = `\u0001pyjson-${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;
  } while (text.includes(base.slice(1)));
  return { nan: `${base}:nan`, pos: `${base}:+inf`, neg: `${base}:-inf` };
}

/**
 * Rewrites bare NaN/Infinity literals outside strings into quoted sentinels. Returns null when the
 * text holds none (so the caller knows the syntax error lies elsewhere).
 */
function rewriteLiterals(text: string, s: { nan: string; pos: string; neg: string }): string | null {
  const out: string[] = [];
  let last = 0;
  let found = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Skip the string, honouring backslash escapes.
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) i += 2;
        else if (d === 0x22) break;
        else i++;
      }
      continue;
    }
    let replacement: string | null = null;
    let len = 0;
    if (c === 0x4e /* N */ && text.startsWith(NAN_TOKEN, i)) {
      replacement = s.nan;
      len = NAN_TOKEN.length;
    } else if (c === 0x49 /* I */ && text.startsWith(INF_TOKEN, i)) {
      replacement = s.pos;
      len = INF_TOKEN.length;
    } else if (c === 0x2d /* - */ && text.startsWith(INF_TOKEN, i + 1)) {
      replacement = s.neg;
      len = INF_TOKEN.length + 1;
    }
    if (replacement !== null) {
      out.push(text.slice(last, i), JSON.stringify(replacement));
      i += len - 1;
      last = i + 1;
      found = true;
    }
  }
  if (!found) return null;
  out.push(text.slice(last));
  return out.join('');
}

/**
 * Parses JSON that may contain Python's non-finite literals. Throws a SyntaxError (from
 * JSON.parse) only when the text is not JSON even after allowing those literals.
 */
export function parsePyJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const sentinels = makeSentinels(text);
    const rewritten = rewriteLiterals(text, sentinels);
    if (rewritten === null) throw error;
    return JSON.parse(rewritten, (_key, value: unknown) => {
      if (typeof value !== 'string') return value;
      if (value === sentinels.nan) return NaN;
      if (value === sentinels.pos) return Infinity;
      if (value === sentinels.neg) return -Infinity;
      return value;
    }) as unknown;
  }
}

export type PyJsonResult = { ok: true; value: unknown } | { ok: false; error: string };

/** Never throws: reports a parse failure as `{ ok: false, error }`. */
export function tryParsePyJson(text: string): PyJsonResult {
  try {
    return { ok: true, value: parsePyJson(text) };
  } catch (error) {
    return { ok: false, error: errorMessage(error) };
  }
}

/**
 * The inverse: JSON.stringify, except non-finite numbers are written as Python writes them
 * (`NaN`, `Infinity`, `-Infinity`) instead of `null`. Used by the simulator.
 */
export function stringifyPyJson(value: unknown): string {
  let hasNonFinite = false;
  const marker = '\u0001pyfloat:';
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'number' && !Number.isFinite(v)) {
      hasNonFinite = true;
      return `${marker}${Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity'}`;
    }
    return v;
  });
  if (!hasNonFinite) return text;
  // JSON.stringify writes U+0001 as the escape \u0001.
  return text.replace(/"\\u0001pyfloat:(NaN|Infinity|-Infinity)"/g, '$1');
}
