/**
 * Text search on any Host: `rg --json` when ripgrep is installed there (checked once per host),
 * otherwise `grep -rn`. Results stream to `onMatch` as output arrives. The pattern is always
 * passed as data (`--regexp=PATTERN` / `-e PATTERN`) and paths always follow `--`, so nothing a
 * user types can turn into an option such as `--pre=COMMAND`.
 */
import { HostError, type Host } from './types';

export interface SearchMatch {
  path: string;
  line: number;
  text: string;
}

export interface SearchOptions {
  pattern: string;
  paths: string[];
  fixedStrings?: boolean;
  /** Default true (both tools are case-sensitive by default). */
  caseSensitive?: boolean;
  wordRegexp?: boolean;
  /** rg-style globs; a leading `!` excludes. */
  globs?: string[];
  signal?: AbortSignal;
  onMatch(m: SearchMatch): void;
  /** Stop after this many matches (the search process is stopped). */
  maxResults?: number;
  /** Force a tool (tests); default: rg if present. */
  tool?: 'rg' | 'grep';
  timeoutMs?: number;
}

export interface SearchSummary {
  tool: 'rg' | 'grep';
  matches: number;
  /** True when maxResults stopped the search early. */
  limited: boolean;
  /** Errors the tool reported (unreadable files, bad regex), trimmed. */
  stderr: string;
  /** Exit code of the tool (0 found, 1 nothing found, 2 errors). */
  code: number | null;
}

/**
 * Where each engine declares its flags inside its package directory (`…/site-packages/sglang`,
 * `…/vllm`). SGLang: server_args.py, and since the split layout the `srt/arg_groups/` tree
 * (fields/*.py, choices.py, arg_utils.py). vLLM: EngineArgs in engine/arg_utils.py, the config
 * dataclasses of config/ (one config.py before it was split) and the OpenAI frontend's cli_args.py.
 */
export const FLAG_DECLARATION_PATHS: Readonly<Record<'sglang' | 'vllm', readonly string[]>> = {
  sglang: ['srt/server_args.py', 'srt/arg_groups'],
  vllm: ['engine/arg_utils.py', 'config', 'entrypoints/openai/cli_args.py'],
};

/**
 * Presets for finding where SGLang or vLLM declares backend options. `within`: search only these
 * paths under each engine's directory (absent: the whole package).
 */
export const BACKEND_OPTION_PRESETS: readonly {
  id: string;
  label: string;
  pattern: string;
  fixedStrings: boolean;
  within?: Readonly<Record<'sglang' | 'vllm', readonly string[]>>;
}[] = [
  { id: 'backend', label: 'Options ending in _backend', pattern: '_backend', fixedStrings: true },
  { id: 'choices-const', label: '*_CHOICES constant lists', pattern: '_CHOICES', fixedStrings: true },
  { id: 'add-choices', label: 'add_*_choices helpers', pattern: 'add_.*_choices', fixedStrings: false },
  { id: 'cli-name', label: 'cli_name= declarations', pattern: 'cli_name=', fixedStrings: true },
  {
    id: 'flag-declarations',
    label: "Flag declarations (SGLang's server_args.py and arg_groups/, vLLM's arg_utils.py and config/)",
    pattern: '(A\\[|Arg\\(|add_argument\\(|cli_name=|aliases=)',
    fixedStrings: false,
    within: FLAG_DECLARATION_PATHS,
  },
];

const rgCache = new WeakMap<Host, Promise<boolean>>();

/** Whether `rg` runs on the host (cached per host object). */
export function hostHasRipgrep(host: Host, signal?: AbortSignal): Promise<boolean> {
  let p = rgCache.get(host);
  if (!p) {
    p = host.exec(['rg', '--version'], { timeoutMs: 15000, maxOutputBytes: 4096, ...(signal ? { signal } : {}) }).then(
      (r) => r.code === 0 && r.stdout.startsWith('ripgrep'),
      (e: unknown) => {
        if (e instanceof HostError && e.kind === 'not-found') return false;
        throw e;
      },
    );
    rgCache.set(host, p);
    p.catch(() => rgCache.delete(host));
  }
  return p;
}

function validate(o: SearchOptions): void {
  if (typeof o.pattern !== 'string' || o.pattern.length === 0) throw new HostError('invalid-argument', 'Empty search pattern');
  if (!Array.isArray(o.paths) || o.paths.length === 0) throw new HostError('invalid-argument', 'Search needs at least one path (--path DIR)');
  for (const s of [o.pattern, ...o.paths, ...(o.globs ?? [])]) {
    if (s.includes('\0')) throw new HostError('invalid-argument', 'Search pattern, paths and globs cannot contain NUL bytes');
  }
  if (o.paths.some((p) => p.length === 0)) throw new HostError('invalid-argument', 'Empty search path');
}

export function ripgrepArgv(o: Omit<SearchOptions, 'onMatch'>): string[] {
  const argv = ['rg', '--json', '--no-config', '--no-messages'];
  if (o.fixedStrings) argv.push('--fixed-strings');
  if (o.wordRegexp) argv.push('--word-regexp');
  argv.push(o.caseSensitive === false ? '--ignore-case' : '--case-sensitive');
  for (const g of o.globs ?? []) argv.push(`--glob=${g}`);
  argv.push(`--regexp=${o.pattern}`, '--', ...o.paths);
  return argv;
}

export function grepArgv(o: Omit<SearchOptions, 'onMatch'>): string[] {
  const argv = ['grep', '-r', '-n', '-H', '-I', '-Z', '--color=never'];
  argv.push(o.fixedStrings ? '-F' : '-E');
  if (o.wordRegexp) argv.push('-w');
  if (o.caseSensitive === false) argv.push('-i');
  for (const g of o.globs ?? []) argv.push(g.startsWith('!') ? `--exclude=${g.slice(1)}` : `--include=${g}`);
  argv.push('-e', o.pattern, '--', ...o.paths);
  return argv;
}

interface RgText {
  text?: string;
  bytes?: string;
}
function rgText(t: RgText | undefined): string {
  if (!t) return '';
  if (typeof t.text === 'string') return t.text;
  return t.bytes ? Buffer.from(t.bytes, 'base64').toString('utf8') : '';
}

function stripEol(s: string): string {
  return s.endsWith('\r\n') ? s.slice(0, -2) : s.endsWith('\n') ? s.slice(0, -1) : s;
}

/** Parse one `rg --json` line; undefined for non-match messages. */
export function parseRgLine(line: string): SearchMatch | undefined {
  if (!line.startsWith('{"type":"match"')) return undefined;
  const msg = JSON.parse(line) as { type: string; data: { path: RgText; lines: RgText; line_number: number | null } };
  return { path: rgText(msg.data.path), line: msg.data.line_number ?? 0, text: stripEol(rgText(msg.data.lines)) };
}

/**
 * Split `grep -rnHZ` output into records PATH NUL LINE ':' TEXT '\n'. A path may itself contain
 * newlines, so a record ends at the first newline after the NUL, not at the first newline.
 * Returns the complete records and the unconsumed rest.
 */
export function splitGrepRecords(buf: string): { records: string[]; rest: string } {
  const records: string[] = [];
  let from = 0;
  for (;;) {
    const nul = buf.indexOf('\0', from);
    if (nul < 0) {
      // Output from a grep without -Z support: plain lines.
      if (!buf.includes('\0')) {
        const nl = buf.lastIndexOf('\n');
        if (nl >= from) {
          records.push(...buf.slice(from, nl).split('\n'));
          from = nl + 1;
        }
      }
      break;
    }
    const nl = buf.indexOf('\n', nul);
    if (nl < 0) break;
    records.push(buf.slice(from, nl));
    from = nl + 1;
  }
  return { records, rest: buf.slice(from) };
}

/** Parse one `grep -rnHZ` record: PATH NUL LINE ':' TEXT. */
export function parseGrepLine(line: string): SearchMatch | undefined {
  const nul = line.indexOf('\0');
  if (nul >= 0) {
    const m = /^(\d+):/.exec(line.slice(nul + 1));
    if (!m) return undefined;
    return { path: line.slice(0, nul), line: Number(m[1]), text: stripEol(line.slice(nul + 1 + m[0].length)) };
  }
  const m = /^(.*?):(\d+):/.exec(line); // grep without -Z support
  return m ? { path: m[1], line: Number(m[2]), text: stripEol(line.slice(m[0].length)) } : undefined;
}

export async function searchHost(host: Host, o: SearchOptions): Promise<SearchSummary> {
  validate(o);
  const tool = o.tool ?? ((await hostHasRipgrep(host, o.signal)) ? 'rg' : 'grep');
  const argv = tool === 'rg' ? ripgrepArgv(o) : grepArgv(o);
  const parse = tool === 'rg' ? parseRgLine : parseGrepLine;
  const stop = new AbortController();
  const onOuterAbort = (): void => stop.abort(o.signal?.reason);
  if (o.signal?.aborted) stop.abort(o.signal.reason);
  o.signal?.addEventListener('abort', onOuterAbort, { once: true });
  let matches = 0;
  let limited = false;
  let pending = '';
  const max = o.maxResults ?? Infinity;
  const feed = (line: string): void => {
    if (limited || !line) return;
    let m: SearchMatch | undefined;
    try {
      m = parse(line);
    } catch {
      return;
    }
    if (!m) return;
    matches++;
    o.onMatch(m);
    if (matches >= max) {
      limited = true;
      stop.abort('maxResults');
    }
  };
  try {
    const r = await host.exec(argv, {
      signal: stop.signal,
      maxOutputBytes: 1 << 30,
      ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
      onStdout: (chunk) => {
        pending += chunk;
        if (tool === 'grep') {
          const { records, rest } = splitGrepRecords(pending);
          pending = rest;
          for (const r of records) feed(r);
          return;
        }
        let nl: number;
        let from = 0;
        while ((nl = pending.indexOf('\n', from)) >= 0) {
          feed(pending.slice(from, nl));
          from = nl + 1;
        }
        pending = pending.slice(from);
      },
    });
    feed(pending);
    if (r.code === 127) throw new HostError('not-found', `${tool} is not installed on ${host.label}. Install ripgrep (or grep) there.`);
    return { tool, matches, limited, stderr: r.stderr.trim(), code: r.code };
  } catch (e) {
    if (limited && !o.signal?.aborted && e instanceof HostError && e.kind === 'aborted') return { tool, matches, limited, stderr: '', code: null };
    if (e instanceof Error) Object.assign(e, { matchesSoFar: matches });
    throw e;
  } finally {
    o.signal?.removeEventListener('abort', onOuterAbort);
  }
}
