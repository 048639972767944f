/**
 * Document sync: open, change and close keep the server's own document store, the workspace
 * catalog (when the document is its server_args.py) and per-document catalogs current, and
 * schedule diagnostics.
 */
import { promises as fsp } from 'node:fs';
import type { DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { errorMessage } from '../../core/errors';
import type { CatalogEdit } from '../../core/flags';
import { openDoc, uriToPath } from '../documents';
import type { ServerState } from '../state';

function opened(state: ServerState, p: DidOpenTextDocumentParams): void {
  const { store } = state;
  const { uri, languageId, version, text } = p.textDocument;
  const d = openDoc(uri, languageId, version, text);
  state.docs.set(uri, d);
  if (!d.isServerArgs) {
    state.diagnostics.schedule(uri);
    return;
  }
  // A field file of a split package: lenses from its own catalog (first lens request).
  if (d.isFieldFile) return;
  const path = uriToPath(uri);
  if (path && (!store.workspace || store.workspace.path === path)) {
    void store
      .serial(async () => {
        const w = store.workspace;
        if (w && w.path === path && (await fsp.readFile(path, 'utf8').catch(() => undefined)) === text) return false;
        store.setWorkspace(await store.fromFile('workspace', path, text));
        return true;
      })
      .then(
        (changed) => {
          if (changed) state.catalogsChanged();
        },
        (e: unknown) => state.log(`catalog: ${errorMessage(e)}`),
      );
  }
  // Other copies (remote scheme, a second checkout) get their own catalog on the first lens request.
}

function changed(state: ServerState, p: DidChangeTextDocumentParams): void {
  const { store } = state;
  const d = state.docs.get(p.textDocument.uri);
  if (!d) return;
  const before = d.doc.version;
  d.doc = TextDocument.update(d.doc, p.contentChanges, p.textDocument.version);
  if (!d.isServerArgs) {
    state.diagnostics.schedule(d.doc.uri);
    return;
  }
  const path = uriToPath(d.doc.uri);
  const full = p.contentChanges.some((c) => !('range' in c));
  const edits: CatalogEdit[] = p.contentChanges
    .filter((c): c is typeof c & { range: CatalogEdit['range'] } => 'range' in c)
    .map((c) => ({ range: c.range, text: c.text }));
  if (!path || !store.workspace || store.workspace.path !== path) {
    // A document's own catalog follows its edits incrementally; without one, the next lens request builds it.
    const uri = d.doc.uri;
    const version = d.doc.version;
    const w = store.workspace;
    // A field file of the split package the workspace catalog is read from: that catalog is rebuilt.
    if (d.isFieldFile && path && w?.packageRoot && w.path && path.startsWith(w.packageRoot)) {
      const wsPath = w.path;
      const overlay = new Map([[path, d.doc.getText()]]);
      void store
        .serial(async () => store.setWorkspace(await store.fromFile('workspace', wsPath, openText(state, wsPath), overlay)))
        .then(
          () => state.catalogsChanged(),
          (e: unknown) => state.log(`catalog update: ${errorMessage(e)}`),
        );
    }
    if (!state.docCatalogs.has(uri)) return;
    void store
      .serial(() => state.docCatalogs.followEdits(uri, before, version, full, edits))
      .catch((e: unknown) => state.log(`document catalog update: ${errorMessage(e)}`));
    return;
  }
  const text = d.doc.getText();
  void store
    .serial(async () => {
      // A split package's catalog keeps no syntax tree: every edit rebuilds it.
      if (full || store.workspace?.packageRoot) store.setWorkspace(await store.fromFile('workspace', path, text));
      else store.applyEdits(edits);
    })
    .then(
      () => state.catalogsChanged(),
      (e: unknown) => state.log(`catalog update: ${errorMessage(e)}`),
    );
}

/** The editor's text of a file when it is open, else undefined (read from disk). */
function openText(state: ServerState, path: string): string | undefined {
  for (const d of state.docs.values()) if (uriToPath(d.doc.uri) === path) return d.doc.getText();
  return undefined;
}

function closed(state: ServerState, p: DidCloseTextDocumentParams): void {
  const { uri } = p.textDocument;
  state.docs.delete(uri);
  if (state.docCatalogs.has(uri)) void state.store.serial(() => state.docCatalogs.drop(uri));
  void state.connection.sendDiagnostics({ uri, diagnostics: [] });
}

export function registerDocumentSync(state: ServerState): void {
  state.connection.onDidOpenTextDocument((p) => opened(state, p));
  state.connection.onDidChangeTextDocument((p) => changed(state, p));
  state.connection.onDidCloseTextDocument((p) => closed(state, p));
}
