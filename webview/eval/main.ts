/**
 * Accuracy Smoke Test webview: the run filling in live (problems done, accuracy so far with its 95%
 * interval, invalid answers, a chart of accuracy by difficulty), then the judgement against the
 * baseline or the floors, latency, and the wrong and invalid answers. Talks to the host only
 * through src/shared/evalProtocol.ts. Questions come from us, but the answers, the model name and
 * the server's label come from outside: all of it goes in as text (../probe/dom's h / markedText).
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import { DIFFICULTIES, type Difficulty } from '../../src/core/eval/problems';
import { ACCURACY_FLOORS, type EvalReport, type NamedAnswer } from '../../src/core/eval/report';
import { wilsonInterval } from '../../src/core/eval/stats';
import type { DifficultyTally, EvalViewState, EvalWebviewToHost, HostToEvalWebview } from '../../src/shared/evalProtocol';
import { h, icon, markedText, type Child } from '../probe/dom';
import { onHostMessage, startPage } from '../shared/page';
import { svg, tip } from '../shared/svg';
import css from './eval.css';

const post = startPage<EvalWebviewToHost>(css);
const app = document.getElementById('app') ?? document.body;
const text = (s: unknown): Node[] => markedText(typeof s === 'string' ? s : String(s));
const pct = (x: number | null | undefined): string => (x === null || x === undefined || !Number.isFinite(x) ? '–' : `${(x * 100).toFixed(1)}%`);

/** Answers listed per kind (the report keeps more; the counts say how many there are). */
const LISTED = 20;

let state: EvalViewState | undefined;

function button(testid: string, label: string, codicon: string, message: EvalWebviewToHost, opts: { secondary?: boolean; title?: string } = {}): HTMLElement {
  return h(
    'vscode-button',
    { testid, attrs: { icon: codicon, secondary: opts.secondary ?? true, title: opts.title }, on: { click: () => post(message) } },
    label,
  );
}

function header(s: EvalViewState): HTMLElement {
  const { setup } = s;
  const basis = setup.baselineLabel
    ? ['judged against the baseline ', h('code', { testid: 'baseline-label' }, ...text(setup.baselineLabel))]
    : ['judged against the floors (no baseline)'];
  return h(
    'header',
    { testid: 'setup' },
    h('h1', {}, 'Accuracy smoke test: ', h('span', { testid: 'server-label' }, ...text(setup.serverLabel))),
    h(
      'div',
      { class: 'muted' },
      setup.model !== null ? h('span', {}, 'model ', h('code', { testid: 'model' }, ...text(setup.model)), ' · ') : null,
      `${setup.suite} · ${setup.n} problems · seed ${setup.seed}`,
      setup.concurrency ? ` · ${setup.concurrency} at a time` : '',
      ' · ',
      ...basis,
    ),
  );
}

function toolbar(s: EvalViewState): HTMLElement {
  const p = s.progress;
  const running = s.phase !== 'done';
  const status = running
    ? [icon('loading'), ` ${s.phase === 'stopping' ? 'Stopping… ' : ''}${p.done}/${p.total} answered`]
    : [s.report ? `${p.done}/${p.total} answered · ${s.report.status}` : ''];
  const failed = s.report?.judgement && !s.report.judgement.pass;
  return h(
    'div',
    { class: 'toolbar' },
    h('span', { class: 'status', testid: 'status', attrs: { role: 'status', 'aria-live': 'polite' } }, ...status),
    h('span', { class: 'spacer' }),
    running ? button('stop', 'Stop', 'debug-stop', { type: 'stop' }, { title: 'Stop sending problems; the answers in are kept' }) : null,
    !running && !s.fromHistory ? button('run-again', 'Run Again', 'refresh', { type: 'runAgain' }) : null,
    !running && !s.fromHistory
      ? button(
          'compare-baseline',
          'Compare with Baseline…',
          'file',
          { type: 'compareBaseline' },
          { title: 'Pick a baseline file and run its problem set again' },
        )
      : null,
    !running && s.report?.status === 'completed'
      ? button('save-baseline', 'Save as Baseline…', 'save', { type: 'saveBaseline' }, { title: 'Write this run as a baseline file for later runs' })
      : null,
    failed
      ? button('diagnose', 'Diagnose', 'bug', { type: 'diagnose' }, { secondary: false, title: 'Diagnose Server with the accuracy drop as the symptom' })
      : null,
  );
}

function figures(s: EvalViewState): HTMLElement {
  const { correct, wrong, invalid, errors } = s.progress;
  const graded = correct + wrong + invalid;
  const ci = wilsonInterval(correct, graded);
  return h(
    'div',
    { class: 'figures', testid: 'figures' },
    h(
      'div',
      { class: 'figure' },
      h('div', { class: 'label' }, s.phase === 'done' ? 'Accuracy' : 'Accuracy so far'),
      h('div', { class: 'value', testid: 'accuracy' }, pct(graded ? correct / graded : null)),
      h('div', { class: 'muted', testid: 'interval' }, graded ? `95% CI ${pct(ci.low)}–${pct(ci.high)} · ${correct}/${graded}` : 'nothing graded yet'),
    ),
    h(
      'div',
      { class: 'figure' },
      h('div', { class: 'label' }, 'Invalid answers'),
      h('div', { class: 'value', testid: 'invalid-rate' }, pct(graded ? invalid / graded : null)),
      h('div', { class: 'muted' }, `${invalid} with no usable answer${s.report ? invalidWhy(s.report) : ''}`),
    ),
    h(
      'div',
      { class: 'figure' },
      h('div', { class: 'label' }, 'Failed requests'),
      h('div', { class: 'value', testid: 'errors' }, String(errors)),
      h('div', { class: 'muted' }, 'not graded'),
    ),
  );
}

function invalidWhy(r: EvalReport): string {
  const b = r.invalidBy;
  return `: ${b.nan} NaN, ${b.degenerate} degenerate, ${b['no-number']} with no number, ${b.truncated} cut at max tokens`;
}

const CHART = { width: 360, height: 170, left: 40, right: 10, top: 10, bottom: 26 };

/** Accuracy by difficulty: a bar each, its 95% interval as a whisker, and the floor as a tick when there is no baseline. */
function chart(tally: DifficultyTally, floors: boolean): SVGElement {
  const { width, height, left, right, top, bottom } = CHART;
  const plotH = height - top - bottom;
  const slot = (width - left - right) / DIFFICULTIES.length;
  const y = (v: number): number => top + plotH * (1 - v);
  const parts: SVGElement[] = [];
  for (const v of [0, 0.5, 1]) {
    parts.push(svg('line', { class: 'grid', x1: left, x2: width - right, y1: y(v), y2: y(v) }));
    parts.push(svg('text', { class: 'axis', x: left - 4, y: y(v) + 4, 'text-anchor': 'end' }, `${v * 100}%`));
  }
  DIFFICULTIES.forEach((d: Difficulty, i) => {
    const { correct, graded } = tally[d];
    const x = left + slot * i + slot * 0.25;
    const w = slot * 0.5;
    const acc = graded ? correct / graded : 0;
    const ci = wilsonInterval(correct, graded);
    const below = floors && graded > 0 && ci.high < ACCURACY_FLOORS[d];
    const g = svg('g', { 'data-testid': `bar-${d}`, 'data-accuracy': graded ? acc.toFixed(4) : '', class: below ? 'below' : '' });
    g.append(
      tip(graded ? `${d}: ${pct(acc)} (${correct}/${graded}), 95% CI ${pct(ci.low)}–${pct(ci.high)}` : `${d}: nothing graded yet`),
      svg('rect', { class: 'bar', x, y: y(acc), width: w, height: Math.max(0, y(0) - y(acc)) }),
    );
    if (graded) {
      const cx = x + w / 2;
      g.append(
        svg('line', { class: 'whisker', x1: cx, x2: cx, y1: y(ci.high), y2: y(ci.low) }),
        svg('line', { class: 'whisker', x1: cx - 5, x2: cx + 5, y1: y(ci.high), y2: y(ci.high) }),
        svg('line', { class: 'whisker', x1: cx - 5, x2: cx + 5, y1: y(ci.low), y2: y(ci.low) }),
      );
    }
    if (floors)
      g.append(
        svg(
          'line',
          { class: 'floor', x1: x - 6, x2: x + w + 6, y1: y(ACCURACY_FLOORS[d]), y2: y(ACCURACY_FLOORS[d]) },
          tip(`floor ${pct(ACCURACY_FLOORS[d])}`),
        ),
      );
    g.append(svg('text', { class: 'axis', x: x + w / 2, y: height - 8, 'text-anchor': 'middle' }, `${d} ${graded ? pct(acc) : ''}`));
    parts.push(g);
  });
  return svg(
    'svg',
    { class: 'chart', 'data-testid': 'chart', viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': 'Accuracy by difficulty' },
    ...parts,
  );
}

function verdict(r: EvalReport): HTMLElement | null {
  const j = r.judgement;
  if (!j) {
    const why =
      r.status === 'failed' ? (r.failure ?? 'the run failed') : r.status === 'cancelled' ? 'the run was stopped before the end' : 'nothing was graded';
    return h('div', { class: 'verdict none', testid: 'verdict', attrs: { 'data-pass': 'none' } }, 'Not judged: ', ...text(why));
  }
  return h(
    'div',
    { class: `verdict ${j.pass ? 'pass' : 'fail'}`, testid: 'verdict', attrs: { 'data-pass': String(j.pass) } },
    icon(j.pass ? 'pass' : 'error'),
    ' ',
    ...text(j.message),
    ...(j.baseline?.warnings ?? []).map((w) => h('div', { class: 'warning' }, icon('warning'), ' ', ...text(w))),
  );
}

function answersTable(title: string, testid: string, answers: readonly NamedAnswer[], total: number): HTMLElement | null {
  if (!answers.length) return null;
  const shown = answers.slice(0, LISTED);
  return h(
    'section',
    { testid },
    h('h2', {}, `${title} (${shown.length < total ? `first ${shown.length} of ` : ''}${total})`),
    h(
      'table',
      { class: 'answers' },
      h('tr', {}, h('th', {}, 'problem'), h('th', {}, 'question'), h('th', {}, 'expected'), h('th', {}, 'got'), h('th', {}, 'end of the answer')),
      ...shown.map((a) =>
        h(
          'tr',
          { testid: 'answer-row' },
          h('td', {}, h('code', {}, a.id), h('div', { class: 'muted' }, a.difficulty)),
          h('td', {}, ...text(a.question)),
          h('td', { class: 'num' }, String(a.expected)),
          h(
            'td',
            { class: 'num', testid: 'given' },
            a.given === null ? (a.why ?? '–') : String(a.given),
            a.reasons.length ? h('div', { class: 'muted' }, ...text(a.reasons.join(', '))) : null,
          ),
          h('td', {}, h('pre', { class: 'tail', testid: 'answer-tail' }, ...text(a.answerTail))),
        ),
      ),
    ),
  );
}

function render(): void {
  const s = state;
  if (!s) return;
  const r = s.report;
  const parts: Child[] = [header(s), toolbar(s)];
  if (s.error) parts.push(h('div', { class: 'error', testid: 'error' }, ...text(s.error)));
  if (s.savedBaseline)
    parts.push(h('div', { class: 'muted', testid: 'saved' }, icon('save'), ' Saved as the baseline ', h('code', {}, ...text(s.savedBaseline))));
  if (r) parts.push(verdict(r));
  parts.push(figures(s), h('section', {}, h('h2', {}, 'By difficulty'), chart(s.tally, !s.setup.baselineLabel)));
  if (r) {
    const ms = (x: number | null): string => (x === null ? '–' : `${Math.round(x)} ms`);
    parts.push(
      h(
        'div',
        { class: 'muted', testid: 'latency' },
        `latency p50 ${ms(r.latencyMs.p50)} · p95 ${ms(r.latencyMs.p95)} · first token p50 ${ms(r.ttftMs.p50)} · ${(r.durationMs / 1000).toFixed(1)} s in all`,
      ),
      answersTable('Invalid answers', 'invalid-list', r.invalidAnswers, r.counts.invalid),
      answersTable('Wrong answers', 'wrong-list', r.wrongAnswers, r.counts.wrong),
    );
  }
  app.dataset.phase = s.phase;
  app.replaceChildren(...parts.filter((p): p is Node => p instanceof Node));
}

onHostMessage<HostToEvalWebview>((m) => {
  if (m.type === 'state') state = m.state;
  else if (m.type === 'progress' && state) {
    state.progress = m.progress;
    state.tally = m.tally;
  }
  render();
});
post({ type: 'ready' });
