/** The history list the host sends: open in either pane, re-run, delete. */
import type { HistorySummary, Pane } from '../../src/shared/webviewProtocol';
import { h, icon, markedText } from './dom';
import { OUTCOME_ICON, runOutcome } from '../../src/core/probe/outcome';

export interface HistoryActions {
  open(historyId: string, pane: Pane): void;
  rerun(historyId: string, pane: Pane): void;
  remove(historyId: string): void;
}

export class HistoryList {
  readonly el: HTMLElement;
  private readonly list = h('ul', { class: 'history-list', testid: 'history' });
  private readonly empty = h('div', { class: 'muted', testid: 'history-empty' }, 'No probes yet. Finished runs show up here.');

  constructor(private readonly actions: HistoryActions) {
    this.el = h('div', { class: 'history' }, this.empty, this.list);
  }

  render(entries: HistorySummary[]): void {
    this.empty.hidden = entries.length > 0;
    this.list.replaceChildren(...entries.map((entry) => this.row(entry)));
  }

  private row(entry: HistorySummary): HTMLElement {
    const button = (name: string, title: string, testid: string, onClick: () => void) =>
      h('button', { class: 'icon-button', title, testid, attrs: { type: 'button' }, on: { click: onClick } }, icon(name));
    const prompt = entry.prompt.replace(/\s+/g, ' ').trim() || '(empty prompt)';
    const outcome = runOutcome(entry.verdict, entry.status);
    return h(
      'li',
      { class: 'history-row', testid: 'history-row', attrs: { 'data-id': entry.id, 'data-verdict': entry.verdict, 'data-outcome': outcome } },
      h('span', { class: `verdict-icon verdict-${outcome}`, title: `${entry.verdict} · ${entry.status}` }, icon(OUTCOME_ICON[outcome] ?? 'question')),
      h(
        'button',
        {
          class: 'history-open',
          title: 'Show in the result pane',
          attrs: { type: 'button' },
          on: { click: () => this.actions.open(entry.id, 'main') },
        },
        // The prompt and the server's label are foreign text: controls marked, so none reorders the row.
        h('span', { class: 'history-prompt' }, ...markedText(prompt)),
        h(
          'span',
          { class: 'history-meta' },
          ...markedText(entry.serverLabel),
          ` · ${new Date(entry.startedAt).toLocaleString()}${entry.status === 'completed' ? '' : ` · ${entry.status}`}`,
        ),
      ),
      button('split-horizontal', 'Show in the compare pane', 'history-compare', () => this.actions.open(entry.id, 'compare')),
      button('refresh', 'Run again', 'history-rerun', () => this.actions.rerun(entry.id, 'main')),
      button('trash', 'Delete', 'history-delete', () => this.actions.remove(entry.id)),
    );
  }
}
