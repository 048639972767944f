/** `search_source`: a pattern searched in files on a host (the installed SGLang source, say), rg or grep. */
import { searchHost, type SearchMatch } from '../hosts/search';
import { checkHost, checkPath, checkPattern } from './guards';
import { HOST_INPUT, outputObject } from './schemaParts';
import type { ToolDefinition } from './types';

export interface SearchInput {
  host: string;
  pattern: string;
  paths: string[];
  fixedStrings?: boolean;
  ignoreCase?: boolean;
  glob?: string[];
  maxResults?: number;
}

/** A line of code is enough to read; a minified file's one line is not worth sending whole. */
const LINE_CHARS = 400;

export const searchSourceTool: ToolDefinition<SearchInput> = {
  name: 'search_source',
  title: 'Search source on a host',
  description:
    'Search files on a host for a pattern (a regular expression, or a fixed string) with ripgrep, or grep where rg is missing, ' +
    'e.g. the installed SGLang package to see how a backend is chosen. The host is "local" or an SSH host whose key is already trusted; ' +
    'the pattern and paths are passed as arguments, never through a shell. Read-only.',
  inputSchema: {
    type: 'object',
    properties: {
      host: HOST_INPUT,
      pattern: { type: 'string', minLength: 1, maxLength: 1000, description: 'What to search for' },
      paths: {
        type: 'array',
        minItems: 1,
        maxItems: 8,
        items: { type: 'string', minLength: 1, maxLength: 1024 },
        description: 'Absolute directories or files to search, e.g. /usr/lib/python3/dist-packages/sglang',
      },
      fixedStrings: { type: 'boolean', description: 'The pattern is literal text (default false)' },
      ignoreCase: { type: 'boolean' },
      glob: {
        type: 'array',
        maxItems: 8,
        items: { type: 'string', minLength: 1, maxLength: 200 },
        description: 'Only files matching these globs (!GLOB excludes)',
      },
      maxResults: { type: 'integer', minimum: 1, maximum: 1000, description: 'Stop after this many matches (default 200)' },
    },
    required: ['host', 'pattern', 'paths'],
    additionalProperties: false,
  },
  outputSchema: outputObject(
    {
      host: { type: 'string' },
      tool: { type: 'string', enum: ['rg', 'grep'] },
      matches: {
        type: 'array',
        items: {
          type: 'object',
          properties: { path: { type: 'string' }, line: { type: 'integer' }, text: { type: 'string' } },
          required: ['path', 'line', 'text'],
        },
      },
      limited: { type: 'boolean' },
      errors: { type: 'string' },
    },
    ['host', 'tool', 'matches', 'limited'],
  ),
  touchesHost: true,
  changesServer: false,
  async run(input, ctx) {
    const hostName = checkHost(input.host);
    const pattern = checkPattern(input.pattern);
    const paths = input.paths.map(checkPath);
    const globs = (input.glob ?? []).map((g) => checkPattern(g));
    const maxResults = input.maxResults ?? 200;
    const host = await ctx.hosts.open(hostName, ctx.signal);
    const matches: SearchMatch[] = [];
    try {
      ctx.onProgress?.(`searching ${hostName}`);
      const summary = await searchHost(host, {
        pattern,
        paths,
        globs,
        fixedStrings: input.fixedStrings ?? false,
        caseSensitive: !input.ignoreCase,
        maxResults,
        signal: ctx.signal,
        timeoutMs: ctx.timeLimitMs,
        onMatch: (m) => {
          if (matches.length < maxResults)
            matches.push({ path: m.path, line: m.line, text: m.text.length > LINE_CHARS ? `${m.text.slice(0, LINE_CHARS)}…` : m.text });
        },
      });
      const data = {
        host: hostName,
        tool: summary.tool,
        matches,
        limited: summary.limited,
        ...(summary.stderr ? { errors: summary.stderr.slice(0, 2000) } : {}),
      };
      const lines = [
        `${matches.length} match(es) on ${hostName} (${summary.tool})${summary.limited ? `, stopped at ${maxResults}` : ''}`,
        ...matches.map((m) => `${m.path}:${m.line}:${m.text}`),
        ...(summary.stderr ? [`${summary.tool}: ${summary.stderr.slice(0, 500)}`] : []),
      ];
      return { data, text: lines.join('\n') };
    } finally {
      await host.close().catch(() => undefined);
    }
  },
};
