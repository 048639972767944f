/**
 * Providers VS Code needs at activation (tree views, document schemes, a file system) whose
 * implementation lives in a module loaded on first use. Each wrapper forwards calls to the
 * loaded provider and re-fires its change events, so a feature's real providers stay ordinary
 * classes with their own events.
 */
import * as vscode from 'vscode';

/** A value built once, on first `get()`. */
export class Lazy<T> {
  private pending: Promise<T> | undefined;
  private readonly waiting: ((value: T) => void)[] = [];

  constructor(private readonly build: () => Promise<T>) {}

  get(): Promise<T> {
    this.pending ??= this.build().then((value) => {
      for (const callback of this.waiting.splice(0)) callback(value);
      return value;
    });
    return this.pending;
  }

  /** Whether `get()` has been called. */
  get started(): boolean {
    return this.pending !== undefined;
  }

  /** Runs `callback` once the value is built, whoever asked for it first. */
  whenLoaded(callback: (value: T) => void): void {
    if (this.pending) void this.pending.then(callback);
    else this.waiting.push(callback);
  }
}

/** An event that exists from activation on and re-fires `event` of the loaded provider. */
function relay<F, E>(lazy: Lazy<F>, event: (f: F) => vscode.Event<E> | undefined): { event: vscode.Event<E>; dispose(): void } {
  const emitter = new vscode.EventEmitter<E>();
  let subscription: vscode.Disposable | undefined;
  let disposed = false;
  lazy.whenLoaded((f) => {
    if (!disposed) subscription = event(f)?.((e) => emitter.fire(e));
  });
  return {
    event: emitter.event,
    dispose: () => {
      disposed = true;
      subscription?.dispose();
      emitter.dispose();
    },
  };
}

export interface LazyTreeOptions<N> {
  /** Children of the root while the feature is not loaded; default: load it and ask. */
  rootUntilLoaded?: () => N[];
}

export function lazyTree<F, N>(
  lazy: Lazy<F>,
  provider: (f: F) => vscode.TreeDataProvider<N>,
  options: LazyTreeOptions<N> = {},
): vscode.TreeDataProvider<N> & vscode.Disposable {
  const changes = relay(lazy, (f) => provider(f).onDidChangeTreeData);
  const withProvider = async (): Promise<vscode.TreeDataProvider<N>> => provider(await lazy.get());
  return {
    onDidChangeTreeData: changes.event,
    getTreeItem: async (n) => (await withProvider()).getTreeItem(n),
    getChildren: async (n) => {
      if (!n && !lazy.started && options.rootUntilLoaded) return options.rootUntilLoaded();
      return (await withProvider()).getChildren(n);
    },
    getParent: async (n) => (await withProvider()).getParent?.(n),
    dispose: () => changes.dispose(),
  };
}

export function lazyContent<F>(lazy: Lazy<F>, provider: (f: F) => vscode.TextDocumentContentProvider): vscode.TextDocumentContentProvider & vscode.Disposable {
  const changes = relay(lazy, (f) => provider(f).onDidChange);
  return {
    onDidChange: changes.event,
    provideTextDocumentContent: async (uri, token) => provider(await lazy.get()).provideTextDocumentContent(uri, token),
    dispose: () => changes.dispose(),
  };
}

/** The read operations of a file system provider; the wrapper refuses every write. */
export type ReadOnlyFileSystem = Pick<vscode.FileSystemProvider, 'stat' | 'readDirectory' | 'readFile'>;

export function lazyReadOnlyFileSystem<F>(lazy: Lazy<F>, provider: (f: F) => ReadOnlyFileSystem): vscode.FileSystemProvider & vscode.Disposable {
  const changes = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
  const refuse = (uri: vscode.Uri): never => {
    throw vscode.FileSystemError.NoPermissions(uri);
  };
  return {
    onDidChangeFile: changes.event,
    watch: () => new vscode.Disposable(() => undefined),
    stat: async (uri) => provider(await lazy.get()).stat(uri),
    readDirectory: async (uri) => provider(await lazy.get()).readDirectory(uri),
    readFile: async (uri) => provider(await lazy.get()).readFile(uri),
    createDirectory: refuse,
    writeFile: refuse,
    delete: refuse,
    rename: refuse,
    dispose: () => changes.dispose(),
  };
}
