/** Text renderings of a comparison shared by the CLI and any other plain-text surface. */
import { showControls } from '../text/foreign';

/** One line of model text with everything invisible shown: controls as ⟨U+XXXX⟩, line breaks as ↵, tabs as →. */
export function visibleLine(text: string): string {
  return showControls(text)
    .replace(/\r\n|\r|\n|\u2028|\u2029/g, '↵')
    .replace(/\t/g, '→');
}

/** Splits into pieces of `width` code points (never inside a surrogate pair). */
function wrap(text: string, width: number): string[] {
  const chars = [...text];
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += width) out.push(chars.slice(i, i + width).join(''));
  return out.length ? out : [''];
}

const ellipsis = (text: string, width: number): string => [...text].slice(0, width - 1).join('') + '…';

const pad = (text: string, width: number): string => text + ' '.repeat(Math.max(0, width - [...text].length));

/**
 * Two continuations in two columns of `width`, headed by their labels, at most `maxLines`
 * lines (the rest is cut with …). Model text is shown with its controls made visible.
 */
export function sideBySide(a: string, b: string, labels: [string, string], width = 38, maxLines = 6): string[] {
  const left = wrap(visibleLine(a), width);
  const right = wrap(visibleLine(b), width);
  const rows = Math.min(maxLines, Math.max(left.length, right.length));
  const lines = [
    `${pad(visibleLine(labels[0]).slice(0, width), width)} │ ${visibleLine(labels[1]).slice(0, width)}`,
    `${'─'.repeat(width)}─┼─${'─'.repeat(width)}`,
  ];
  for (let i = 0; i < rows; i++) {
    // The last line shown ends in … where that column goes on.
    const last = i === rows - 1;
    const l = last && left.length > rows ? ellipsis(left[i], width) : (left[i] ?? '');
    const r = last && right.length > rows ? ellipsis(right[i], width) : (right[i] ?? '');
    lines.push(`${pad(l, width)} │ ${r}`.trimEnd());
  }
  return lines;
}
