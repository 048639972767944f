/**
 * Control characters in the answer: text never holds C0 controls other than tab, line feed,
 * carriage return, form feed and the escape of terminal colours. A byte-level vocabulary (GPT-2
 * and its heirs) has a token for each, so a model sampling at random emits them among its words
 * ("…Loginiversity\u000e PNG…"). Two make the answer degenerate; one alone is a suspect.
 *
 * Bounded: reads the head text HeadText keeps (HEAD.chars units) once, at finish.
 */
import * as limits from './limits';
import type { HeadSink } from './head';

const CONTROLS = limits.CONTROLS;

/** A C0 control (or DEL) that no text holds: not tab, LF, VT, FF, CR or ESC. */
function isStrayControl(c: number): boolean {
  return (c < 32 && c !== 9 && c !== 10 && c !== 11 && c !== 12 && c !== 13 && c !== 27) || c === 127;
}

function codePoint(c: number): string {
  return `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Judges the head's first n code units u (decoded once by HeadText): its stray control characters. */
export function judgeControlChars(u: Uint16Array, n: number, sink: HeadSink): void {
  let count = 0;
  let first = -1;
  const seen: number[] = [];
  for (let i = 0; i < n; i++) {
    const c = u[i];
    if (!isStrayControl(c)) continue;
    if (count++ === 0) first = i;
    if (seen.length < 3 && !seen.includes(c)) seen.push(c);
  }
  if (count === 0) return;
  const names = seen.map(codePoint).join(', ');
  if (count >= CONTROLS.degenerate) {
    sink(
      'token-salad',
      first,
      `${count} control characters (${names}) from offset ${first}: text holds none, a model sampling byte tokens at random emits them`,
      'degenerate',
    );
  } else {
    sink('token-salad', first, `a control character (${names}) at offset ${first}: text holds none`, 'suspect');
  }
}
