/**
 * What every handler of the language server shares: catalogs, open documents, rules, settings,
 * what the client supports and the start-up gate. One typed object, so each group of handlers is
 * a register function of it (src/lsp/handlers/).
 */
import { dirname } from 'node:path';
import type { Connection, Diagnostic } from 'vscode-languageserver';
import { errorDetail, errorMessage } from '../core/errors';
import { showControls } from '../core/text/foreign';
import { sendCustomNotification, type CatalogStatus, type FlagsSettings } from '../shared/lspProtocol';
import { analyzeText, type Analysis, type RuleEnv } from './analysis';
import { CatalogStore, infoOf, parserOptions } from './catalogs';
import { DiagnosticsScheduler } from './diagnosticsScheduler';
import { DocumentCatalogs } from './documentCatalogs';
import { uriToPath, type Doc } from './documents';
import type { CatalogIndex } from './catalogIndex';
import { ReleaseFinder } from './releases';
import { RulesLoader } from './rulesLoader';
import { pinnedRelease } from '../core/release/context';

const EMPTY: Analysis = { commands: [], diagnostics: [] };
/** Requests wait for the initial load, but never longer than this. */
const READY_TIMEOUT_MS = 15_000;

/** What the client said it supports, at initialize. */
export interface ClientSupport {
  configuration: boolean;
  codeLensRefresh: boolean;
  /** completionList.itemDefaults.editRange */
  editRangeDefault: boolean;
}

export class ServerState {
  readonly store: CatalogStore;
  readonly docs = new Map<string, Doc>();
  readonly docCatalogs: DocumentCatalogs;
  readonly rules: RulesLoader;
  readonly diagnostics: DiagnosticsScheduler;
  readonly releases: ReleaseFinder;
  /** Resolves when the initial load is done (markReady), or after READY_TIMEOUT_MS. */
  readonly ready: Promise<void>;
  readonly markReady: () => void;
  client: ClientSupport = { configuration: false, codeLensRefresh: false, editRangeDefault: false };
  folders: string[] = [];
  settings: FlagsSettings = {};
  private toldNoCatalog = false;

  constructor(
    readonly connection: Connection,
    baseDir: string,
  ) {
    this.store = new CatalogStore(parserOptions(baseDir), baseDir);
    let resolve!: () => void;
    this.ready = new Promise<void>((r) => {
      resolve = r;
    });
    this.markReady = () => resolve();
    setTimeout(() => resolve(), READY_TIMEOUT_MS).unref();
    this.rules = new RulesLoader((m) => this.log(m));
    this.docCatalogs = new DocumentCatalogs(this.store, (d) => this.docs.get(d.doc.uri) === d);
    this.diagnostics = new DiagnosticsScheduler(this.ready, (uri) => this.publishDiagnostics(uri));
    this.releases = new ReleaseFinder(
      this.store,
      () => this.folders,
      (dir) => {
        this.diagnostics.scheduleAll([...this.docs.keys()].filter((uri) => dirname(uriToPath(uri) ?? '') === dir));
        // A pin read after the Backend Flags view asked can change the vLLM release it shows.
        this.notifyCatalogChanged();
      },
    );
  }

  /** The catalog a document is checked against: the workspace/runtime/settings one, else the bundled catalog of its release. */
  indexFor(d: Doc | undefined): CatalogIndex | undefined {
    // The analysis chose it (cached with it), so a hover does not choose the release again.
    if (d) this.analysisOf(d);
    return d?.cache?.index ?? this.store.active() ?? this.store.bundledFor(this.settings.sglangVersion?.trim() || undefined)?.loaded.index;
  }

  /** Log lines quote workspace paths and file contents: controls shown, as in every other log. */
  log(m: string): void {
    this.connection.console.log(`[inference-doctor] ${showControls(m)}`);
  }

  /** A request handler that waits for start-up and answers `fallback` (logged) when it throws. */
  guard<A extends unknown[], R>(fallback: R, fn: (...a: A) => R | Promise<R>): (...a: A) => Promise<R> {
    return async (...a: A): Promise<R> => {
      try {
        await this.ready;
        return await fn(...a);
      } catch (e) {
        this.log(`error: ${errorDetail(e)}`);
        return fallback;
      }
    };
  }

  /** The document's analysis, cached until its text, the catalogs, the rules or the rule setting change. */
  analysisOf(d: Doc): Analysis {
    if (!d.hint || d.isServerArgs) return EMPTY;
    const diagnostics = this.settings.ruleDiagnostics !== false;
    const key = `${d.doc.version}|${this.store.generation}|${this.rules.generation}|${this.releases.generation}|${this.settings.sglangVersion ?? ''}|${diagnostics}`;
    if (d.cache?.key === key) return d.cache.analysis;
    const choice = this.releases.choose(d, this.settings.sglangVersion);
    const release = this.releases.context(choice);
    const index = this.store.active() ?? this.store.bundledFor(choice?.chosen.release ?? choice?.chosen.version)?.loaded.index;
    // Version-ranged rules read the release the file runs when the host did not say.
    const pinned = pinnedRelease(choice);
    const versions = pinned && !this.store.packageVersions?.sglang ? { ...this.store.packageVersions, sglang: pinned } : this.store.packageVersions;
    const text = d.doc.getText();
    const vllm = text.includes('vllm') ? this.vllmContextOf(d) : undefined;
    const analysis = analyzeText(text, d.hint, index, {
      rules: this.rules.rules,
      computeCapability: this.store.ruleComputeCapability(),
      versions,
      diagnostics,
      ...(release ? { release } : {}),
      ...(text.includes('vllm') ? { vllm: vllm ?? {} } : {}),
      fileName: uriToPath(d.doc.uri) ?? decodeURIComponent(d.doc.uri.split(/[?#]/)[0].split('/').pop() ?? ''),
    });
    d.cache = { key, analysis, ...(index ? { index } : {}) };
    return analysis;
  }

  /** A document's vLLM release, and its catalog: the installed vLLM's when one was loaded, else the bundled release's. */
  private vllmContextOf(d: Doc): RuleEnv['vllm'] {
    const bundled = this.releases.vllmContext(this.releases.chooseVllm(d));
    const installed = this.store.vllmRuntime?.index;
    if (!installed) return bundled;
    return { index: installed, ...(bundled ? { release: bundled.release } : {}) };
  }

  private publishDiagnostics(uri: string): void {
    const d = this.docs.get(uri);
    if (!d) return;
    let diagnostics: Diagnostic[] = [];
    try {
      diagnostics = this.analysisOf(d).diagnostics;
    } catch (e) {
      this.log(`diagnostics failed for ${uri}: ${errorMessage(e)}`);
    }
    void this.connection.sendDiagnostics({ uri, version: d.doc.version, diagnostics });
  }

  status(): CatalogStatus {
    const sources = this.store.loaded().map(infoOf);
    const bundled = this.store.bundledFor(this.settings.sglangVersion?.trim() || undefined);
    if (bundled) sources.push(infoOf(bundled.loaded));
    else if (this.store.bundledError) sources.push({ kind: 'bundled', label: 'bundled catalog', era: 'unknown', flags: 0, errors: [this.store.bundledError] });
    return {
      active: sources[0] ?? null,
      sources,
      ...(this.store.vllmRuntime ? { vllmRuntime: infoOf(this.store.vllmRuntime) } : {}),
      rules: { count: this.rules.rules.length, errors: this.rules.errors, files: this.rules.files },
      ...(this.store.ruleComputeCapability() !== undefined ? { computeCapability: this.store.ruleComputeCapability() } : {}),
    };
  }

  /** After any catalog or rules change: tell the client, and diagnose every open document again. */
  catalogsChanged(): void {
    if (!this.store.active() && !this.store.bundled && !this.toldNoCatalog) {
      this.toldNoCatalog = true;
      this.log('no catalog: open a server_args.py or set inferenceDoctor.flags.serverArgsPath (rule checks still run)');
    }
    this.notifyCatalogChanged();
    this.diagnostics.scheduleAll(this.docs.keys());
  }

  /** Tells the client to ask for the catalog again (the Backend Flags view asks only for what changed). */
  notifyCatalogChanged(): void {
    void sendCustomNotification(this.connection, 'inferenceDoctor/catalogChanged', this.status());
  }

  refreshCodeLenses(): void {
    if (this.client.codeLensRefresh) void this.connection.sendRequest('workspace/codeLens/refresh').then(undefined, () => undefined);
  }
}
