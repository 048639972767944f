/**
 * Server-sent events for LLM streams, on top of eventsource-parser. Bytes may be split anywhere
 * (mid-line, mid-UTF-8 sequence); the decoder reassembles them and reports each `data:` payload,
 * the `[DONE]` sentinel, and an event that the stream cut off before its blank line.
 */
import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceParser } from 'eventsource-parser';

export type SseItem =
  /** A complete event's data (multi-line data joined with \n). */
  | { type: 'data'; data: string }
  /** `data: [DONE]` */
  | { type: 'done' }
  /** The stream ended inside an event: the data received so far (possibly half a JSON). */
  | { type: 'truncated'; data: string }
  /** An event larger than maxEventChars: the decoder stops. */
  | { type: 'overflow'; message: string };

export interface SseDecoderOptions {
  /** Largest pending line/event, in characters. Default 16 Mi characters. */
  maxEventChars?: number;
}

const DONE = '[DONE]';

export class SseDecoder {
  private readonly parser: EventSourceParser;
  // StringDecoder keeps a split multi-byte sequence for the next chunk, like TextDecoder with
  // stream: true, and is markedly cheaper per call on the small chunks token streams produce.
  private readonly utf8 = new StringDecoder('utf8');
  private flushing = false;
  private stopped = false;
  private ended = false;

  constructor(
    private readonly onItem: (item: SseItem) => void,
    options: SseDecoderOptions = {},
  ) {
    this.parser = createParser({
      maxBufferSize: options.maxEventChars ?? 16 * 1024 * 1024,
      onEvent: (event) => {
        if (this.stopped) return;
        const data = event.data;
        if (this.flushing) {
          if (data.trim() === DONE) this.onItem({ type: 'done' });
          else this.onItem({ type: 'truncated', data });
        } else if (data.length === 6 && data === DONE) {
          this.onItem({ type: 'done' });
        } else {
          this.onItem({ type: 'data', data });
        }
      },
      onError: (error) => {
        if (error.type === 'max-buffer-size-exceeded' && !this.stopped) {
          this.stopped = true;
          this.onItem({ type: 'overflow', message: `A server-sent event exceeded the size limit: ${error.message}` });
        }
        // Unknown fields and bad retry values are ignored, as browsers do.
      },
    });
  }

  /** Feeds raw bytes (or already-decoded text). */
  push(chunk: Uint8Array | string): void {
    if (this.stopped || this.ended) return;
    const text = typeof chunk === 'string' ? chunk : this.utf8.write(chunk);
    if (text.length) this.parser.feed(text);
  }

  /** Ends the stream: flushes a trailing partial UTF-8 sequence and a trailing partial event. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.stopped) return;
    const rest = this.utf8.end();
    if (rest.length) this.parser.feed(rest);
    // Terminating the pending line and the event dispatches whatever was cut off.
    this.flushing = true;
    this.parser.feed('\n\n');
    this.flushing = false;
    this.stopped = true;
  }
}

/** Pull-style reader: yields the items of a byte stream (a fetch body, a Node stream, ...). */
export async function* readSse(body: AsyncIterable<Uint8Array | string>, options: SseDecoderOptions = {}): AsyncGenerator<SseItem, void, undefined> {
  const queue: SseItem[] = [];
  const decoder = new SseDecoder((item) => queue.push(item), options);
  for await (const chunk of body) {
    decoder.push(chunk);
    while (queue.length) {
      const item = queue.shift()!;
      yield item;
      if (item.type === 'overflow') return;
    }
  }
  decoder.end();
  while (queue.length) yield queue.shift()!;
}
