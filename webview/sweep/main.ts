/**
 * Sweep panel webview: the matrix of a backend sweep filling in live. Talks to the host only through
 * src/shared/sweepProtocol.ts. Flag values, reasons, errors and log lines come from the launch file
 * and the server: all of it goes in as text (../probe/dom's h / markedText); nothing here parses HTML.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import type { SweepRow } from '../../src/core/fix/sweep';
import type { HostToSweepWebview, SweepViewState, SweepWebviewToHost } from '../../src/shared/sweepProtocol';
import { h, icon, markedText } from '../probe/dom';
import { onHostMessage, startPage } from '../shared/page';
import css from './sweep.css';

const post = startPage<SweepWebviewToHost>(css);

const VERDICT: Record<SweepRow['verdict'], { icon: string; label: string }> = {
  ok: { icon: 'pass', label: 'OK' },
  degenerate: { icon: 'warning', label: 'Degenerate' },
  nan: { icon: 'error', label: 'NaN' },
  error: { icon: 'circle-slash', label: 'Error' },
};

let state: SweepViewState | undefined;

const app = document.getElementById('app') ?? document.body;
const header = h('header', { class: 'header', testid: 'setup' });
const progressLine = h('div', { class: 'progress', testid: 'progress', attrs: { role: 'status', 'aria-live': 'polite' } });
const cancelButton = h(
  'vscode-button',
  {
    testid: 'cancel',
    attrs: { icon: 'debug-stop', secondary: true, title: 'Stop after the combination under way and restore the original launch' },
    on: { click: () => post({ type: 'cancel' }) },
  },
  'Cancel',
);
const matrix = h('table', { class: 'matrix', testid: 'matrix' });
const finalLine = h('div', { class: 'final', testid: 'final', attrs: { role: 'status' } });
app.append(header, h('div', { class: 'toolbar' }, progressLine, cancelButton), matrix, finalLine);

/** Foreign text, its invisible and reordering characters shown. */
const text = (s: string): Node[] => markedText(s);

function renderHeader(s: SweepViewState): void {
  const { setup } = s;
  header.replaceChildren(
    h('h1', {}, 'Backend sweep: ', h('span', { testid: 'launch-label' }, ...text(setup.launchLabel))),
    h(
      'div',
      { class: 'muted' },
      `${setup.total} combination${setup.total === 1 ? '' : 's'} · restarted via `,
      h('span', {}, ...text(setup.targetLabel)),
      ' · probing ',
      h('span', {}, ...text(setup.serverLabel)),
    ),
  );
}

function renderProgress(s: SweepViewState): void {
  const done = s.rows.filter(Boolean).length;
  progressLine.replaceChildren(`${done}/${s.setup.total} · `, ...text(s.progress));
  cancelButton.toggleAttribute('disabled', s.phase !== 'running');
}

function headRow(s: SweepViewState): HTMLElement {
  const th = (label: string | Node[], title?: string) => h('th', title ? { title } : {}, ...(typeof label === 'string' ? [label] : label));
  return h(
    'thead',
    {},
    h(
      'tr',
      {},
      th('#'),
      ...s.setup.axes.map((a) => th(text(a.flag), a.current !== undefined ? `now ${a.current}` : 'not set in the launch file')),
      th('started'),
      th('verdict'),
      th('reasons'),
      th('TTFT ms'),
      th('tok/s'),
      th('ready s'),
      th(''),
    ),
  );
}

const num = (v: number | null | undefined): string => (v === null || v === undefined ? '' : String(v));

/** Apply is offered once the sweep is over and the launch is back as it was. */
function canApply(s: SweepViewState, row: SweepRow): boolean {
  return s.phase === 'finished' && !!s.end?.restored && row.verdict === 'ok';
}

function rowElements(s: SweepViewState, row: SweepRow, index: number): HTMLElement[] {
  const v = VERDICT[row.verdict];
  const verdict = row.started ? v : { icon: 'circle-slash', label: 'Did not start' };
  const apply = canApply(s, row)
    ? h(
        'vscode-button',
        {
          testid: 'apply-row',
          attrs: { icon: 'edit', 'data-index': String(index), title: "Put this row's flags into the launch file (you review the diff, then save)" },
          on: { click: () => post({ type: 'applyRow', index }) },
        },
        'Apply this row',
      )
    : null;
  const tr = h(
    'tr',
    {
      class: `row verdict-${row.verdict}${row.started ? '' : ' not-started'}`,
      testid: 'row',
      attrs: { 'data-verdict': row.verdict, 'data-index': String(index) },
    },
    h('td', { class: 'num' }, String(index + 1)),
    ...s.setup.axes.map((a) => {
      const value = row.flags[a.flag] ?? '';
      return h('td', { class: `value${value === a.current ? ' current' : ''}`, testid: 'flag-value' }, h('code', {}, ...text(value)));
    }),
    h('td', {}, row.started ? 'yes' : 'no'),
    h('td', { class: 'verdict', testid: 'verdict' }, icon(verdict.icon), ' ', verdict.label),
    h('td', { class: 'reasons', testid: 'reasons' }, ...text(row.reasons.join(', ') || row.error || '')),
    h('td', { class: 'num' }, num(row.ttftMs)),
    h('td', { class: 'num' }, num(row.tokensPerSecond)),
    h('td', { class: 'num' }, num(row.readySeconds)),
    h('td', { class: 'actions' }, apply),
  );
  const out = [tr];
  // A failed start says why: the error and the log lines that matter, as text.
  if (!row.started && (row.error || row.logLines?.length)) {
    const span = s.setup.axes.length + 8;
    out.push(
      h(
        'tr',
        { class: 'log-row', testid: 'row-log' },
        h(
          'td',
          { attrs: { colspan: String(span) } },
          row.error ? h('div', { class: 'error', testid: 'row-error' }, ...text(row.error)) : null,
          row.logLines?.length ? h('pre', { class: 'log', testid: 'log-lines' }, ...text(row.logLines.join('\n'))) : null,
        ),
      ),
    );
  }
  return out;
}

function renderMatrix(s: SweepViewState): void {
  const body = h('tbody', {});
  s.rows.forEach((row, i) => {
    if (row) body.append(...rowElements(s, row, i));
  });
  matrix.replaceChildren(headRow(s), body);
}

function renderFinal(s: SweepViewState): void {
  const end = s.end;
  if (!end) {
    finalLine.replaceChildren(s.phase === 'cancelling' ? 'Cancelling: the combination under way finishes, then the original launch is restored.' : '');
    finalLine.dataset.restored = '';
    return;
  }
  finalLine.dataset.restored = String(end.restored);
  const healthy = s.rows.filter((r) => r?.verdict === 'ok').length;
  const parts: (Node | string | null)[] = [
    h(
      'div',
      { testid: 'summary' },
      `${end.cancelled ? 'Cancelled' : end.error ? 'Stopped by an error' : 'Finished'}: ${healthy} of ${s.rows.filter(Boolean).length} combinations healthy.`,
    ),
    end.error ? h('div', { class: 'error', testid: 'sweep-error' }, ...text(end.error)) : null,
    end.restored
      ? h('div', { class: 'restored', testid: 'restored' }, icon('check'), ' The original launch was restored.')
      : h(
          'div',
          { class: 'error', testid: 'not-restored' },
          icon('error'),
          ' The original launch was NOT restored: ',
          ...text(end.restoreError ?? 'unknown error'),
        ),
  ];
  if (end.reports) {
    parts.push(
      h(
        'div',
        { class: 'reports', testid: 'reports' },
        'Report saved next to the launch file: ',
        h('code', {}, ...text(end.reports.json)),
        ' ',
        h('vscode-button', { testid: 'open-json', attrs: { secondary: true }, on: { click: () => post({ type: 'openReport', kind: 'json' }) } }, 'Open JSON'),
        ' ',
        h('vscode-button', { testid: 'open-md', attrs: { secondary: true }, on: { click: () => post({ type: 'openReport', kind: 'md' }) } }, 'Open Markdown'),
      ),
    );
  }
  if (end.reportError) parts.push(h('div', { class: 'error' }, 'The report could not be written: ', ...text(end.reportError)));
  finalLine.replaceChildren(...parts.filter((p): p is Node | string => p !== null));
}

function render(): void {
  if (!state) return;
  renderHeader(state);
  renderProgress(state);
  renderMatrix(state);
  renderFinal(state);
}

function onMessage(m: HostToSweepWebview): void {
  if (m.type === 'state') state = m.state;
  if (!state) return;
  if (m.type === 'progress') state.progress = m.message;
  else if (m.type === 'row') state.rows[m.index] = m.row;
  else if (m.type === 'cancelling') state.phase = 'cancelling';
  else if (m.type === 'finished') {
    state.phase = 'finished';
    state.end = m.end;
  }
  render();
}

onHostMessage(onMessage);
post({ type: 'ready' });
