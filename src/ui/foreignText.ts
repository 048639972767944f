/**
 * Tree rows and quick picks show text from servers, hosts and workspace files. One pass over each
 * item before VS Code gets it: one-line texts are isolated (controls shown, right-to-left text
 * kept from reordering its neighbours), and a plain-text tooltip becomes escaped markdown, so a
 * URL or markdown in it stays text instead of turning into a link.
 */
import * as vscode from 'vscode';
import { escapeIcons, escapeMarkdown, isolate, isolateLabel, showControls } from '../core/text/foreign';

export function guardTreeItem(item: vscode.TreeItem): vscode.TreeItem {
  if (typeof item.label === 'string') item.label = isolate(item.label);
  else if (item.label) item.label = isolateLabel(item.label.label, item.label.highlights ?? []);
  if (typeof item.description === 'string') item.description = isolate(item.description);
  if (typeof item.tooltip === 'string') item.tooltip = plainTooltip(item.tooltip);
  return item;
}

/** A multi-line plain-text tooltip as markdown that renders the same lines, inert. */
export function plainTooltip(text: string): vscode.MarkdownString {
  return new vscode.MarkdownString(
    text
      .split('\n')
      .map((line) => escapeMarkdown(line))
      .join('\n\n'),
  );
}

/**
 * Quick-pick items carry the same kinds of text: isolated, and `$(icon)` escaped in labels, descriptions
 * and details (quick picks render it), in place, so the picked object is the one passed. An item that
 * shows one of the extension's own icons names it in `ownIcon`; it goes before the escaped label.
 */
export function guardPicks<T extends vscode.QuickPickItem & { ownIcon?: string }>(items: T[]): T[] {
  for (const item of items) {
    const label = iconText(item.label);
    item.label = item.ownIcon ? `$(${item.ownIcon}) ${label}` : label;
    if (item.description !== undefined) item.description = iconText(item.description);
    if (item.detail !== undefined) item.detail = iconText(item.detail);
  }
  return items;
}

/** Foreign text for a one-line surface that renders `$(icon)` (quick picks, the status bar). */
export function iconText(text: string): string {
  return escapeIcons(isolate(text));
}

/**
 * A log channel whose lines show their controls: log lines quote hosts, servers and files, and the Output
 * view would otherwise let a U+202E in them reorder the line. Everything else is the channel's own.
 */
export function createLogChannel(name: string): vscode.LogOutputChannel {
  const channel = vscode.window.createOutputChannel(name, { log: true });
  const shown = (message: string | Error): string | Error => (typeof message === 'string' ? showControls(message) : message);
  return {
    get name() {
      return channel.name;
    },
    get logLevel() {
      return channel.logLevel;
    },
    onDidChangeLogLevel: channel.onDidChangeLogLevel,
    trace: (message, ...args: unknown[]) => channel.trace(showControls(message), ...args),
    debug: (message, ...args: unknown[]) => channel.debug(showControls(message), ...args),
    info: (message, ...args: unknown[]) => channel.info(showControls(message), ...args),
    warn: (message, ...args: unknown[]) => channel.warn(showControls(message), ...args),
    error: (message, ...args: unknown[]) => channel.error(shown(message), ...args),
    append: (value) => channel.append(showControls(value)),
    appendLine: (value) => channel.appendLine(showControls(value)),
    replace: (value) => channel.replace(showControls(value)),
    clear: () => channel.clear(),
    show: (preserveFocus?: unknown) => channel.show(preserveFocus === true),
    hide: () => channel.hide(),
    dispose: () => channel.dispose(),
  };
}
