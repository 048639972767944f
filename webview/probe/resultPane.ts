/** One result pane: live answer, reasoning, verdict, metrics, error and raw chunks. */
import type { ProbeEvent, ProbeParams, ProbeResult } from '../../src/core/probe/types';
import type { Verdict } from '../../src/core/detect/types';
import { OUTCOME_ICON, OUTCOME_LABEL, runOutcome, type RunOutcome } from '../../src/core/probe/outcome';
import { serverWatchText } from '../../src/core/probe/serverText';
import type { HistoryEntry, Pane } from '../../src/shared/webviewProtocol';
import { append, h, icon, markedText } from './dom';
import { BoundedLines, StreamingText } from './textView';

/** Visible answer characters per pane; older text is dropped from the start. */
export const MAX_ANSWER_CHARS = 4_000_000;
const MAX_REASONING_CHARS = 1_000_000;
const MAX_RAW_LINES = 400;
const MAX_RAW_LINE_CHARS = 2_000;

type BadgeState = 'none' | 'pending' | RunOutcome;

/** The badge before a run ends; after, it shows the run's outcome. */
const BADGE: Record<'none' | 'pending', { label: string; icon: string }> = {
  none: { label: 'No run yet', icon: 'circle-large-outline' },
  pending: { label: 'Running…', icon: 'loading' },
};

const STATUS_LABEL: Record<ProbeResult['status'], string> = {
  completed: 'Completed',
  stopped: 'Stopped',
  'early-stopped': 'Stopped early (degenerate)',
  error: 'Failed',
};

export interface PaneActions {
  stop(runId: string): void;
  rerun(historyId: string, pane: Pane): void;
  /** Diagnose the server this stored run probed (offered when its verdict is not OK). */
  diagnose?(historyId: string): void;
  close?(): void;
}

function fmtMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  return ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

function fmtRate(rate: number | null | undefined): string {
  return rate === null || rate === undefined || !Number.isFinite(rate) ? '–' : `${rate.toFixed(1)} tok/s`;
}

export class ResultPane {
  readonly el: HTMLElement;
  runId: string | null = null;
  historyId: string | null = null;
  private readonly answer = new StreamingText('answer', 'answer', MAX_ANSWER_CHARS);
  private readonly reasoning = new StreamingText('reasoning', 'reasoning-text', MAX_REASONING_CHARS);
  private readonly raw: BoundedLines;
  private readonly title = h('span', { class: 'pane-title', testid: 'pane-title' });
  private readonly statusEl = h('span', { class: 'status', testid: 'status' });
  private readonly badge = h('span', { class: 'badge', testid: 'verdict-badge', attrs: { 'data-verdict': 'none', role: 'status' } });
  private readonly reasons = h('ul', { class: 'reasons', testid: 'reasons' });
  private readonly errorBox = h('div', { class: 'error-box', testid: 'error', attrs: { hidden: true, role: 'alert' } });
  private readonly metric = {
    ttft: h('span', { testid: 'ttft' }, '–'),
    rate: h('span', { testid: 'tokens-per-second' }, '–'),
    tokens: h('span', { testid: 'tokens' }, '–'),
    duration: h('span', { testid: 'duration' }, '–'),
    finish: h('span', { testid: 'finish' }, '–'),
    server: h('span', { testid: 'server-watch' }, '–'),
  };
  private readonly reasoningBlock: HTMLElement;
  private readonly rawBlock: HTMLElement & { heading?: string };
  private readonly stopButton: HTMLElement;
  private readonly rerunButton: HTMLElement;
  private readonly diagnoseButton: HTMLElement;
  // Live metrics while streaming.
  private firstTokenAt: number | null = null;
  private lastDeltaAt = 0;
  private contentDeltas = 0;

  constructor(
    readonly pane: Pane,
    private readonly actions: PaneActions,
  ) {
    this.raw = new BoundedLines('raw-chunks', MAX_RAW_LINES, MAX_RAW_LINE_CHARS, (total) => {
      this.rawBlock.heading = `Raw chunks (${total})`;
    });
    this.stopButton = h(
      'button',
      {
        class: 'icon-button',
        testid: 'pane-stop',
        title: 'Stop this run',
        attrs: { type: 'button', disabled: true },
        on: { click: () => this.runId && this.actions.stop(this.runId) },
      },
      icon('debug-stop'),
    );
    this.rerunButton = h(
      'button',
      {
        class: 'icon-button',
        testid: 'pane-rerun',
        title: 'Run this probe again',
        attrs: { type: 'button', disabled: true },
        on: { click: () => this.historyId && this.actions.rerun(this.historyId, this.pane) },
      },
      icon('refresh'),
    );
    this.diagnoseButton = h(
      'vscode-button',
      {
        testid: 'pane-diagnose',
        attrs: { icon: 'bug', secondary: true, hidden: true, title: 'Find out why: rank the causes that fit this server (Diagnose Server)' },
        on: { click: () => this.historyId && this.actions.diagnose?.(this.historyId) },
      },
      'Diagnose',
    );
    const closeButton =
      actions.close &&
      h(
        'button',
        {
          class: 'icon-button',
          testid: 'pane-close',
          title: 'Close the compare pane',
          attrs: { type: 'button' },
          on: { click: () => actions.close?.() },
        },
        icon('close'),
      );

    this.reasoningBlock = h(
      'vscode-collapsible',
      { class: 'block', attrs: { heading: 'Reasoning', hidden: true } },
      this.reasoning.droppedNote,
      this.reasoning.el,
    );
    this.rawBlock = h('vscode-collapsible', { class: 'block', attrs: { heading: 'Raw chunks (0)' } }, this.raw.el);

    this.el = h(
      'section',
      { class: `pane pane-${pane}`, testid: `pane-${pane}`, attrs: { 'data-status': 'idle', 'aria-label': `${pane} result` } },
      h('header', { class: 'pane-header' }, this.title, this.statusEl, h('span', { class: 'spacer' }), this.rerunButton, this.stopButton, closeButton),
      h(
        'div',
        { class: 'verdict-row' },
        this.badge,
        this.diagnoseButton,
        h(
          'dl',
          { class: 'metrics', testid: 'metrics' },
          h('dt', {}, 'TTFT'),
          h('dd', {}, this.metric.ttft),
          h('dt', {}, 'Speed'),
          h('dd', {}, this.metric.rate),
          h('dt', {}, 'Tokens'),
          h('dd', {}, this.metric.tokens),
          h('dt', {}, 'Time'),
          h('dd', {}, this.metric.duration),
          h('dt', {}, 'Finish'),
          h('dd', {}, this.metric.finish),
          h('dt', {}, 'Server'),
          h('dd', {}, this.metric.server),
        ),
      ),
      this.reasons,
      this.errorBox,
      this.reasoningBlock,
      h('div', { class: 'answer-wrap' }, this.answer.droppedNote, this.answer.el),
      this.rawBlock,
    );
    this.setBadge('none');
    this.title.textContent = pane === 'main' ? 'Result' : 'Compare';
  }

  get running(): boolean {
    return this.el.dataset.status === 'running';
  }

  /** The visible answer text, for tests and copy. */
  get answerText(): string {
    return this.answer.value;
  }

  start(runId: string, serverLabel: string, params: ProbeParams): void {
    this.reset();
    this.runId = runId;
    this.setTitle(serverLabel, params);
    this.el.dataset.status = 'running';
    this.statusEl.textContent = params.stream ? 'Streaming…' : 'Waiting for the answer…';
    this.setBadge('pending');
    this.stopButton.toggleAttribute('disabled', false);
  }

  onEvent(event: ProbeEvent): void {
    switch (event.type) {
      case 'request':
        this.raw.add(`+${Math.round(event.at)} ms  → POST ${event.url}`);
        break;
      case 'response':
        this.raw.add(`+${Math.round(event.at)} ms  ← HTTP ${event.status}`);
        break;
      case 'chunk':
        this.raw.add(`+${Math.round(event.at)} ms  ${event.raw}`);
        break;
      case 'delta':
        if (event.content || event.reasoning) {
          this.firstTokenAt ??= event.at;
          this.lastDeltaAt = event.at;
          this.metric.ttft.textContent = fmtMs(this.firstTokenAt);
        }
        if (event.content) {
          this.contentDeltas += 1;
          this.answer.append(event.content);
          this.metric.tokens.textContent = String(this.contentDeltas);
          const seconds = (this.lastDeltaAt - this.firstTokenAt!) / 1000;
          if (seconds > 0.05) this.metric.rate.textContent = fmtRate(this.contentDeltas / seconds);
        }
        if (event.reasoning) {
          this.reasoningBlock.hidden = false;
          this.reasoning.append(event.reasoning);
        }
        break;
      case 'verdict':
        this.setVerdict(event.verdict);
        break;
    }
  }

  finish(result: ProbeResult, historyId: string | undefined): void {
    this.answer.flush();
    this.reasoning.flush();
    this.raw.flush();
    // The result is authoritative: non-streamed runs have no deltas, and bounds may differ.
    if (this.answer.value !== result.content || this.answer.offset !== result.contentDroppedChars) {
      this.answer.setText(result.content, result.contentDroppedChars);
    }
    if (this.reasoning.value !== result.reasoning) this.reasoning.setText(result.reasoning, 0);
    this.reasoningBlock.hidden = result.reasoning.length === 0;
    this.setVerdict(result.verdict);
    // A failed or stopped run with nothing wrong in what arrived is not an OK answer.
    this.setBadge(runOutcome(result.verdict.kind, result.status));
    this.metric.ttft.textContent = fmtMs(result.ttftMs);
    this.metric.rate.textContent = fmtRate(result.tokensPerSecond);
    this.metric.tokens.textContent = String(result.completionTokens);
    this.metric.duration.textContent = fmtMs(result.durationMs);
    const matched = result.matchedStop === null || result.matchedStop === undefined ? '' : ` (matched ${JSON.stringify(result.matchedStop)})`;
    this.metric.finish.textContent = `${result.finishReason ?? '–'}${matched}`;
    this.metric.server.textContent = serverWatchText(result.server);
    this.el.dataset.status = result.status;
    this.statusEl.textContent = STATUS_LABEL[result.status] ?? result.status;
    if (result.error) {
      const e = result.error;
      this.errorBox.hidden = false;
      this.errorBox.replaceChildren();
      append(
        this.errorBox,
        h('div', { class: 'error-title' }, icon('error'), ` ${e.kind}${e.status ? ` (HTTP ${e.status})` : ''}: `, ...markedText(e.message)),
        e.bodySnippet ? h('pre', { class: 'error-body', testid: 'error-body' }, ...markedText(e.bodySnippet)) : null,
        result.content ? h('div', { class: 'error-hint' }, 'The partial answer is kept below.') : null,
      );
    }
    this.runId = null;
    this.stopButton.toggleAttribute('disabled', true);
    this.historyId = historyId ?? null;
    if (this.historyId) this.el.dataset.historyId = this.historyId;
    else delete this.el.dataset.historyId;
    this.rerunButton.toggleAttribute('disabled', !this.historyId);
    this.diagnoseButton.hidden = !(this.historyId && this.actions.diagnose && result.verdict.kind !== 'ok');
  }

  /** Shows a stored run (history) without streaming. */
  showEntry(entry: HistoryEntry): void {
    this.reset();
    this.setTitle(entry.serverLabel, entry.params, entry.startedAt);
    this.raw.add('Raw chunks are not kept in history.');
    this.finish(entry.result, entry.id);
  }

  reset(): void {
    this.runId = null;
    this.historyId = null;
    delete this.el.dataset.historyId;
    this.answer.reset();
    this.reasoning.reset();
    this.raw.reset();
    this.reasons.replaceChildren();
    this.errorBox.hidden = true;
    this.errorBox.replaceChildren();
    this.reasoningBlock.hidden = true;
    for (const el of Object.values(this.metric)) el.textContent = '–';
    this.firstTokenAt = null;
    this.lastDeltaAt = 0;
    this.contentDeltas = 0;
    this.el.dataset.status = 'idle';
    this.statusEl.textContent = '';
    this.setBadge('none');
    this.stopButton.toggleAttribute('disabled', true);
    this.rerunButton.toggleAttribute('disabled', true);
    this.diagnoseButton.hidden = true;
  }

  /** Shows an error that ended a run before any result (e.g. unknown server). */
  fail(message: string): void {
    this.errorBox.hidden = false;
    this.errorBox.replaceChildren(h('div', { class: 'error-title' }, icon('error'), ' ', ...markedText(message)));
    if (this.running) {
      this.el.dataset.status = 'error';
      this.statusEl.textContent = 'Failed';
      this.setBadge('none');
    }
    this.runId = null;
    this.stopButton.toggleAttribute('disabled', true);
  }

  private setTitle(serverLabel: string, params: ProbeParams, startedAt?: number): void {
    const parts = [serverLabel, params.model || 'default model', params.endpoint];
    if (startedAt) parts.push(new Date(startedAt).toLocaleString());
    this.title.replaceChildren(...markedText(parts.join(' · ')));
    this.title.title = params.prompt.slice(0, 500);
  }

  private setVerdict(verdict: Verdict): void {
    this.setBadge(verdict.kind);
    this.reasons.replaceChildren(
      ...verdict.reasons.map((reason) =>
        h(
          'li',
          { class: `reason reason-${reason.kind}`, attrs: { 'data-code': reason.code, 'data-kind': reason.kind } },
          // A suspect is weak evidence: shown, labelled, and left out of the verdict.
          ...(reason.kind === 'suspect' ? [h('span', { class: 'reason-level', testid: 'suspect-label' }, 'suspect'), ' '] : []),
          h('code', {}, reason.code),
          ' ',
          ...markedText(reason.message),
        ),
      ),
    );
    this.answer.setOnset(verdict.kind === 'ok' ? null : verdict.onset);
  }

  private setBadge(state: BadgeState): void {
    const { label, icon: name } = state === 'none' || state === 'pending' ? BADGE[state] : { label: OUTCOME_LABEL[state], icon: OUTCOME_ICON[state] };
    this.badge.dataset.verdict = state;
    const glyph = icon(name);
    if (state === 'pending') glyph.classList.add('codicon-modifier-spin');
    this.badge.replaceChildren(glyph, h('span', { class: 'badge-label' }, label));
  }
}
