import { strict as assert } from 'node:assert';
import { SseDecoder, readSse, type SseItem } from '../../src/core/sse';

const enc = new TextEncoder();

function decodeAll(chunks: (Uint8Array | string)[]): SseItem[] {
  const items: SseItem[] = [];
  const d = new SseDecoder((i) => items.push(i));
  for (const c of chunks) d.push(c);
  d.end();
  return items;
}

const STREAM =
  'data: {"choices":[{"delta":{"content":"héllo 🌍"}}]}\n\n' +
  ': keep-alive comment\n\n' +
  'data: {"choices":[{"delta":{"content":"日本語"}}]}\r\n\r\n' +
  'data: {"choices":[],"usage":{"completion_tokens":2}}\n\n' +
  'data: [DONE]\n\n';

const EXPECTED: SseItem[] = [
  { type: 'data', data: '{"choices":[{"delta":{"content":"héllo 🌍"}}]}' },
  { type: 'data', data: '{"choices":[{"delta":{"content":"日本語"}}]}' },
  { type: 'data', data: '{"choices":[],"usage":{"completion_tokens":2}}' },
  { type: 'done' },
];

describe('sse', () => {
  it('decodes a whole stream in one chunk', () => {
    assert.deepEqual(decodeAll([enc.encode(STREAM)]), EXPECTED);
  });

  it('gives the same items for every single split point of the bytes', () => {
    const bytes = enc.encode(STREAM);
    for (let i = 0; i <= bytes.length; i++) {
      assert.deepEqual(decodeAll([bytes.subarray(0, i), bytes.subarray(i)]), EXPECTED, `split at ${i}`);
    }
  });

  it('gives the same items for every pair of split points (three pieces)', () => {
    const bytes = enc.encode(STREAM);
    for (let i = 0; i <= bytes.length; i += 3) {
      for (let j = i; j <= bytes.length; j += 2) {
        assert.deepEqual(decodeAll([bytes.subarray(0, i), bytes.subarray(i, j), bytes.subarray(j)]), EXPECTED);
      }
    }
  });

  it('survives byte-at-a-time delivery, splitting every multi-byte UTF-8 sequence', () => {
    const bytes = enc.encode(STREAM);
    const pieces = Array.from(bytes, (_b, i) => bytes.subarray(i, i + 1));
    assert.deepEqual(decodeAll(pieces), EXPECTED);
  });

  it('splits a 4-byte emoji across chunks without producing U+FFFD', () => {
    const bytes = enc.encode('data: 🌍\n\n');
    const at = 'data: '.length + 2; // middle of the emoji
    const items = decodeAll([bytes.subarray(0, at), bytes.subarray(at)]);
    assert.deepEqual(items, [{ type: 'data', data: '🌍' }]);
  });

  it('reports an event cut before its blank line as truncated', () => {
    assert.deepEqual(decodeAll(['data: {"a":1}\n\ndata: {"choices":[{"delta":{"con']), [
      { type: 'data', data: '{"a":1}' },
      { type: 'truncated', data: '{"choices":[{"delta":{"con' },
    ]);
    // complete line but no blank line
    assert.deepEqual(decodeAll(['data: {"a":1}\n']), [{ type: 'truncated', data: '{"a":1}' }]);
    // [DONE] without its blank line still counts as done
    assert.deepEqual(decodeAll(['data: [DONE]']), [{ type: 'done' }]);
  });

  it('reports nothing extra for a cleanly ended stream or an empty one', () => {
    assert.deepEqual(decodeAll(['data: x\n\n']), [{ type: 'data', data: 'x' }]);
    assert.deepEqual(decodeAll([]), []);
    assert.deepEqual(decodeAll(['\n\n\n']), []);
  });

  it('joins multi-line data and accepts data without a space after the colon', () => {
    assert.deepEqual(decodeAll(['data:a\ndata: b\n\n']), [{ type: 'data', data: 'a\nb' }]);
  });

  it('passes non-JSON data through for the caller to judge', () => {
    assert.deepEqual(decodeAll(['data: <html>oops</html>\n\n']), [{ type: 'data', data: '<html>oops</html>' }]);
  });

  it('stops with an overflow item when one event outgrows the limit', () => {
    const items: SseItem[] = [];
    const d = new SseDecoder((i) => items.push(i), { maxEventChars: 1000 });
    d.push('data: ' + 'x'.repeat(600));
    d.push('x'.repeat(600));
    d.push('\n\ndata: later\n\n');
    d.end();
    assert.equal(items.length, 1);
    assert.equal(items[0].type, 'overflow');
  });

  it('readSse yields items from an async iterable', async () => {
    async function* gen(): AsyncGenerator<Uint8Array> {
      const bytes = enc.encode(STREAM);
      for (let i = 0; i < bytes.length; i += 7) {
        await Promise.resolve();
        yield bytes.subarray(i, i + 7);
      }
    }
    const items: SseItem[] = [];
    for await (const item of readSse(gen())) items.push(item);
    assert.deepEqual(items, EXPECTED);
  });
});
