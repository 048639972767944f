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

/** The vLLM catalog's file, next to SGLang's. */
export const VLLM_BUNDLED_FILE = 'vllm-catalog.json';

const ENGINE_LABEL: Record<string, string> = { [BUNDLED_FILE]: 'SGLang', [VLLM_BUNDLED_FILE]: 'vLLM' };

/** Where the file is for a bundle in `baseDir` (dist/), or from this source file in the repository. */
export function bundledCatalogPath(baseDir?: string, file = BUNDLED_FILE): string | undefined {
  const candidates = [...(baseDir ? [join(baseDir, 'data', file)] : []), join(__dirname, 'data', file), join(__dirname, '..', '..', '..', '..', 'data', file)];
  return candidates.find((p) => existsSync(p));
}

export function parseBundledCatalog(text: string, engine = 'SGLang'): BundledCatalog {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`The bundled ${engine} catalog is not valid JSON: ${errorMessage(error)}`);
  }
  const d = json as Partial<BundledCatalogData>;
  if (!d || d.schema !== BUNDLED_SCHEMA || !Array.isArray(d.releases) || !Array.isArray(d.flags) || !Array.isArray(d.choiceSets))
    throw new Error(`The bundled ${engine} catalog has an unknown shape (schema ${String(d?.schema)}, expected ${BUNDLED_SCHEMA})`);
  return new BundledCatalog(d as BundledCatalogData);
}

const cache = new Map<string, Promise<BundledCatalog>>();

/** The bundled catalog, read once per path; rejects with a clear message when the file is missing or damaged. */
export function loadBundledCatalog(baseDir?: string, file = BUNDLED_FILE): Promise<BundledCatalog> {
  const engine = ENGINE_LABEL[file] ?? file;
  const path = bundledCatalogPath(baseDir, file);
  if (!path) return Promise.reject(new Error(`The bundled ${engine} catalog (${file}) is missing from this installation`));
  let p = cache.get(path);
  if (!p) {
    p = fsp.readFile(path, 'utf8').then((t) => parseBundledCatalog(t, engine));
    p.catch(() => cache.delete(path));
    cache.set(path, p);
  }
  return p;
}
