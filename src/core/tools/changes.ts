/**
 * What `apply_fix` and `sweep` share: the launch file, how the server restarts (a name run by
 * `inference-doctor supervise`, a systemd unit through a drop-in, or a compose service), and the
 * server to probe, on this machine or on an SSH host (probed through a tunnel).
 */
import { ComposeTarget } from '../fix/compose';
import { hostSupervised, launchServerUrl, localSupervised, ScriptTarget, SystemdTarget, type RestartTarget } from '../fix/loop';
import { defaultSupervisorDir, Supervisor } from '../fix/supervisor';
import type { Host } from '../hosts/types';
import type { ServerTarget } from '../probe/types';
import { errorMessage } from '../errors';
import { checkHost, checkPath, checkText, resolveServer } from './guards';
import { HOST_INPUT, SERVER_INPUT } from './schemaParts';
import { ToolError, type ToolContext } from './types';
import type { Schema } from '../rules/schema';

export interface ChangeTargetInput {
  launch: string;
  restart: { supervise?: string; systemd?: string; compose?: string };
  host?: string;
  server?: string;
}

const UNIT_NAME = '^[A-Za-z0-9_][A-Za-z0-9_.@:-]*$';

export const CHANGE_TARGET_PROPERTIES: Record<string, Schema> = {
  launch: { type: 'string', minLength: 2, maxLength: 1024, description: 'Absolute path of the launch file (script, compose file) on the host' },
  restart: {
    type: 'object',
    description: 'How the server restarts: exactly one of supervise (a name run by `inference-doctor supervise`), systemd (a unit) or compose (a service)',
    properties: {
      supervise: { type: 'string', minLength: 1, maxLength: 128, pattern: UNIT_NAME },
      systemd: { type: 'string', minLength: 1, maxLength: 256, pattern: UNIT_NAME },
      compose: { type: 'string', minLength: 1, maxLength: 128, pattern: UNIT_NAME },
    },
    minProperties: 1,
    maxProperties: 1,
    additionalProperties: false,
  },
  host: { ...HOST_INPUT, description: `${String(HOST_INPUT.description)} (default local)` },
  server: { ...SERVER_INPUT, description: 'The server to probe (default: the launch command’s port on the host)' },
};

export const FLAG_NAME = '^-{0,2}[A-Za-z0-9][A-Za-z0-9_-]*$';

export function flagName(name: string): string {
  return `--${name.replace(/^-+/, '').replace(/_/g, '-')}`;
}

export interface ChangeTarget {
  host: Host;
  hostName: string;
  target: RestartTarget;
  server: ServerTarget;
  restart: { supervise: string } | { systemd: string } | { compose: string };
  close(): Promise<void>;
}

/** Opens the host, reads the launch and builds the restart target; the caller closes it. */
export async function openChangeTarget(input: ChangeTargetInput, ctx: ToolContext): Promise<ChangeTarget> {
  const hostName = checkHost(input.host ?? 'local');
  const launch = checkPath(input.launch);
  const { supervise, systemd, compose } = input.restart;
  if ([supervise, systemd, compose].filter((x) => x !== undefined).length !== 1)
    throw new ToolError('invalid-input', 'restart needs exactly one of supervise, systemd or compose');
  const host = await ctx.hosts.open(hostName, ctx.signal);
  const closers: (() => Promise<void>)[] = [() => host.close()];
  const close = async (): Promise<void> => {
    for (const c of closers.reverse()) await c().catch(() => undefined);
  };
  try {
    let text: string;
    try {
      text = new TextDecoder().decode(await host.readFile(launch, { maxBytes: 4 * 1024 * 1024, signal: ctx.signal }));
    } catch (error) {
      throw new ToolError('failed', `Cannot read ${launch} on ${hostName}: ${errorMessage(error)}`);
    }
    checkText('The launch file', text);
    let target: RestartTarget;
    if (compose !== undefined) target = new ComposeTarget(host, launch, compose);
    else if (systemd !== undefined) target = new SystemdTarget(host, systemd);
    else if (hostName === 'local')
      target = new ScriptTarget(host, launch, localSupervised(new Supervisor(ctx.superviseStateDir ?? defaultSupervisorDir()), supervise ?? ''));
    else target = new ScriptTarget(host, launch, hostSupervised(host, ['inference-doctor'], supervise ?? ''));
    let server: ServerTarget;
    if (input.server !== undefined) {
      const s = resolveServer(ctx, input.server);
      server = { baseUrl: s.url, ...(s.apiKey ? { apiKey: s.apiKey } : {}) };
    } else {
      const url = new URL(launchServerUrl(text, launch));
      if (hostName === 'local') server = { baseUrl: url.origin };
      else {
        const tunnel = await host.forwardPort(Number(url.port), url.hostname);
        closers.push(() => tunnel.close());
        server = { baseUrl: `http://127.0.0.1:${tunnel.localPort}` };
      }
    }
    const restart = compose !== undefined ? { compose } : systemd !== undefined ? { systemd } : { supervise: supervise ?? '' };
    return { host, hostName, target, server, restart, close };
  } catch (error) {
    await close();
    throw error;
  }
}
