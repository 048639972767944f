/** Search results, grouped by file, streamed into the `inferenceDoctor.search` view. */
import * as vscode from 'vscode';
import type { SearchMatch } from '../core/hosts/search';
import type { FileGroup, SearchResultGroups } from '../core/remote/searchGroups';
import { remoteUri } from './remoteFs';
import { guardTreeItem } from '../ui/foreignText';
import { rowCommand } from '../ui/rowCommand';
import { COMMANDS } from '../commands';
import { isolate } from '../core/text/foreign';

export type SearchNode =
  { kind: 'file'; path: string } | { kind: 'match'; path: string; index: number } | { kind: 'status'; label: string; icon: string; tooltip?: string };

export interface SearchState {
  hostId: string;
  hostLabel: string;
  pattern: string;
  fixedStrings: boolean;
  caseSensitive: boolean;
  groups: SearchResultGroups;
  running: boolean;
  error?: string;
  cancel?: () => void;
}

/** What the Search Results view shows above its rows. */
export interface SearchSummary {
  description: string;
  message: string | undefined;
}

export class SearchView implements vscode.TreeDataProvider<SearchNode>, vscode.Disposable {
  state: SearchState | undefined;
  private matcher: RegExp | undefined;
  private readonly fileNodes = new Map<string, SearchNode>();
  private readonly changed = new vscode.EventEmitter<SearchNode | undefined>();
  private readonly summaryChanged = new vscode.EventEmitter<SearchSummary>();
  readonly onDidChangeTreeData = this.changed.event;
  /** The view's description and message, for the tree view that shows this provider. */
  readonly onDidChangeSummary = this.summaryChanged.event;

  dispose(): void {
    this.changed.dispose();
    this.summaryChanged.dispose();
  }

  start(state: SearchState): void {
    this.state = state;
    this.fileNodes.clear();
    try {
      const src = state.fixedStrings ? state.pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : state.pattern;
      this.matcher = new RegExp(src, state.caseSensitive ? 'g' : 'gi');
    } catch {
      this.matcher = undefined;
    }
    this.update();
  }

  /** Refresh counts and the tree (callers throttle). */
  update(): void {
    const s = this.state;
    this.summaryChanged.fire({
      description: s ? `${s.groups.matchCount.toLocaleString('en-US')} in ${s.groups.fileCount} files${s.running ? ' …' : ''}` : '',
      message: !s
        ? undefined
        : s.error
          ? `"${isolate(s.pattern)}" on ${isolate(s.hostLabel)}: ${isolate(s.error)} — ${s.groups.describe()} kept.`
          : `"${isolate(s.pattern)}" on ${isolate(s.hostLabel)}: ${s.groups.describe()}${s.running ? ' (searching…)' : ''}`,
    });
    void vscode.commands.executeCommand('setContext', 'inferenceDoctor.searchRunning', !!s?.running);
    this.changed.fire(undefined);
  }

  clear(): void {
    this.state?.cancel?.();
    this.state = undefined;
    this.fileNodes.clear();
    this.update();
  }

  getTreeItem(node: SearchNode): vscode.TreeItem {
    return guardTreeItem(this.itemFor(node));
  }

  private itemFor(node: SearchNode): vscode.TreeItem {
    const s = this.state;
    if (node.kind === 'status' || !s) {
      const n = node.kind === 'status' ? node : { label: '', icon: 'info', tooltip: undefined };
      const item = new vscode.TreeItem(n.label);
      item.iconPath = new vscode.ThemeIcon(n.icon);
      item.tooltip = n.tooltip;
      return item;
    }
    const g = s.groups.group(node.path);
    if (node.kind === 'file') {
      const name = node.path.slice(node.path.lastIndexOf('/') + 1);
      const item = new vscode.TreeItem(name, s.groups.fileCount <= 30 ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `file:${node.path}`;
      item.resourceUri = remoteUri(s.hostId, node.path);
      const rel = g?.relative ?? node.path;
      const dir = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
      item.description = `${dir}${dir ? ' · ' : ''}${g?.matches.length ?? 0}`;
      item.tooltip = node.path;
      item.contextValue = 'searchFile';
      return item;
    }
    const m: SearchMatch | undefined = g?.matches[node.index];
    const text = (m?.text ?? '').replace(/\t/g, '  ');
    const lead = text.length - text.trimStart().length;
    const shown = text.trim().slice(0, 250);
    const label: vscode.TreeItemLabel = { label: shown, highlights: this.highlights(text, lead, shown.length) };
    const item = new vscode.TreeItem(label);
    item.id = `match:${node.path}:${node.index}`;
    item.description = `${m?.line ?? ''}`;
    item.tooltip = `${node.path}:${m?.line ?? ''}`;
    item.contextValue = 'searchMatch';
    // Results stream in and redraw the tree: the command reads the clicked row (rowCommand.ts).
    item.command = rowCommand(COMMANDS.openClickedSearchMatch, 'Open Result');
    return item;
  }

  /** Opens the file of a match row at its line, as a preview. */
  async openMatch(node: SearchNode | undefined): Promise<void> {
    const s = this.state;
    if (!s || node?.kind !== 'match') return;
    const line = Math.max(0, (s.groups.group(node.path)?.matches[node.index]?.line ?? 1) - 1);
    const options: vscode.TextDocumentShowOptions = { selection: new vscode.Range(line, 0, line, 0), preview: true };
    await vscode.commands.executeCommand('vscode.open', remoteUri(s.hostId, node.path), options);
  }

  private highlights(text: string, lead: number, len: number): [number, number][] {
    if (!this.matcher) return [];
    const out: [number, number][] = [];
    this.matcher.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = this.matcher.exec(text)) && out.length < 20) {
      if (m[0].length === 0) {
        this.matcher.lastIndex++;
        continue;
      }
      const a = m.index - lead;
      const b = a + m[0].length;
      if (a >= 0 && b <= len) out.push([a, b]);
    }
    return out;
  }

  getChildren(node?: SearchNode): SearchNode[] {
    const s = this.state;
    if (!s) return [];
    if (!node) {
      const files: SearchNode[] = s.groups.groups().map((g: FileGroup) => {
        let n = this.fileNodes.get(g.path);
        if (!n) {
          n = { kind: 'file', path: g.path };
          this.fileNodes.set(g.path, n);
        }
        return n;
      });
      if (s.error) files.unshift({ kind: 'status', label: s.error, icon: 'error', tooltip: s.error });
      return files;
    }
    if (node.kind !== 'file') return [];
    const g = s.groups.group(node.path);
    return (g?.matches ?? []).map((_m, index) => ({ kind: 'match', path: node.path, index }));
  }
}
