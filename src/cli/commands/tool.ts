/**
 * `inference-doctor tool NAME [--allow-changes] [options]`: one agent tool call, its input as JSON
 * on stdin, the result as one JSON object on stdout. The VS Code language-model tools run here,
 * in a child process, so the tools and the checker stay out of the extension bundle; scripts can
 * use it too. API keys come on stdin (never argv, which other users can read).
 */
import { errorMessage } from '../../core/errors';
import {
  DEFAULT_MAX_OUTPUT_CHARS,
  DEFAULT_TIME_LIMIT_MS,
  CHANGES_TIME_LIMIT_MS,
  findTool,
  runTool,
  sshHostAccess,
  TOOLS,
  type KnownServer,
} from '../../core/tools';
import { checkLaunchText } from '../check/toolService';
import { EXIT, UsageError, write, type Command } from '../command';
import { extractHostArgs } from '../hostArgs';

const USAGE = `Usage: inference-doctor tool NAME [--allow-changes] [--time-limit SECONDS] [--max-output CHARS] [options] < request.json

Runs one of the agent tools (${TOOLS.map((t) => t.name).join(', ')}) with the
JSON request on stdin: {"input": {...}, "servers": [{"name", "url", "apiKey"?}]}. Prints
{"ok":true,"data":{...},"text":"..."} or {"ok":false,"error":{"code","message"}} on stdout.

Options:
  --allow-changes        let apply_fix and sweep change the server (otherwise they refuse)
  --time-limit SECONDS   stop the call after this long
  --max-output CHARS     cut the JSON result to about this size
  --state-dir DIR        where \`inference-doctor supervise\` keeps its state
  --known-hosts FILE, --ssh-config FILE, --identity FILE   as for the other host commands

Exit status: 0 the tool answered, 3 it refused or failed, 64 bad usage.`;

const MAX_REQUEST = 16 * 1024 * 1024;

async function readStdin(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) {
    text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    if (text.length > MAX_REQUEST) throw new UsageError(`The request on stdin is larger than ${MAX_REQUEST} characters`);
  }
  return text;
}

function servers(value: unknown): KnownServer[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new UsageError('"servers" must be an array');
  return value.map((s: unknown) => {
    const o = s as Record<string, unknown>;
    if (!o || typeof o.name !== 'string' || typeof o.url !== 'string' || (o.apiKey !== undefined && typeof o.apiKey !== 'string'))
      throw new UsageError('each server needs a "name" and a "url" (and an optional "apiKey"), all strings');
    return { name: o.name, url: o.url, ...(typeof o.apiKey === 'string' && o.apiKey ? { apiKey: o.apiKey } : {}) };
  });
}

export const toolCommand: Command = {
  name: 'tool',
  summary: 'run one agent tool: a JSON request on stdin, a JSON result on stdout',
  usage: USAGE,
  async run(argv, io) {
    const { hostArgs, rest } = extractHostArgs(argv);
    let name: string | undefined;
    let allowChanges = false;
    let timeLimitMs: number | undefined;
    let maxOutputChars = DEFAULT_MAX_OUTPUT_CHARS;
    let stateDir: string | undefined;
    for (let i = 0; i < rest.length; i++) {
      const a = rest[i];
      const value = (): string => {
        const v = rest[++i];
        if (v === undefined || v === '') throw new UsageError(`${a} needs a value`);
        return v;
      };
      if (a === '--allow-changes') allowChanges = true;
      else if (a === '--time-limit' || a === '--max-output') {
        const n = Number(value());
        if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${a} needs a positive number`);
        if (a === '--time-limit') timeLimitMs = Math.round(n * 1000);
        else maxOutputChars = Math.max(2000, Math.round(n));
      } else if (a === '--state-dir') stateDir = value();
      else if (a.startsWith('-')) throw new UsageError(`Unknown option ${JSON.stringify(a)}`);
      else if (name) throw new UsageError(`Unexpected argument ${JSON.stringify(a)}`);
      else name = a;
    }
    if (!name) throw new UsageError('Name the tool');
    const tool = findTool(name);
    if (!tool) throw new UsageError(`No tool is called ${JSON.stringify(name)}; known: ${TOOLS.map((t) => t.name).join(', ')}`);
    let request: { input?: unknown; servers?: unknown };
    try {
      request = JSON.parse(await readStdin(io.stdin)) as { input?: unknown; servers?: unknown };
    } catch (error) {
      if (error instanceof UsageError) throw error;
      throw new UsageError(`The request on stdin is not JSON: ${errorMessage(error)}`);
    }
    if (!request || typeof request !== 'object') throw new UsageError('The request must be a JSON object');
    const r = await runTool(name, request.input ?? {}, {
      signal: io.signal,
      timeLimitMs: timeLimitMs ?? (tool.changesServer ? CHANGES_TIME_LIMIT_MS : DEFAULT_TIME_LIMIT_MS),
      maxOutputChars,
      servers: servers(request.servers),
      hosts: sshHostAccess({
        identityFiles: hostArgs.identityFiles,
        ...(hostArgs.knownHostsFile ? { knownHostsFile: hostArgs.knownHostsFile } : {}),
        ...(hostArgs.sshConfigFile ? { sshConfigFile: hostArgs.sshConfigFile } : {}),
      }),
      allowChanges,
      services: { checkLaunch: checkLaunchText },
      ...(stateDir ? { superviseStateDir: stateDir } : {}),
      onProgress: (m) => void write(io.stderr, `${m}\n`),
    });
    await write(io.stdout, `${JSON.stringify(r.ok ? r : { ok: false, error: { code: r.error.code, message: r.error.message } })}\n`);
    return r.ok ? EXIT.ok : EXIT.error;
  },
};
