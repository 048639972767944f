/**
 * The remote hosts feature: Hosts and Search Results views, the read-only remote file system, the
 * generated and log documents, and the remote commands. The feature module (SSH, discovery,
 * search, forwards, logs) loads when a view first asks for rows or a command first runs; until
 * then the providers registered here are lazy wrappers (ui/lazy.ts).
 */
import * as vscode from 'vscode';
import { REMOTE_COMMANDS, type CommandId } from '../commands';
import type { Ctx } from '../context';
import { REMOTE_SCHEME } from '../core/remote/uris';
import { Lazy, lazyContent, lazyReadOnlyFileSystem, lazyTree } from '../ui/lazy';
import { clickedRow } from '../ui/rowCommand';
import { GENERATED_SCHEME, LOG_SCHEME } from './documents';
import type { RemoteFeature } from './feature';
import type { HostsNode } from './hostsView';
import type { SearchNode } from './searchView';

export function register(ctx: Ctx): void {
  const feature = new Lazy(async () => (await import('./feature')).createRemoteFeature(ctx));

  const hostsProvider = lazyTree<RemoteFeature, HostsNode>(feature, (f) => f.hostsView);
  // The search view is empty until a search runs: no need to load the feature for it.
  const searchProvider = lazyTree<RemoteFeature, SearchNode>(feature, (f) => f.searchView, { rootUntilLoaded: () => [] });
  const hostsTree = vscode.window.createTreeView('inferenceDoctor.hosts', { treeDataProvider: hostsProvider, showCollapseAll: true });
  const searchTree = vscode.window.createTreeView('inferenceDoctor.search', { treeDataProvider: searchProvider, showCollapseAll: true });
  feature.whenLoaded((f) =>
    ctx.pushCleanup(
      f.searchView.onDidChangeSummary((s) => {
        searchTree.description = s.description;
        searchTree.message = s.message;
      }),
    ),
  );

  const fsProvider = lazyReadOnlyFileSystem(feature, (f) => f.fs);
  const generated = lazyContent(feature, (f) => f.generated);
  const logs = lazyContent(feature, (f) => f.logs);
  ctx.pushCleanup(
    hostsProvider,
    searchProvider,
    hostsTree,
    searchTree,
    fsProvider,
    generated,
    logs,
    vscode.workspace.registerFileSystemProvider(REMOTE_SCHEME, fsProvider, { isReadonly: true, isCaseSensitive: true }),
    vscode.workspace.registerTextDocumentContentProvider(GENERATED_SCHEME, generated),
    vscode.workspace.registerTextDocumentContentProvider(LOG_SCHEME, logs),
  );

  const command = (id: CommandId, run: (f: RemoteFeature, arg: unknown) => unknown): void =>
    ctx.registerCommand(id, async (arg?: unknown) => {
      await run(await feature.get(), arg);
    });
  command(REMOTE_COMMANDS.addHost, (f) => f.addHost());
  command(REMOTE_COMMANDS.refreshHosts, (f, a) => f.refresh(a));
  command(REMOTE_COMMANDS.connectHost, (f, a) => f.connect(a));
  command(REMOTE_COMMANDS.disconnectHost, (f, a) => f.disconnect(a));
  command(REMOTE_COMMANDS.removeHost, (f, a) => f.removeHost(a));
  command(REMOTE_COMMANDS.searchSglangSource, (f, a) => f.search(a));
  command(REMOTE_COMMANDS.searchClickedHost, (f) => f.search(clickedRow(hostsTree)));
  command(REMOTE_COMMANDS.openClickedSearchMatch, (f) => f.searchView.openMatch(clickedRow(searchTree)));
  command(REMOTE_COMMANDS.cancelSearch, (f) => f.cancelSearch());
  command(REMOTE_COMMANDS.clearSearch, (f) => f.clearSearch());
  command(REMOTE_COMMANDS.showEnvironmentReport, (f, a) => f.showEnvironmentReport(a));
  command(REMOTE_COMMANDS.forwardServer, (f, a) => f.forwardServer(a));
  command(REMOTE_COMMANDS.openLaunchFile, (f, a) => f.openLaunchFile(a));
  command(REMOTE_COMMANDS.compareServerInfo, (f, a) => f.compareServerInfo(a));
  command(REMOTE_COMMANDS.followServerLog, (f, a) => f.followLog(a));
  command(REMOTE_COMMANDS.loadFlagsFromInterpreter, (f, a) => f.loadFlagsFromInterpreter(a));
}
