/**
 * Streaming text rendering that stays responsive on long answers:
 * - deltas are buffered and written once per animation frame (a timer backs rAF up, since
 *   hidden webviews may not get frames);
 * - text goes into Text nodes only (appendData / createTextNode). The text is cut into block
 *   segments (`span.seg`, ended after a newline once past SEG_SOFT chars, or hard at SEG_MAX),
 *   so an append only re-lays out the last segment instead of one multi-megabyte paragraph;
 * - the visible text is capped; the start is dropped (like ProbeResult keeps its tail);
 * - the degeneration onset splits the text node it falls in into two, the second inside a
 *   highlighted <mark>; later segments are highlighted too and later deltas go into the mark.
 */
import { h, markedText } from './dom';

/** A segment ends after the first newline past this many chars... */
const SEG_SOFT = 8 * 1024;
/** ...or here, for lines longer than that. */
const SEG_MAX = 64 * 1024;
/** Backs requestAnimationFrame up when the webview gets no frames. */
const FALLBACK_FLUSH_MS = 200;

export function scheduleFrame(callback: () => void): void {
  let done = false;
  const run = () => {
    if (done) return;
    done = true;
    callback();
  };
  requestAnimationFrame(run);
  setTimeout(run, FALLBACK_FLUSH_MS);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

interface Segment {
  el: HTMLElement;
  len: number;
  /** No more text goes here (it ended on a newline past SEG_SOFT, or is full). */
  closed: boolean;
}

export class StreamingText {
  /** Holds exactly the visible text, in segments (and the onset mark); nothing else. */
  readonly el: HTMLElement;
  /** Shown above the text when the start was dropped. */
  readonly droppedNote: HTMLElement;
  /** Visible text plus what is waiting for the next frame. */
  private text = '';
  private pending = '';
  private scheduled = false;
  private segs: Segment[] = [];
  private mark: HTMLElement | null = null;
  /** Characters before the visible text: dropped by the server/runner bound or by our cap. */
  private base = 0;
  private onsetAbs: number | null = null;

  constructor(
    testid: string,
    className: string,
    private readonly maxChars: number,
  ) {
    this.el = h('div', { class: className, testid, attrs: { role: 'log', 'aria-live': 'off' } });
    this.droppedNote = h('div', { class: 'dropped-note', testid: `${testid}-dropped`, attrs: { hidden: true } });
  }

  get length(): number {
    return this.text.length;
  }

  /** The visible text, including deltas not yet written. */
  get value(): string {
    return this.text;
  }

  /** Characters before the visible text. */
  get offset(): number {
    return this.base;
  }

  reset(): void {
    this.text = '';
    this.pending = '';
    this.base = 0;
    this.onsetAbs = null;
    this.mark = null;
    this.segs = [];
    this.el.replaceChildren();
    this.updateNote();
  }

  append(delta: string): void {
    if (!delta) return;
    this.text += delta;
    this.pending += delta;
    this.schedule(false);
  }

  /** Writes buffered deltas now. `final` also writes a trailing lone high surrogate. */
  flush(final = true): void {
    let chunk = this.pending;
    if (!chunk) return;
    // Keep a high surrogate back until its low half arrives, so a pair is never split between nodes.
    if (!final && isHighSurrogate(chunk.charCodeAt(chunk.length - 1))) {
      this.pending = chunk.slice(-1);
      chunk = chunk.slice(0, -1);
      this.schedule(true);
    } else {
      this.pending = '';
    }
    this.writeToDom(chunk);
    this.enforceCap();
  }

  /** Replaces everything with `text`, which starts `offset` characters into the answer. */
  setText(text: string, offset: number): void {
    const onset = this.onsetAbs;
    this.reset();
    this.base = offset;
    this.text = text;
    this.pending = text;
    this.flush(true);
    this.updateNote();
    if (onset !== null) this.setOnset(onset);
  }

  /** Highlights from `onsetAbs` (UTF-16 offset into the whole answer) to the end; null clears. */
  setOnset(onsetAbs: number | null): void {
    this.flush(true);
    this.onsetAbs = onsetAbs;
    // Undo a previous split.
    if (this.mark) {
      const seg = this.mark.parentElement;
      this.mark.replaceWith(...Array.from(this.mark.childNodes));
      seg?.normalize();
      this.mark = null;
    }
    for (const seg of this.segs) seg.el.classList.remove('onset-tail');
    if (onsetAbs === null) return;
    if (this.segs.length === 0) this.newSegment();
    const local = Math.min(Math.max(onsetAbs - this.base, 0), this.visibleLength());
    let index = this.segs.length - 1;
    let segStart = this.visibleLength() - this.segs[index].len;
    for (let i = 0, start = 0; i < this.segs.length; start += this.segs[i].len, i++) {
      if (local < start + this.segs[i].len) {
        index = i;
        segStart = start;
        break;
      }
    }
    const seg = this.segs[index];
    const mark = h('mark', { class: 'onset', testid: 'onset', title: 'Degeneration starts here' });
    // A segment holds text nodes and marked-control spans (one character each): find the child
    // the onset falls in, split it if it is text, and move it and everything after into the mark.
    let at = local - segStart;
    let child = seg.el.firstChild;
    while (child && at >= (child.textContent ?? '').length) {
      at -= (child.textContent ?? '').length;
      child = child.nextSibling;
    }
    if (child) {
      const tail = child instanceof Text && at > 0 ? child.splitText(at) : child;
      seg.el.insertBefore(mark, tail);
      for (let n: ChildNode | null = tail; n;) {
        const next: ChildNode | null = n.nextSibling;
        mark.appendChild(n);
        n = next;
      }
    } else {
      seg.el.appendChild(mark);
    }
    this.mark = mark;
    for (const later of this.segs.slice(index + 1)) later.el.classList.add('onset-tail');
  }

  private schedule(final: boolean): void {
    if (this.scheduled) return;
    this.scheduled = true;
    scheduleFrame(() => {
      this.scheduled = false;
      this.flush(final);
    });
  }

  private visibleLength(): number {
    return this.text.length - this.pending.length;
  }

  private newSegment(): Segment {
    const seg: Segment = { el: h('span', { class: 'seg' }), len: 0, closed: false };
    if (this.onsetAbs !== null && this.mark) seg.el.classList.add('onset-tail');
    this.el.appendChild(seg.el);
    this.segs.push(seg);
    return seg;
  }

  private writeToDom(chunk: string): void {
    for (let i = 0; i < chunk.length;) {
      let seg = this.segs[this.segs.length - 1];
      if (!seg || seg.closed || seg.len >= SEG_MAX) seg = this.newSegment();
      let take = Math.min(SEG_MAX - seg.len, chunk.length - i);
      let close = seg.len + take >= SEG_MAX;
      if (seg.len + take > SEG_SOFT) {
        const newline = chunk.indexOf('\n', i + Math.max(0, SEG_SOFT - seg.len - 1));
        if (newline !== -1 && newline < i + take) {
          take = newline - i + 1;
          close = true;
        }
      }
      if (take > 1 && i + take < chunk.length && isHighSurrogate(chunk.charCodeAt(i + take - 1))) take -= 1;
      const part = chunk.slice(i, i + take);
      const target = this.mark && this.mark.parentElement === seg.el ? this.mark : seg.el;
      const nodes = markedText(part);
      const last = target.lastChild;
      if (last instanceof Text && nodes[0] instanceof Text) {
        last.appendData(nodes[0].data);
        nodes.shift();
      }
      for (const node of nodes) target.appendChild(node);
      seg.len += take;
      seg.closed = close;
      i += take;
    }
  }

  /** Drops the start of the text once it outgrows maxChars (down to 90%, so not every frame). */
  private enforceCap(): void {
    const visible = this.visibleLength();
    if (visible <= this.maxChars) return;
    let drop = visible - Math.floor(this.maxChars * 0.9);
    if (isHighSurrogate(this.text.charCodeAt(drop - 1))) drop += 1;
    this.text = this.text.slice(drop);
    this.base += drop;
    let left = drop;
    while (left > 0 && this.segs.length) {
      const seg = this.segs[0];
      if (seg.len <= left) {
        left -= seg.len;
        seg.el.remove();
        this.segs.shift();
        continue;
      }
      const walker = document.createTreeWalker(seg.el, NodeFilter.SHOW_TEXT);
      while (left > 0 && walker.nextNode()) {
        const node = walker.currentNode as Text;
        const cut = Math.min(left, node.length);
        node.deleteData(0, cut);
        left -= cut;
        seg.len -= cut;
      }
    }
    if (this.mark && !this.mark.isConnected) this.mark = null;
    if (this.onsetAbs !== null) this.setOnset(this.onsetAbs);
    this.updateNote();
  }

  private updateNote(): void {
    this.droppedNote.hidden = this.base === 0;
    this.droppedNote.textContent = this.base === 0 ? '' : `… ${this.base.toLocaleString('en-US')} earlier characters are not shown.`;
  }
}

/** A list that keeps only its newest `max` lines, appended once per frame. */
export class BoundedLines {
  readonly el: HTMLOListElement;
  private pending: string[] = [];
  private scheduled = false;
  private total = 0;

  constructor(
    testid: string,
    private readonly max: number,
    private readonly maxLineChars: number,
    private readonly onCount: (total: number) => void,
  ) {
    this.el = h('ol', { class: 'raw-list', testid });
  }

  reset(): void {
    this.pending = [];
    this.total = 0;
    this.el.replaceChildren();
    this.onCount(0);
  }

  add(line: string): void {
    this.total += 1;
    this.pending.push(line.length > this.maxLineChars ? `${line.slice(0, this.maxLineChars)} … (+${line.length - this.maxLineChars} chars)` : line);
    if (this.pending.length > this.max) this.pending.splice(0, this.pending.length - this.max);
    if (this.scheduled) return;
    this.scheduled = true;
    scheduleFrame(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  flush(): void {
    if (!this.pending.length) return;
    const fragment = document.createDocumentFragment();
    for (const line of this.pending) fragment.appendChild(h('li', {}, line));
    this.pending = [];
    this.el.appendChild(fragment);
    while (this.el.childElementCount > this.max) this.el.firstElementChild?.remove();
    this.onCount(this.total);
  }
}
