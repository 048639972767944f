/**
 * Flag → /server_info field mapping for the "launch file vs /server_info" diff, from the flag
 * catalog the language server has active (the workspace's server_args.py, else a runtime catalog
 * read from an installed SGLang, else the configured file). The server already holds it, so
 * nothing is parsed twice. When it cannot answer (does not start, no catalog, too slow) the diff
 * uses core's built-in table instead. No vscode import here: the loader is the flags client's
 * `catalogEntries` (or a test's).
 */
import { fieldResolverFromCatalog, type FlagFieldResolver } from '../core/remote/compare';
import type { CatalogEntriesResult } from '../shared/lspProtocol';
import { errorMessage } from '../core/errors';

export type CatalogEntriesLoader = () => Promise<CatalogEntriesResult | undefined>;

export interface CatalogFields {
  /** Undefined: use the built-in table. */
  resolver?: FlagFieldResolver;
  /** For the summary line: "runtime catalog gpu-box · python3", "built-in table". */
  source: string;
  /** Why the catalog was not used, when it was not. */
  note?: string;
}

/**
 * The active catalog's resolver, or the built-in table. Never throws and never waits longer than
 * `timeoutMs` (a cold language server start must not hold up the diff).
 */
export async function catalogFieldResolver(load: CatalogEntriesLoader, timeoutMs = 8000): Promise<CatalogFields> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    const r = await Promise.race([load(), timeout]);
    if (r === 'timeout') return { source: 'built-in table', note: `the flags language server did not answer within ${timeoutMs} ms` };
    if (!r?.source || !Array.isArray(r.entries) || r.entries.length === 0) return { source: 'built-in table', note: 'no flag catalog is loaded' };
    const version = r.source.version ? ` ${r.source.version}` : '';
    return { resolver: fieldResolverFromCatalog(r.entries), source: `${r.source.kind} catalog ${r.source.label}${version}` };
  } catch (e) {
    return { source: 'built-in table', note: `the flag catalog could not be read: ${errorMessage(e)}` };
  } finally {
    if (timer) clearTimeout(timer);
  }
}
