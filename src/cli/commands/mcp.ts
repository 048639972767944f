/**
 * `inference-doctor mcp [--allow-changes] [--server NAME=URL]… [host options]`: the agent tools
 * (src/core/tools) as a Model Context Protocol server over stdio. Without --allow-changes the
 * tools that change a server (apply_fix, sweep) are listed but refuse to run.
 */
import { errorMessage } from '../../core/errors';
import { checkUrl } from '../../core/tools/guards';
import { DEFAULT_MAX_OUTPUT_CHARS, DEFAULT_TIME_LIMIT_MS, sshHostAccess, type KnownServer } from '../../core/tools';
import { UsageError, type Command } from '../command';
import { extractHostArgs } from '../hostArgs';
import { serveMcp } from '../mcp/server';

const USAGE = `Usage: inference-doctor mcp [--allow-changes] [--server NAME=URL]... [options]

Serves Inference Doctor's tools to a coding agent over the Model Context Protocol on stdin/stdout:
probe, diagnose, flags, check_launch, search_source, environment, server_info, and the two that
change a server, apply_fix and sweep. Add it to your MCP client's configuration (see the README).

Options:
  --allow-changes        let apply_fix and sweep edit launch files and restart servers (off: they refuse)
  --server NAME=URL      a server the tools may call by NAME (repeatable); $INFERENCE_DOCTOR_API_KEY is its key
  --time-limit SECONDS   stop a read-only tool call after this long (default ${DEFAULT_TIME_LIMIT_MS / 1000})
  --max-output CHARS     cut a tool's JSON result to about this size (default ${DEFAULT_MAX_OUTPUT_CHARS})
  --identity FILE        private key to try first for SSH hosts (repeatable)
  --known-hosts FILE     known_hosts file to check host keys against (default: ssh's own list)
  --ssh-config FILE      ssh config file (default ~/.ssh/config)

SSH host keys must already be known: the tools never accept a new key and never ask for a
password or a passphrase (use ssh-agent). Exit status: 0 when the client disconnects, 64 bad usage.`;

export interface McpArgs {
  allowChanges: boolean;
  servers: KnownServer[];
  timeLimitMs: number;
  maxOutputChars: number;
}

function parse(argv: readonly string[], apiKey: string | undefined): McpArgs {
  const out: McpArgs = { allowChanges: false, servers: [], timeLimitMs: DEFAULT_TIME_LIMIT_MS, maxOutputChars: DEFAULT_MAX_OUTPUT_CHARS };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const name = eq > 0 ? a.slice(0, eq) : a;
    const value = (): string => {
      const v = eq > 0 ? a.slice(eq + 1) : argv[++i];
      if (v === undefined || v === '') throw new UsageError(`${name} needs a value`);
      return v;
    };
    if (a === '--allow-changes') out.allowChanges = true;
    else if (name === '--server') {
      const spec = value();
      const at = spec.indexOf('=');
      if (at <= 0) throw new UsageError(`--server takes NAME=URL, not ${JSON.stringify(spec)}`);
      let url: string;
      try {
        url = checkUrl(spec.slice(at + 1));
      } catch (error) {
        throw new UsageError(`--server ${spec.slice(0, at)}: ${errorMessage(error)}`);
      }
      out.servers.push({ name: spec.slice(0, at), url, ...(apiKey ? { apiKey } : {}) });
    } else if (name === '--time-limit' || name === '--max-output') {
      const n = Number(value());
      if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${name} needs a positive number`);
      if (name === '--time-limit') out.timeLimitMs = Math.round(n * 1000);
      else out.maxOutputChars = Math.max(2000, Math.round(n));
    } else throw new UsageError(a.startsWith('-') ? `Unknown option ${JSON.stringify(a)}` : `Unexpected argument ${JSON.stringify(a)}`);
  }
  return out;
}

export const mcpCommand: Command = {
  name: 'mcp',
  summary: 'serve the tools to coding agents over MCP (stdio); --allow-changes lets them change servers',
  usage: USAGE,
  async run(argv, io) {
    const { hostArgs, rest } = extractHostArgs(argv);
    if (hostArgs.acceptNewHostKey) throw new UsageError('--accept-new-host-key is not for the MCP server: trust a host once with ssh first');
    const args = parse(rest, io.env.INFERENCE_DOCTOR_API_KEY);
    await serveMcp(args, {
      hosts: sshHostAccess({
        identityFiles: hostArgs.identityFiles,
        ...(hostArgs.knownHostsFile ? { knownHostsFile: hostArgs.knownHostsFile } : {}),
        ...(hostArgs.sshConfigFile ? { sshConfigFile: hostArgs.sshConfigFile } : {}),
      }),
      io,
    });
    return 0;
  },
};
