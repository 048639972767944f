/**
 * A streamed answer: SSE chunks of tokensPerChunk tokens at the plan's pace, in each route's
 * shape, then the finish chunk, usage and [DONE]; or broken the way the behaviour says (cut in the
 * middle of a chunk, an error object, a line that is not JSON, no [DONE]).
 */
import type { ServerResponse } from 'node:http';
import { stringifyPyJson } from '../core/pyjson';
import type { AnswerPlan, SimToken } from './answers';
import { sleep } from './http';
import type { SimRequest } from './request';
import { chatFinish, chatLogprobs, stopField, completionLogprobs, nativeFinish, nativeMeta, sequence, usage, useParser, type SeqItem } from './shapes';
import type { SimState } from './state';

/** Writes to the response with backpressure; a closed response swallows writes. */
class SseWriter {
  closed = false;
  /** One SSE event of a JSON object. */
  readonly event: (obj: unknown) => string;

  constructor(
    readonly res: ServerResponse,
    logprobs: boolean,
  ) {
    res.on('close', () => {
      this.closed = true;
    });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    // Non-finite floats only occur in logprobs; skip the slower Python-style writer otherwise.
    this.event = logprobs ? (obj) => `data: ${stringifyPyJson(obj)}\n\n` : (obj) => `data: ${JSON.stringify(obj)}\n\n`;
  }

  async write(text: string): Promise<void> {
    if (this.closed) return;
    if (this.res.write(text)) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }
}

class StreamAnswer {
  private readonly started = performance.now();
  private readonly out: SseWriter;
  private readonly base: Record<string, unknown>;
  /** Tokens after which the behaviour breaks the stream; -1: never. */
  private readonly cutAt: number;
  private n = 0;
  private cumulative = '';
  private readonly allTokens: SimToken[] = [];
  private pending: SeqItem[] = [];
  private badLineSent = false;

  constructor(
    private readonly sim: SimState,
    res: ServerResponse,
    private readonly r: SimRequest,
    private readonly plan: AnswerPlan,
  ) {
    const b = r.behaviour;
    this.out = new SseWriter(res, r.logprobs);
    this.cutAt = b.behaviour === 'cut' ? (b.cutAfterTokens ?? 8) : b.behaviour === 'error-midstream' || b.behaviour === 'bad-json' ? 5 : -1;
    this.base = { id: r.id, object: r.route === 'chat' ? 'chat.completion.chunk' : 'text_completion', created: r.created, model: r.model };
  }

  async run(): Promise<void> {
    const { r, out } = this;
    const b = r.behaviour;
    const tokenDelay = b.tokenDelayMs ?? (b.behaviour === 'slow' ? 200 : 0);
    const perChunk = Math.max(1, b.tokensPerChunk ?? 1);
    let sinceYield = 0;
    if (b.firstTokenDelayMs) await sleep(b.firstTokenDelayMs);
    if (r.route === 'chat') {
      await out.write(
        out.event({
          ...this.base,
          choices: [
            {
              index: 0,
              delta: { role: 'assistant', content: '', reasoning_content: null, tool_calls: null },
              logprobs: null,
              finish_reason: null,
              ...stopField(this.sim, null),
            },
          ],
          usage: null,
        }),
      );
    }
    for (const item of sequence(useParser(this.sim, r), this.plan)) {
      if (out.closed) return;
      // Reasoning and content never share a chunk.
      if (this.pending.length && this.pending[0].reasoning !== item.reasoning && !(await this.flush())) return;
      this.pending.push(item);
      this.n++;
      if (this.pending.length >= perChunk) {
        if (!(await this.flush())) return;
        if (tokenDelay > 0) await sleep(tokenDelay * perChunk);
        else if (++sinceYield >= 16) {
          // Like a real server, let the event loop breathe (and notice a client that left).
          sinceYield = 0;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      }
    }
    if (!(await this.flush())) return;
    if (out.closed) return;
    await this.finish();
  }

  private chunkFor(group: SeqItem[]): string {
    const { r, out } = this;
    const tokens = group.map((g) => g.token);
    const text = tokens.map((t) => t.text).join('');
    if (r.route === 'chat') {
      const isReasoning = group[0].reasoning;
      return out.event({
        ...this.base,
        choices: [
          {
            index: 0,
            delta: { role: null, content: isReasoning ? null : text, reasoning_content: isReasoning ? text : null, tool_calls: null },
            logprobs: r.logprobs ? chatLogprobs(tokens, r.body.top_logprobs) : null,
            finish_reason: null,
            ...stopField(this.sim, null),
          },
        ],
        usage: null,
      });
    }
    if (r.route === 'completions') {
      const offset = this.cumulative.length;
      this.cumulative += text;
      return out.event({
        ...this.base,
        choices: [{ index: 0, text, logprobs: r.logprobs ? completionLogprobs(tokens, offset) : null, finish_reason: null, ...stopField(this.sim, null) }],
        usage: null,
      });
    }
    // Native /generate sends the text so far in every chunk.
    this.cumulative += text;
    if (r.logprobs) this.allTokens.push(...tokens);
    return out.event({ text: this.cumulative, meta_info: nativeMeta(r, this.n, null, r.logprobs ? this.allTokens : null, this.started), index: 0 });
  }

  /** Sends the pending tokens as one chunk; false once the behaviour has ended the stream. */
  private async flush(): Promise<boolean> {
    if (!this.pending.length) return true;
    const group = this.pending;
    this.pending = [];
    const text = this.chunkFor(group);
    if (this.cutAt >= 0 && this.n >= this.cutAt && !(await this.breakStream(text))) return false;
    await this.out.write(text);
    return true;
  }

  /** The behaviour's failure at the cut point; false when it ended the stream. */
  private async breakStream(text: string): Promise<boolean> {
    const { out } = this;
    const kind = this.r.behaviour.behaviour;
    if (kind === 'cut') {
      // Half a chunk, then the socket goes away: no terminating chunk, no [DONE].
      const half = text.slice(0, Math.floor(text.length / 2));
      if (!out.closed) out.res.write(half, () => out.res.socket?.destroy());
      return false;
    }
    if (kind === 'error-midstream') {
      await out.write(
        out.event({
          error: { object: 'error', message: 'CUDA error: an illegal memory access was encountered', type: 'InternalServerError', param: null, code: 500 },
        }),
      );
      await out.write('data: [DONE]\n\n');
      out.res.end();
      return false;
    }
    if (kind === 'bad-json' && !this.badLineSent) {
      this.badLineSent = true;
      await out.write('data: upstream connect error or disconnect/reset before headers. reset reason: overflow\n\n');
    }
    return true;
  }

  /** The finish chunk, usage when asked for, and [DONE] unless the behaviour leaves it out. */
  private async finish(): Promise<void> {
    const { r, out, plan, n } = this;
    if (r.route === 'generate') {
      await out.write(
        out.event({ text: this.cumulative, meta_info: nativeMeta(r, n, nativeFinish(plan, n), r.logprobs ? this.allTokens : null, this.started), index: 0 }),
      );
    } else if (r.route === 'chat') {
      await out.write(out.event({ ...this.base, choices: [{ index: 0, delta: {}, logprobs: null, ...chatFinish(this.sim, plan) }], usage: null }));
    } else {
      await out.write(
        out.event({
          ...this.base,
          choices: [{ index: 0, text: '', logprobs: null, finish_reason: plan.finishReason, ...stopField(this.sim, plan.matchedStop) }],
          usage: null,
        }),
      );
    }
    if (r.includeUsage && r.route !== 'generate') await out.write(out.event({ ...this.base, choices: [], usage: usage(r, n) }));
    if (r.behaviour.behaviour !== 'no-done') await out.write('data: [DONE]\n\n');
    out.res.end();
  }
}

export function answerStream(sim: SimState, res: ServerResponse, r: SimRequest, plan: AnswerPlan): Promise<void> {
  return new StreamAnswer(sim, res, r, plan).run();
}
