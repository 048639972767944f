/** The custom methods of src/shared/lspProtocol.ts: catalog status and entries, a document's flags, the runtime catalog. */
import { errorMessage } from '../../core/errors';
import {
  onCustomNotification,
  onCustomRequest,
  type CatalogEntriesParams,
  type CatalogEntriesResult,
  type DocumentCommand,
  type FlagsForDocumentParams,
} from '../../shared/lspProtocol';
import { infoOf, type CatalogStore, type LoadedCatalog } from '../catalogs';
import type { ServerState } from '../state';

/**
 * The bundled releases a request falls back to: SGLang's configured one, and the vLLM release of
 * the document named in the request (absent: the newest bundled snapshot).
 */
export interface BundledVersions {
  sglang?: string;
  vllm?: string;
}

/** The catalog a request asks for: vLLM's (installed, else bundled), the bundled vLLM of a release, or SGLang's active one. */
function requestedCatalog(store: CatalogStore, p: CatalogEntriesParams | undefined, versions: BundledVersions): LoadedCatalog | undefined {
  if (p?.bundledVllm) return store.vllmBundledFor(p.bundledVllm.version)?.loaded;
  if (p?.engine === 'vllm') return store.vllmRuntime ?? store.vllmBundledFor(versions.vllm)?.loaded;
  // With no catalog of the user's, the bundled catalog of the configured (else newest) release;
  // never for staticOnly, which asks for a source file to compare an installed SGLang with.
  return store.activeLoaded(p?.staticOnly) ?? (p?.staticOnly ? undefined : store.bundledFor(versions.sglang)?.loaded);
}

/**
 * The active catalog's entries, or `unchanged` when the client already has this generation.
 * `releasesGeneration` counts what is known of the documents' releases (pins read near them): a
 * vLLM document's catalog follows its pin, so the answer's generation moves with it too (a sum of
 * two counters that only grow moves whenever either does).
 */
export function catalogEntries(
  store: CatalogStore,
  p: CatalogEntriesParams | undefined,
  versions: BundledVersions = {},
  releasesGeneration = 0,
): CatalogEntriesResult {
  const generation = store.generation + releasesGeneration;
  if (p?.knownGeneration === generation) return { generation, unchanged: true, source: null, entries: [], choiceLists: [] };
  const active = requestedCatalog(store, p, versions);
  if (!active) return { generation, source: null, entries: [], choiceLists: [] };
  const { catalog, meta } = active.index;
  const result: CatalogEntriesResult = {
    generation,
    source: infoOf(active),
    entries: catalog.entries,
    choiceLists: catalog.choiceLists,
  };
  // vLLM's flags have no server_args.py: an installed vLLM's entries are not looked up in SGLang's file.
  if (meta.engine === 'vllm') return result;
  if (meta.kind !== 'runtime') {
    if (meta.uri) result.definitionUri = meta.uri;
    if (meta.baseUri) result.definitionBaseUri = meta.baseUri;
    return result;
  }
  // Runtime entries have no lines of their own: point them at the file catalog holding the same fields.
  const file = store.workspace ?? store.settings;
  if (file?.index.meta.uri) {
    result.definitionUri = file.index.meta.uri;
    const lines: Record<string, number> = {};
    const files: Record<string, string> = {};
    for (const e of catalog.entries) {
      const s = file.index.byOption.get(e.flag) ?? file.index.byField.get(e.field);
      if (s && s.line > 0) lines[e.field] = s.line;
      if (s?.file) files[e.field] = s.file;
    }
    result.definitionLines = lines;
    if (file.index.meta.baseUri) {
      result.definitionBaseUri = file.index.meta.baseUri;
      result.definitionFiles = files;
    }
  }
  return result;
}

function flagsForDocument(state: ServerState, p: FlagsForDocumentParams): DocumentCommand[] {
  const d = state.docs.get(p.uri);
  if (!d) return [];
  return state.analysisOf(d).commands.map((ac) => ({
    entry: ac.cmd.entry,
    engine: ac.cmd.engine,
    range: ac.cmd.range,
    env: ac.env,
    rules: ac.matches.map((m) => m.rule.id),
    flags: ac.flags.map((f) => ({
      name: f.arg.name!,
      field: f.field,
      values: (f.arg.values ?? []).map((v) => v.value),
      known: !!f.entry,
      range: f.arg.range,
      ...(f.entry ? { canonical: f.entry.flag } : {}),
    })),
  }));
}

/** The vLLM release the request's document runs, when it names one (an image tag or pin in it or beside it). */
function vllmVersionOf(state: ServerState, p: CatalogEntriesParams | undefined): string | undefined {
  const d = p?.engine === 'vllm' && p.uri ? state.docs.get(p.uri) : undefined;
  const chosen = d ? state.releases.chooseVllm(d)?.chosen : undefined;
  return chosen && chosen.source !== 'default' ? chosen.version : undefined;
}

export function registerCustomMethods(state: ServerState): void {
  const { connection, store } = state;

  onCustomRequest(
    connection,
    'inferenceDoctor/catalogStatus',
    state.guard(state.status(), () => state.status()),
  );

  onCustomRequest(
    connection,
    'inferenceDoctor/catalogEntries',
    state.guard<[CatalogEntriesParams], CatalogEntriesResult>(
      { generation: -1, source: null, entries: [], choiceLists: [] },
      async (p: CatalogEntriesParams) => {
        // Pending catalog work (edits, loads) first, so the answer matches the latest text.
        await store.serial(() => undefined);
        const vllm = vllmVersionOf(state, p);
        return catalogEntries(store, p, { sglang: state.settings.sglangVersion?.trim() || undefined, vllm }, state.releases.generation);
      },
    ),
  );

  onCustomRequest(
    connection,
    'inferenceDoctor/flagsForDocument',
    state.guard([] as DocumentCommand[], (p: FlagsForDocumentParams) => flagsForDocument(state, p)),
  );

  onCustomNotification(connection, 'inferenceDoctor/setHostGpu', (p) => {
    void state.ready
      .then(() => {
        store.setHostGpu(p ?? { hostLabel: '' });
        state.catalogsChanged();
      })
      .catch((e: unknown) => state.log(`host GPU: ${errorMessage(e)}`));
  });

  onCustomNotification(connection, 'inferenceDoctor/setServerRelease', (p) => {
    void state.ready
      .then(() => {
        state.releases.setServer(p ?? { label: '' });
        state.diagnostics.scheduleAll(state.docs.keys());
      })
      .catch((e: unknown) => state.log(`server release: ${errorMessage(e)}`));
  });

  onCustomNotification(connection, 'inferenceDoctor/setRuntimeCatalog', (p) => {
    void state.ready
      .then(() => {
        const errors = store.setRuntime(p ?? { catalog: null });
        for (const e of errors) state.log(e);
        state.catalogsChanged();
        state.refreshCodeLenses();
      })
      .catch((e: unknown) => state.log(`runtime catalog: ${errorMessage(e)}`));
  });
}
