/**
 * Tree rows and quick picks show text from servers, hosts and workspace files. One pass over each
 * item before VS Code gets it: one-line texts are isolated (controls shown, right-to-left text
 * kept from reordering its neighbours), and a plain-text tooltip becomes escaped markdown, so a
 * URL or markdown in it stays text instead of turning into a link.
 */
import * as vscode from 'vscode';
import { escapeIcons, escapeMarkdown, isolate } from '../core/text/foreign';

export function guardTreeItem(item: vscode.TreeItem): vscode.TreeItem {
  if (typeof item.label === 'string') item.label = isolate(item.label);
  if (typeof item.description === 'string') item.description = isolate(item.description);
  if (typeof item.tooltip === 'string') item.tooltip = plainTooltip(item.tooltip);
  return item;
}

/** A multi-line plain-text tooltip as markdown that renders the same lines, inert. */
export function plainTooltip(text: string): vscode.MarkdownString {
  return new vscode.MarkdownString(text.split('\n').map((line) => escapeMarkdown(line)).join('\n\n'));
}

/**
 * Quick-pick items carry the same kinds of text: isolated, and `$(icon)` escaped in descriptions
 * and details (quick picks render it), in place, so the picked object is the one passed.
 */
export function guardPicks<T extends vscode.QuickPickItem>(items: T[]): T[] {
  for (const item of items) {
    // Labels keep their icons: some are the extension's own ("$(edit) Other interpreter…"); foreign
    // text in a label is escaped where the label is built.
    item.label = isolate(item.label);
    if (item.description !== undefined) item.description = escapeIcons(isolate(item.description));
    if (item.detail !== undefined) item.detail = escapeIcons(isolate(item.detail));
  }
  return items;
}
