/**
 * The flags feature in the extension host: the language client's start on launch documents, the
 * Backend Flags view, the commands of the code lenses the language server puts on server_args.py,
 * "Show SGLang Flags" / "Show vLLM Flags", and "Load Flags from Installed SGLang or vLLM".
 *
 * Activation only creates the (empty) view and registers commands. The language server starts
 * when the view is first shown (or a document with a launch command opens); the runtime loader and
 * its Python script are loaded when the command runs.
 */
import * as vscode from 'vscode';
import type { FlagEntry } from '../core/flags/types';
import { shellWord } from '../core/hosts/quote';
import { REMOTE_SCHEME } from '../core/remote/uris';
import type { Ctx } from '../context';
import type { CatalogEntriesParams, FlagLensArgs, LaunchEngine } from '../shared/lspProtocol';
import { COMMANDS, FLAGS_COMMANDS } from '../commands';
import { holdsLaunchCommand } from './languageClient';
import { FlagsView, type FlagNode, type FlagsNode } from './flagsView';
import { valueText } from './flagRows';
import { ENGINE_LABELS, viewEngine } from './flagsEngine';
import { mentionsLaunchCommand } from '../services/launchFiles';
import { takesNoValue } from '../core/flags/types';
import { isolate, notificationText } from '../core/text/foreign';
import { guardPicks, iconText } from '../ui/foreignText';
import { clickedRow } from '../ui/rowCommand';
import { errorMessage } from '../core/errors';
import type { LoadRuntimeArgs } from './loadRuntime';

export const FLAGS_VIEW_ID = 'inferenceDoctor.flags';
const SERVER_KEY = 'inferenceDoctor.flags.server';
/** workspaceState: the engine the user chose with Show SGLang/vLLM Flags. */
const ENGINE_KEY = 'inferenceDoctor.flags.engine';
const FILTERED_CONTEXT = 'inferenceDoctor.flagsFiltered';
/** 'sglang' or 'vllm': which of the two Show … Flags commands the view's title bar offers. */
const ENGINE_CONTEXT = 'inferenceDoctor.flagsEngine';
const LAUNCH_ENGINES: readonly LaunchEngine[] = ['sglang', 'vllm'];

/** The engines a document's launch commands start (none for other documents). */
function enginesOf(doc: vscode.TextDocument | undefined): LaunchEngine[] {
  if (!doc || !holdsLaunchCommand(doc)) return [];
  const text = doc.getText();
  return LAUNCH_ENGINES.filter((e) => mentionsLaunchCommand(text, [e]));
}

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
    } catch {
      /* a single value */
    }
  }
  return `${e.flag} ${shellWord(value)}`;
}

function isNode(arg: unknown): arg is FlagsNode {
  return !!arg && typeof arg === 'object' && ['family', 'flag', 'choice'].includes((arg as { kind?: string }).kind ?? '');
}
function isLensArgs(arg: unknown): arg is FlagLensArgs {
  return !!arg && typeof arg === 'object' && typeof (arg as FlagLensArgs).flag === 'string' && typeof (arg as FlagLensArgs).uri === 'string';
}

export function register(ctx: Ctx): void {
  ctx.pushCleanup(ctx.flags.watchDocuments());
  // Once the language server runs (a launch file was opened), tell it this machine's GPU.
  const firstRun = ctx.flags.onDidChangeState((state) => {
    if (state !== 'running') return;
    firstRun.dispose();
    void import('./localGpu').then(({ sendLocalGpu }) => sendLocalGpu(ctx)).catch((e: unknown) => ctx.log.warn(`GPU query on this machine: ${String(e)}`));
  });
  ctx.pushCleanup(firstRun);
  const flags = new BackendFlags(ctx);
  ctx.registerCommand(FLAGS_COMMANDS.refresh, () => flags.refresh());
  ctx.registerCommand(FLAGS_COMMANDS.filter, () => flags.filter());
  ctx.registerCommand(FLAGS_COMMANDS.clearFilter, () => flags.setFilter(''));
  ctx.registerCommand(FLAGS_COMMANDS.selectServer, () => flags.selectServer());
  ctx.registerCommand(FLAGS_COMMANDS.showSglang, () => flags.chooseEngine('sglang'));
  ctx.registerCommand(FLAGS_COMMANDS.showVllm, () => flags.chooseEngine('vllm'));
  ctx.registerCommand(FLAGS_COMMANDS.loadRuntime, (arg) => flags.loadRuntime(arg));
  ctx.registerCommand(FLAGS_COMMANDS.copyValue, (arg) => flags.copyValue(arg));
  ctx.registerCommand(FLAGS_COMMANDS.applyChoice, (arg) => flags.applyChoice(arg));
  ctx.registerCommand(FLAGS_COMMANDS.openDefinition, (arg) => flags.openDefinition(arg));
  ctx.registerCommand(FLAGS_COMMANDS.openClickedDefinition, () => flags.openClickedDefinition());
  ctx.registerCommand(FLAGS_COMMANDS.searchUsages, (arg) => flags.findUsages(arg));
  ctx.registerCommand(FLAGS_COMMANDS.copyFlag, (arg) => flags.copyFlag(arg));
  ctx.registerCommand(FLAGS_COMMANDS.findFieldUsages, (arg) => flags.findUsages(arg));
  ctx.registerCommand(FLAGS_COMMANDS.revealFlag, (arg) => flags.reveal(arg));
  ctx.registerCommand(FLAGS_COMMANDS.restartLanguageServer, async () => {
    const client = await ctx.flags.restart();
    if (client) void vscode.window.showInformationMessage('Inference Doctor: the flags language server was restarted.');
  });
}

/** The Backend Flags view and the commands that act on its rows or on code lenses. */
class BackendFlags {
  private readonly view: FlagsView;
  private readonly tree: vscode.TreeView<FlagsNode>;
  private serverId: string | undefined;
  private serverValuesLoaded = false;
  private reloadTimer: NodeJS.Timeout | undefined;
  /** What the selected server says it is (/v1/models' owned_by), once asked. */
  private serverEngine: string | undefined;
  /** The last launch document with a vLLM command the user looked at: its release picks the bundled vLLM catalog. */
  private vllmDocument: string | undefined;
  private editorEngines: LaunchEngine[] = [];

  constructor(private readonly ctx: Ctx) {
    this.view = new FlagsView((known, engine) => ctx.flags.catalogEntries(this.entriesRequest(known, engine)));
    this.tree = vscode.window.createTreeView<FlagsNode>(FLAGS_VIEW_ID, { treeDataProvider: this.view, showCollapseAll: true });
    this.serverId = ctx.extension.workspaceState.get<string>(SERVER_KEY);
    this.noteEditor(vscode.window.activeTextEditor);
    this.applyDefaultEngine();
    const { store, health } = ctx.servers;
    ctx.pushCleanup(
      this.view,
      this.tree,
      ctx.flags.onCatalogStatus(() => this.catalogChanged()),
      vscode.window.onDidChangeActiveTextEditor((editor) => {
        // Another vLLM launch file may run another release: its catalog is asked for whole.
        if (this.noteEditor(editor) && this.view.engine === 'vllm') this.catalogChanged(true);
        this.applyDefaultEngine();
      }),
      this.tree.onDidChangeVisibility((e) => {
        if (e.visible) this.ensureServerValues();
      }),
      health.onDidChange((id) => {
        if (id === this.serverId && this.tree.visible) void this.loadServerValues();
      }),
      store.onDidChange(() => this.forgetRemovedServer()),
      this.view.onDidChangeDescription(() => this.syncTitle()),
      {
        dispose: () => {
          if (this.reloadTimer) clearTimeout(this.reloadTimer);
        },
      },
    );
    if (this.tree.visible) this.ensureServerValues();
  }

  private syncTitle(): void {
    this.tree.description = isolate(this.view.description());
    this.tree.message = this.view.message();
    void vscode.commands.executeCommand('setContext', FILTERED_CONTEXT, !!this.view.filter);
  }

  // ---- engine ----------------------------------------------------------------------------------

  private entriesRequest(knownGeneration: number | undefined, engine: LaunchEngine): CatalogEntriesParams {
    const request: CatalogEntriesParams = knownGeneration === undefined ? {} : { knownGeneration };
    // SGLang's request keeps its old shape; vLLM's names the launch file whose release counts.
    if (engine === 'vllm') Object.assign(request, { engine }, this.vllmDocument ? { uri: this.vllmDocument } : {});
    return request;
  }

  /**
   * Remembers the engines of the last launch file the user looked at (another file changes
   * nothing), and the last one with a vLLM command; true when that is a different document now.
   */
  private noteEditor(editor: vscode.TextEditor | undefined): boolean {
    const engines = enginesOf(editor?.document);
    if (!engines.length) return false;
    this.editorEngines = engines;
    const uri = editor!.document.uri.toString();
    if (!engines.includes('vllm') || uri === this.vllmDocument) return false;
    this.vllmDocument = uri;
    return true;
  }

  /** The user's choice, else the selected server's engine, else the active launch file's, else SGLang. */
  private applyDefaultEngine(): void {
    const engine = viewEngine({
      chosen: this.ctx.extension.workspaceState.get(ENGINE_KEY),
      server: this.serverEngine,
      editor: this.editorEngines,
    });
    this.showEngine(engine);
  }

  private showEngine(engine: LaunchEngine): void {
    // setEngine rebuilds the (now empty) tree; VS Code asks for its children again, which loads the catalog.
    if (!this.view.setEngine(engine)) return;
    void vscode.commands.executeCommand('setContext', ENGINE_CONTEXT, engine);
    this.syncTitle();
  }

  /** Show SGLang Flags / Show vLLM Flags: remembered for this workspace. */
  async chooseEngine(engine: LaunchEngine): Promise<void> {
    await this.ctx.extension.workspaceState.update(ENGINE_KEY, engine);
    this.showEngine(engine);
  }

  /** The server says the catalog changed (possibly on every keystroke in server_args.py): debounce, and only ask again while the view is visible. */
  private catalogChanged(whole = false): void {
    this.view.markStale(whole);
    if (this.reloadTimer) clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => {
      if (this.tree.visible) void this.view.reload();
    }, 400);
  }

  // ---- server values ---------------------------------------------------------------------------

  private async loadServerValues(): Promise<void> {
    const { store, health } = this.ctx.servers;
    const server = this.serverId ? store.get(this.serverId) : undefined;
    if (!server) {
      this.serverEngine = undefined;
      this.applyDefaultEngine();
      this.view.setServerValues(undefined, undefined);
      return;
    }
    let engine = 'unknown';
    try {
      const target = await store.target(server.id);
      const [{ fetchServerInfo }, { detectEngine }] = await Promise.all([import('../core/probe/server-api'), import('../core/probe/engine')]);
      const info = fetchServerInfo(target, { timeoutMs: 10_000 });
      info.catch(() => undefined);
      // detectEngine never throws: an engine it cannot tell stays 'unknown'.
      engine = (await detectEngine(target)).engine;
      if (server.id !== this.serverId) return;
      this.serverEngine = engine;
      this.applyDefaultEngine();
      const values = await info;
      this.view.setServerValues(server.label, values, engine);
      // Launch files are then judged against the SGLang release this server runs.
      const version = typeof values.version === 'string' ? values.version : undefined;
      if (engine !== 'vllm') void this.ctx.flags.sendServerRelease({ label: server.label, ...(version ? { version } : {}) }).catch(() => undefined);
    } catch (e) {
      // vLLM serves /server_info only in dev mode: without it its flags show no values, and that is no error.
      if (engine === 'vllm') {
        this.view.setServerValues(server.label, undefined, engine);
        return;
      }
      // Fall back to the few backend fields the health monitor keeps.
      const backends = health.status(server.id).backends;
      this.view.setServerValues(backends ? `${server.label} (last health check)` : server.label, backends);
      if (!backends)
        void vscode.window.showWarningMessage(
          `Inference Doctor: could not read /server_info of ${notificationText(server.label)}: ${notificationText(errorMessage(e))}`,
        );
    }
  }

  private ensureServerValues(): void {
    if (this.serverValuesLoaded) return;
    this.serverValuesLoaded = true;
    void this.loadServerValues();
  }

  private forgetRemovedServer(): void {
    if (!this.serverId || this.ctx.servers.store.get(this.serverId)) return;
    this.serverId = undefined;
    void this.ctx.extension.workspaceState.update(SERVER_KEY, undefined);
    void this.loadServerValues();
  }

  // ---- commands --------------------------------------------------------------------------------

  /** The flag row a command is about: its argument, the selection, or the user's pick. */
  private async nodeOrPick(arg: unknown, placeHolder: string): Promise<FlagNode | undefined> {
    const view = this.view;
    if (isNode(arg)) return arg.kind === 'choice' ? arg.parent : arg.kind === 'flag' ? arg : undefined;
    if (isLensArgs(arg)) {
      await view.reload();
      return view.find(arg.flag) ?? view.find(arg.field);
    }
    if (this.tree.selection[0]?.kind === 'flag') return this.tree.selection[0];
    await view.reload();
    const picked = await vscode.window.showQuickPick(
      guardPicks(view.entries.map((e) => ({ label: e.flag, description: e.field, detail: e.help?.slice(0, 160), e }))),
      { placeHolder, matchOnDescription: true },
    );
    return picked ? view.find(picked.e.flag) : undefined;
  }

  async reveal(arg: unknown): Promise<void> {
    const view = this.view;
    // A code lens on server_args.py is about SGLang's flags.
    if (isLensArgs(arg)) this.showEngine('sglang');
    await view.reload();
    let flag: string | undefined;
    if (isLensArgs(arg)) {
      flag = arg.flag;
      if (arg.flags && arg.flags.length > 1) {
        flag = (await vscode.window.showQuickPick(arg.flags, { placeHolder: 'Reveal which flag using this list?' })) ?? undefined;
        if (!flag) return;
      }
    } else if (typeof arg === 'string') flag = arg;
    let node = flag ? (view.find(flag) ?? (isLensArgs(arg) ? view.find(arg.field) : undefined)) : await this.nodeOrPick(arg, 'Reveal which flag?');
    if (!node) {
      const src = view.source;
      void vscode.window.showInformationMessage(
        `${flag ? notificationText(flag) : 'That flag'} is not in the active flag catalog${src ? ` (${src.kind}: ${notificationText(src.label)})` : ''}.`,
      );
      return;
    }
    if (!view.isVisible(node)) {
      // Clearing the filter rebuilds the nodes: look the flag up again.
      const key = node.entry.flag;
      this.setFilter('');
      node = view.find(key);
      if (!node) return;
    }
    await this.tree.reveal(node, { select: true, focus: true, expand: true });
  }

  async findUsages(arg: unknown): Promise<void> {
    let field: string | undefined;
    let uri: string | undefined;
    if (isLensArgs(arg)) {
      field = arg.field || undefined;
      uri = arg.uri;
    } else {
      const node = await this.nodeOrPick(arg, 'Find usages of which flag?');
      field = node?.entry.field;
      uri = this.view.definitionUri;
    }
    if (!field) return;
    const target = uri ? vscode.Uri.parse(uri) : undefined;
    if (target?.scheme === REMOTE_SCHEME) {
      await vscode.env.clipboard.writeText(field);
      void vscode.window.showInformationMessage(`"${notificationText(field)}" copied: paste it as the query of the SGLang source search on that host.`);
      await this.ctx.executeCommand(COMMANDS.searchSglangSource);
      return;
    }
    await vscode.commands.executeCommand('workbench.action.findInFiles', {
      query: field,
      isRegex: false,
      isCaseSensitive: true,
      matchWholeWord: true,
      triggerSearch: true,
      ...sglangFolderPattern(target),
    });
  }

  /** A click on a flag row (rowCommand.ts). */
  openClickedDefinition(): Promise<void> {
    return this.openDefinition(clickedRow(this.tree));
  }

  async openDefinition(arg: unknown): Promise<void> {
    const node = await this.nodeOrPick(arg, 'Open the definition of which flag?');
    if (!node) return;
    const definition = this.view.definition(node.entry);
    if (!definition) {
      void vscode.window.showInformationMessage(
        this.view.engine === 'vllm'
          ? `${notificationText(node.entry.flag)} has no known place in a source file: vLLM's catalogs (bundled or installed) hold its facts, not where it is defined.`
          : `${notificationText(node.entry.flag)} has no known place in a server_args.py (the active catalog is ${this.view.source?.kind ?? 'missing'}).`,
      );
      return;
    }
    const pos = new vscode.Position(definition.line - 1, 0);
    await vscode.window.showTextDocument(vscode.Uri.parse(definition.uri), { selection: new vscode.Range(pos, pos), preview: true });
  }

  async copyValue(arg: unknown): Promise<void> {
    let text: string | undefined;
    if (isNode(arg) && arg.kind === 'choice') text = flagWithValue(arg.parent.entry, arg.value === null ? 'None' : String(arg.value));
    else {
      const node = await this.nodeOrPick(arg, 'Copy which flag?');
      if (!node) return;
      const e = node.entry;
      const value = valueText(this.view.serverValue(e)) ?? (e.default !== undefined ? valueText(e.default) : undefined);
      text = flagWithValue(e, value);
    }
    await copied(text);
  }

  /**
   * A choice row's "Apply to Server and Re-probe": that value for its flag in the launch file open
   * beside the view, through the fix loop (which asks how the server restarts and confirms).
   */
  async applyChoice(arg: unknown): Promise<void> {
    if (!isNode(arg) || arg.kind !== 'choice' || arg.value === null) {
      void vscode.window.showInformationMessage('Right-click a value under a flag in the Backend Flags view to apply it to the server.');
      return;
    }
    const editors = [vscode.window.activeTextEditor, ...vscode.window.visibleTextEditors].filter((e): e is vscode.TextEditor => !!e);
    const doc = editors.map((e) => e.document).find((d) => holdsLaunchCommand(d));
    if (!doc) {
      void vscode.window.showInformationMessage(
        `Open the launch file (the script, unit or compose file that starts ${ENGINE_LABELS[this.view.engine]}) beside this view, then apply the value again.`,
      );
      return;
    }
    const { entry } = arg.parent;
    const value = String(arg.value);
    await this.ctx.executeCommand(COMMANDS.applyAndVerify, {
      uri: doc.uri.toString(),
      changes: [{ flag: entry.flag, ...(entry.aliases.length ? { aliases: entry.aliases } : {}), value }],
      summary: `Set ${entry.flag} to ${value}`,
    });
  }

  async copyFlag(arg: unknown): Promise<void> {
    const flag = isLensArgs(arg) ? arg.flag : (await this.nodeOrPick(arg, 'Copy which flag?'))?.entry.flag;
    if (flag) await copied(flag);
  }

  async filter(): Promise<void> {
    const text = await vscode.window.showInputBox({
      title: 'Filter Backend Flags',
      prompt: 'Part of a flag, field, group or choice (empty shows all)',
      value: this.view.filter,
      placeHolder: 'fp4',
    });
    if (text !== undefined) this.setFilter(text);
  }

  setFilter(text: string): void {
    this.view.setFilter(text);
    this.syncTitle();
  }

  async selectServer(): Promise<void> {
    const list = this.ctx.servers.store.list();
    const none = { label: 'None', ownIcon: 'circle-slash', description: 'show defaults only', id: undefined as string | undefined };
    const picked = await vscode.window.showQuickPick(guardPicks([none, ...list.map((s) => ({ label: s.label, description: s.baseUrl, id: s.id }))]), {
      placeHolder: list.length ? 'Mark the values of which server in Backend Flags?' : 'No servers registered: add one in the Servers view',
    });
    if (!picked) return;
    this.serverId = picked.id;
    await this.ctx.extension.workspaceState.update(SERVER_KEY, this.serverId);
    this.serverValuesLoaded = true;
    await this.loadServerValues();
  }

  async loadRuntime(arg: unknown): Promise<void> {
    const { loadRuntimeFlags } = await import('./loadRuntime');
    const opts = arg && typeof arg === 'object' && !isNode(arg) ? (arg as LoadRuntimeArgs) : {};
    const loaded = await loadRuntimeFlags(this.ctx, opts);
    // Each engine's differences show on its own rows.
    if (loaded) this.view.setDifferences(loaded.engine, loaded.label, loaded.byFlag);
  }

  async refresh(): Promise<void> {
    await this.view.reload(true);
    await this.loadServerValues();
  }
}

async function copied(text: string): Promise<void> {
  await vscode.env.clipboard.writeText(text);
  vscode.window.setStatusBarMessage(`Copied ${iconText(text)}`, 3000);
}

/**
 * The search scope for a flag's usages: the SGLang tree holding srt/server_args.py (…/sglang) when it
 * is in the workspace. The folder name belongs in the pattern only in a multi-root workspace
 * ("./root/…"); the default of asRelativePath does exactly that.
 */
function sglangFolderPattern(serverArgs: vscode.Uri | undefined): { filesToInclude?: string } {
  if (serverArgs?.scheme !== 'file') return {};
  const sglangDir = vscode.Uri.joinPath(serverArgs, '..', '..');
  const rel = vscode.workspace.asRelativePath(sglangDir);
  return rel !== sglangDir.fsPath ? { filesToInclude: `./${rel.replace(/\\/g, '/')}` } : {};
}
