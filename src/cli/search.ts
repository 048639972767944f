/**
 * `inference-doctor search HOST PATTERN --path DIR [--path DIR …] [options]`
 * Searches files on a host (rg, or grep when rg is missing) and prints matches as they arrive.
 * Exit status: 0 matches found, 1 none found, 2 error (like grep).
 */
import { searchHost, HostError, type Host } from '../core/hosts/index';
import { EXIT } from './command';
import { extractHostArgs, openHostFromArgs, HOST_OPTIONS_HELP, UsageError } from './hostArgs';

const USAGE = `Usage: inference-doctor search HOST PATTERN --path DIR [--path DIR ...] [options]
  --fixed-strings, -F     PATTERN is a literal string, not a regular expression
  --ignore-case, -i       case-insensitive match
  --word-regexp, -w       match whole words only
  --glob GLOB             only files matching GLOB (!GLOB excludes; repeatable)
  --max-results N         stop after N matches
  --json                  one JSON object per line: {"path","line","text"}
  -e PATTERN              give PATTERN as an option (for patterns starting with "-")
${HOST_OPTIONS_HELP}`;

export async function searchCommand(argv: string[]): Promise<number> {
  let host: Host | undefined;
  const ac = new AbortController();
  const onSigint = (): void => ac.abort('interrupted');
  process.once('SIGINT', onSigint);
  try {
    const { hostArgs, rest } = extractHostArgs(argv);
    const positional: string[] = [];
    const paths: string[] = [];
    const globs: string[] = [];
    let pattern: string | undefined;
    let fixed = false, json = false, ignoreCase = false, word = false;
    let maxResults: number | undefined;
    for (let i = 0; i < rest.length; i++) {
      const a = rest[i];
      const val = (): string => { const v = rest[++i]; if (v === undefined) throw new UsageError(`${a} needs a value`); return v; };
      if (a === '--') { positional.push(...rest.slice(i + 1)); break; }
      if (a === '-h' || a === '--help') { process.stdout.write(`${USAGE}\n`); return 0; }
      else if (a === '--path' || a === '-p') paths.push(val());
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
    const hostInput = positional.shift();
    if (pattern === undefined) pattern = positional.shift();
    if (!hostInput || pattern === undefined) throw new UsageError('HOST and PATTERN are required');
    if (positional.length) paths.push(...positional);
    if (!paths.length) throw new UsageError('Give at least one --path DIR to search');
    if (maxResults !== undefined && (!Number.isInteger(maxResults) || maxResults < 1)) throw new UsageError('--max-results needs a positive integer');

    host = await openHostFromArgs(hostInput, hostArgs, ac.signal);
    const out = process.stdout;
    const summary = await searchHost(host, {
      pattern, paths, fixedStrings: fixed, caseSensitive: !ignoreCase, wordRegexp: word, globs, signal: ac.signal,
      ...(maxResults !== undefined ? { maxResults } : {}),
      onMatch: (m) => {
        out.write(json ? `${JSON.stringify({ path: m.path, line: m.line, text: m.text })}\n` : `${m.path}:${m.line}:${m.text}\n`);
      },
    });
    if (summary.stderr && summary.code === 2) process.stderr.write(`${summary.tool}: ${summary.stderr}\n`);
    // As grep: 0 with matches, 1 without; a search that failed is an error (3), not a usage error.
    if (summary.code === 2 && summary.matches === 0) return EXIT.error;
    return summary.matches > 0 ? EXIT.ok : 1;
  } catch (e) {
    if (e instanceof UsageError) { process.stderr.write(`inference-doctor search: ${e.message}\n\n${USAGE}\n`); return EXIT.usage; }
    const msg = e instanceof HostError || e instanceof Error ? e.message : String(e);
    process.stderr.write(`inference-doctor search: ${msg}\n`);
    return EXIT.error;
  } finally {
    process.off('SIGINT', onSigint);
    await host?.close().catch(() => undefined);
  }
}
