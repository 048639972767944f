/**
 * Wires the Inference Doctor language features to an LSP connection: document sync (own store, so
 * the incremental changes of an open server_args.py reach the catalog), catalogs, workspace rules,
 * diagnostics and the custom requests of src/shared/lspProtocol.ts.
 */
import { promises as fsp } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CodeActionKind, DidChangeConfigurationNotification, FileChangeType, TextDocumentSyncKind,
  type CodeAction, type CodeLens, type Connection, type Diagnostic, type InitializeParams, type InitializeResult,
} from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { buildCatalog, disposeCatalog, updateCatalog, type CatalogEdit, type FlagCatalog } from '../core/flags';
import { launchSyntaxOf, type LanguageHint } from '../core/launch';
import { builtinRules, mergeRules, parseRulesText, type KnownBadRule, type RuleLoadResult } from '../core/rules';
import {
  CONFIG_SECTION, DIAGNOSTIC_SOURCE, onCustomNotification, onCustomRequest, sendCustomNotification,
  type FlagsForDocumentParams, type CatalogStatus, type CatalogEntriesParams, type CatalogEntriesResult, type DocumentCommand,
  type FlagsSettings,
} from '../shared/lspProtocol';
import { analyzeText, type Analysis, type FixData } from './analysis';
import { CatalogStore, findServerArgs, infoOf, parserOptions } from './catalogs';
import { codeLensesFor } from './codeLens';
import { complete, definition, hover, resolveCompletion, symbols } from './features';
import { showControls } from '../core/text/foreign';

interface Doc {
  doc: TextDocument;
  hint: LanguageHint | undefined;
  isServerArgs: boolean;
  cache?: { key: string; analysis: Analysis };
}

/** Catalog of an open server_args.py that is not the workspace catalog (remote scheme, other copies). */
interface DocCatalog { catalog: FlagCatalog; version: number }

const EMPTY: Analysis = { commands: [], diagnostics: [] };

function uriToPath(uri: string): string | undefined {
  try {
    return uri.startsWith('file:') ? fileURLToPath(uri) : undefined;
  } catch {
    return undefined;
  }
}

export function startServer(connection: Connection, baseDir: string): void {
  const store = new CatalogStore(parserOptions(baseDir));
  const docs = new Map<string, Doc>();
  const docCatalogs = new Map<string, DocCatalog>();
  let codeLensRefresh = false;
  let editRangeDefault = false;
  let folders: string[] = [];
  let hasConfiguration = false;
  let settings: FlagsSettings = {};
  let rules: KnownBadRule[] = builtinRules().rules;
  let ruleFiles: string[] = [];
  let ruleErrors: string[] = builtinRules().errors.map((e) => `${e.source}${e.path}: ${e.message}`);
  let toldNoCatalog = false;
  let resolveReady!: () => void;
  const ready = new Promise<void>((r) => { resolveReady = r; });
  setTimeout(() => resolveReady(), 15_000).unref();

  // Log lines quote workspace paths and file contents: controls shown, as in every other log.
  const log = (m: string): void => connection.console.log(`[inference-doctor] ${showControls(m)}`);

  const guard = <A extends unknown[], R>(fallback: R, fn: (...a: A) => R | Promise<R>) => async (...a: A): Promise<R> => {
    try {
      await ready;
      return await fn(...a);
    } catch (e) {
      log(`error: ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
      return fallback;
    }
  };

  function analysisOf(d: Doc): Analysis {
    if (!d.hint || d.isServerArgs) return EMPTY;
    const key = `${d.doc.version}|${store.generation}`;
    if (d.cache?.key === key) return d.cache.analysis;
    const analysis = analyzeText(d.doc.getText(), d.hint, store.active(), {
      rules, computeCapability: store.computeCapability, versions: store.packageVersions, diagnostics: settings.ruleDiagnostics !== false,
    });
    d.cache = { key, analysis };
    return analysis;
  }

  // ---------------------------------------------------------------- diagnostics scheduling
  const pending = new Set<string>();
  let flushScheduled = false;
  function schedule(uri: string): void {
    pending.add(uri);
    if (flushScheduled) return;
    flushScheduled = true;
    void ready.then(() => setImmediate(flush));
  }
  function flush(): void {
    flushScheduled = false;
    for (const uri of [...pending]) {
      pending.delete(uri);
      const d = docs.get(uri);
      if (!d) continue;
      let diagnostics: Diagnostic[] = [];
      try {
        diagnostics = analysisOf(d).diagnostics;
      } catch (e) {
        log(`diagnostics failed for ${uri}: ${(e as Error).message}`);
      }
      void connection.sendDiagnostics({ uri, version: d.doc.version, diagnostics });
    }
  }
  function revalidateAll(): void {
    for (const uri of docs.keys()) schedule(uri);
  }

  // ---------------------------------------------------------------- per-document catalogs (code lenses)
  function dropDocCatalog(uri: string): void {
    const c = docCatalogs.get(uri);
    docCatalogs.delete(uri);
    if (c) disposeCatalog(c.catalog);
  }
  /** True when the workspace catalog is built from this document. */
  function backsWorkspace(d: Doc): boolean {
    const path = uriToPath(d.doc.uri);
    return !!path && store.workspace?.path === path;
  }
  /**
   * The catalog of an open server_args.py, current with its text. Runs inside store.serial: the
   * workspace catalog when the document is that file, else its own catalog (built once, then
   * updated incrementally by didChange; rebuilt only when a change raced a build).
   */
  async function catalogOfDoc(d: Doc): Promise<FlagCatalog | undefined> {
    if (backsWorkspace(d)) {
      dropDocCatalog(d.doc.uri);
      return store.workspace?.index.catalog;
    }
    const own = docCatalogs.get(d.doc.uri);
    if (own && own.version === d.doc.version) return own.catalog;
    dropDocCatalog(d.doc.uri);
    const version = d.doc.version;
    const catalog = await buildCatalog(d.doc.getText(), { ...store.parserOpts, keepTree: true });
    if (docs.get(d.doc.uri) !== d) {
      disposeCatalog(catalog);
      return undefined;
    }
    docCatalogs.set(d.doc.uri, { catalog, version });
    return catalog;
  }
  function refreshCodeLenses(): void {
    if (codeLensRefresh) void connection.sendRequest('workspace/codeLens/refresh').then(undefined, () => undefined);
  }

  function catalogEntries(p: CatalogEntriesParams | undefined): CatalogEntriesResult {
    const generation = store.generation;
    if (p?.knownGeneration === generation) return { generation, unchanged: true, source: null, entries: [], choiceLists: [] };
    const active = store.activeLoaded(p?.staticOnly);
    if (!active) return { generation, source: null, entries: [], choiceLists: [] };
    const { catalog, meta } = active.index;
    const result: CatalogEntriesResult = {
      generation, source: infoOf(active), entries: catalog.entries, choiceLists: catalog.choiceLists,
    };
    if (meta.kind !== 'runtime') {
      if (meta.uri) result.definitionUri = meta.uri;
      return result;
    }
    // Runtime entries have no lines of their own: point them at the file catalog holding the same fields.
    const file = store.workspace ?? store.settings;
    if (file?.index.meta.uri) {
      result.definitionUri = file.index.meta.uri;
      const lines: Record<string, number> = {};
      for (const e of catalog.entries) {
        const s = file.index.byOption.get(e.flag) ?? file.index.byField.get(e.field);
        if (s && s.line > 0) lines[e.field] = s.line;
      }
      result.definitionLines = lines;
    }
    return result;
  }

  function status(): CatalogStatus {
    const sources = store.loaded().map(infoOf);
    return {
      active: sources[0] ?? null, sources, rules: { count: rules.length, errors: ruleErrors, files: ruleFiles },
      ...(store.computeCapability !== undefined ? { computeCapability: store.computeCapability } : {}),
    };
  }
  function catalogsChanged(): void {
    if (!store.active() && !toldNoCatalog) {
      toldNoCatalog = true;
      log('no catalog: open a server_args.py or set inferenceDoctor.flags.serverArgsPath (rule checks still run)');
    }
    void sendCustomNotification(connection, 'inferenceDoctor/catalogChanged', status());
    revalidateAll();
  }

  // ---------------------------------------------------------------- loading
  async function loadRules(): Promise<void> {
    const loaded: RuleLoadResult[] = [];
    const files: string[] = [];
    for (const f of folders) {
      const p = join(f, '.inference-doctor', 'rules.json');
      let text: string;
      try {
        text = await fsp.readFile(p, 'utf8');
      } catch {
        continue;
      }
      files.push(p);
      loaded.push(parseRulesText(text, p));
    }
    const merged = mergeRules(builtinRules(), loaded);
    rules = merged.rules;
    ruleFiles = files;
    ruleErrors = merged.errors.map((e) => `${e.source}${e.path}${e.rule ? ` (${e.rule})` : ''}: ${e.message}`);
    for (const e of ruleErrors) log(`rules: ${e}`);
    store.generation++;
  }

  async function loadSettings(): Promise<void> {
    if (!hasConfiguration) return;
    try {
      const s = (await connection.workspace.getConfiguration(CONFIG_SECTION)) as FlagsSettings | null;
      settings = s && typeof s === 'object' ? s : {};
    } catch {
      settings = {};
    }
    const p = settings.serverArgsPath?.trim();
    if (!p) {
      store.setSettings(undefined);
      return;
    }
    const abs = isAbsolute(p) || !folders[0] ? p : join(folders[0], p);
    await store.serial(async () => store.setSettings(await store.fromFile('settings', abs)));
  }

  async function loadWorkspace(): Promise<void> {
    const found = await findServerArgs(folders);
    if (!found) return;
    const open = [...docs.values()].find((d) => d.isServerArgs && uriToPath(d.doc.uri) === found);
    await store.serial(async () => store.setWorkspace(await store.fromFile('workspace', found, open?.doc.getText())));
    log(`catalog from ${found}: ${store.workspace?.index.catalog.entries.length ?? 0} flags`);
  }

  // ---------------------------------------------------------------- lifecycle
  connection.onInitialize((params: InitializeParams): InitializeResult => {
    folders = (params.workspaceFolders ?? []).map((f) => uriToPath(f.uri)).filter((p): p is string => !!p);
    if (!folders.length && params.rootUri) {
      const p = uriToPath(params.rootUri);
      if (p) folders.push(p);
    }
    hasConfiguration = !!params.capabilities.workspace?.configuration;
    codeLensRefresh = !!params.capabilities.workspace?.codeLens?.refreshSupport;
    editRangeDefault = !!params.capabilities.textDocument?.completion?.completionList?.itemDefaults?.includes('editRange');
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
  });

  connection.onInitialized(() => {
    if (hasConfiguration) void connection.client.register(DidChangeConfigurationNotification.type, { section: CONFIG_SECTION }).catch(() => undefined);
    void (async () => {
      try {
        await Promise.all([loadRules(), loadSettings(), loadWorkspace()]);
      } catch (e) {
        log(`initial load failed: ${(e as Error).message}`);
      }
      resolveReady();
      catalogsChanged();
    })();
  });

  connection.onDidChangeConfiguration(() => {
    void loadSettings().then(catalogsChanged, (e: Error) => log(`settings: ${e.message}`));
  });

  connection.onDidChangeWatchedFiles((p) => {
    let rulesChanged = false;
    let argsChanged = false;
    for (const c of p.changes) {
      if (/\.inference-doctor[\\/]rules\.json$/.test(c.uri) || c.uri.endsWith('/.inference-doctor/rules.json')) rulesChanged = true;
      else if (c.uri.endsWith('server_args.py') && !docs.has(c.uri)) {
        const path = uriToPath(c.uri);
        if (!store.workspace || store.workspace.path === path || c.type === FileChangeType.Created) argsChanged = true;
      }
    }
    void (async () => {
      if (rulesChanged) await loadRules();
      if (argsChanged) await loadWorkspace();
      if (rulesChanged || argsChanged) catalogsChanged();
    })().catch((e: Error) => log(`watch: ${e.message}`));
  });

  // ---------------------------------------------------------------- documents
  connection.onDidOpenTextDocument((p) => {
    const { uri, languageId, version, text } = p.textDocument;
    const isServerArgs = /(^|[\\/])server_args\.py$/.test(uri.split(/[?#]/)[0]);
    const d: Doc = { doc: TextDocument.create(uri, languageId, version, text), hint: launchSyntaxOf(languageId, uri), isServerArgs };
    docs.set(uri, d);
    if (isServerArgs) {
      const path = uriToPath(uri);
      if (path && (!store.workspace || store.workspace.path === path)) {
        void store.serial(async () => {
          const w = store.workspace;
          if (w && w.path === path && (await fsp.readFile(path, 'utf8').catch(() => undefined)) === text) return false;
          store.setWorkspace(await store.fromFile('workspace', path, text));
          return true;
        }).then((changed) => { if (changed) catalogsChanged(); }, (e: Error) => log(`catalog: ${e.message}`));
      }
      // Other copies (remote scheme, a second checkout) get their own catalog on the first lens request.
      return;
    }
    schedule(uri);
  });

  connection.onDidChangeTextDocument((p) => {
    const d = docs.get(p.textDocument.uri);
    if (!d) return;
    const before = d.doc.version;
    d.doc = TextDocument.update(d.doc, p.contentChanges, p.textDocument.version);
    if (!d.isServerArgs) {
      schedule(d.doc.uri);
      return;
    }
    const path = uriToPath(d.doc.uri);
    const full = p.contentChanges.some((c) => !('range' in c));
    const edits: CatalogEdit[] = p.contentChanges.filter((c): c is typeof c & { range: CatalogEdit['range'] } => 'range' in c)
      .map((c) => ({ range: c.range, text: c.text }));
    if (!path || !store.workspace || store.workspace.path !== path) {
      // A document's own catalog follows its edits incrementally; without one, the next lens request builds it.
      const uri = d.doc.uri;
      const version = d.doc.version;
      if (!docCatalogs.has(uri)) return;
      void store.serial(() => {
        const own = docCatalogs.get(uri);
        if (!own) return;
        if (full || own.version !== before) {
          dropDocCatalog(uri);
          return;
        }
        try {
          docCatalogs.set(uri, { catalog: updateCatalog(own.catalog, edits), version });
        } catch {
          dropDocCatalog(uri);
        }
      }).catch((e: Error) => log(`document catalog update: ${e.message}`));
      return;
    }
    const text = d.doc.getText();
    void store.serial(async () => {
      if (full) store.setWorkspace(await store.fromFile('workspace', path, text));
      else store.applyEdits(edits);
    }).then(catalogsChanged, (e: Error) => log(`catalog update: ${e.message}`));
  });

  connection.onDidCloseTextDocument((p) => {
    docs.delete(p.textDocument.uri);
    const uri = p.textDocument.uri;
    if (docCatalogs.has(uri)) void store.serial(() => dropDocCatalog(uri));
    void connection.sendDiagnostics({ uri: p.textDocument.uri, diagnostics: [] });
  });

  // ---------------------------------------------------------------- features
  connection.onHover(guard(null, (p) => {
    const d = docs.get(p.textDocument.uri);
    return d ? hover(analysisOf(d), p.position, store.active()) : null;
  }));

  connection.onCompletion(guard(null, (p) => {
    const d = docs.get(p.textDocument.uri);
    if (!d) return null;
    return complete(analysisOf(d), d.doc.getText(), d.doc.offsetAt(p.position), p.position, store.active(), { editRangeDefault });
  }));

  connection.onCompletionResolve(async (item) => {
    await ready;
    try {
      return resolveCompletion(item, store.active());
    } catch (e) {
      log(`error: ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
      return item;
    }
  });

  connection.onDefinition(guard(null, (p) => {
    const d = docs.get(p.textDocument.uri);
    return d ? definition(analysisOf(d), p.position, store.active()) : null;
  }));

  connection.onDocumentSymbol(guard([], (p) => {
    const d = docs.get(p.textDocument.uri);
    return d ? symbols(analysisOf(d)) : [];
  }));

  connection.onCodeAction(guard([] as CodeAction[], (p) => {
    const d = docs.get(p.textDocument.uri);
    if (!d) return [];
    const current = analysisOf(d).diagnostics;
    const out: CodeAction[] = [];
    for (const cd of p.context.diagnostics) {
      if (cd.source !== DIAGNOSTIC_SOURCE) continue;
      const same = current.find((x) => x.message === cd.message && x.range.start.line === cd.range.start.line && x.range.start.character === cd.range.start.character);
      const data = (same?.data ?? cd.data) as FixData | undefined;
      for (const fix of data?.fixes ?? []) {
        out.push({
          // Titles quote flag names, values and rule fixes from workspace files: controls shown.
          title: showControls(fix.title), kind: CodeActionKind.QuickFix, diagnostics: [cd], isPreferred: !!fix.preferred,
          edit: { changes: { [d.doc.uri]: fix.edits } },
        });
      }
    }
    return out;
  }));

  connection.onCodeLens(guard([] as CodeLens[], async (p) => {
    const d = docs.get(p.textDocument.uri);
    if (!d?.isServerArgs) return [];
    const catalog = await store.serial(() => catalogOfDoc(d));
    return catalog ? codeLensesFor(catalog, d.doc.uri, store.runtime?.index) : [];
  }));

  onCustomRequest(connection, 'inferenceDoctor/catalogStatus', guard(status(), () => status()));

  onCustomRequest(connection, 'inferenceDoctor/catalogEntries', guard<[CatalogEntriesParams], CatalogEntriesResult>({ generation: -1, source: null, entries: [], choiceLists: [] },
    async (p: CatalogEntriesParams) => {
      // Pending catalog work (edits, loads) first, so the answer matches the latest text.
      await store.serial(() => undefined);
      return catalogEntries(p);
    }));

  onCustomRequest(connection, 'inferenceDoctor/flagsForDocument', guard([] as DocumentCommand[], (p: FlagsForDocumentParams) => {
    const d = docs.get(p.uri);
    if (!d) return [];
    return analysisOf(d).commands.map((ac) => ({
      entry: ac.cmd.entry, range: ac.cmd.range, env: ac.env, rules: ac.matches.map((m) => m.rule.id),
      flags: ac.flags.map((f) => ({
        name: f.arg.name!, field: f.field, values: (f.arg.values ?? []).map((v) => v.value), known: !!f.entry,
        range: f.arg.range, ...(f.entry ? { canonical: f.entry.flag } : {}),
      })),
    }));
  }));

  onCustomNotification(connection, 'inferenceDoctor/setRuntimeCatalog', (p) => {
    void ready.then(() => {
      const errors = store.setRuntime(p ?? { catalog: null });
      for (const e of errors) log(e);
      catalogsChanged();
      refreshCodeLenses();
    }).catch((e: Error) => log(`runtime catalog: ${e.message}`));
  });

  connection.listen();
}
