/**
 * The servers service on the context: the store, the health monitor and how a command finds the
 * server it is about. Built by activate() before any feature registers; other features reach it
 * only as `ctx.servers`.
 */
import type { CtxBase, ServersService } from '../context';
import type { ServerConfig } from '../core/servers';
import { HealthMonitor } from './healthMonitor';
import { ServerStore } from './serverStore';
import { checkServer } from './checkServer';
import { pickServer, serverFromArg } from './pickServer';

export function createServersService(base: CtxBase): ServersService {
  const store = new ServerStore(base.extension.globalState, base.extension.secrets, base.config);
  const health = new HealthMonitor(store, checkServer, base.config);
  base.pushCleanup(store, health);
  return {
    store,
    health,
    pick: (arg: unknown, placeHolder: string, eligible?: (server: ServerConfig) => boolean): Promise<ServerConfig | undefined> =>
      pickServer(store, arg, placeHolder, eligible),
    fromArg: (arg: unknown): ServerConfig | undefined => serverFromArg(store, arg),
  };
}
