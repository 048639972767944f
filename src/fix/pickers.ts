/**
 * What the fix commands ask about a launch file, once each and remembered per file: how its server
 * is restarted (a supervised name, a systemd unit or a compose service) and which registered server
 * to probe. Shared by "Apply to Server and Re-probe" and the backend sweep. A launch file opened
 * from an SSH host (the remote file system) is changed and restarted on that host.
 */
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { Ctx } from '../context';
import type { ServerConfig } from '../core/servers';
import { accuracyProbe, evalSettings } from '../core/eval/asProbe';
import { ComposeTarget, composeServices } from '../core/fix/compose';
import { hostSupervised, launchServerUrl, localSupervised, ScriptTarget, SystemdTarget, type RestartTarget } from '../core/fix/loop';
import { defaultSupervisorDir, Supervisor } from '../core/fix/supervisor';
import { LocalHost } from '../core/hosts/local';
import type { Host } from '../core/hosts/types';
import type { QuickProbeResult } from '../core/probe/quick';
import type { ServerTarget } from '../core/probe/types';
import { decodeHostAuthority, REMOTE_SCHEME } from '../core/remote/uris';
import { guardPicks } from '../ui/foreignText';
import { PROBE_SERVER_KEY as SERVER_KEY } from '../services/launchFiles';

export type TargetChoice = { kind: 'supervise'; name: string } | { kind: 'systemd'; unit: string } | { kind: 'compose'; service: string };

/** How a choice reads in a confirmation ("restart …"). */
export function targetWords(choice: TargetChoice): string {
  if (choice.kind === 'supervise') return `"${choice.name}" (supervise)`;
  if (choice.kind === 'compose') return `compose service ${choice.service} (recreated)`;
  return `${choice.unit} (a drop-in; the unit file is not written)`;
}

/** The choice as the sweep report records it. */
export function targetRecord(choice: TargetChoice): { supervise: string } | { systemd: string } | { compose: string } {
  return choice.kind === 'supervise' ? { supervise: choice.name } : choice.kind === 'compose' ? { compose: choice.service } : { systemd: choice.unit };
}
interface TargetItem {
  label: string;
  description: string;
  detail?: string;
  ownIcon?: string;
  /** Undefined: ask for a unit name (or, with `supervise`, a supervised name). */
  choice?: TargetChoice;
  supervise?: boolean;
  runsThis: boolean;
}
const TARGET_KEY = 'inferenceDoctor.fix.target:';

export function stateDir(ctx: Ctx): string {
  return ctx.config.text('fix.superviseStateDir') ?? defaultSupervisorDir();
}

/** Launch files the fix commands can change: on this machine, or on a connected SSH host. */
export function canRestartFrom(uri: vscode.Uri): boolean {
  return uri.scheme === 'file' || uri.scheme === REMOTE_SCHEME;
}

/** The host a launch file is on and its path there; a remote file's host must be connected. */
export function launchHost(ctx: Ctx, uri: vscode.Uri): { host: Host; path: string; remote: boolean } {
  if (uri.scheme !== REMOTE_SCHEME) return { host: new LocalHost(), path: uri.fsPath, remote: false };
  const id = decodeHostAuthority(uri.authority);
  const target = ctx.hosts.connected().find((h) => h.id === id);
  if (!target) throw new Error(`Connect to ${id} in the Hosts view first: the launch file is on that host.`);
  return { host: target.host, path: uri.path, remote: true };
}

/** The restart target a choice names, for the launch file at `uri` (here or on its SSH host). */
export function restartTarget(ctx: Ctx, uri: vscode.Uri, choice: TargetChoice): RestartTarget {
  const { host, path, remote } = launchHost(ctx, uri);
  if (choice.kind === 'systemd') return new SystemdTarget(host, choice.unit);
  if (choice.kind === 'compose') return new ComposeTarget(host, path, choice.service);
  const cli = (ctx.config.text('fix.remoteCli') ?? 'inference-doctor').split(/\s+/).filter(Boolean);
  return new ScriptTarget(host, path, remote ? hostSupervised(host, cli, choice.name) : localSupervised(new Supervisor(stateDir(ctx)), choice.name));
}

/** The remembered restart target of this launch file, else the user's pick (supervised names found, or a unit). */
export async function pickTarget(ctx: Ctx, uri: vscode.Uri): Promise<TargetChoice | undefined> {
  const key = TARGET_KEY + uri.toString();
  const saved = ctx.extension.workspaceState.get<TargetChoice>(key);
  if (saved) return saved;
  const remote = uri.scheme === REMOTE_SCHEME;
  const dir = stateDir(ctx);
  // The supervised names on this machine; a remote host's are asked for.
  const supervised = !remote && existsSync(dir) ? readdirSync(dir).filter((n) => existsSync(join(dir, n, 'command.json'))) : [];
  const sup = new Supervisor(dir);
  const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  const items: TargetItem[] = [
    ...composeServices(text).map((service): TargetItem => ({
      label: service,
      description: 'docker compose service · runs this file',
      choice: { kind: 'compose', service },
      runsThis: true,
    })),
    ...(remote
      ? [
          {
            label: 'A name kept running by inference-doctor supervise…',
            ownIcon: 'debug-restart',
            description: 'on the host',
            runsThis: false,
            supervise: true,
          },
        ]
      : []),
    ...supervised.map((name): TargetItem => {
      const s = sup.status(name);
      const runsThis = s.command?.argv.some((a) => a === uri.fsPath || a.endsWith(`/${uri.path.split('/').pop() ?? ''}`));
      return {
        label: name,
        description: `supervise${s.running ? ' · running' : ''}${runsThis ? ' · runs this file' : ''}`,
        detail: s.command?.argv.join(' '),
        choice: { kind: 'supervise', name },
        runsThis: !!runsThis,
      };
    }),
    { label: 'A systemd unit…', ownIcon: 'server-process', description: 'restart through a drop-in', runsThis: false },
  ].sort((a, b) => Number(b.runsThis) - Number(a.runsThis));
  const picked = await vscode.window.showQuickPick(guardPicks(items), {
    title: 'How is this server restarted?',
    placeHolder: 'A name started with "inference-doctor supervise start", or a systemd unit',
    ignoreFocusOut: true,
  });
  if (!picked) return undefined;
  let choice = picked.choice;
  if (!choice && picked.supervise) {
    const name = await vscode.window.showInputBox({
      title: 'Supervised name on the host',
      prompt: 'The NAME given to "inference-doctor supervise start NAME" on that host',
      placeHolder: 'sglang',
      ignoreFocusOut: true,
      validateInput: (v) => (/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(v.trim()) ? undefined : 'Letters, digits, . _ and - only'),
    });
    if (!name?.trim()) return undefined;
    choice = { kind: 'supervise', name: name.trim() };
  }
  if (!choice) {
    const unit = await vscode.window.showInputBox({
      title: 'systemd unit',
      prompt: 'The unit that runs this launch command',
      placeHolder: 'sglang.service',
      ignoreFocusOut: true,
    });
    if (!unit?.trim()) return undefined;
    choice = { kind: 'systemd', unit: unit.trim() };
  }
  await ctx.extension.workspaceState.update(key, choice);
  return choice;
}

/**
 * The registered server on the launch command's port, else the remembered or picked one. The
 * window's own simulator is never it: a launch file starts a real server.
 */
export async function pickProbeServer(ctx: Ctx, uri: vscode.Uri): Promise<ServerConfig | undefined> {
  const { store } = ctx.servers;
  const launched = (server: ServerConfig): boolean => !store.isSession(server.id);
  const servers = store.list().filter(launched);
  const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  const port = new URL(launchServerUrl(text, uri.path)).port;
  const onPort = servers.filter((s) => {
    try {
      const u = new URL(s.baseUrl);
      return (u.port || (u.protocol === 'https:' ? '443' : '80')) === port && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
    } catch {
      return false;
    }
  });
  if (onPort.length === 1) return onPort[0];
  const key = SERVER_KEY + uri.toString();
  const saved = ctx.extension.workspaceState.get<string>(key);
  const remembered = saved ? store.get(saved) : undefined;
  if (remembered) return remembered;
  const picked = await ctx.servers.pick(undefined, 'Probe which server after the restart?', launched);
  if (picked) await ctx.extension.workspaceState.update(key, picked.id);
  return picked;
}

/** The accuracy smoke test of the eval settings as the fix loop's probe (core/eval/asProbe). */
export function accuracyProbeOf(ctx: Ctx, signal?: AbortSignal): (server: ServerTarget) => Promise<QuickProbeResult> {
  const { config } = ctx;
  const set = evalSettings({ suite: config.get('eval.suite'), problems: config.get('eval.problems'), concurrency: config.get('eval.concurrency') });
  return (server) => accuracyProbe(server, { ...set, seed: 1, ...(signal ? { signal } : {}) });
}
