/**
 * The checks every tool shares: input against its schema, then the values that reach a server,
 * a host or a program (URLs, host names, patterns, paths, prompts) checked by hand so hostile
 * input gets a clear refusal; secrets redacted and the output bounded on the way out.
 */
import { parseHostSpec } from '../hosts/sshConfig';
import { validate, type Schema } from '../rules/schema';
import { showControls } from '../text/foreign';
import { ToolError, type KnownServer, type ToolContext } from './types';

const SHOWN = 120;

/** A value as it appears in an error message: controls made visible, long ones cut. */
export function shown(value: string): string {
  const s = showControls(value);
  return JSON.stringify(s.length > SHOWN ? `${s.slice(0, SHOWN)}…` : s);
}

/** Input that does not fit the schema: every problem, one per line. */
export function checkInput(schema: Schema, input: unknown, tool: string): void {
  const errors = validate(schema, input ?? {});
  if (errors.length) {
    const lines = errors.slice(0, 8).map((e) => `${e.path}: ${e.message.length > 300 ? `${e.message.slice(0, 300)}…` : e.message}`);
    throw new ToolError('invalid-input', `Invalid input for ${tool}:\n${lines.join('\n')}`);
  }
}

// C0 controls except tab, newline and carriage return; DEL; C1 controls.
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const LINE_BREAKS = /[\r\n\u2028\u2029]/;

/** Text for a prompt, a launch or a log: no NUL or other control characters. */
export function checkText(what: string, value: string): string {
  if (CONTROLS.test(value)) throw new ToolError('invalid-input', `${what} holds a control character (NUL or similar): ${shown(value)}`);
  return value;
}

/** A search pattern: one line, no control characters (it goes to rg/grep as one argv entry). */
export function checkPattern(value: string): string {
  checkText('The pattern', value);
  if (LINE_BREAKS.test(value)) throw new ToolError('invalid-input', 'The pattern must be one line (no newline)');
  return value;
}

/** A path on a host: absolute, one line, not an option. */
export function checkPath(value: string): string {
  checkText('The path', value);
  if (LINE_BREAKS.test(value)) throw new ToolError('invalid-input', `The path ${shown(value)} must be one line`);
  if (!value.startsWith('/')) throw new ToolError('invalid-input', `The path ${shown(value)} must be absolute (start with /)`);
  return value;
}

/** A HOST an agent names: `local`, an ssh config alias, user@host[:port] or ssh://…; never an option. */
export function checkHost(value: string): string {
  checkText('The host', value);
  if (/^\s*-/.test(value)) throw new ToolError('invalid-input', `The host ${shown(value)} looks like an ssh option; give a host name, an alias or "local"`);
  try {
    parseHostSpec(value);
  } catch (error) {
    throw new ToolError('invalid-input', error instanceof Error ? error.message : `Bad host ${shown(value)}`);
  }
  return value.trim();
}

/** An http(s) URL with a host and no credentials in it; returned without a trailing slash. */
export function checkUrl(value: string): string {
  checkText('The URL', value);
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ToolError('invalid-input', `${shown(value)} is not a URL: give http://host:port or a known server's name`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ToolError('invalid-input', `Only http:// and https:// URLs are allowed, not ${shown(url.protocol)}`);
  if (!url.hostname) throw new ToolError('invalid-input', `${shown(value)} names no host`);
  if (url.username || url.password)
    throw new ToolError('invalid-input', 'Put no user name or password in the URL; register the server with its API key instead');
  let path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith('/v1')) path = path.slice(0, -3);
  return `${url.protocol}//${url.host}${path}`;
}

/** A known server by name, or a URL; the API key comes only from the known server. */
export function resolveServer(ctx: ToolContext, value: string): KnownServer {
  const byName = ctx.servers.find((s) => s.name === value.trim());
  if (byName) return { ...byName, url: checkUrl(byName.url) };
  if (!/^[a-z][a-z0-9+.-]*:/i.test(value.trim())) {
    const names = ctx.servers.map((s) => s.name);
    throw new ToolError(
      'invalid-input',
      `No known server is called ${shown(value)}${names.length ? ` (known: ${names.slice(0, 10).join(', ')})` : ''}; give an http:// or https:// URL`,
    );
  }
  const url = checkUrl(value);
  const sameUrl = ctx.servers.find((s) => {
    try {
      return checkUrl(s.url) === url;
    } catch {
      return false;
    }
  });
  return sameUrl ? { ...sameUrl, url } : { name: url, url };
}

/** A name (env var, JSON key, camelCase or not) one of whose words says its value is a secret. */
const SECRET_WORDS = /(?:^|_)(?:token|secret|password|passwd|api_?key|apikey|access_?key|private_?key|credentials?|authorization|auth_?token)(?:_|$)/i;

export function isSecretName(name: string): boolean {
  return SECRET_WORDS.test(name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/-/g, '_'));
}

/** Secrets written inside text: headers, flags, assignments and well-known key shapes. */
const SECRET_TEXT: readonly [RegExp, string][] = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g, '$1 (redacted)'],
  // --api-key K, --hf-token=K; not --max-tokens.
  [/(--(?:[A-Za-z0-9]+-)*(?:api-key|token|secret|password|passwd|access-key))(\s+|=)("[^"]*"|'[^']*'|\S+)/gi, '$1$2(redacted)'],
  // HF_TOKEN=…, AWS_SECRET_ACCESS_KEY=…; not MAX_NEW_TOKENS=….
  [
    /\b((?:[A-Z0-9]+_)*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)(?:_[A-Z0-9]+)*)=("[^"]*"|'[^']*'|\S+)/g,
    '$1=(redacted)',
  ],
  // api_key='…', "token": "…" (Python reprs, JSON, YAML).
  [/\b(api_?key|access_?token|auth_?token|hf_?token|token|secret|password|passwd)(["']?\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;)}\]]+)/gi, '$1$2(redacted)'],
  [/\b(sk-[A-Za-z0-9_-]{16,}|hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|xox[abp]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})\b/g, '(redacted)'],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g, '(redacted private key)'],
];

/** Text with the known keys and anything shaped like a secret replaced. */
export function redactText(text: string, known: readonly string[] = []): string {
  let out = text;
  for (const k of known) if (k.length >= 4) out = out.split(k).join('(redacted)');
  for (const [re, by] of SECRET_TEXT) out = out.replace(re, by);
  return out;
}

/** A JSON value with secrets redacted: values under secret-looking keys, and secrets inside strings. */
export function redactValue<T>(value: T, known: readonly string[] = []): T {
  const walk = (v: unknown, key?: string): unknown => {
    if (typeof v === 'string') return key && isSecretName(key) && v ? '(redacted)' : redactText(v, known);
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [redactText(k, known), walk(x, k)]));
    return v;
  };
  return walk(value) as T;
}

/** Ends the text at about `max` characters on a line boundary, saying how much was left out. */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf('\n', max);
  const at = cut > max / 2 ? cut : max;
  return `${text.slice(0, at)}\n… (output cut: ${text.length - at} more characters)`;
}

/**
 * A result whose JSON is at most about `max` characters: long strings and arrays are shortened,
 * more each round, until it fits. Shortening keeps every shape the output schemas allow; the
 * result says it was cut (`truncated`, `note`).
 */
export function capData(data: Record<string, unknown>, max: number): Record<string, unknown> {
  if (JSON.stringify(data).length <= max) return data;
  let strLimit = 4000;
  let arrLimit = 200;
  for (let round = 0; round < 12; round++) {
    const shrink = (v: unknown): unknown => {
      if (typeof v === 'string') return v.length > strLimit ? `${v.slice(0, strLimit)}… (cut)` : v;
      if (Array.isArray(v)) return v.slice(0, arrLimit).map(shrink);
      if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shrink(x)]));
      return v;
    };
    const out = shrink(data) as Record<string, unknown>;
    out.truncated = true;
    out.note = `Output cut to about ${max} characters: long texts and lists were shortened; narrow the request to see more.`;
    if (JSON.stringify(out).length <= max || (strLimit <= 40 && arrLimit <= 1)) return out;
    strLimit = Math.max(40, Math.floor(strLimit / 2));
    arrLimit = Math.max(1, Math.floor(arrLimit / 2));
  }
  return data;
}
