/**
 * `inference-doctor search HOST PATTERN --path DIR [--path DIR …] [options]`: searches files on a
 * host (rg, or grep where rg is missing) and prints matches as they arrive.
 */
import { searchHost, type Host } from '../../core/hosts/index';
import { EXIT, UsageError, write, type CliIo, type Command } from '../command';
import { extractHostArgs, openHostFromArgs, HOST_OPTIONS_HELP, type HostArgs } from '../hostArgs';

const USAGE = `Usage: inference-doctor search HOST PATTERN --path DIR [--path DIR ...] [options]

Searches files on a host (the installed SGLang source, say) and prints each match as it arrives.

Options:
  --path DIR, -p DIR      where to search (repeatable; required)
  --fixed-strings, -F     PATTERN is a literal string, not a regular expression
  --ignore-case, -i       case-insensitive match
  --word-regexp, -w       match whole words only
  --glob GLOB             only files matching GLOB (!GLOB excludes; repeatable)
  --max-results N         stop after N matches
  --json                  one JSON object per line: {"path","line","text"}
  -e PATTERN              give PATTERN as an option (for patterns starting with "-")
${HOST_OPTIONS_HELP}

Exit status: 0 matches found, 1 none found (as grep), 3 the search failed, 64 bad usage.`;

interface SearchArgs {
  host: string;
  hostArgs: HostArgs;
  pattern: string;
  paths: string[];
  globs: string[];
  fixed: boolean;
  json: boolean;
  ignoreCase: boolean;
  word: boolean;
  maxResults?: number;
}

function parse(argv: string[]): SearchArgs {
  const { hostArgs, rest } = extractHostArgs(argv);
  const positional: string[] = [];
  const paths: string[] = [];
  const globs: string[] = [];
  let pattern: string | undefined;
  let fixed = false,
    json = false,
    ignoreCase = false,
    word = false;
  let maxResults: number | undefined;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    const val = (): string => {
      const v = rest[++i];
      if (v === undefined) throw new UsageError(`${a} needs a value`);
      return v;
    };
    if (a === '--') {
      positional.push(...rest.slice(i + 1));
      break;
    }
    if (a === '--path' || a === '-p') paths.push(val());
    else if (a.startsWith('--path=')) paths.push(a.slice(7));
    else if (a === '--fixed-strings' || a === '-F') fixed = true;
    else if (a === '--ignore-case' || a === '-i') ignoreCase = true;
    else if (a === '--word-regexp' || a === '-w') word = true;
    else if (a === '--json') json = true;
    else if (a === '--glob' || a === '-g') globs.push(val());
    else if (a.startsWith('--glob=')) globs.push(a.slice(7));
    else if (a === '-e' || a === '--regexp') pattern = val();
    else if (a.startsWith('--regexp=')) pattern = a.slice(9);
    else if (a === '--max-results') maxResults = Number(val());
    else if (a.startsWith('-') && a.length > 1) throw new UsageError(`Unknown option ${a}`);
    else positional.push(a);
  }
  const host = positional.shift();
  if (pattern === undefined) pattern = positional.shift();
  if (!host || pattern === undefined) throw new UsageError('HOST and PATTERN are required');
  if (positional.length) paths.push(...positional);
  if (!paths.length) throw new UsageError('Give at least one --path DIR to search');
  if (maxResults !== undefined && (!Number.isInteger(maxResults) || maxResults < 1)) throw new UsageError('--max-results needs a positive integer');
  return { host, hostArgs, pattern, paths, globs, fixed, json, ignoreCase, word, ...(maxResults !== undefined ? { maxResults } : {}) };
}

export const searchCommand: Command = {
  name: 'search',
  summary: 'search the installed SGLang source on a host (local or over SSH), as lines or JSON lines',
  usage: USAGE,
  async run(argv: string[], io: CliIo): Promise<number> {
    const a = parse(argv);
    let host: Host | undefined;
    try {
      host = await openHostFromArgs(a.host, a.hostArgs, io.signal);
      const out = io.stdout;
      const summary = await searchHost(host, {
        pattern: a.pattern,
        paths: a.paths,
        fixedStrings: a.fixed,
        caseSensitive: !a.ignoreCase,
        wordRegexp: a.word,
        globs: a.globs,
        signal: io.signal,
        ...(a.maxResults !== undefined ? { maxResults: a.maxResults } : {}),
        onMatch: (m) => {
          out.write(a.json ? `${JSON.stringify({ path: m.path, line: m.line, text: m.text })}\n` : `${m.path}:${m.line}:${m.text}\n`);
        },
      });
      if (summary.stderr && summary.code === 2) await write(io.stderr, `${summary.tool}: ${summary.stderr}\n`);
      // As grep: 0 with matches, 1 without; a search that failed is an error (3), not a usage error.
      if (summary.code === 2 && summary.matches === 0) return EXIT.error;
      return summary.matches > 0 ? EXIT.ok : EXIT.noMatch;
    } finally {
      await host?.close().catch(() => undefined);
    }
  },
};
