/**
 * Every command the extension contributes, by feature: the one place its ID is spelled. Every
 * `registerCommand`, `executeCommand` and tree-item command uses these; `test/unit/commands.test.ts`
 * holds the table against package.json (commands, menus, welcome links) both ways.
 * No `vscode` import: the language server names the lens commands from here too.
 */
import { FIX_COMMANDS, LENS_COMMANDS, type ApplyAndVerifyArgs, type FlagLensArgs } from './shared/lspProtocol';
import type { ServersNode } from './servers/serversView';
import type { FlagsNode } from './flags/flagsView';
import type { LoadRuntimeArgs } from './flags/loadRuntime';
import type { HostsNode } from './remote/hostsView';
import type { Uri } from 'vscode';
import type { QuickProbeResult } from './core/probe/quick';
import type { Symptom } from './core/diagnose/rules/types';

export const SERVERS_COMMANDS = {
  addServer: 'inferenceDoctor.addServer',
  editServer: 'inferenceDoctor.editServer',
  removeServer: 'inferenceDoctor.removeServer',
  setApiKey: 'inferenceDoctor.setApiKey',
  refreshServers: 'inferenceDoctor.refreshServers',
  showServerInfo: 'inferenceDoctor.showServerInfo',
  openClickedServer: 'inferenceDoctor.openClickedServer',
  trySimulator: 'inferenceDoctor.trySimulator',
  stopSimulator: 'inferenceDoctor.stopSimulator',
} as const;

export const PROBE_COMMANDS = {
  openProbePanel: 'inferenceDoctor.openProbePanel',
  openProbeHistory: 'inferenceDoctor.openProbeHistory',
  quickHealthProbe: 'inferenceDoctor.quickHealthProbe',
  checkAnswers: 'inferenceDoctor.checkAnswers',
} as const;

export const FLAGS_COMMANDS = {
  refresh: 'inferenceDoctor.refreshFlags',
  filter: 'inferenceDoctor.filterFlags',
  clearFilter: 'inferenceDoctor.clearFlagsFilter',
  selectServer: 'inferenceDoctor.selectFlagsServer',
  showSglang: 'inferenceDoctor.showSglangFlags',
  showVllm: 'inferenceDoctor.showVllmFlags',
  loadRuntime: 'inferenceDoctor.loadRuntimeFlags',
  copyValue: 'inferenceDoctor.copyFlagValue',
  applyChoice: 'inferenceDoctor.applyFlagChoiceToServer',
  openDefinition: 'inferenceDoctor.openFlagDefinition',
  openClickedDefinition: 'inferenceDoctor.openClickedFlagDefinition',
  searchUsages: 'inferenceDoctor.searchFlagUsages',
  restartLanguageServer: 'inferenceDoctor.restartFlagsLanguageServer',
  ...LENS_COMMANDS,
} as const;

export const REMOTE_COMMANDS = {
  addHost: 'inferenceDoctor.addHost',
  refreshHosts: 'inferenceDoctor.refreshHosts',
  connectHost: 'inferenceDoctor.connectHost',
  disconnectHost: 'inferenceDoctor.disconnectHost',
  removeHost: 'inferenceDoctor.removeHost',
  searchSglangSource: 'inferenceDoctor.searchSglangSource',
  searchClickedHost: 'inferenceDoctor.searchClickedHost',
  openClickedSearchMatch: 'inferenceDoctor.openClickedSearchMatch',
  cancelSearch: 'inferenceDoctor.cancelSearch',
  clearSearch: 'inferenceDoctor.clearSearch',
  showEnvironmentReport: 'inferenceDoctor.showEnvironmentReport',
  forwardServer: 'inferenceDoctor.forwardRemoteServer',
  openLaunchFile: 'inferenceDoctor.openLaunchFile',
  compareServerInfo: 'inferenceDoctor.compareServerInfoWithLaunchFile',
  followServerLog: 'inferenceDoctor.followServerLog',
  loadFlagsFromInterpreter: 'inferenceDoctor.loadFlagsFromInterpreter',
} as const;

export { FIX_COMMANDS };

export const SWEEP_COMMANDS = {
  sweep: 'inferenceDoctor.sweep',
} as const;

export const DIAGNOSE_COMMANDS = {
  diagnoseServer: 'inferenceDoctor.diagnoseServer',
} as const;

export const EVAL_COMMANDS = {
  runAccuracyTest: 'inferenceDoctor.runAccuracyTest',
  compareWithReference: 'inferenceDoctor.compareWithReference',
} as const;

/** All of them; the values are exactly package.json's `contributes.commands`. */
export const COMMANDS = {
  ...SERVERS_COMMANDS,
  ...PROBE_COMMANDS,
  ...FLAGS_COMMANDS,
  ...REMOTE_COMMANDS,
  ...FIX_COMMANDS,
  ...SWEEP_COMMANDS,
  ...DIAGNOSE_COMMANDS,
  ...EVAL_COMMANDS,
} as const;

export type CommandId = (typeof COMMANDS)[keyof typeof COMMANDS];

// ---------------------------------------------------------------- handler arguments
// What each command's handler is called with: a tree row (view/item menus), an object another
// command passes, or nothing (Command Palette). Arguments arrive untyped at run time, so handlers
// still check them; these types say what they accept and make every executeCommand call checked.

/** A Servers row, a server id, or `{ serverId }`. */
export type ServerArg = ServersNode | string | { serverId: string };
/** A Hosts row (any kind carries its hostId) or a host id. */
export type HostArg = HostsNode | string;
/**
 * What Diagnose Server is about: a Servers row or id, a Hosts view's running server, or a server
 * with the probe that prompted it (a probe history entry, or the Quick Health Probe's result, used
 * instead of probing again), or a symptom a check saw that no probe shows (`accuracy-drop` from a failed
 * accuracy test, with where it was seen).
 */
export type DiagnoseArg =
  ServerArg | HostsNode | { serverId: string; historyId?: string; quickProbe?: QuickProbeResult; symptom?: Symptom; symptomFrom?: string };
/** A server to test (a Servers row or id), or a stored run to show (`{ historyId }` of the accuracy test history). */
export type AccuracyTestArg = ServerArg | { historyId: string };
/** A Backend Flags row, a code lens's arguments, or a flag name. */
export type FlagArg = FlagsNode | FlagLensArgs | string;

export interface CommandArgs {
  [SERVERS_COMMANDS.addServer]: [];
  [SERVERS_COMMANDS.editServer]: [ServerArg?];
  [SERVERS_COMMANDS.removeServer]: [ServerArg?];
  [SERVERS_COMMANDS.setApiKey]: [ServerArg?];
  [SERVERS_COMMANDS.refreshServers]: [];
  [SERVERS_COMMANDS.showServerInfo]: [ServerArg?];
  [SERVERS_COMMANDS.openClickedServer]: [];
  [SERVERS_COMMANDS.trySimulator]: [];
  [SERVERS_COMMANDS.stopSimulator]: [];
  [PROBE_COMMANDS.openProbePanel]: [ServerArg?];
  [PROBE_COMMANDS.openProbeHistory]: [];
  [PROBE_COMMANDS.quickHealthProbe]: [ServerArg?];
  /** The editor's document (editor context menu and title pass its resource); else the active editor. */
  [PROBE_COMMANDS.checkAnswers]: [Uri?];
  [FLAGS_COMMANDS.refresh]: [];
  [FLAGS_COMMANDS.filter]: [];
  [FLAGS_COMMANDS.clearFilter]: [];
  [FLAGS_COMMANDS.selectServer]: [];
  [FLAGS_COMMANDS.showSglang]: [];
  [FLAGS_COMMANDS.showVllm]: [];
  [FLAGS_COMMANDS.loadRuntime]: [LoadRuntimeArgs?];
  [FLAGS_COMMANDS.copyValue]: [FlagArg?];
  [FLAGS_COMMANDS.applyChoice]: [FlagArg?];
  [FLAGS_COMMANDS.openDefinition]: [FlagArg?];
  [FLAGS_COMMANDS.openClickedDefinition]: [];
  [FLAGS_COMMANDS.searchUsages]: [FlagArg?];
  [FLAGS_COMMANDS.copyFlag]: [FlagArg?];
  [FLAGS_COMMANDS.findFieldUsages]: [FlagArg?];
  [FLAGS_COMMANDS.revealFlag]: [FlagArg?];
  [FLAGS_COMMANDS.restartLanguageServer]: [];
  [REMOTE_COMMANDS.addHost]: [];
  [REMOTE_COMMANDS.refreshHosts]: [HostArg?];
  [REMOTE_COMMANDS.connectHost]: [HostArg?];
  [REMOTE_COMMANDS.disconnectHost]: [HostArg?];
  [REMOTE_COMMANDS.removeHost]: [HostArg?];
  [REMOTE_COMMANDS.searchSglangSource]: [HostArg?];
  [REMOTE_COMMANDS.searchClickedHost]: [];
  [REMOTE_COMMANDS.openClickedSearchMatch]: [];
  [REMOTE_COMMANDS.cancelSearch]: [];
  [REMOTE_COMMANDS.clearSearch]: [];
  [REMOTE_COMMANDS.showEnvironmentReport]: [HostArg?];
  [REMOTE_COMMANDS.forwardServer]: [HostArg?];
  [REMOTE_COMMANDS.openLaunchFile]: [HostArg?];
  [REMOTE_COMMANDS.compareServerInfo]: [HostArg?];
  [REMOTE_COMMANDS.followServerLog]: [HostArg?];
  [REMOTE_COMMANDS.loadFlagsFromInterpreter]: [HostArg?];
  [FIX_COMMANDS.applyAndVerify]: [ApplyAndVerifyArgs?];
  /** The launch file (editor context menu and title pass the resource). */
  [SWEEP_COMMANDS.sweep]: [Uri?];
  [DIAGNOSE_COMMANDS.diagnoseServer]: [DiagnoseArg?];
  [EVAL_COMMANDS.runAccuracyTest]: [AccuracyTestArg?];
  /** The server under suspicion (B); the reference is picked. */
  [EVAL_COMMANDS.compareWithReference]: [ServerArg?];
}

/** A compile error names the command when the table and CommandArgs disagree (either way). */
type WithoutArgs = Exclude<CommandId, keyof CommandArgs>;
type NotInTable = Exclude<keyof CommandArgs, CommandId>;
export const everyCommandHasArgs: [WithoutArgs] extends [never] ? true : WithoutArgs = true;
export const everyArgsIsACommand: [NotInTable] extends [never] ? true : NotInTable = true;

export type CommandHandler<I extends CommandId> = (...args: CommandArgs[I]) => unknown;
