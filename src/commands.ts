/**
 * Every command the extension contributes, by feature: the one place its ID is spelled. Every
 * `registerCommand`, `executeCommand` and tree-item command uses these; `test/unit/commands.test.ts`
 * holds the table against package.json (commands, menus, welcome links) both ways.
 * No `vscode` import: the language server names the lens commands from here too.
 */
import { LENS_COMMANDS } from './shared/lspProtocol';

export const SERVERS_COMMANDS = {
  addServer: 'inferenceDoctor.addServer',
  editServer: 'inferenceDoctor.editServer',
  removeServer: 'inferenceDoctor.removeServer',
  setApiKey: 'inferenceDoctor.setApiKey',
  refreshServers: 'inferenceDoctor.refreshServers',
  showServerInfo: 'inferenceDoctor.showServerInfo',
} as const;

export const PROBE_COMMANDS = {
  openProbePanel: 'inferenceDoctor.openProbePanel',
  openProbeHistory: 'inferenceDoctor.openProbeHistory',
  quickHealthProbe: 'inferenceDoctor.quickHealthProbe',
} as const;

export const FLAGS_COMMANDS = {
  refresh: 'inferenceDoctor.refreshFlags',
  filter: 'inferenceDoctor.filterFlags',
  clearFilter: 'inferenceDoctor.clearFlagsFilter',
  selectServer: 'inferenceDoctor.selectFlagsServer',
  loadRuntime: 'inferenceDoctor.loadRuntimeFlags',
  copyValue: 'inferenceDoctor.copyFlagValue',
  openDefinition: 'inferenceDoctor.openFlagDefinition',
  searchUsages: 'inferenceDoctor.searchFlagUsages',
  ...LENS_COMMANDS,
} as const;

export const REMOTE_COMMANDS = {
  addHost: 'inferenceDoctor.addHost',
  refreshHosts: 'inferenceDoctor.refreshHosts',
  connectHost: 'inferenceDoctor.connectHost',
  disconnectHost: 'inferenceDoctor.disconnectHost',
  removeHost: 'inferenceDoctor.removeHost',
  searchSglangSource: 'inferenceDoctor.searchSglangSource',
  cancelSearch: 'inferenceDoctor.cancelSearch',
  clearSearch: 'inferenceDoctor.clearSearch',
  showEnvironmentReport: 'inferenceDoctor.showEnvironmentReport',
  forwardServer: 'inferenceDoctor.forwardRemoteServer',
  openLaunchFile: 'inferenceDoctor.openLaunchFile',
  compareServerInfo: 'inferenceDoctor.compareServerInfoWithLaunchFile',
  followServerLog: 'inferenceDoctor.followServerLog',
  loadFlagsFromInterpreter: 'inferenceDoctor.loadFlagsFromInterpreter',
} as const;

/** All of them; the values are exactly package.json's `contributes.commands`. */
export const COMMANDS = { ...SERVERS_COMMANDS, ...PROBE_COMMANDS, ...FLAGS_COMMANDS, ...REMOTE_COMMANDS } as const;

export type CommandId = (typeof COMMANDS)[keyof typeof COMMANDS];
