/**
 * Run history on disk: one JSON file per finished run inside `<dir>/probe-history/` (probes) or
 * `<dir>/eval-history/` (accuracy smoke tests, ../eval/history.ts): one EntryFiles store each.
 *
 * - Each entry is written atomically (temp file in the same directory, fsync, rename), so a
 *   reader never sees half an entry written by us; a file that is corrupt anyway (disk full,
 *   hand edits, a crash on a filesystem without atomic rename) is reported and skipped.
 * - One file per entry means concurrent adds, even from two VS Code windows sharing the same
 *   global storage, never overwrite each other.
 * - Bounded: the newest `maxEntries` are kept, and each entry's text fields are cut to a size
 *   limit (answers keep their tail, like ProbeResult does).
 *
 * No VS Code API here: the extension passes `context.globalStorageUri.fsPath`.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { HistoryEntry, HistorySummary } from '../shared/webviewProtocol';

/** What every stored run carries: the file name is made of both. */
export interface StoredRun {
  id: string;
  startedAt: number;
}

/** How one kind of run is stored: its folder, what a readable entry looks like, its summary, its size bound. */
export interface EntryKind<E extends StoredRun, S> {
  /** The folder below the root, and the word for an entry in errors ("probe history"). */
  folder: string;
  what: string;
  looksLike(value: unknown): value is E;
  summarise(entry: E): S;
  bound(entry: E): E;
}

export interface EntryFilesOptions {
  /** Newest entries kept; older ones are deleted after each add. Default 200. */
  maxEntries?: number;
  /** Called once per unreadable file (it is skipped, never deleted). */
  onCorrupt?: (file: string, error: Error) => void;
}

export interface HistoryStoreOptions extends EntryFilesOptions {
  /** Max UTF-16 chars kept of the answer content and of the reasoning. Default 200_000. */
  maxContentChars?: number;
  /** Max chars kept of the prompt and system prompt. Default 50_000. */
  maxPromptChars?: number;
}

/** Characters of the prompt carried in a summary (for the history list). */
const SUMMARY_PROMPT_CHARS = 200;
const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const FILE_PATTERN = /^(\d{13})-([A-Za-z0-9_-]{1,64})\.json$/;
/** Temp files older than this are leftovers of a crash and get removed. */
const STALE_TEMP_MS = 10 * 60_000;

export function isHistoryId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value);
}

export function newHistoryId(): string {
  return `${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`;
}

export function cutTail(text: string, max: number): { text: string; dropped: number } {
  if (text.length <= max) return { text, dropped: 0 };
  let start = text.length - max;
  // Do not start on the low half of a surrogate pair.
  const code = text.charCodeAt(start);
  if (code >= 0xdc00 && code <= 0xdfff) start += 1;
  return { text: text.slice(start), dropped: start };
}

export function cutHead(text: string | undefined, max: number): string | undefined {
  if (text === undefined || text.length <= max) return text;
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

function summarise(entry: HistoryEntry): HistorySummary {
  return {
    id: entry.id,
    serverLabel: entry.serverLabel,
    startedAt: entry.startedAt,
    prompt: cutHead(entry.params.prompt, SUMMARY_PROMPT_CHARS) ?? '',
    verdict: entry.result.verdict.kind,
    status: entry.result.status,
  };
}

/** Structural check of a parsed file: enough to render it without throwing. */
function looksLikeEntry(value: unknown): value is HistoryEntry {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<HistoryEntry>;
  return (
    isHistoryId(v.id) &&
    typeof v.serverId === 'string' &&
    typeof v.serverLabel === 'string' &&
    typeof v.baseUrl === 'string' &&
    typeof v.startedAt === 'number' &&
    Number.isFinite(v.startedAt) &&
    typeof v.params === 'object' &&
    v.params !== null &&
    typeof v.params.prompt === 'string' &&
    typeof v.result === 'object' &&
    v.result !== null &&
    typeof v.result.content === 'string' &&
    typeof v.result.status === 'string' &&
    typeof v.result.verdict === 'object' &&
    v.result.verdict !== null &&
    typeof v.result.verdict.kind === 'string' &&
    Array.isArray(v.result.verdict.reasons)
  );
}

function boundProbe(entry: HistoryEntry, maxContentChars: number, maxPromptChars: number): HistoryEntry {
  const content = cutTail(entry.result.content, maxContentChars);
  const reasoning = cutTail(entry.result.reasoning ?? '', maxContentChars);
  return {
    ...entry,
    params: {
      ...entry.params,
      prompt: cutHead(entry.params.prompt, maxPromptChars) ?? '',
      systemPrompt: cutHead(entry.params.systemPrompt, maxPromptChars),
    },
    result: {
      ...entry.result,
      content: content.text,
      contentDroppedChars: (entry.result.contentDroppedChars ?? 0) + content.dropped,
      reasoning: reasoning.text,
      error: entry.result.error && {
        ...entry.result.error,
        message: cutHead(entry.result.error.message, maxPromptChars) ?? '',
        bodySnippet: cutHead(entry.result.error.bodySnippet, 4096),
      },
    },
  };
}

/** One kind of run's files: atomic writes, newest first, pruned, corrupt files reported and skipped. */
export class EntryFiles<E extends StoredRun, S> {
  readonly dir: string;
  private readonly maxEntries: number;
  private readonly onCorrupt: (file: string, error: Error) => void;
  /** Files are immutable once renamed into place, so their summaries can be cached by name. */
  private readonly summaries = new Map<string, S>();
  private readonly reported = new Set<string>();
  private ready: Promise<void> | undefined;

  constructor(
    rootDir: string,
    private readonly kind: EntryKind<E, S>,
    options: EntryFilesOptions = {},
  ) {
    this.dir = join(rootDir, kind.folder);
    this.maxEntries = Math.max(1, options.maxEntries ?? 200);
    this.onCorrupt = options.onCorrupt ?? ((file, error) => console.warn(`${kind.what}: skipping ${file}: ${error.message}`));
  }

  /** Summaries, newest first. Unreadable files are reported once and left out. */
  async list(): Promise<S[]> {
    await this.init();
    const files = await this.entryFiles();
    const live = new Set(files);
    for (const name of [...this.summaries.keys()]) if (!live.has(name)) this.summaries.delete(name);
    const out: S[] = [];
    for (const name of files) {
      let summary = this.summaries.get(name);
      if (!summary) {
        const entry = await this.readFile(name);
        if (!entry) continue;
        summary = this.kind.summarise(entry);
        this.summaries.set(name, summary);
      }
      out.push(summary);
    }
    return out;
  }

  async get(id: string): Promise<E | undefined> {
    if (!isHistoryId(id)) return undefined;
    await this.init();
    const name = (await this.entryFiles()).find((file) => FILE_PATTERN.exec(file)?.[2] === id);
    return name ? this.readFile(name) : undefined;
  }

  /**
   * Stores a finished run (bounded) and prunes to the newest maxEntries. Returns what was
   * stored, with an id assigned when the caller gave none.
   */
  async add(input: Omit<E, 'id'> & { id?: string }): Promise<E> {
    await this.init();
    const id = input.id !== undefined && isHistoryId(input.id) ? input.id : newHistoryId();
    const entry = this.kind.bound({ ...input, id } as E);
    const name = `${String(Math.max(0, Math.floor(entry.startedAt))).padStart(13, '0')}-${id}.json`;
    await this.writeAtomically(name, JSON.stringify(entry));
    this.summaries.set(name, this.kind.summarise(entry));
    await this.prune();
    return entry;
  }

  /** Returns whether an entry was removed. */
  async delete(id: string): Promise<boolean> {
    if (!isHistoryId(id)) return false;
    await this.init();
    let removed = false;
    for (const name of await this.entryFiles()) {
      if (FILE_PATTERN.exec(name)?.[2] !== id) continue;
      removed = (await this.unlink(name)) || removed;
      this.summaries.delete(name);
    }
    return removed;
  }

  private init(): Promise<void> {
    this.ready ??= (async () => {
      await fs.mkdir(this.dir, { recursive: true });
      // Leftover temp files from a crash: remove the stale ones (a live writer's are fresh).
      for (const name of await fs.readdir(this.dir)) {
        if (!name.startsWith('.tmp-')) continue;
        try {
          const stat = await fs.stat(join(this.dir, name));
          if (Date.now() - stat.mtimeMs > STALE_TEMP_MS) await fs.unlink(join(this.dir, name));
        } catch {
          // Another window removed it first.
        }
      }
    })();
    return this.ready.catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
  }

  /** Entry file names, newest first (names sort by startedAt, then id). */
  private async entryFiles(): Promise<string[]> {
    const names = await fs.readdir(this.dir);
    return names
      .filter((name) => FILE_PATTERN.test(name))
      .sort()
      .reverse();
  }

  private async readFile(name: string): Promise<E | undefined> {
    try {
      const text = await fs.readFile(join(this.dir, name), 'utf8');
      const parsed: unknown = JSON.parse(text);
      if (!this.kind.looksLike(parsed)) throw new Error(`not a ${this.kind.what} entry`);
      if (FILE_PATTERN.exec(name)?.[2] !== parsed.id) throw new Error('file name and id disagree');
      return parsed;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined; // deleted meanwhile
      if (!this.reported.has(name)) {
        this.reported.add(name);
        this.onCorrupt(join(this.dir, name), error instanceof Error ? error : new Error(String(error)));
      }
      return undefined;
    }
  }

  private async writeAtomically(name: string, text: string): Promise<void> {
    const temp = join(this.dir, `.tmp-${randomBytes(8).toString('hex')}`);
    const handle = await fs.open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await fs.rename(temp, join(this.dir, name));
    } catch (error) {
      await fs.unlink(temp).catch(() => undefined);
      throw error;
    }
    // Make the rename itself durable where the platform allows syncing a directory.
    try {
      const dirHandle = await fs.open(this.dir, 'r');
      try {
        await dirHandle.sync();
      } finally {
        await dirHandle.close();
      }
    } catch {
      // Windows cannot open directories; the rename is still atomic there.
    }
  }

  private async prune(): Promise<void> {
    const files = await this.entryFiles();
    for (const name of files.slice(this.maxEntries)) {
      await this.unlink(name);
      this.summaries.delete(name);
    }
  }

  private async unlink(name: string): Promise<boolean> {
    try {
      await fs.unlink(join(this.dir, name));
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false; // a concurrent prune won
      throw error;
    }
  }
}

/** The probe panel's history: finished probe runs, their answers cut to a size bound. */
export class HistoryStore extends EntryFiles<HistoryEntry, HistorySummary> {
  constructor(rootDir: string, options: HistoryStoreOptions = {}) {
    const maxContentChars = Math.max(1, options.maxContentChars ?? 200_000);
    const maxPromptChars = Math.max(1, options.maxPromptChars ?? 50_000);
    super(
      rootDir,
      {
        folder: 'probe-history',
        what: 'probe history',
        looksLike: looksLikeEntry,
        summarise,
        bound: (entry) => boundProbe(entry, maxContentChars, maxPromptChars),
      },
      options,
    );
  }
}
