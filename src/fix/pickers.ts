/**
 * What the fix commands ask about a launch file, once each and remembered per file: how its server
 * is restarted (a supervised name or a systemd unit) and which registered server to probe. Shared
 * by "Apply to Server and Re-probe" and the backend sweep.
 */
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { Ctx } from '../context';
import type { ServerConfig } from '../core/servers';
import { launchServerUrl, ScriptTarget, SystemdTarget, type RestartTarget } from '../core/fix/loop';
import { defaultSupervisorDir, Supervisor } from '../core/fix/supervisor';
import { LocalHost } from '../core/hosts/local';
import { guardPicks } from '../ui/foreignText';

export type TargetChoice = { kind: 'supervise'; name: string } | { kind: 'systemd'; unit: string };
interface TargetItem {
  label: string;
  description: string;
  detail?: string;
  ownIcon?: string;
  /** Undefined: ask for a unit name. */
  choice?: TargetChoice;
  runsThis: boolean;
}
const TARGET_KEY = 'inferenceDoctor.fix.target:';
const SERVER_KEY = 'inferenceDoctor.fix.server:';

export function stateDir(ctx: Ctx): string {
  return ctx.config.text('fix.superviseStateDir') ?? defaultSupervisorDir();
}

/** The restart target a choice names, for the launch file at `uri` on this machine. */
export function restartTarget(ctx: Ctx, uri: vscode.Uri, choice: TargetChoice): RestartTarget {
  const host = new LocalHost();
  return choice.kind === 'supervise' ? new ScriptTarget(host, uri.fsPath, new Supervisor(stateDir(ctx)), choice.name) : new SystemdTarget(host, choice.unit);
}

/** The remembered restart target of this launch file, else the user's pick (supervised names found, or a unit). */
export async function pickTarget(ctx: Ctx, uri: vscode.Uri): Promise<TargetChoice | undefined> {
  const key = TARGET_KEY + uri.toString();
  const saved = ctx.extension.workspaceState.get<TargetChoice>(key);
  if (saved) return saved;
  const dir = stateDir(ctx);
  const supervised = existsSync(dir) ? readdirSync(dir).filter((n) => existsSync(join(dir, n, 'command.json'))) : [];
  const sup = new Supervisor(dir);
  const items: TargetItem[] = [
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

/** The registered server on the launch command's port, else the remembered or picked one. */
export async function pickProbeServer(ctx: Ctx, uri: vscode.Uri): Promise<ServerConfig | undefined> {
  const servers = ctx.servers.store.list();
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
  const remembered = saved ? ctx.servers.store.get(saved) : undefined;
  if (remembered) return remembered;
  const picked = await ctx.servers.pick(undefined, 'Probe which server after the restart?');
  if (picked) await ctx.extension.workspaceState.update(key, picked.id);
  return picked;
}
