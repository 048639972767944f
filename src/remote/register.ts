/**
 * Remote hosts feature wiring: views, commands and providers only. The feature module (SSH,
 * discovery, search, forwards, logs) is imported when a view first asks for rows or a command
 * first runs, so activation stays cheap.
 */
import * as vscode from 'vscode';
import { REMOTE_SCHEME } from '../core/remote/uris';
import type { ServersFeature } from '../servers/register';
import { GENERATED_SCHEME, LOG_SCHEME } from './documents';
import type { RemoteFeature } from './feature';
import { REMOTE_COMMANDS, type CommandId } from '../commands';
import type { HostsNode } from './hostsView';
import type { SearchNode } from './searchView';


export function registerRemote(context: vscode.ExtensionContext, servers: ServersFeature): void {
  const hostsChanged = new vscode.EventEmitter<HostsNode | undefined>();
  const searchChanged = new vscode.EventEmitter<SearchNode | undefined>();
  const fsChanged = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  const genChanged = new vscode.EventEmitter<vscode.Uri>();
  const logChanged = new vscode.EventEmitter<vscode.Uri>();

  let loading: Promise<RemoteFeature> | undefined;
  const load = (): Promise<RemoteFeature> => (loading ??= import('./feature').then((m) => {
    const f = m.createRemoteFeature(context, servers, {
      fireHosts: (n) => hostsChanged.fire(n),
      fireSearch: (n) => searchChanged.fire(n),
      hostsTree: () => hostsTree,
      searchTree: () => searchTree,
    });
    context.subscriptions.push(
      f.generated.onDidChange((u) => genChanged.fire(u)),
      f.logs.onDidChange((u) => logChanged.fire(u)),
    );
    return f;
  }));

  const hostsTree = vscode.window.createTreeView<HostsNode>('inferenceDoctor.hosts', {
    showCollapseAll: true,
    treeDataProvider: {
      onDidChangeTreeData: hostsChanged.event,
      getTreeItem: async (n) => (await load()).hostsView.getTreeItem(n),
      getChildren: async (n) => (await load()).hostsView.getChildren(n),
    },
  });
  const searchTree = vscode.window.createTreeView<SearchNode>('inferenceDoctor.search', {
    showCollapseAll: true,
    treeDataProvider: {
      onDidChangeTreeData: searchChanged.event,
      // The search view is empty until a search runs: no need to load the feature for it.
      getTreeItem: async (n) => (await load()).searchView.getTreeItem(n),
      getChildren: (n) => (loading ? loading.then((f) => f.searchView.getChildren(n)) : []),
    },
  });

  const fsProvider: vscode.FileSystemProvider = {
    onDidChangeFile: fsChanged.event,
    watch: () => new vscode.Disposable(() => undefined),
    stat: async (uri) => (await load()).fs.stat(uri),
    readDirectory: async (uri) => (await load()).fs.readDirectory(uri),
    readFile: async (uri) => (await load()).fs.readFile(uri),
    createDirectory: (uri) => { throw vscode.FileSystemError.NoPermissions(uri); },
    writeFile: (uri) => { throw vscode.FileSystemError.NoPermissions(uri); },
    delete: (uri) => { throw vscode.FileSystemError.NoPermissions(uri); },
    rename: (uri) => { throw vscode.FileSystemError.NoPermissions(uri); },
  };

  const cmd = (id: CommandId, run: (f: RemoteFeature, arg: unknown) => unknown): vscode.Disposable =>
    vscode.commands.registerCommand(id, async (arg: unknown) => { await run(await load(), arg); });

  context.subscriptions.push(
    hostsChanged, searchChanged, fsChanged, genChanged, logChanged, hostsTree, searchTree,
    vscode.workspace.registerFileSystemProvider(REMOTE_SCHEME, fsProvider, { isReadonly: true, isCaseSensitive: true }),
    vscode.workspace.registerTextDocumentContentProvider(GENERATED_SCHEME, {
      onDidChange: genChanged.event,
      provideTextDocumentContent: async (uri) => (await load()).generated.provideTextDocumentContent(uri),
    }),
    vscode.workspace.registerTextDocumentContentProvider(LOG_SCHEME, {
      onDidChange: logChanged.event,
      provideTextDocumentContent: async (uri) => (await load()).logs.provideTextDocumentContent(uri),
    }),
    cmd(REMOTE_COMMANDS.addHost, (f) => f.addHost()),
    cmd(REMOTE_COMMANDS.refreshHosts, (f, a) => f.refresh(a)),
    cmd(REMOTE_COMMANDS.connectHost, (f, a) => f.connect(a)),
    cmd(REMOTE_COMMANDS.disconnectHost, (f, a) => f.disconnect(a)),
    cmd(REMOTE_COMMANDS.removeHost, (f, a) => f.removeHost(a)),
    cmd(REMOTE_COMMANDS.searchSglangSource, (f, a) => f.search(a)),
    cmd(REMOTE_COMMANDS.cancelSearch, (f) => f.cancelSearch()),
    cmd(REMOTE_COMMANDS.clearSearch, (f) => f.clearSearch()),
    cmd(REMOTE_COMMANDS.showEnvironmentReport, (f, a) => f.showEnvironmentReport(a)),
    cmd(REMOTE_COMMANDS.forwardServer, (f, a) => f.forwardServer(a)),
    cmd(REMOTE_COMMANDS.openLaunchFile, (f, a) => f.openLaunchFile(a)),
    cmd(REMOTE_COMMANDS.compareServerInfo, (f, a) => f.compareServerInfo(a)),
    cmd(REMOTE_COMMANDS.followServerLog, (f, a) => f.followLog(a)),
    cmd(REMOTE_COMMANDS.loadFlagsFromInterpreter, (f, a) => f.loadFlagsFromInterpreter(a)),
  );
}
