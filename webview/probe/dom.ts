/**
 * Tiny DOM builder. Text only ever goes in through createTextNode / textContent: nothing in the
 * webview parses HTML, so model output and server strings cannot create elements.
 */
import { BIDI_AND_INVISIBLE, codePointLabel } from '../../src/core/text/foreign';

export type Child = Node | string | null | undefined | false;

export interface Props {
  class?: string;
  testid?: string;
  title?: string;
  /** Plain attributes (set with setAttribute; never `on*` handlers or `style`). */
  attrs?: Record<string, string | boolean | undefined>;
  on?: Partial<Record<string, (event: Event) => void>>;
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props?: Props, ...children: Child[]): HTMLElementTagNameMap[K];
export function h(tag: string, props?: Props, ...children: Child[]): HTMLElement;
export function h(tag: string, props: Props = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  if (props.class) el.className = props.class;
  if (props.testid) el.dataset.testid = props.testid;
  if (props.title) el.title = props.title;
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    if (/^on/i.test(name) || name === 'style') throw new Error(`h(): refusing attribute ${name}`);
    if (value === true) el.setAttribute(name, '');
    else if (typeof value === 'string') el.setAttribute(name, value);
  }
  for (const [name, handler] of Object.entries(props.on ?? {})) if (handler) el.addEventListener(name, handler);
  append(el, ...children);
  return el;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

/** A codicon glyph from the codicon stylesheet the page links. */
export function icon(name: string): HTMLElement {
  return h('span', { class: `codicon codicon-${name}`, attrs: { 'aria-hidden': 'true' } });
}

export function clear(el: Element): void {
  el.replaceChildren();
}

export function setText(el: Element, text: string): void {
  el.textContent = text;
}

/**
 * Text with its invisible and reordering characters marked, as VS Code's editor marks them: each
 * such character stays in the DOM (copy gives the exact text) inside a span that isolates it, so
 * a U+202E cannot reverse what follows, and whose CSS label (`data-cp`, not copied) shows it.
 */
export function markedText(text: string): Node[] {
  const out: Node[] = [];
  let last = 0;
  for (const m of text.matchAll(BIDI_AND_INVISIBLE)) {
    const at = m.index;
    if (at > last) out.push(document.createTextNode(text.slice(last, at)));
    const cp = codePointLabel(m[0]);
    out.push(h('span', { class: 'ctl', title: cp, attrs: { 'data-cp': cp } }, m[0]));
    last = at + m[0].length;
  }
  if (last < text.length) out.push(document.createTextNode(text.slice(last)));
  return out;
}
