/**
 * Which SGLang release each launch document runs: the selected server's /server_info, the host's
 * installed SGLang (runtime catalog), an image tag in the document, a pin in a file near it
 * (requirements, pyproject, lock files, Dockerfiles, compose files), the setting, else the newest
 * bundled release. Files near a document are read in the background, cached per directory; when
 * they arrive the documents of that directory are diagnosed again.
 */
import { promises as fsp } from 'node:fs';
import { dirname } from 'node:path';
import { chooseBundledRelease, releaseContext } from '../core/release/context';
import { readVllmPins, vllmReleasesInText } from '../core/release/vllm';
import { normalizeVersion } from '../core/release/version';
import { vllmReleaseContext } from '../core/flags/vllm/bundled';
import {
  chooseRelease,
  detectWorkspaceReleases,
  fromHostPackages,
  fromImageTags,
  fromServerInfo,
  fromSetting,
  type ReleaseCandidate,
  type ReleaseChoice,
} from '../core/release/detect';
import type { SetServerReleaseParams } from '../shared/lspProtocol';
import type { ReleaseContext } from './analysis';
import type { CatalogStore } from './catalogs';
import type { CatalogIndex } from './catalogIndex';
import { uriToPath, type Doc } from './documents';

/** Files near a document are looked at again after this long. */
const NEARBY_TTL_MS = 15_000;

interface Nearby {
  at: number;
  candidates: ReleaseCandidate[];
  pending?: Promise<void>;
}

export class ReleaseFinder {
  private readonly nearby = new Map<string, Nearby>();
  private server?: ReleaseCandidate;
  /** Bumped when what is known changes (part of the analysis cache key). */
  generation = 0;

  constructor(
    private readonly store: CatalogStore,
    private readonly roots: () => string[],
    /** Called with a directory whose nearby files were read. */
    private readonly onNearby: (dir: string) => void,
  ) {}

  private readonly vllmNearby = new Map<string, Nearby>();

  /**
   * The vLLM release a document's vLLM commands run: an image tag or a `vllm==` pin in it, else in
   * the files next to it; else none (the newest bundled snapshot answers).
   */
  chooseVllm(d: Doc): ReleaseChoice | undefined {
    const b = this.store.vllmBundled;
    if (!b) return undefined;
    const path = uriToPath(d.doc.uri);
    const name = path ?? d.doc.uri.split(/[\\/]/).pop() ?? 'this file';
    const candidates = [
      this.installedVllm(),
      ...safe(() => vllmReleasesInText(d.doc.getText(), name)),
      ...(path ? this.vllmNearbyOf(dirname(path), path) : []),
    ];
    const known = b.releases.map((r) => r.version).filter((v) => v !== 'main');
    return chooseRelease(candidates, known, b.newest().release.version);
  }

  /** The version of the vLLM whose flags were loaded (a runtime catalog), as the host's release. */
  private installedVllm(): ReleaseCandidate | undefined {
    const meta = this.store.vllmRuntime?.index.meta;
    const version = meta?.version ? normalizeVersion(meta.version) : undefined;
    return version ? { version, exact: true, source: 'host', detail: `vllm ${version} installed on ${meta!.label}` } : undefined;
  }

  /** The vLLM catalog and analysis context of a document's choice. */
  vllmContext(choice: ReleaseChoice | undefined): { index: CatalogIndex; release: ReleaseContext } | undefined {
    const b = this.store.vllmBundled;
    if (!b) return undefined;
    const { match, release } = vllmReleaseContext(b, choice);
    const picked = this.store.vllmIndexOf(match);
    return picked ? { index: picked, release } : undefined;
  }

  private vllmNearbyOf(dir: string, self: string): ReleaseCandidate[] {
    return this.cached(this.vllmNearby, dir, () => readVllmPins(dir, self));
  }

  /**
   * The candidates read near `dir`, from `cache` while fresh; otherwise read again in the
   * background (what was there meanwhile counts), and documents re-analysed when they changed.
   */
  private cached(cache: Map<string, Nearby>, dir: string, read: () => Promise<ReleaseCandidate[]>): ReleaseCandidate[] {
    const hit = cache.get(dir);
    if (hit && (Date.now() - hit.at <= NEARBY_TTL_MS || hit.pending)) return hit.candidates;
    const entry: Nearby = hit ?? { at: Date.now(), candidates: [] };
    entry.pending = read().then(
      (found) => {
        const changed = JSON.stringify(found) !== JSON.stringify(entry.candidates);
        entry.candidates = found;
        entry.at = Date.now();
        entry.pending = undefined;
        if (changed) {
          this.generation++;
          this.onNearby(dir);
        }
      },
      () => {
        entry.at = Date.now();
        entry.pending = undefined;
      },
    );
    cache.set(dir, entry);
    return entry.candidates;
  }

  setServer(p: SetServerReleaseParams): void {
    this.server = p.version ? fromServerInfo({ version: p.version }, `the server ${p.label}`) : undefined;
    this.generation++;
  }

  /** The release choice for a document (sync: nearby files it has not read yet count once they arrive). */
  choose(d: Doc, setting: string | undefined): ReleaseChoice | undefined {
    const bundled = this.store.bundled;
    if (!bundled) return undefined;
    const path = uriToPath(d.doc.uri);
    const name = path ?? d.doc.uri.split(/[\\/]/).pop() ?? 'this file';
    const runtime = this.store.runtime?.index.meta;
    const candidates: (ReleaseCandidate | undefined)[] = [
      this.server,
      runtime?.version
        ? fromHostPackages({ sglang: runtime.version }, runtime.label)
        : fromHostPackages(this.store.packageVersions, runtime?.label ?? 'the selected host'),
      ...safe(() => fromImageTags(d.doc.getText(), name)),
      ...(path ? this.nearbyOf(dirname(path)) : []),
      setting?.trim() ? fromSetting(setting.trim(), 'the setting inferenceDoctor.flags.sglangVersion') : undefined,
    ];
    return chooseBundledRelease(bundled, candidates);
  }

  /** The analysis context of a choice: the release judged against, the history, and a mismatch sentence. */
  context(choice: ReleaseChoice | undefined): ReleaseContext | undefined {
    const bundled = this.store.bundled;
    if (!bundled || !choice) return undefined;
    return releaseContext(bundled, choice, this.store.activeLoaded()?.index.meta);
  }

  private nearbyOf(dir: string): ReleaseCandidate[] {
    return this.cached(this.nearby, dir, () => {
      const root = this.roots().find((r) => dir === r || dir.startsWith(`${r}/`) || dir.startsWith(`${r}\\`));
      return detectWorkspaceReleases(
        {
          listDir: async (p) => fsp.readdir(p),
          readFile: async (p) => {
            const st = await fsp.stat(p);
            return st.isFile() && st.size <= 2 * 1024 * 1024 ? fsp.readFile(p, 'utf8') : undefined;
          },
        },
        dir,
        { ...(root ? { root } : { maxLevels: 3 }), maxFiles: 16 },
      );
    });
  }
}

function safe<T>(f: () => T[]): T[] {
  try {
    return f();
  } catch {
    return [];
  }
}

export { releaseDetail } from '../core/release/context';
