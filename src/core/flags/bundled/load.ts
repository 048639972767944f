/**
 * Finding and reading the bundled catalog file: dist/data/ next to a bundle, else the repository's
 * data/ (tests and tsx runs). Read once per process, on first use.
 */
import { existsSync, promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '../../errors';
import { BundledCatalog } from './query';
import { BUNDLED_SCHEMA, type BundledCatalogData } from './types';

export const BUNDLED_FILE = 'sglang-catalog.json';

/** Where the file is for a bundle in `baseDir` (dist/), or from this source file in the repository. */
export function bundledCatalogPath(baseDir?: string): string | undefined {
  const candidates = [
    ...(baseDir ? [join(baseDir, 'data', BUNDLED_FILE)] : []),
    join(__dirname, 'data', BUNDLED_FILE),
    join(__dirname, '..', '..', '..', '..', 'data', BUNDLED_FILE),
  ];
  return candidates.find((p) => existsSync(p));
}

export function parseBundledCatalog(text: string): BundledCatalog {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`The bundled SGLang catalog is not valid JSON: ${errorMessage(error)}`);
  }
  const d = json as Partial<BundledCatalogData>;
  if (!d || d.schema !== BUNDLED_SCHEMA || !Array.isArray(d.releases) || !Array.isArray(d.flags) || !Array.isArray(d.choiceSets))
    throw new Error(`The bundled SGLang catalog has an unknown shape (schema ${String(d?.schema)}, expected ${BUNDLED_SCHEMA})`);
  return new BundledCatalog(d as BundledCatalogData);
}

const cache = new Map<string, Promise<BundledCatalog>>();

/** The bundled catalog, read once per path; rejects with a clear message when the file is missing or damaged. */
export function loadBundledCatalog(baseDir?: string): Promise<BundledCatalog> {
  const path = bundledCatalogPath(baseDir);
  if (!path) return Promise.reject(new Error(`The bundled SGLang catalog (${BUNDLED_FILE}) is missing from this installation`));
  let p = cache.get(path);
  if (!p) {
    p = fsp.readFile(path, 'utf8').then(parseBundledCatalog);
    p.catch(() => cache.delete(path));
    cache.set(path, p);
  }
  return p;
}
