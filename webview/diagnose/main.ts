/**
 * Diagnose Server webview: the symptoms, the causes ranked best first (title, confidence, score,
 * mechanism), each cause's evidence for (✓) and against (✗), what is still unknown, the fix steps
 * in order, its sources and its buttons, then the next check. Talks to the host only through
 * src/shared/diagnoseProtocol.ts. Titles, evidence, flag values, notes and labels come from rules,
 * servers, hosts and files: all of it goes in as text (../probe/dom's h / markedText); only a
 * source that githubLink accepts becomes a link, and a click on it asks the host to open it.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import type { Finding, FindingEvidence } from '../../src/core/diagnose/rules/engine';
import type { FixStep } from '../../src/core/diagnose/rules/types';
import { githubLink, type DiagnoseViewState, type DiagnoseWebviewToHost, type HostToDiagnoseWebview } from '../../src/shared/diagnoseProtocol';
import { h, icon, markedText, type Child } from '../probe/dom';
import { onHostMessage, startPage } from '../shared/page';
import css from './diagnose.css';

const post = startPage<DiagnoseWebviewToHost>(css);

/** Foreign text, its invisible and reordering characters shown. */
const text = (s: unknown): Node[] => markedText(typeof s === 'string' ? s : String(s));

const app = document.getElementById('app') ?? document.body;

function header(s: DiagnoseViewState): HTMLElement {
  const when = s.at ? `${new Date(s.at).toLocaleString()} · ` : '';
  return h(
    'header',
    { class: 'header', testid: 'header' },
    h('h1', {}, 'Diagnosis: ', h('span', { testid: 'server-label' }, ...text(s.serverLabel))),
    h(
      'div',
      { class: 'toolbar' },
      h(
        'span',
        { class: 'muted', testid: 'status', attrs: { role: 'status', 'aria-live': 'polite' } },
        ...(s.phase === 'running' ? [icon('loading'), ' ', ...text(s.progress ?? 'Gathering evidence')] : [`${when}${s.rulesJudged} rules judged`]),
      ),
      h('span', { class: 'spacer' }),
      h(
        'vscode-button',
        {
          testid: 'rediagnose',
          attrs: { icon: 'refresh', secondary: true, disabled: s.phase === 'running', title: 'Probe the server and read everything again' },
          on: { click: () => post({ type: 'rediagnose' }) },
        },
        'Diagnose again',
      ),
    ),
  );
}

/** `h` takes children; an array of them is spread here. */
function list(tag: 'ul' | 'ol', props: Parameters<typeof h>[1], items: Child[][]): HTMLElement {
  return h(tag, props, ...items.map((children) => h('li', {}, ...children)));
}

function section(title: string, testid: string, ...children: Child[]): HTMLElement {
  return h('section', { class: 'section', testid }, h('h2', {}, title), ...children);
}

/** The same line from several probes once, with how many times it was seen. */
function grouped(items: readonly FindingEvidence[]): { e: FindingEvidence; times: number }[] {
  const out = new Map<string, { e: FindingEvidence; times: number }>();
  for (const e of items) {
    const key = `${e.stance}\u0000${e.text}\u0000${e.source ?? ''}\u0000${e.where ?? ''}`;
    const seen = out.get(key);
    if (seen) seen.times++;
    else out.set(key, { e, times: 1 });
  }
  return [...out.values()];
}

function evidenceItem({ e, times }: { e: FindingEvidence; times: number }): HTMLElement {
  // The rules' evidence lines usually name their source already: "engine sglang (launch, run.sh line 3)".
  const where = [e.source, e.where].filter((x): x is string => typeof x === 'string' && x !== '' && !e.text.includes(x)).join(', ');
  return h(
    'li',
    { class: `evidence ${e.stance}`, testid: 'evidence-item', attrs: { 'data-stance': e.stance } },
    h('span', { class: 'mark', attrs: { 'aria-label': e.stance === 'for' ? 'for' : 'against' } }, e.stance === 'for' ? '✓' : '✗'),
    ' ',
    h('span', { testid: 'evidence-text' }, ...text(e.text)),
    where ? h('span', { class: 'muted where' }, ' — ', ...text(where)) : null,
    times > 1 ? h('span', { class: 'muted', testid: 'times' }, ` ×${times}`) : null,
    e.certainty && e.certainty !== 'certain' ? h('span', { class: 'muted' }, ` (${e.certainty})`) : null,
  );
}

function stepItems(step: FixStep): Child[] {
  const parts: string[] = [];
  for (const [k, v] of Object.entries(step.flags ?? {})) parts.push(v === true ? k : `${k} ${String(v)}`);
  for (const [k, v] of Object.entries(step.env ?? {})) parts.push(v === null ? `unset ${k}` : `${k}=${v}`);
  for (const p of step.packages ?? []) parts.push(`${p.action} ${p.name}${p.specifier ? ` ${p.specifier}` : ''}`);
  return [parts.length ? h('code', { testid: 'fix-change' }, ...text(parts.join(' '))) : null, parts.length ? ' — ' : null, ...text(step.note)];
}

function sourceItem(url: string): HTMLElement {
  const link = githubLink(url);
  if (!link) return h('li', {}, h('span', { testid: 'source-text' }, ...text(url)));
  return h(
    'li',
    {},
    h(
      'a',
      {
        testid: 'source-link',
        attrs: { href: link, title: link },
        on: {
          click: (event) => {
            event.preventDefault();
            post({ type: 'openSource', url: link });
          },
        },
      },
      ...text(link.replace(/^https:\/\/github\.com\//, '')),
    ),
  );
}

function findingCard(f: Finding, index: number, s: DiagnoseViewState): HTMLElement {
  const forItems = f.evidence.filter((e) => e.stance === 'for');
  const against = f.evidence.filter((e) => e.stance === 'against');
  const canApply = !!s.launchLabel && f.fix.steps.some((st) => st.flags && Object.keys(st.flags).length > 0);
  const noLaunch = 'No launch file is known for this server';
  return h(
    'article',
    { class: `finding ${f.confidence}`, testid: 'finding', attrs: { 'data-id': f.id, 'data-confidence': f.confidence, 'data-index': String(index) } },
    h(
      'h3',
      {},
      h('span', { class: 'rank' }, `${index + 1}. `),
      h('span', { testid: 'finding-title' }, ...text(f.title)),
      ' ',
      h('span', { class: `badge ${f.confidence}`, testid: 'confidence' }, f.confidence === 'match' ? 'match' : 'possible'),
      ' ',
      h('span', { class: 'muted', testid: 'score', title: 'how well the evidence and the symptom fit (0–1)' }, `score ${f.score.toFixed(2)}`),
    ),
    h('div', { class: 'muted rule-id' }, ...text(f.id)),
    h('p', { class: 'mechanism', testid: 'mechanism' }, ...text(f.mechanism)),
    h('h4', {}, 'Evidence'),
    h('ul', { class: 'evidence-list', testid: 'evidence' }, ...grouped(forItems).map(evidenceItem), ...grouped(against).map(evidenceItem)),
    f.missing.length ? h('h4', {}, 'Still unknown: checks that would decide it') : null,
    f.missing.length
      ? list(
          'ul',
          { testid: 'missing' },
          f.missing.map((m) => text(m)),
        )
      : null,
    h('h4', {}, 'Fix, in order'),
    list('ol', { testid: 'fix-steps' }, f.fix.steps.map(stepItems)),
    f.ruleOut.length ? h('h4', {}, 'Not this cause if') : null,
    f.ruleOut.length
      ? list(
          'ul',
          { testid: 'rule-out' },
          f.ruleOut.map((r) => text(r)),
        )
      : null,
    f.sources.length ? h('h4', {}, 'Sources') : null,
    f.sources.length ? h('ul', { testid: 'sources-list' }, ...f.sources.map(sourceItem)) : null,
    h(
      'div',
      { class: 'actions' },
      h(
        'vscode-button',
        {
          testid: 'apply',
          attrs: {
            icon: 'debug-restart',
            'data-index': String(index),
            disabled: !canApply,
            title: canApply
              ? `Apply the first flag fix to ${s.launchLabel ?? ''}, restart and re-probe`
              : s.launchLabel
                ? 'This fix changes no flags'
                : noLaunch,
          },
          on: { click: () => post({ type: 'applyAndVerify', index }) },
        },
        'Apply and Verify',
      ),
      h(
        'vscode-button',
        {
          testid: 'sweep',
          attrs: {
            icon: 'beaker',
            secondary: true,
            'data-index': String(index),
            disabled: !s.launchLabel,
            title: s.launchLabel ? `Backend Sweep on ${s.launchLabel}` : noLaunch,
          },
          on: { click: () => post({ type: 'sweep', index }) },
        },
        'Sweep',
      ),
    ),
  );
}

function render(s: DiagnoseViewState): void {
  const parts: Child[] = [header(s)];
  if (s.error) parts.push(h('div', { class: 'error', testid: 'error', attrs: { role: 'alert' } }, ...text(s.error)));
  if (s.phase === 'done' && !s.error) {
    parts.push(
      section(
        'Symptoms',
        'symptoms',
        s.symptoms.length
          ? list(
              'ul',
              {},
              s.symptoms.map((x) => [h('strong', { testid: 'symptom' }, ...text(x.symptom)), h('span', { class: 'muted' }, ' — ', ...text(x.from))]),
            )
          : h('p', { class: 'muted' }, 'None seen: every probe answer read healthy, or nothing was probed.'),
      ),
    );
    parts.push(
      section(
        'Causes, best first',
        'findings',
        s.findings.length
          ? h('div', {}, ...s.findings.map((f, i) => findingCard(f, i, s)))
          : h('p', { testid: 'no-findings' }, `No cause in the ${s.rulesJudged} rules fits what is known.`),
      ),
    );
    if (s.nextCheck) parts.push(section('Next check', 'next-check', h('p', {}, ...text(s.nextCheck))));
  }
  parts.push(
    section(
      'What was read',
      'sources',
      s.sources.length
        ? list(
            'ul',
            {},
            s.sources.map((x) => [h('span', { class: 'muted' }, `${x.kind}: `), ...text(x.label)]),
          )
        : h('p', { class: 'muted' }, '…'),
      s.launchLabel ? h('p', { testid: 'launch' }, 'Fixes go to ', h('code', {}, ...text(s.launchLabel))) : null,
      s.notes.length
        ? list(
            'ul',
            { class: 'notes', testid: 'notes' },
            s.notes.map((n) => [icon('info'), ' ', ...text(n)]),
          )
        : null,
    ),
  );
  app.dataset.phase = s.phase;
  app.replaceChildren(...parts.filter((p): p is Node => p instanceof Node));
}

onHostMessage<HostToDiagnoseWebview>((m) => {
  if (m.type === 'state' && m.state && typeof m.state === 'object') render(m.state);
});
post({ type: 'ready' });
