import * as vscode from 'vscode';
import { COMMANDS } from '../commands';
import type { ServerConfig } from '../core/servers';
import type { ServerStore } from './serverStore';
import type { ServersNode } from './serversView';
import { guardPicks } from '../ui/foreignText';

/**
 * Resolves the server a command is about: the tree node it was invoked on, a server id passed
 * by another command, the only server there is, or the user's pick; among the servers `eligible`
 * accepts, when given.
 */
export async function pickServer(
  store: ServerStore,
  arg: unknown,
  placeHolder = 'Pick a server',
  eligible: (server: ServerConfig) => boolean = () => true,
): Promise<ServerConfig | undefined> {
  const fromArg = serverFromArg(store, arg);
  if (fromArg) return fromArg;
  const servers = store.list().filter(eligible);
  if (servers.length === 0) {
    const add = 'Add Server';
    const answer = await vscode.window.showInformationMessage('No inference servers are registered yet.', add);
    if (answer === add) await vscode.commands.executeCommand(COMMANDS.addServer);
    return undefined;
  }
  if (servers.length === 1) return servers[0];
  const picked = await vscode.window.showQuickPick(guardPicks(servers.map((server) => ({ label: server.label, description: server.baseUrl, server }))), {
    placeHolder,
  });
  return picked?.server;
}

export function serverFromArg(store: ServerStore, arg: unknown): ServerConfig | undefined {
  if (typeof arg === 'string') return store.get(arg);
  if (typeof arg === 'object' && arg !== null) {
    const node = arg as Partial<ServersNode> & { serverId?: string };
    if (node.kind === 'server' && node.server) return store.get(node.server.id);
    if (typeof node.serverId === 'string') return store.get(node.serverId);
  }
  return undefined;
}
