/**
 * From a release choice to what the launch-file analysis judges against: the release, where it
 * came from in words, the bundled history and a mismatch sentence. Shared by the language server
 * (lsp/releases.ts ReleaseFinder) and `inference-doctor check`, so both say the same thing.
 */
import type { BundledCatalog } from '../flags/bundled/query';
import { chooseRelease, describeConflict, type ReleaseCandidate, type ReleaseChoice } from './detect';

/** Which SGLang release a document runs, and what the bundled catalog knows of other releases. */
export interface ReleaseContext {
  /** The release judged against ("0.5.6"). */
  version: string;
  /** Where that came from, in words ("image tag lmsysorg/sglang:v0.5.6-cu129 in compose.yaml line 4"). */
  detail: string;
  /** Every release's facts, for "added in", "renamed in" and "needs ≥" notes. */
  bundled?: BundledCatalog;
  /** `version`'s index in bundled.releases (the nearest older one when it is not bundled). */
  releaseIndex?: number;
  /** A sentence when the catalog in use and the release the file pins differ. */
  mismatch?: string;
}

/** A real catalog in use (a server_args.py, an installed SGLang): it decides the release judged against. */
export interface CatalogInUse {
  label: string;
  version?: string;
}

/** chooseRelease over the bundled releases (`main` is no release a pin can name), the newest as default. */
export function chooseBundledRelease(bundled: BundledCatalog, candidates: readonly (ReleaseCandidate | undefined)[]): ReleaseChoice {
  const known = bundled.releases.map((r) => r.version).filter((v) => v !== 'main');
  return chooseRelease(candidates, known, bundled.newest().release.version);
}

/** The release the choice pins (for version-ranged rules); undefined when nothing said (the default). */
export function pinnedRelease(choice: ReleaseChoice | undefined): string | undefined {
  return choice && choice.chosen.source !== 'default' ? (choice.chosen.release ?? choice.chosen.version) : undefined;
}

/** "SGLang 0.5.6 (image tag … line 4)", or the newest release when nothing said. */
export function releaseDetail(choice: ReleaseChoice): string {
  const c = choice.chosen;
  if (c.source === 'default') return `no release found for this file: the newest bundled release`;
  const approx = c.approximate && c.release && c.release !== c.version ? `; the nearest bundled release is ${c.release}` : '';
  return `${c.detail}${approx}`;
}

/** The analysis context of a choice: the release judged against, the history, and a mismatch sentence. */
export function releaseContext(bundled: BundledCatalog, choice: ReleaseChoice, real?: CatalogInUse): ReleaseContext {
  const version = real ? real.version : (choice.chosen.release ?? choice.chosen.version);
  const match = version ? bundled.match(version) : undefined;
  const detail = real ? `the catalog in use: ${real.label}` : releaseDetail(choice);
  const ctx: ReleaseContext = {
    version: version ?? 'unknown',
    detail,
    bundled,
    ...(match ? { releaseIndex: match.index } : {}),
  };
  const pinned = choice.chosen.source !== 'default' && choice.chosen.source !== 'setting' ? (choice.chosen.release ?? choice.chosen.version) : undefined;
  if (real && pinned && real.version !== pinned) {
    ctx.mismatch = `This file runs SGLang ${pinned} (${choice.chosen.detail}), but its flags are checked against ${real.version ? `SGLang ${real.version}` : 'a catalog of unknown release'} (${real.label}).`;
  } else if (!real && choice.conflicts.length) {
    ctx.mismatch = describeConflict(choice.chosen, choice.conflicts[0]);
  }
  return ctx;
}
