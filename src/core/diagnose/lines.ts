/**
 * Line sources for the streaming readers: a string, an array, any iterable or async iterable of
 * lines, or (lineStream) chunks of text or bytes split into lines with a cap on line length, so a
 * log without newlines cannot make one line hold the whole file.
 */

export type LineSource = AsyncIterable<string> | Iterable<string>;

/** Default cap for lineStream: longer lines keep their first this-many characters. */
export const DEFAULT_MAX_LINE_CHARS = 1024 * 1024;

function isAsyncIterable(v: unknown): v is AsyncIterable<unknown> {
  return !!v && typeof (v as Record<symbol, unknown>)[Symbol.asyncIterator] === 'function';
}

function isIterable(v: unknown): v is Iterable<unknown> {
  return !!v && typeof (v as Record<symbol, unknown>)[Symbol.iterator] === 'function';
}

/**
 * Calls `fn` for each line, in order. A string is split on newlines (it is a whole text, not an
 * iterable of characters); `\r` before the newline is dropped; values that are not strings are skipped.
 */
export async function forEachLine(lines: LineSource | string, fn: (line: string) => void): Promise<void> {
  if (typeof lines === 'string') {
    forEachLineSync(lines, fn);
    return;
  }
  if (isAsyncIterable(lines)) {
    for await (const l of lines) if (typeof l === 'string') fn(l.endsWith('\r') ? l.slice(0, -1) : l);
    return;
  }
  forEachLineSync(lines, fn);
}

/** forEachLine for a string or a synchronous iterable. */
export function forEachLineSync(lines: Iterable<string> | string, fn: (line: string) => void): void {
  if (typeof lines === 'string') {
    let start = 0;
    while (start <= lines.length) {
      let end = lines.indexOf('\n', start);
      if (end < 0) end = lines.length;
      const l = lines.slice(start, end);
      if (end < lines.length || l.length) fn(l.endsWith('\r') ? l.slice(0, -1) : l);
      start = end + 1;
    }
    return;
  }
  if (!isIterable(lines)) return;
  for (const l of lines) if (typeof l === 'string') fn(l.endsWith('\r') ? l.slice(0, -1) : l);
}

/**
 * Splits a stream of text or byte chunks into lines. A line longer than `maxLineChars` is cut there
 * (the rest, up to its newline, is dropped). Bytes are decoded as UTF-8 across chunk boundaries.
 */
export async function* lineStream(
  chunks: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
  maxLineChars = DEFAULT_MAX_LINE_CHARS,
): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  let pending = '';
  let dropping = false;
  const max = Math.max(1, maxLineChars);
  function* take(text: string): Generator<string> {
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl < 0) break;
      const piece = text.slice(start, nl);
      if (dropping) dropping = false;
      else {
        const line = pending + piece;
        pending = '';
        yield (line.length > max ? line.slice(0, max) : line).replace(/\r$/, '');
      }
      start = nl + 1;
    }
    if (start < text.length && !dropping) {
      pending += text.slice(start);
      if (pending.length > max) {
        yield pending.slice(0, max);
        pending = '';
        dropping = true;
      }
    }
  }
  const iter = isAsyncIterable(chunks) ? chunks : chunks;
  for await (const chunk of iter as AsyncIterable<string | Uint8Array>) {
    const text = typeof chunk === 'string' ? chunk : chunk instanceof Uint8Array ? decoder.decode(chunk, { stream: true }) : '';
    yield* take(text);
  }
  yield* take(decoder.decode());
  if (pending && !dropping) yield pending.replace(/\r$/, '');
}
