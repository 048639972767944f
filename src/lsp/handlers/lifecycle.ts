/**
 * Start-up and workspace events: capabilities, the initial load of rules, settings and the
 * workspace catalog, and reloading them when settings or watched files change.
 */
import { isAbsolute, join } from 'node:path';
import {
  CodeActionKind,
  DidChangeConfigurationNotification,
  FileChangeType,
  TextDocumentSyncKind,
  type FileEvent,
  type InitializeParams,
  type InitializeResult,
} from 'vscode-languageserver';
import { errorMessage } from '../../core/errors';
import { CONFIG_SECTION, type FlagsSettings } from '../../shared/lspProtocol';
import { findServerArgs } from '../catalogs';
import { isServerArgsUri, uriToPath } from '../documents';
import type { ServerState } from '../state';

async function loadSettings(state: ServerState): Promise<void> {
  if (!state.client.configuration) return;
  try {
    const s = (await state.connection.workspace.getConfiguration(CONFIG_SECTION)) as FlagsSettings | null;
    state.settings = s && typeof s === 'object' ? s : {};
  } catch {
    state.settings = {};
  }
  const { store, folders } = state;
  const p = state.settings.serverArgsPath?.trim();
  if (!p) {
    store.setSettings(undefined);
    return;
  }
  const abs = isAbsolute(p) || !folders[0] ? p : join(folders[0], p);
  await store.serial(async () => store.setSettings(await store.fromFile('settings', abs)));
}

async function loadWorkspace(state: ServerState): Promise<void> {
  const { store } = state;
  const found = await findServerArgs(state.folders);
  if (!found) return;
  // An open editor's text wins over the file on disk.
  const open = [...state.docs.values()].find((d) => d.isServerArgs && uriToPath(d.doc.uri) === found);
  await store.serial(async () => store.setWorkspace(await store.fromFile('workspace', found, open?.doc.getText())));
  state.log(`catalog from ${found}: ${store.workspace?.index.catalog.entries.length ?? 0} flags`);
}

function initialize(state: ServerState, params: InitializeParams): InitializeResult {
  state.folders = (params.workspaceFolders ?? []).map((f) => uriToPath(f.uri)).filter((p): p is string => !!p);
  if (!state.folders.length && params.rootUri) {
    const p = uriToPath(params.rootUri);
    if (p) state.folders.push(p);
  }
  const caps = params.capabilities;
  state.client = {
    configuration: !!caps.workspace?.configuration,
    codeLensRefresh: !!caps.workspace?.codeLens?.refreshSupport,
    editRangeDefault: !!caps.textDocument?.completion?.completionList?.itemDefaults?.includes('editRange'),
  };
  return {
    capabilities: {
      textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
      hoverProvider: true,
      completionProvider: { triggerCharacters: ['-', '=', ' ', '"', "'"], resolveProvider: true },
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
      definitionProvider: true,
      documentSymbolProvider: true,
      codeLensProvider: { resolveProvider: false },
    },
    serverInfo: { name: 'inference-doctor-flags', version: '0.1.0' },
  };
}

async function initialLoad(state: ServerState): Promise<void> {
  try {
    await Promise.all([state.rules.load(state.folders), loadSettings(state), loadWorkspace(state), state.store.loadBundled(), state.store.loadVllmBundled()]);
  } catch (e) {
    state.log(`initial load failed: ${errorMessage(e)}`);
  }
  state.markReady();
  state.catalogsChanged();
}

const RULES_FILE = /\.inference-doctor[\\/]rules\.json$/;

/** Reloads what changed on disk: the rules files, and the workspace server_args.py when no editor has it open. */
function watchedFilesChanged(state: ServerState, changes: FileEvent[]): void {
  const { store } = state;
  let rulesChanged = false;
  let argsChanged = false;
  for (const c of changes) {
    if (RULES_FILE.test(c.uri)) rulesChanged = true;
    else if (isServerArgsUri(c.uri) && !state.docs.has(c.uri)) {
      const path = uriToPath(c.uri);
      if (!store.workspace || store.workspace.path === path || c.type === FileChangeType.Created) argsChanged = true;
    }
  }
  void (async () => {
    if (rulesChanged) await state.rules.load(state.folders);
    if (argsChanged) await loadWorkspace(state);
    if (rulesChanged || argsChanged) state.catalogsChanged();
  })().catch((e: unknown) => state.log(`watch: ${errorMessage(e)}`));
}

export function registerLifecycle(state: ServerState): void {
  const { connection } = state;
  connection.onInitialize((params) => initialize(state, params));
  connection.onInitialized(() => {
    if (state.client.configuration) {
      void connection.client.register(DidChangeConfigurationNotification.type, { section: CONFIG_SECTION }).catch(() => undefined);
    }
    void initialLoad(state);
  });
  connection.onDidChangeConfiguration(() => {
    void loadSettings(state).then(
      () => state.catalogsChanged(),
      (e: unknown) => state.log(`settings: ${errorMessage(e)}`),
    );
  });
  connection.onDidChangeWatchedFiles((p) => watchedFilesChanged(state, p.changes));
}
