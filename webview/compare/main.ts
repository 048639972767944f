/**
 * Reference check webview ("Compare with Reference Server…"): each prompt's pair as it comes in
 * (where the answers part, token agreement, logprob distance, top-K overlap), the two answers
 * aligned with the first divergence marked, a plot of each side's chosen-token logprobs, then the
 * verdict (identical, drift, broken) with the numbers behind it. Talks to the host only through
 * src/shared/compareProtocol.ts. Answers, labels, models and reasons come from servers: all of it
 * goes in as text (../probe/dom's h / markedText), the plot's labels as SVG text nodes.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import type { LogprobSeries, PlotLogprob, PromptComparison } from '../../src/core/compare/types';
import type { CompareSummary, CompareViewState, CompareWebviewToHost, HostToCompareWebview } from '../../src/shared/compareProtocol';
import { h, icon, markedText, type Child } from '../probe/dom';
import { onHostMessage, startPage } from '../shared/page';
import { svg, tip } from '../shared/svg';
import css from './compare.css';

const post = startPage<CompareWebviewToHost>(css);
const app = document.getElementById('app') ?? document.body;
const text = (s: unknown): Node[] => markedText(typeof s === 'string' ? s : String(s));
const num = (x: number | null | undefined, digits = 3): string => (x === null || x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(digits));
const pct = (x: number | null | undefined): string => (x === null || x === undefined || !Number.isFinite(x) ? '–' : `${Math.round(x * 100)}%`);

/** Characters of the shared text shown before the split. */
const PREFIX_SHOWN = 160;

let state: CompareViewState | undefined;
/** Prompts whose details the user opened or closed (kept across renders). */
const opened = new Map<number, boolean>();

function button(testid: string, label: string, codicon: string, message: CompareWebviewToHost, secondary = true): HTMLElement {
  return h('vscode-button', { testid, attrs: { icon: codicon, secondary }, on: { click: () => post(message) } }, label);
}

function sideLine(name: string, s: CompareViewState['setup']['a'], testid: string): HTMLElement {
  return h(
    'div',
    { class: 'muted', testid },
    `${name}: `,
    h('span', { class: 'side-label' }, ...text(s.label)),
    s.model !== null ? h('span', {}, ' · model ', h('code', {}, ...text(s.model))) : null,
    ' · ',
    ...text(s.url),
  );
}

function header(s: CompareViewState): HTMLElement {
  const running = s.phase !== 'done';
  const broken = s.summary?.verdict === 'broken';
  return h(
    'header',
    { testid: 'setup' },
    h('h1', {}, 'Reference check: ', h('span', { testid: 'server-label' }, ...text(s.setup.b.label))),
    sideLine('A, the reference', s.setup.a, 'side-a'),
    sideLine('B, under suspicion', s.setup.b, 'side-b'),
    h('div', { class: 'muted' }, `${s.setup.prompts} prompts, greedy · top-${s.setup.topLogprobs} logprobs`),
    h(
      'div',
      { class: 'toolbar' },
      h(
        'span',
        { testid: 'status', attrs: { role: 'status', 'aria-live': 'polite' } },
        ...(running
          ? [icon('loading'), ` ${s.phase === 'stopping' ? 'Stopping… ' : ''}${s.rows.length}/${s.setup.prompts} prompts compared`]
          : [`${s.rows.length} prompts compared`]),
      ),
      h('span', { class: 'spacer' }),
      running ? button('stop', 'Stop', 'debug-stop', { type: 'stop' }) : button('run-again', 'Run Again', 'refresh', { type: 'runAgain' }),
      broken ? button('diagnose', 'Diagnose B', 'bug', { type: 'diagnose' }, false) : null,
    ),
  );
}

const VERDICT_ICON: Record<CompareSummary['verdict'], string> = { identical: 'pass', drift: 'info', broken: 'error', error: 'circle-slash' };

function verdictBox(v: CompareSummary): HTMLElement {
  const n = v.numbers;
  const nf = (c: typeof n.nonFiniteA): string => `${c.nan} NaN, ${c.posInf} +Inf, ${c.negInf} −Inf, ${c.missing} missing`;
  const rows: [string, string][] = [
    ['prompts compared', `${n.compared} of ${n.prompts}${n.failed ? ` (${n.failed} failed)` : ''}`],
    ['same text', String(n.identical)],
    ['diverged', `${n.diverged} (${n.early} early, ${n.earlyNearTie} early at a near tie)`],
    ['first / median split', `token ${n.firstDivergenceToken ?? '–'} / ${n.medianDivergenceToken ?? '–'}`],
    ['logprob |Δ| mean / max', `${num(n.logprobMeanAbs)} / ${num(n.logprobMax)} nats over ${n.logprobPairs} tokens`],
    ['top-K overlap', `${num(n.topKOverlap, 2)} over ${n.topKPositions} positions`],
    ['non-finite logprobs A', nf(n.nonFiniteA)],
    ['non-finite logprobs B', nf(n.nonFiniteB)],
    ['NaN or degenerate answers', `A ${n.badA}, B ${n.badB}`],
  ];
  if (n.tokenizersDiffer) rows.push(['compared by text spans', `${n.tokenizersDiffer} prompts (the tokenizers differ)`]);
  if (n.textOnly) rows.push(['compared by text only', `${n.textOnly} prompts (no logprobs)`]);
  return h(
    'section',
    { class: `verdict ${v.verdict}`, testid: 'verdict', attrs: { 'data-verdict': v.verdict } },
    h('h2', {}, icon(VERDICT_ICON[v.verdict]), ` Verdict: ${v.verdict.toUpperCase()}`),
    h('ul', { testid: 'reasons' }, ...v.reasons.map((r) => h('li', {}, ...text(r)))),
    v.notes.length ? h('ul', { class: 'notes', testid: 'notes' }, ...v.notes.map((r) => h('li', {}, icon('info'), ' ', ...text(r)))) : null,
    h('table', { class: 'numbers', testid: 'numbers' }, ...rows.map(([k, val]) => h('tr', {}, h('th', {}, k), h('td', {}, val)))),
  );
}

function splitText(row: PromptComparison): string {
  const d = row.alignment?.divergence;
  if (row.a.error || row.b.error) return 'failed';
  if (!row.alignment) return '–';
  if (!d) return 'same text';
  return d.tokenA !== null ? `token ${d.tokenA}` : `char ${d.char}`;
}

/** One side's answer: the shared text (its end), the split mark, and this side's continuation. */
function answerColumn(name: string, row: PromptComparison, side: 'a' | 'b'): HTMLElement {
  const report = row[side];
  if (report.error) return h('div', { class: 'answer' }, h('h4', {}, name), h('div', { class: 'error' }, ...text(report.error.message)));
  const cont = side === 'a' ? row.continuationA : row.continuationB;
  const body: Child[] =
    row.prefix !== undefined && cont !== undefined
      ? [
          row.prefix.length > PREFIX_SHOWN ? '…' : '',
          h('span', { class: 'shared' }, ...text(row.prefix.slice(-PREFIX_SHOWN))),
          h('span', { class: 'split', testid: 'split-mark', title: 'the answers part here' }, '▼'),
          h('span', { class: 'theirs', testid: `continuation-${side}` }, ...text(cont)),
        ]
      : [h('span', { testid: `answer-${side}` }, ...text(report.text))];
  return h(
    'div',
    { class: 'answer' },
    h('h4', {}, name, report.verdict && report.verdict !== 'ok' ? h('span', { class: 'bad' }, ` · ${report.verdict}`) : null),
    h('pre', { class: 'text' }, ...body),
  );
}

const PLOT = { width: 560, height: 150, left: 36, right: 8, top: 10, bottom: 18 };

const finite = (v: PlotLogprob): v is number => typeof v === 'number' && Number.isFinite(v);

/** Each side's chosen-token logprob by token, the split as a line, non-finite values as marks. */
function plot(series: LogprobSeries, splitAt: number | null): SVGElement {
  const { width, height, left, right, top, bottom } = PLOT;
  const len = Math.max(series.a.length, series.b.length, 2);
  const lows = [...series.a, ...series.b].filter(finite);
  const floor = Math.min(-1, Math.max(-20, Math.floor(Math.min(0, ...lows))));
  const x = (i: number): number => left + ((width - left - right) * i) / (len - 1);
  const y = (v: number): number => top + (height - top - bottom) * Math.min(1, Math.max(0, v / floor));
  const parts: SVGElement[] = [];
  for (const v of [0, floor]) {
    parts.push(
      svg('line', { class: 'grid', x1: left, x2: width - right, y1: y(v), y2: y(v) }),
      svg('text', { class: 'axis', x: left - 4, y: y(v) + 4, 'text-anchor': 'end' }, String(v)),
    );
  }
  if (splitAt !== null && splitAt < len)
    parts.push(
      svg(
        'line',
        { class: 'split-line', 'data-testid': 'split-line', x1: x(splitAt), x2: x(splitAt), y1: top, y2: height - bottom },
        tip(`the answers part at token ${splitAt}`),
      ),
    );
  for (const side of ['a', 'b'] as const) {
    const values = series[side];
    // A line per run of finite values: a NaN or a missing value breaks it.
    let run: string[] = [];
    const flush = (): void => {
      if (run.length > 1) parts.push(svg('polyline', { class: `line ${side}`, 'data-testid': `plot-${side}`, points: run.join(' ') }));
      else if (run.length === 1)
        parts.push(svg('circle', { class: `dot ${side}`, 'data-testid': `plot-${side}`, cx: run[0].split(',')[0], cy: run[0].split(',')[1], r: 1.5 }));
      run = [];
    };
    values.forEach((v, i) => {
      if (finite(v)) {
        run.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
        return;
      }
      flush();
      if (v === null) return;
      const atTop = v !== '-Infinity';
      parts.push(
        svg(
          'text',
          { class: `nonfinite ${side}`, 'data-testid': 'nonfinite', x: x(i), y: atTop ? top + 8 : height - bottom - 2, 'text-anchor': 'middle' },
          '×',
          tip(`${side.toUpperCase()} token ${i}: ${v}`),
        ),
      );
    });
    flush();
  }
  parts.push(svg('text', { class: 'axis', x: width - right, y: height - 4, 'text-anchor': 'end' }, `token ${len - 1}`));
  return svg(
    'svg',
    {
      class: 'plot',
      'data-testid': 'plot',
      viewBox: `0 0 ${width} ${height}`,
      width,
      height,
      role: 'img',
      'aria-label': 'Chosen-token logprobs of A and B by token',
    },
    ...parts,
  );
}

function promptCard(row: PromptComparison, open: boolean): HTMLElement {
  const al = row.alignment;
  const summary = h(
    'summary',
    {},
    h('span', { class: 'idx' }, `#${row.index + 1}`),
    h('span', { class: `split-at ${row.early ? 'early' : ''}`, testid: 'split-at' }, splitText(row)),
    al
      ? h('span', { class: 'muted' }, `agree ${pct(al.agreement)} · Δlp ${num(al.logprobMeanAbs)}/${num(al.logprobMax)} · top-K ${num(al.topKOverlap, 2)}`)
      : null,
    row.early ? h('span', { class: 'bad' }, ' early') : null,
    h('span', { class: 'prompt' }, ...text(row.prompt)),
  );
  const details = h(
    'details',
    { class: 'prompt-card', testid: 'prompt-row', attrs: { open, 'data-index': String(row.index) } },
    summary,
    h('div', { class: 'columns' }, answerColumn('A, reference', row, 'a'), answerColumn('B', row, 'b')),
    row.logprobs ? plot(row.logprobs, al?.divergence?.tokenA ?? null) : h('div', { class: 'muted' }, 'No logprobs to plot.'),
    row.logprobs
      ? h('div', { class: 'legend muted' }, h('span', { class: 'key a' }, '—'), ' A  ', h('span', { class: 'key b' }, '—'), ' B  · × not a number')
      : null,
  );
  details.addEventListener('toggle', () => opened.set(row.index, details.open));
  return details;
}

function render(): void {
  const s = state;
  if (!s) return;
  const rows = [...s.rows].sort((x, y) => x.index - y.index);
  // Open the first prompt that parts, unless the user chose otherwise.
  const firstSplit = rows.find((r) => r.alignment?.divergence)?.index;
  const parts: Child[] = [header(s)];
  if (s.error) parts.push(h('div', { class: 'error', testid: 'error' }, ...text(s.error)));
  if (s.summary) parts.push(verdictBox(s.summary));
  parts.push(h('section', { testid: 'prompts' }, h('h2', {}, 'Prompts'), ...rows.map((r) => promptCard(r, opened.get(r.index) ?? r.index === firstSplit))));
  app.dataset.phase = s.phase;
  app.replaceChildren(...parts.filter((p): p is Node => p instanceof Node));
}

onHostMessage<HostToCompareWebview>((m) => {
  if (m.type === 'state') state = m.state;
  else if (m.type === 'row' && state) state.rows.push(m.row);
  render();
});
post({ type: 'ready' });
