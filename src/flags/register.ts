/**
 * The flags feature in the extension host: Backend Flags view, the commands of the code lenses the
 * language server puts on server_args.py, and "Load Flags from Installed SGLang".
 *
 *   registerFlagsFeature(context, servers);   // in activate(), after registerLanguageClient
 *
 * Activation only creates the (empty) view and registers commands. The language server starts
 * when the view is first shown (or a matching document opens); the runtime loader and its Python
 * script are loaded when the command runs.
 */
import * as vscode from 'vscode';
import type { FlagEntry } from '../core/flags/types';
import { shellWord } from '../core/hosts/quote';
import { REMOTE_SCHEME } from '../core/remote/uris';
import type { ServersFeature } from '../servers/register';
import type { FlagLensArgs } from '../shared/lspProtocol';
import { COMMANDS, FLAGS_COMMANDS } from '../commands';
import { FlagsView, takesNoValue, valueText, type FlagNode, type FlagsNode } from './flagsView';
import { onCatalogStatus, requestCatalogEntries } from './languageClient';
import { notificationText } from '../core/text/foreign';
import { guardPicks, iconText } from '../ui/foreignText';

export const FLAGS_VIEW_ID = 'inferenceDoctor.flags';
const SERVER_KEY = 'inferenceDoctor.flags.server';
const FILTERED_CONTEXT = 'inferenceDoctor.flagsFiltered';

/** Quotes a value for a POSIX shell only when it needs it. */
/** `--flag value` for the clipboard; a value-less flag alone. */
export function flagWithValue(e: FlagEntry, value: string | undefined): string {
  if (takesNoValue(e)) {
    if (e.action === 'BooleanOptionalAction' && (value === 'false' || value === 'False') && e.negations[0]) return e.negations[0];
    return e.flag;
  }
  if (value === undefined || value === 'None') return e.flag;
  if (e.nargs === '+' || e.nargs === '*') {
    try {
      const list = JSON.parse(value) as unknown;
      if (Array.isArray(list)) return [e.flag, ...list.map((v) => shellWord(String(v)))].join(' ');
    } catch { /* a single value */ }
  }
  return `${e.flag} ${shellWord(value)}`;
}

function isNode(arg: unknown): arg is FlagsNode {
  return !!arg && typeof arg === 'object' && ['family', 'flag', 'choice'].includes((arg as { kind?: string }).kind ?? '');
}
function isLensArgs(arg: unknown): arg is FlagLensArgs {
  return !!arg && typeof arg === 'object' && typeof (arg as FlagLensArgs).flag === 'string' && typeof (arg as FlagLensArgs).uri === 'string';
}

export function registerFlagsFeature(context: vscode.ExtensionContext, servers: ServersFeature): FlagsView {
  const view = new FlagsView((known) => requestCatalogEntries(known === undefined ? {} : { knownGeneration: known }));
  const tree = vscode.window.createTreeView<FlagsNode>(FLAGS_VIEW_ID, { treeDataProvider: view, showCollapseAll: true });
  const syncTitle = (): void => {
    tree.description = view.description();
    tree.message = view.message();
    void vscode.commands.executeCommand('setContext', FILTERED_CONTEXT, !!view.filter);
  };

  // The server says the catalog changed (possibly on every keystroke in server_args.py): debounce,
  // and only ask again while the view is visible.
  let timer: NodeJS.Timeout | undefined;
  const catalogChanged = onCatalogStatus(() => {
    view.markStale();
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => { if (tree.visible) void view.reload(); }, 400);
  });

  // ------------------------------------------------------------------ server values
  let serverId = context.workspaceState.get<string>(SERVER_KEY);
  const loadServerValues = async (): Promise<void> => {
    const server = serverId ? servers.store.get(serverId) : undefined;
    if (!server) {
      view.setServerValues(undefined, undefined);
      return;
    }
    try {
      const { fetchServerInfo } = await import('../core/probe/server-api');
      const info = await fetchServerInfo(await servers.store.target(server.id), { timeoutMs: 10_000 });
      view.setServerValues(server.label, info);
    } catch (e) {
      // Fall back to the few backend fields the health monitor keeps.
      const backends = servers.health.status(server.id).backends;
      view.setServerValues(backends ? `${server.label} (last health check)` : server.label, backends);
      if (!backends) void vscode.window.showWarningMessage(`Inference Doctor: could not read /server_info of ${notificationText(server.label)}: ${notificationText(e instanceof Error ? e.message : String(e))}`);
    }
  };
  let serverValuesLoaded = false;
  const ensureServerValues = (): void => {
    if (serverValuesLoaded) return;
    serverValuesLoaded = true;
    void loadServerValues();
  };
  const visibility = tree.onDidChangeVisibility((e) => { if (e.visible) ensureServerValues(); });
  const healthChanged = servers.health.onDidChange((id) => { if (id === serverId && tree.visible) void loadServerValues(); });
  const storeChanged = servers.store.onDidChange(() => {
    if (serverId && !servers.store.get(serverId)) {
      serverId = undefined;
      void context.workspaceState.update(SERVER_KEY, undefined);
      view.setServerValues(undefined, undefined);
    }
  });

  // ------------------------------------------------------------------ commands
  const nodeOrPick = async (arg: unknown, placeHolder: string): Promise<FlagNode | undefined> => {
    if (isNode(arg)) return arg.kind === 'choice' ? arg.parent : arg.kind === 'flag' ? arg : undefined;
    if (isLensArgs(arg)) {
      await view.reload();
      return view.find(arg.flag) ?? view.find(arg.field);
    }
    if (tree.selection[0]?.kind === 'flag') return tree.selection[0];
    await view.reload();
    const picked = await vscode.window.showQuickPick(
      guardPicks(view.entries.map((e) => ({ label: e.flag, description: e.field, detail: e.help?.slice(0, 160), e }))),
      { placeHolder, matchOnDescription: true },
    );
    return picked ? view.find(picked.e.flag) : undefined;
  };

  const reveal = async (arg: unknown): Promise<void> => {
    await view.reload();
    let flag: string | undefined;
    if (isLensArgs(arg)) {
      flag = arg.flag;
      if (arg.flags && arg.flags.length > 1) {
        flag = (await vscode.window.showQuickPick(arg.flags, { placeHolder: 'Reveal which flag using this list?' })) ?? undefined;
        if (!flag) return;
      }
    } else if (typeof arg === 'string') flag = arg;
    let node = flag ? view.find(flag) ?? (isLensArgs(arg) ? view.find(arg.field) : undefined) : await nodeOrPick(arg, 'Reveal which flag?');
    if (!node) {
      const src = view.source;
      void vscode.window.showInformationMessage(`${flag ? notificationText(flag) : 'That flag'} is not in the active flag catalog${src ? ` (${src.kind}: ${notificationText(src.label)})` : ''}.`);
      return;
    }
    if (!view.isVisible(node)) {
      // Clearing the filter rebuilds the nodes: look the flag up again.
      const key = node.entry.flag;
      view.setFilter('');
      syncTitle();
      node = view.find(key);
      if (!node) return;
    }
    await tree.reveal(node, { select: true, focus: true, expand: true });
  };

  const findUsages = async (arg: unknown): Promise<void> => {
    let field: string | undefined;
    let uri: string | undefined;
    if (isLensArgs(arg)) {
      field = arg.field || undefined;
      uri = arg.uri;
    } else {
      const node = await nodeOrPick(arg, 'Find usages of which flag?');
      field = node?.entry.field;
      uri = view.definitionUri;
    }
    if (!field) return;
    const target = uri ? vscode.Uri.parse(uri) : undefined;
    if (target?.scheme === REMOTE_SCHEME) {
      await vscode.env.clipboard.writeText(field);
      const known = (await vscode.commands.getCommands(true)).includes(COMMANDS.searchSglangSource);
      void vscode.window.showInformationMessage(`"${notificationText(field)}" copied: paste it as the query of the SGLang source search on that host.`);
      if (known) await vscode.commands.executeCommand(COMMANDS.searchSglangSource);
      return;
    }
    // The SGLang tree: the folder holding srt/server_args.py (…/sglang), when it is in the workspace.
    let filesToInclude: string | undefined;
    if (target?.scheme === 'file') {
      const sglangDir = vscode.Uri.joinPath(target, '..', '..');
      // The folder name belongs in the pattern only in a multi-root workspace ("./root/…"); the
      // default of asRelativePath does exactly that.
      const rel = vscode.workspace.asRelativePath(sglangDir);
      if (rel !== sglangDir.fsPath) filesToInclude = `./${rel.replace(/\\/g, '/')}`;
    }
    await vscode.commands.executeCommand('workbench.action.findInFiles', {
      query: field, isRegex: false, isCaseSensitive: true, matchWholeWord: true, triggerSearch: true,
      ...(filesToInclude ? { filesToInclude } : {}),
    });
  };

  const openDefinition = async (arg: unknown): Promise<void> => {
    const node = await nodeOrPick(arg, 'Open the definition of which flag?');
    if (!node) return;
    const r = view.definitionUri;
    const line = view.definitionLine(node.entry);
    if (!r || !line) {
      void vscode.window.showInformationMessage(`${notificationText(node.entry.flag)} has no known place in a server_args.py (the active catalog is ${view.source?.kind ?? 'missing'}).`);
      return;
    }
    const pos = new vscode.Position(line - 1, 0);
    await vscode.window.showTextDocument(vscode.Uri.parse(r), { selection: new vscode.Range(pos, pos), preview: true });
  };

  const copyValue = async (arg: unknown): Promise<void> => {
    let text: string | undefined;
    if (isNode(arg) && arg.kind === 'choice') text = flagWithValue(arg.parent.entry, arg.value === null ? 'None' : String(arg.value));
    else {
      const node = await nodeOrPick(arg, 'Copy which flag?');
      if (!node) return;
      const e = node.entry;
      const value = valueText(view.serverValue(e)) ?? (e.default !== undefined ? valueText(e.default) : undefined);
      text = flagWithValue(e, value);
    }
    await vscode.env.clipboard.writeText(text);
    vscode.window.setStatusBarMessage(`Copied ${iconText(text)}`, 3000);
  };

  const copyFlag = async (arg: unknown): Promise<void> => {
    const flag = isLensArgs(arg) ? arg.flag : (await nodeOrPick(arg, 'Copy which flag?'))?.entry.flag;
    if (!flag) return;
    await vscode.env.clipboard.writeText(flag);
    vscode.window.setStatusBarMessage(`Copied ${iconText(flag)}`, 3000);
  };

  const filter = async (): Promise<void> => {
    const text = await vscode.window.showInputBox({
      title: 'Filter Backend Flags', prompt: 'Part of a flag, field, group or choice (empty shows all)', value: view.filter, placeHolder: 'fp4',
    });
    if (text === undefined) return;
    view.setFilter(text);
    syncTitle();
  };

  const selectServer = async (): Promise<void> => {
    const list = servers.store.list();
    const none = { label: 'None', ownIcon: 'circle-slash', description: 'show defaults only', id: undefined as string | undefined };
    const picked = await vscode.window.showQuickPick(
      guardPicks([none, ...list.map((s) => ({ label: s.label, description: s.baseUrl, id: s.id }))]),
      { placeHolder: list.length ? 'Mark the values of which server in Backend Flags?' : 'No servers registered: add one in the Servers view' },
    );
    if (!picked) return;
    serverId = picked.id;
    await context.workspaceState.update(SERVER_KEY, serverId);
    serverValuesLoaded = true;
    await loadServerValues();
  };

  const loadRuntime = async (arg: unknown): Promise<void> => {
    const { loadRuntimeFlags } = await import('./loadRuntime');
    const opts = arg && typeof arg === 'object' && !isNode(arg) ? arg as { python?: string; refresh?: boolean } : {};
    const loaded = await loadRuntimeFlags(context, opts);
    if (loaded) view.setDifferences(loaded.label, loaded.byFlag);
  };

  const titleSync = view.onDidChangeDescription(syncTitle);
  const refresh = async (): Promise<void> => {
    await view.reload(true);
    await loadServerValues();
  };

  context.subscriptions.push(
    view, tree, catalogChanged, visibility, healthChanged, storeChanged, titleSync,
    { dispose: () => { if (timer) clearTimeout(timer); } },
    vscode.commands.registerCommand(FLAGS_COMMANDS.refresh, refresh),
    vscode.commands.registerCommand(FLAGS_COMMANDS.filter, filter),
    vscode.commands.registerCommand(FLAGS_COMMANDS.clearFilter, () => { view.setFilter(''); syncTitle(); }),
    vscode.commands.registerCommand(FLAGS_COMMANDS.selectServer, selectServer),
    vscode.commands.registerCommand(FLAGS_COMMANDS.loadRuntime, loadRuntime),
    vscode.commands.registerCommand(FLAGS_COMMANDS.copyValue, copyValue),
    vscode.commands.registerCommand(FLAGS_COMMANDS.openDefinition, openDefinition),
    vscode.commands.registerCommand(FLAGS_COMMANDS.searchUsages, findUsages),
    vscode.commands.registerCommand(FLAGS_COMMANDS.copyFlag, copyFlag),
    vscode.commands.registerCommand(FLAGS_COMMANDS.findFieldUsages, findUsages),
    vscode.commands.registerCommand(FLAGS_COMMANDS.revealFlag, reveal),
  );
  if (tree.visible) ensureServerValues();
  return view;
}
