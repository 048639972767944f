/**
 * Search results grouped by file as they stream in, with a hard cap. The tree view renders
 * `groups()`; `take()` tells it which files changed since the last refresh. No vscode import.
 */
import type { SearchMatch } from '../hosts/search';

export interface FileGroup {
  path: string;
  /** `path` relative to the search root it is under (for display). */
  relative: string;
  matches: SearchMatch[];
}

export class SearchResultGroups {
  private readonly byPath = new Map<string, FileGroup>();
  private readonly order: FileGroup[] = [];
  private readonly dirty = new Set<FileGroup>();
  private count = 0;
  /** True when `maxResults` was reached and later matches were dropped. */
  limited = false;

  constructor(
    readonly roots: readonly string[],
    readonly maxResults = 10_000,
  ) {}

  /** Add one match; false when it was dropped because the cap was reached. */
  add(m: SearchMatch): boolean {
    if (this.count >= this.maxResults) {
      this.limited = true;
      return false;
    }
    let g = this.byPath.get(m.path);
    if (!g) {
      g = { path: m.path, relative: relativeTo(this.roots, m.path), matches: [] };
      this.byPath.set(m.path, g);
      this.order.push(g);
    }
    g.matches.push(m);
    this.count++;
    this.dirty.add(g);
    return true;
  }

  get matchCount(): number {
    return this.count;
  }
  get fileCount(): number {
    return this.order.length;
  }
  groups(): readonly FileGroup[] {
    return this.order;
  }
  group(path: string): FileGroup | undefined {
    return this.byPath.get(path);
  }

  /** Groups changed since the last call (new files included), in arrival order. */
  take(): FileGroup[] {
    const out = this.order.filter((g) => this.dirty.has(g));
    this.dirty.clear();
    return out;
  }

  /** "1,234 results in 56 files" (+ " (limit reached)"). */
  describe(): string {
    const r = `${this.count.toLocaleString('en-US')} result${this.count === 1 ? '' : 's'}`;
    const f = `${this.order.length.toLocaleString('en-US')} file${this.order.length === 1 ? '' : 's'}`;
    return `${r} in ${f}${this.limited ? ` (stopped at ${this.maxResults.toLocaleString('en-US')})` : ''}`;
  }
}

/** `path` relative to the longest matching root; the path itself when under none. */
export function relativeTo(roots: readonly string[], path: string): string {
  let best = '';
  for (const r of roots) {
    const root = r.endsWith('/') ? r : `${r}/`;
    if (path.startsWith(root) && root.length > best.length) best = root;
  }
  return best ? path.slice(best.length) : path;
}
