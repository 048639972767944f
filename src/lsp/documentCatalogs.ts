/**
 * Catalogs of open server_args.py documents that are not the workspace catalog (remote scheme, a
 * second checkout), for their code lenses. Built on the first lens request, then kept current
 * with the document's edits. Every method runs inside store.serial (tree handover is not re-entrant).
 */
import { buildCatalog, disposeCatalog, updateCatalog, type CatalogEdit, type FlagCatalog } from '../core/flags';
import type { CatalogStore } from './catalogs';
import { relative, sep } from 'node:path';
import { uriToPath, type Doc } from './documents';

interface DocCatalog {
  catalog: FlagCatalog;
  version: number;
}

export class DocumentCatalogs {
  private readonly byUri = new Map<string, DocCatalog>();

  constructor(
    private readonly store: CatalogStore,
    /** False once the document was closed or reopened: a build that finishes late is dropped. */
    private readonly isCurrent: (d: Doc) => boolean,
  ) {}

  has(uri: string): boolean {
    return this.byUri.has(uri);
  }

  drop(uri: string): void {
    const c = this.byUri.get(uri);
    this.byUri.delete(uri);
    if (c) disposeCatalog(c.catalog);
  }

  /**
   * A field file of the split package the workspace catalog is read from: the workspace entries
   * defined in it (their choices resolved across the package), one object per workspace catalog.
   */
  private workspacePart(d: Doc): FlagCatalog | undefined {
    const w = this.store.workspace;
    const path = uriToPath(d.doc.uri);
    if (!d.isFieldFile || !w?.packageRoot || !path) return undefined;
    const rel = relative(w.packageRoot, path).split(sep).join('/');
    if (rel.startsWith('..')) return undefined;
    const whole = w.index.catalog;
    const cached = this.parts.get(whole)?.get(rel);
    if (cached) return cached;
    const entries = whole.entries.filter((e) => e.file === rel);
    if (!entries.length) return undefined;
    const part: FlagCatalog = { entries, choiceLists: whole.choiceLists.filter((l) => l.file === rel), era: whole.era, diagnostics: [] };
    if (!this.parts.has(whole)) this.parts.set(whole, new Map());
    this.parts.get(whole)!.set(rel, part);
    return part;
  }

  private readonly parts = new WeakMap<FlagCatalog, Map<string, FlagCatalog>>();

  /** True when the workspace catalog is built from this document. */
  private backsWorkspace(d: Doc): boolean {
    const path = uriToPath(d.doc.uri);
    return !!path && this.store.workspace?.path === path;
  }

  /**
   * The catalog of an open server_args.py, current with its text: the workspace catalog when the
   * document is that file, else its own (built once, then updated incrementally by followEdits;
   * rebuilt only when a change raced a build).
   */
  async catalogOf(d: Doc): Promise<FlagCatalog | undefined> {
    const part = this.workspacePart(d);
    if (part) {
      this.drop(d.doc.uri);
      return part;
    }
    if (this.backsWorkspace(d)) {
      this.drop(d.doc.uri);
      return this.store.workspace?.index.catalog;
    }
    const own = this.byUri.get(d.doc.uri);
    if (own && own.version === d.doc.version) return own.catalog;
    this.drop(d.doc.uri);
    const version = d.doc.version;
    const catalog = await buildCatalog(d.doc.getText(), { ...this.store.parserOpts, keepTree: true });
    if (!this.isCurrent(d)) {
      disposeCatalog(catalog);
      return undefined;
    }
    this.byUri.set(d.doc.uri, { catalog, version });
    return catalog;
  }

  /**
   * Applies a document's edits to its own catalog. `before` is the version the edits apply to; a
   * full-text change, a version gap or a failed update drops the catalog (the next lens request
   * builds it again).
   */
  followEdits(uri: string, before: number, version: number, full: boolean, edits: CatalogEdit[]): void {
    const own = this.byUri.get(uri);
    if (!own) return;
    if (full || own.version !== before) {
      this.drop(uri);
      return;
    }
    try {
      this.byUri.set(uri, { catalog: updateCatalog(own.catalog, edits), version });
    } catch {
      this.drop(uri);
    }
  }
}
