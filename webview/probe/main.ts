/**
 * Probe panel webview. Talks to the host only through the messages in
 * src/shared/webviewProtocol.ts. Model output and every server-provided string are inserted as
 * text (createTextNode / textContent); nothing here parses HTML.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-collapsible/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import type { VscodeSingleSelect } from '@vscode-elements/elements/dist/vscode-single-select/vscode-single-select.js';
import type { VscodeTextfield } from '@vscode-elements/elements/dist/vscode-textfield/vscode-textfield.js';
import type { Endpoint, ProbeParams } from '../../src/core/probe/types';
import type { HostToWebview, Pane, ProbeFormState, ServerChoice, WebviewToHost } from '../../src/shared/webviewProtocol';
import { INITIAL_FORM_PARAMS } from '../../src/shared/webviewProtocol';
import { h, icon } from './dom';
import { showControls } from '../../src/core/text/foreign';
import { HistoryList } from './historyList';
import { ResultPane } from './resultPane';
import css from './probe.css';

interface VsCodeApi {
  postMessage(message: WebviewToHost): void;
  getState(): unknown;
  setState(state: SavedState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** What the panel keeps with setState so it restores after a reload. */
interface SavedState {
  v: 1;
  form: ProbeFormState;
  compareOpen: boolean;
  /** History entries shown in each pane, reopened on restore. */
  shown: Partial<Record<Pane, string>>;
}

const vscode = acquireVsCodeApi();
const post = (message: WebviewToHost) => vscode.postMessage(message);

// Own styles as a constructable stylesheet: allowed by the CSP without inline <style>.
const sheet = new CSSStyleSheet();
sheet.replaceSync(css);
document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];

function loadState(): SavedState {
  const raw = vscode.getState() as Partial<SavedState> | undefined;
  if (raw && raw.v === 1 && raw.form && typeof raw.form === 'object' && raw.form.params) {
    return { v: 1, form: raw.form, compareOpen: !!raw.compareOpen, shown: raw.shown ?? {} };
  }
  return { v: 1, form: { params: { ...INITIAL_FORM_PARAMS } }, compareOpen: false, shown: {} };
}

let state = loadState();
const restoredFromState = vscode.getState() !== undefined && vscode.getState() !== null;
let servers: ServerChoice[] = [];
let modelsFor: string | null = null;

// ---- form -------------------------------------------------------------------------------
function field(label: string, control: HTMLElement, extra?: HTMLElement | null): HTMLElement {
  return h('div', { class: 'field' }, h('label', { class: 'field-label' }, label), h('div', { class: 'field-control' }, control, extra ?? null));
}

function numberField(testid: string, placeholder: string, step: string): VscodeTextfield {
  return h('vscode-textfield', { testid, attrs: { type: 'number', placeholder, step } });
}

const serverSelect = h('vscode-single-select', { testid: 'server-select', attrs: { 'aria-label': 'Server' } });
const modelSelect = h('vscode-single-select', { testid: 'model-select', attrs: { 'aria-label': 'Model', combobox: true } });
const modelNote = h('span', { class: 'muted small', testid: 'model-note' });
const endpointSelect = h(
  'vscode-single-select',
  { testid: 'endpoint-select', attrs: { 'aria-label': 'Endpoint' } },
  h('vscode-option', { attrs: { value: 'chat', description: 'POST /v1/chat/completions' } }, 'Chat completions'),
  h('vscode-option', { attrs: { value: 'completions', description: 'POST /v1/completions' } }, 'Completions'),
  h('vscode-option', { attrs: { value: 'generate', description: 'POST /generate (SGLang native)' } }, 'Native generate'),
);
const temperature = numberField('temperature', 'server default', '0.1');
const topP = numberField('top-p', 'server default', '0.05');
const maxTokens = numberField('max-tokens', 'server default', '1');
const seed = numberField('seed', 'random', '1');
const stream = h('vscode-checkbox', { testid: 'stream', attrs: { label: 'Stream' } });
const earlyStop = h('vscode-checkbox', { testid: 'early-stop', attrs: { label: 'Stop early when degenerate' } });
const logprobs = h('vscode-checkbox', { testid: 'logprobs', attrs: { label: 'Logprobs' } });
const systemPrompt = h('vscode-textarea', {
  testid: 'system-prompt',
  attrs: { rows: '2', placeholder: 'System prompt (chat only, optional)', resize: 'vertical' },
});
const prompt = h('vscode-textarea', { testid: 'prompt', attrs: { rows: '4', placeholder: 'Prompt. Ctrl+Enter runs it.', resize: 'vertical' } });
const formError = h('div', { class: 'form-error', testid: 'form-error', attrs: { hidden: true, role: 'alert' } });
const hostError = h('div', { class: 'host-error', testid: 'host-error', attrs: { hidden: true, role: 'alert' } });

const runButton = h('vscode-button', { testid: 'run', attrs: { icon: 'play', title: 'Run the probe (Ctrl+Enter)' } }, 'Run');
const stopButton = h('vscode-button', { testid: 'stop', attrs: { icon: 'debug-stop', secondary: true, disabled: true } }, 'Stop');
const compareRunButton = h(
  'vscode-button',
  { testid: 'run-compare', attrs: { icon: 'split-horizontal', secondary: true, title: 'Run with this form in the compare pane' } },
  'Run in compare',
);
const addServerButton = h(
  'button',
  {
    class: 'icon-button',
    testid: 'add-server',
    title: 'Add a server',
    attrs: { type: 'button' },
    on: { click: () => post({ type: 'addServer' }) },
  },
  icon('add'),
);
const refreshModelsButton = h(
  'button',
  {
    class: 'icon-button',
    testid: 'refresh-models',
    title: 'Reload the model list',
    attrs: { type: 'button' },
    on: { click: () => requestModels() },
  },
  icon('refresh'),
);

// ---- panes and history --------------------------------------------------------------------
const panes: Record<Pane, ResultPane> = {
  main: new ResultPane('main', {
    stop: (runId) => post({ type: 'stop', runId }),
    rerun: (historyId, pane) => post({ type: 'rerun', historyId, pane }),
    diagnose: (historyId) => post({ type: 'diagnose', historyId }),
  }),
  compare: new ResultPane('compare', {
    stop: (runId) => post({ type: 'stop', runId }),
    rerun: (historyId, pane) => post({ type: 'rerun', historyId, pane }),
    diagnose: (historyId) => post({ type: 'diagnose', historyId }),
    close: () => setCompareOpen(false),
  }),
};
const history = new HistoryList({
  open: (historyId, pane) => {
    if (pane === 'compare') setCompareOpen(true);
    post({ type: 'openEntry', historyId, pane });
  },
  rerun: (historyId, pane) => post({ type: 'rerun', historyId, pane }),
  remove: (historyId) => post({ type: 'deleteEntry', historyId }),
});
const panesEl = h('div', { class: 'panes', testid: 'panes' }, panes.main.el, panes.compare.el);

document
  .getElementById('app')
  ?.replaceChildren(
    h(
      'section',
      { class: 'form', testid: 'form' },
      h(
        'div',
        { class: 'form-grid' },
        field('Server', serverSelect, addServerButton),
        field('Model', modelSelect, refreshModelsButton),
        field('Endpoint', endpointSelect),
      ),
      h('div', { class: 'params-grid' }, field('Temperature', temperature), field('top_p', topP), field('max_tokens', maxTokens), field('Seed', seed)),
      modelNote,
      systemPrompt,
      prompt,
      formError,
      h(
        'div',
        { class: 'actions' },
        runButton,
        stopButton,
        compareRunButton,
        h('span', { class: 'spacer' }),
        h('div', { class: 'checks' }, stream, earlyStop, logprobs),
      ),
      hostError,
    ),
    panesEl,
    h('vscode-collapsible', { class: 'block history-block', attrs: { heading: 'History', open: true } }, history.el),
  );

// ---- form state ---------------------------------------------------------------------------
function num(fieldEl: VscodeTextfield, integer: boolean): number | undefined | 'invalid' {
  const text = fieldEl.value.trim();
  if (text === '') return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || (integer && !Number.isInteger(value))) return 'invalid';
  return value;
}

function readParams(): ProbeParams | string {
  const endpoint = (endpointSelect.value || 'chat') as Endpoint;
  const values = {
    temperature: num(temperature, false),
    topP: num(topP, false),
    maxTokens: num(maxTokens, true),
    seed: num(seed, true),
  };
  for (const [name, value] of Object.entries(values)) {
    if (value === 'invalid') return `${name} must be a${name === 'maxTokens' || name === 'seed' ? 'n integer' : ' number'}.`;
  }
  const params: ProbeParams = {
    endpoint,
    prompt: prompt.value,
    stream: stream.checked,
    earlyStop: earlyStop.checked,
    logprobs: logprobs.checked,
  };
  const model = modelSelect.value.trim();
  if (model) params.model = model;
  if (endpoint === 'chat' && systemPrompt.value) params.systemPrompt = systemPrompt.value;
  for (const [name, value] of Object.entries(values) as [keyof typeof values, number | undefined][]) {
    if (value !== undefined) params[name] = value;
  }
  return params;
}

function formState(): ProbeFormState {
  const params = readParams();
  // Keep what the user typed even when a number is invalid: save the last valid params instead.
  return {
    serverId: serverSelect.value || state.form.serverId,
    params: typeof params === 'string' ? state.form.params : { ...params, systemPrompt: systemPrompt.value || undefined },
  };
}

let saveTimer: ReturnType<typeof setTimeout> | undefined;
function saveSoon(): void {
  clearTimeout(saveTimer);
  saveTimer = setTimeout(saveNow, 250);
}
function saveNow(): void {
  clearTimeout(saveTimer);
  state = { ...state, form: formState() };
  vscode.setState(state);
}

function applyForm(form: ProbeFormState): void {
  const p = { ...INITIAL_FORM_PARAMS, ...form.params };
  endpointSelect.value = p.endpoint;
  prompt.value = p.prompt ?? '';
  systemPrompt.value = p.systemPrompt ?? '';
  temperature.value = p.temperature === undefined ? '' : String(p.temperature);
  topP.value = p.topP === undefined ? '' : String(p.topP);
  maxTokens.value = p.maxTokens === undefined ? '' : String(p.maxTokens);
  seed.value = p.seed === undefined ? '' : String(p.seed);
  stream.checked = p.stream;
  earlyStop.checked = p.earlyStop ?? false;
  logprobs.checked = p.logprobs ?? false;
  updateEndpointDependent();
}

function updateEndpointDependent(): void {
  systemPrompt.hidden = (endpointSelect.value || 'chat') !== 'chat';
}

function fillSelect(select: VscodeSingleSelect, options: { value: string; label: string; description?: string }[], selected: string | undefined): void {
  const chosen = options.some((o) => o.value === selected) ? selected : options[0]?.value;
  select.replaceChildren(
    // Options hold text only (the select copies it into its own shadow DOM): controls shown as ⟨U+XXXX⟩.
    ...options.map((o) =>
      h(
        'vscode-option',
        {
          attrs: { value: o.value, description: o.description === undefined ? undefined : showControls(o.description), selected: o.value === chosen },
        },
        showControls(o.label),
      ),
    ),
  );
  if (chosen !== undefined) select.value = chosen;
}

function renderServers(list: ServerChoice[]): void {
  servers = list;
  const wanted = state.form.serverId || serverSelect.value;
  if (list.length === 0) {
    fillSelect(serverSelect, [{ value: '', label: 'No servers yet: add one with +' }], '');
    serverSelect.toggleAttribute('disabled', true);
  } else {
    fillSelect(
      serverSelect,
      list.map((s) => ({ value: s.id, label: s.label, description: s.baseUrl })),
      wanted,
    );
    serverSelect.toggleAttribute('disabled', false);
  }
  updateRunEnabled();
  const current = currentServerId();
  if (current && current !== modelsFor) requestModels();
}

function currentServerId(): string | undefined {
  const chosen = servers.find((s) => s.id === serverSelect.value) ?? servers.find((s) => s.id === state.form.serverId) ?? servers[0];
  return chosen?.id;
}

function requestModels(): void {
  const serverId = currentServerId();
  if (!serverId) return;
  modelsFor = serverId;
  modelNote.textContent = 'Loading models…';
  post({ type: 'listModels', serverId });
}

/**
 * Another server: the model chosen for the last one means nothing here (kept, it would be sent and
 * answered with a 404). Only a form restored for the same server keeps an unlisted model.
 */
function forgetModel(): void {
  state.form.params = { ...state.form.params, model: '' };
  fillSelect(modelSelect, [{ value: '', label: '(server default)' }], '');
}

function renderModels(serverId: string, models: string[], error?: string): void {
  if (serverId !== currentServerId()) return;
  const wanted = modelSelect.value || state.form.params.model || '';
  const options = [{ value: '', label: '(server default)' }, ...models.map((m) => ({ value: m, label: m }))];
  if (wanted && !models.includes(wanted)) options.push({ value: wanted, label: `${wanted} (not listed)` });
  fillSelect(modelSelect, options, wanted);
  modelNote.textContent = error ? `Could not list models: ${error}` : models.length ? '' : 'The server listed no models.';
}

function updateRunEnabled(): void {
  const running = panes.main.running || panes.compare.running;
  stopButton.toggleAttribute('disabled', !running);
  const noServer = servers.length === 0;
  runButton.toggleAttribute('disabled', noServer);
  compareRunButton.toggleAttribute('disabled', noServer);
}

function setCompareOpen(open: boolean): void {
  state = { ...state, compareOpen: open };
  panesEl.classList.toggle('comparing', open);
  panes.compare.el.hidden = !open;
  vscode.setState(state);
}

function run(pane: Pane): void {
  const params = readParams();
  const serverId = currentServerId();
  formError.hidden = true;
  hostError.hidden = true;
  if (typeof params === 'string') return showFormError(params);
  if (!serverId) return showFormError('Add a server first.');
  if (!params.prompt.trim()) return showFormError('Write a prompt first.');
  if (pane === 'compare') setCompareOpen(true);
  saveNow();
  post({ type: 'run', serverId, params, pane });
}

function showFormError(message: string): void {
  formError.textContent = message;
  formError.hidden = false;
}

runButton.addEventListener('click', () => run('main'));
compareRunButton.addEventListener('click', () => run('compare'));
stopButton.addEventListener('click', () => {
  for (const pane of Object.values(panes)) if (pane.runId) post({ type: 'stop', runId: pane.runId });
});
prompt.addEventListener('keydown', (key: KeyboardEvent) => {
  if (key.key === 'Enter' && (key.ctrlKey || key.metaKey)) {
    key.preventDefault();
    run('main');
  }
});
serverSelect.addEventListener('change', () => {
  state.form.serverId = serverSelect.value;
  forgetModel();
  requestModels();
  saveSoon();
});
endpointSelect.addEventListener('change', () => {
  updateEndpointDependent();
  saveSoon();
});
for (const el of [modelSelect, temperature, topP, maxTokens, seed, stream, earlyStop, logprobs, systemPrompt, prompt] as HTMLElement[]) {
  el.addEventListener('change', saveSoon);
  el.addEventListener('input', saveSoon);
}

// ---- host messages -------------------------------------------------------------------------
function paneForRun(runId: string): ResultPane | undefined {
  return Object.values(panes).find((pane) => pane.runId === runId);
}

function onMessage(message: HostToWebview): void {
  switch (message.type) {
    case 'init':
      if (!restoredFromState && message.form) {
        state = { ...state, form: message.form };
        applyForm(message.form);
      }
      renderServers(message.servers);
      history.render(message.history);
      break;
    case 'servers':
      renderServers(message.servers);
      break;
    case 'selectServer':
      if (servers.some((s) => s.id === message.serverId) && serverSelect.value !== message.serverId) {
        state.form.serverId = message.serverId;
        renderServers(servers);
        forgetModel();
        requestModels();
        saveSoon();
      } else {
        state.form.serverId = message.serverId;
      }
      break;
    case 'models':
      renderModels(message.serverId, message.models, message.error);
      break;
    case 'runStarted': {
      const pane = panes[message.pane];
      if (!pane) break;
      if (message.pane === 'compare') setCompareOpen(true);
      pane.start(message.runId, message.serverLabel, message.params);
      state = { ...state, shown: { ...state.shown, [message.pane]: undefined } };
      updateRunEnabled();
      break;
    }
    case 'runEvent':
      paneForRun(message.runId)?.onEvent(message.event);
      break;
    case 'runEvents': {
      const pane = paneForRun(message.runId);
      if (pane) for (const event of message.events) pane.onEvent(event);
      break;
    }
    case 'runFinished': {
      const pane = paneForRun(message.runId);
      if (!pane) break;
      pane.finish(message.result, message.historyId);
      if (message.historyId) state = { ...state, shown: { ...state.shown, [pane.pane]: message.historyId } };
      vscode.setState(state);
      updateRunEnabled();
      break;
    }
    case 'history':
      history.render(message.entries);
      break;
    case 'showEntry': {
      const pane = panes[message.pane];
      if (!pane) break;
      if (message.pane === 'compare') setCompareOpen(true);
      pane.showEntry(message.entry);
      state = { ...state, shown: { ...state.shown, [message.pane]: message.entry.id } };
      vscode.setState(state);
      updateRunEnabled();
      break;
    }
    case 'error':
      hostError.replaceChildren(icon('error'), ' ', message.message);
      hostError.hidden = false;
      break;
  }
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const data = event.data;
  if (typeof data !== 'object' || data === null || typeof (data as { type?: unknown }).type !== 'string') return;
  try {
    onMessage(data as HostToWebview);
  } catch (error) {
    hostError.textContent = `The panel could not show a message from the extension: ${String(error)}`;
    hostError.hidden = false;
  }
});

// ---- start ---------------------------------------------------------------------------------
applyForm(state.form);
setCompareOpen(state.compareOpen);
updateRunEnabled();
post({ type: 'ready' });
for (const [pane, historyId] of Object.entries(state.shown) as [Pane, string | undefined][]) {
  if (historyId) post({ type: 'openEntry', historyId, pane });
}
