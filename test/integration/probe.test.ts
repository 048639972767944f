import { strict as assert } from 'node:assert';
import { createServer } from 'node:net';
import { runProbe, type RunProbeOptions } from '../../src/core/probe/runner';
import { runQuickProbe } from '../../src/core/probe/quick';
import type { Endpoint, ProbeEvent, ProbeParams, ProbeResult } from '../../src/core/probe/types';
import type { Behaviour, ModelBehaviour } from '../../src/sim/scenario';
import { SimPool } from './helpers';
import type { Reason, ReasonCode, VerdictKind } from '../../src/core/detect';

const ENDPOINTS: Endpoint[] = ['chat', 'completions', 'generate'];
const PROMPT = 'Explain what a KV cache is.';

describe('probe runner against the simulator', function () {
  this.timeout(30_000);
  const pool = new SimPool();

  after(() => pool.closeAll());

  async function probe(
    behaviour: Behaviour,
    endpoint: Endpoint,
    stream: boolean,
    params: Partial<ProbeParams> = {},
    opts: RunProbeOptions = {},
    extra: Partial<ModelBehaviour> = {},
  ): Promise<ProbeResult> {
    const sim = await pool.single(behaviour, extra);
    return runProbe({ baseUrl: sim.url }, { endpoint, stream, prompt: PROMPT, maxTokens: 200, timeoutMs: 5_000, ...params }, opts);
  }

  for (const endpoint of ENDPOINTS) {
    for (const stream of [true, false]) {
      describe(`${endpoint}, ${stream ? 'stream' : 'non-stream'}`, () => {
        it('healthy: completed, ok, EOS stop, usage and timing', async () => {
          const r = await probe('healthy', endpoint, stream);
          assert.equal(r.status, 'completed', r.error?.message);
          assert.equal(r.verdict.kind, 'ok', JSON.stringify(r.verdict.reasons));
          assert.equal(r.finishReason, 'stop');
          assert.equal(r.matchedStop, 151645);
          assert.match(r.content, /cache/);
          assert.equal(r.totalChars, r.content.length);
          assert.equal(r.contentDroppedChars, 0);
          assert.ok(r.completionTokens > 50, `completionTokens ${r.completionTokens}`);
          assert.equal(r.httpStatus, 200);
          assert.ok(r.ttftMs !== null && r.ttftMs >= 0);
          assert.ok(r.durationMs >= r.ttftMs);
          assert.ok(r.tokensPerSecond !== null && r.tokensPerSecond > 0);
          assert.ok(stream ? r.chunkCount > 10 : r.chunkCount === 1);
          assert.equal(r.error, undefined);
        });

        it('stream and non-stream give the same content', async () => {
          const a = await probe('healthy', endpoint, stream);
          const b = await probe('healthy', endpoint, !stream);
          assert.equal(a.content, b.content);
        });

        it('nan-marker: verdict nan, matched_stop "NaN happened"', async () => {
          const r = await probe('nan-marker', endpoint, stream);
          assert.equal(r.status, 'completed');
          assert.equal(r.verdict.kind, 'nan');
          assert.equal(r.finishReason, 'stop');
          assert.equal(r.matchedStop, 'NaN happened');
          assert.ok(r.verdict.reasons.some((x) => x.code === 'nan-marker'));
          assert.match(r.content, /^!+$/);
        });

        it('nan-marker with logprobs: NaN logprobs reach the detector', async () => {
          const r = await probe('nan-marker', endpoint, stream, { logprobs: true }, {}, { logprobs: 'nan' });
          assert.equal(r.verdict.kind, 'nan');
          assert.ok(
            r.verdict.reasons.some((x) => x.code === 'nan-logprob'),
            JSON.stringify(r.verdict.reasons),
          );
        });

        it('token0-run: silent NaN is still nan', async () => {
          const r = await probe('token0-run', endpoint, stream);
          assert.equal(r.status, 'completed');
          assert.equal(r.verdict.kind, 'nan');
          assert.equal(r.finishReason, 'length');
          assert.equal(r.matchedStop, null);
          assert.ok(r.verdict.reasons.some((x) => x.code === 'token0-run'));
        });

        for (const [behaviour, code] of [
          ['short-loop', 'short-loop'],
          ['sentence-loop', 'long-loop'],
          ['token-salad', 'token-salad'],
          ['empty', 'empty'],
          ['symbol-flood', 'answer-flood'],
          ['special-tokens', 'special-tokens'],
          ['unknown-bytes', 'special-tokens'],
          ['prompt-echo', 'prompt-echo'],
          ['word-stutter', 'word-repetition'],
          ['glued-words', 'detok-spacing'],
          ['symbol-salad', 'token-salad'],
          ['function-word-salad', 'word-salad'],
          ['mojibake', 'mojibake'],
          ['runaway-template', 'template-leak'],
          ['list-cycle', 'list-cycle'],
          ['tokenizer-marks', 'detok-spacing'],
          ['item-loop', 'list-cycle'],
          ['code-salad', 'token-salad'],
          ['inst-runaway', 'template-leak'],
          ['dropped-tokens', 'dropped-words'],
          ['garbled-letters', 'garbled-words'],
          ['byte-pieces', 'mojibake'],
        ] as const) {
          it(`${behaviour}: degenerate (${code})`, async () => {
            const r = await probe(behaviour, endpoint, stream);
            assert.equal(r.status, 'completed');
            assert.equal(r.verdict.kind, 'degenerate', JSON.stringify(r.verdict.reasons));
            assert.ok(
              r.verdict.reasons.some((x) => x.code === code),
              JSON.stringify(r.verdict.reasons.map((x) => x.code)),
            );
          });
        }

        it('stuck-mark cut at 48 tokens: length-repetition from the first "?"', async () => {
          const r = await probe('stuck-mark', endpoint, stream, { maxTokens: 48 });
          assert.equal(r.finishReason, 'length');
          const flood = reasonIn(r, 'degenerate', 'length-repetition');
          assert.equal(flood.offset, r.content.indexOf('?'));
        });

        it("spliced-token: ok, with a suspect reason that names the spliced word's offset", async () => {
          const r = await probe('spliced-token', endpoint, stream);
          assert.equal(r.status, 'completed');
          const suspect = reasonIn(r, 'ok', 'spliced-token');
          assert.equal(suspect.kind, 'suspect');
          assert.equal(r.content.slice(suspect.offset, suspect.offset + 7), 'которые');
          assert.equal(r.verdict.onset, null);
        });

        it('offer-runaway: ok, with a template-leak suspect right after the offer', async () => {
          const r = await probe('offer-runaway', endpoint, stream, { maxTokens: 400 });
          assert.equal(r.status, 'completed');
          const suspect = reasonIn(r, 'ok', 'template-leak');
          assert.equal(suspect.kind, 'suspect');
          assert.equal(r.content.slice(0, suspect.offset), 'Hello! How can I help you today?');
        });

        it('answer-twice: degenerate, a long loop from the first copy', async () => {
          const r = await probe('answer-twice', endpoint, stream, { maxTokens: 600 });
          assert.equal(r.status, 'completed');
          const loop = reasonIn(r, 'degenerate', 'long-loop');
          const half = r.content.indexOf('\n\n', r.content.length / 2 - 2);
          assert.equal(r.content.slice(0, half), r.content.slice(half + 2));
          assert.equal(loop.offset, 0);
          assert.match(loop.message, /twice/);
        });

        it('restate: degenerate, a long loop from the sentence said twice, though the answer goes on after it', async () => {
          const r = await probe('restate', endpoint, stream);
          assert.equal(r.status, 'completed');
          const loop = reasonIn(r, 'degenerate', 'long-loop');
          assert.match(loop.message, /said twice back to back/);
          const first = r.content.slice(0, r.content.indexOf('\n'));
          assert.ok(r.content.indexOf(first, first.length) > 0, 'the first sentence comes again');
          assert.ok(loop.offset <= 4, `onset ${loop.offset}`);
        });

        it('cut: error kind cut, partial answer kept', async () => {
          const r = await probe('cut', endpoint, stream, {}, {}, { cutAfterTokens: 8 });
          assert.equal(r.status, 'error');
          assert.equal(r.error?.kind, 'cut');
          if (stream) {
            assert.match(r.error.message, /middle of a chunk/);
            assert.ok(r.content.length > 0, 'partial content kept');
            assert.ok(r.content.startsWith(endpoint === 'completions' || endpoint === 'generate' ? 'The ' : 'A KV') || r.content.length > 0);
          }
          assert.equal(r.finishReason, null);
        });

        it('http-500: error kind http with the server message', async () => {
          const r = await probe('http-500', endpoint, stream);
          assert.equal(r.status, 'error');
          assert.equal(r.error?.kind, 'http');
          assert.equal(r.error.status, 500);
          assert.equal(r.httpStatus, 500);
          assert.match(r.error.message, /illegal memory access/);
          assert.match(r.error.message, /logs/);
        });

        it('http-503: says the server is not ready', async () => {
          const r = await probe('http-503', endpoint, stream);
          assert.equal(r.error?.kind, 'http');
          assert.equal(r.error.status, 503);
          assert.match(r.error.message, /not ready/);
        });

        it('html-error: snippet is the page text, not markup', async () => {
          const r = await probe('html-error', endpoint, stream);
          assert.equal(r.error?.kind, 'http');
          assert.equal(r.error.status, 502);
          assert.match(r.error.message, /502 Bad Gateway/);
          assert.match(r.error.message, /proxy/);
          assert.ok(r.error.bodySnippet && !r.error.bodySnippet.includes('<'), r.error.bodySnippet);
          assert.match(r.error.bodySnippet, /nginx/);
        });

        it('hang: timeout error after timeoutMs', async () => {
          const t0 = Date.now();
          const r = await probe('hang', endpoint, stream, { timeoutMs: 300 });
          assert.equal(r.status, 'error');
          assert.equal(r.error?.kind, 'timeout');
          assert.match(r.error.message, /0\.3 s/);
          assert.ok(Date.now() - t0 < 3000);
        });

        it('error mid-stream: server error, partial answer kept', async () => {
          const r = await probe('error-midstream', endpoint, stream);
          assert.equal(r.status, 'error');
          if (stream) {
            assert.equal(r.error?.kind, 'server');
            assert.match(r.error.message, /illegal memory access/);
            assert.ok(r.content.length > 0);
          } else {
            assert.equal(r.error?.kind, 'http');
          }
        });

        it('bad-json: protocol error naming the bad line, content kept', async () => {
          const r = await probe('bad-json', endpoint, stream);
          assert.equal(r.status, 'error');
          assert.equal(r.error?.kind, 'protocol');
          assert.match(r.error.message, /not JSON/);
          if (stream) {
            assert.match(r.error.message, /upstream connect error/);
            assert.ok(r.content.length > 0);
          }
        });

        it('no-done: a stream without [DONE] is a cut after a complete answer', async () => {
          const r = await probe('no-done', endpoint, stream);
          if (stream) {
            assert.equal(r.status, 'error');
            assert.equal(r.error?.kind, 'cut');
            assert.match(r.error.message, /\[DONE\]/);
            assert.equal(r.finishReason, 'stop');
            assert.equal(r.verdict.kind, 'ok');
          } else {
            assert.equal(r.status, 'completed');
          }
        });

        it('slow: the idle timeout resets per chunk when streaming', async () => {
          const r = await probe('slow', endpoint, stream, { maxTokens: 12, timeoutMs: 250 }, {}, { tokenDelayMs: 60 });
          if (stream) {
            assert.equal(r.status, 'completed', r.error?.message);
            assert.ok(r.durationMs > 250 * 1.5, `took ${r.durationMs}`);
          } else {
            assert.equal(r.error?.kind, 'timeout');
          }
        });
      });
    }
  }

  describe('cancel, early stop, bounds', () => {
    it('stops via AbortSignal with status stopped and the partial answer', async () => {
      const ac = new AbortController();
      let deltas = 0;
      const r = await probe(
        'slow',
        'chat',
        true,
        { maxTokens: 100 },
        {
          signal: ac.signal,
          onEvent: (e) => {
            if (e.type === 'delta' && ++deltas === 3) ac.abort();
          },
        },
        { tokenDelayMs: 20 },
      );
      assert.equal(r.status, 'stopped');
      assert.equal(r.error?.kind, 'cancelled');
      assert.ok(r.content.length > 0);
      assert.ok(r.completionTokens < 100);
    });

    it('an already-aborted signal stops before sending', async () => {
      const r = await probe('healthy', 'chat', true, {}, { signal: AbortSignal.abort() });
      assert.equal(r.status, 'stopped');
      assert.equal(r.content, '');
    });

    it('stops a hung request via AbortSignal', async () => {
      const r = await probe('hang', 'generate', true, { timeoutMs: 10_000 }, { signal: AbortSignal.timeout(200) });
      assert.equal(r.status, 'stopped');
    });

    for (const endpoint of ENDPOINTS) {
      it(`early stop aborts a degenerate stream (${endpoint})`, async () => {
        const r = await probe('token0-run', endpoint, true, { maxTokens: 20_000, earlyStop: true });
        assert.equal(r.status, 'early-stopped');
        assert.equal(r.error, undefined);
        assert.equal(r.verdict.kind, 'nan');
        assert.ok(r.totalChars < 5_000, `read ${r.totalChars} chars`);
      });
    }

    it('early stop leaves a healthy answer alone', async () => {
      const r = await probe('healthy', 'chat', true, { earlyStop: true });
      assert.equal(r.status, 'completed');
    });

    it('the overall timeout stops a stream that keeps trickling', async () => {
      const r = await probe('slow', 'chat', true, { maxTokens: 500, timeoutMs: 1_000 }, { overallTimeoutMs: 300 }, { tokenDelayMs: 20 });
      assert.equal(r.error?.kind, 'timeout');
      assert.match(r.error.message, /overall|in all/);
      assert.ok(r.content.length > 0);
    });

    it('a 50 MB streamed answer keeps memory bounded (tail only)', async function () {
      this.timeout(60_000);
      const r = await probe('huge', 'chat', true, { maxTokens: 100_000, timeoutMs: 20_000 }, {}, { totalChars: 50 * 1024 * 1024, chunkChars: 65536 });
      assert.equal(r.status, 'completed', r.error?.message);
      assert.equal(r.totalChars, 50 * 1024 * 1024);
      assert.ok(r.contentDroppedChars > 0);
      assert.ok(r.content.length <= 256 * 1024, `kept ${r.content.length}`);
      assert.equal(r.content.length + r.contentDroppedChars, r.totalChars);
    });

    it('maxContentChars sets the tail size', async () => {
      const r = await probe('healthy', 'completions', true, {}, { maxContentChars: 100 });
      assert.ok(r.content.length <= 100);
      assert.equal(r.content.length + r.contentDroppedChars, r.totalChars);
    });
  });

  describe('connection, auth and request errors', () => {
    it('unreachable: connection refused says so', async () => {
      const port = await new Promise<number>((resolve) => {
        const s = createServer();
        s.listen(0, '127.0.0.1', () => {
          const p = (s.address() as { port: number }).port;
          s.close(() => resolve(p));
        });
      });
      const r = await runProbe({ baseUrl: `http://127.0.0.1:${port}` }, { endpoint: 'chat', prompt: 'hi', stream: true, timeoutMs: 2000 });
      assert.equal(r.status, 'error');
      assert.equal(r.error?.kind, 'unreachable');
      assert.match(r.error.message, /refused/);
    });

    it('tls: https to a plain-HTTP port is a TLS error', async () => {
      const sim = await pool.single('healthy');
      const r = await runProbe({ baseUrl: sim.url.replace('http:', 'https:') }, { endpoint: 'chat', prompt: 'hi', stream: true, timeoutMs: 2000 });
      assert.equal(r.status, 'error');
      assert.equal(r.error?.kind, 'tls', r.error?.message);
      assert.match(r.error.message, /TLS/);
    });

    it('auth: 401 without a key tells the user to set the API key; right key works', async () => {
      const sim = await pool.start({ models: { m: 'healthy' } }, 'sekret');
      for (const endpoint of ENDPOINTS) {
        const none = await runProbe({ baseUrl: sim.url }, { endpoint, prompt: 'hi', stream: true });
        assert.equal(none.error?.kind, 'auth', endpoint);
        assert.equal(none.error.status, 401);
        assert.match(none.error.message, /set the API key/);
        const wrong = await runProbe({ baseUrl: sim.url, apiKey: 'nope' }, { endpoint, prompt: 'hi', stream: false });
        assert.equal(wrong.error?.kind, 'auth');
        assert.match(wrong.error.message, /rejected the API key/);
        const right = await runProbe({ baseUrl: sim.url, apiKey: 'sekret' }, { endpoint, prompt: 'hi', stream: true });
        assert.equal(right.status, 'completed', right.error?.message);
      }
    });

    it('unknown model: 404 from the OpenAI layer', async () => {
      const sim = await pool.single('healthy');
      const r = await runProbe({ baseUrl: sim.url }, { endpoint: 'chat', model: 'no-such-model', prompt: 'hi', stream: true });
      assert.equal(r.error?.kind, 'http');
      assert.equal(r.error.status, 404);
      assert.match(r.error.message, /does not exist/);
    });

    it('wrong base URL path: 404 with advice', async () => {
      const sim = await pool.single('healthy');
      const r = await runProbe({ baseUrl: `${sim.url}/nothing-here` }, { endpoint: 'chat', prompt: 'hi', stream: false });
      assert.equal(r.error?.kind, 'http');
      assert.match(r.error.message, /base URL/);
    });
  });

  describe('events, reasoning, scenario files', () => {
    it('emits request, response, chunk, delta and verdict events in order', async () => {
      const events: ProbeEvent[] = [];
      const r = await probe('token0-run', 'chat', true, { maxTokens: 64 }, { onEvent: (e) => events.push(e) });
      const types = events.map((e) => e.type);
      assert.equal(types[0], 'request');
      assert.equal(types[1], 'response');
      assert.ok(types.includes('chunk') && types.includes('delta') && types.includes('verdict'));
      const deltaText = events
        .filter((e) => e.type === 'delta')
        .map((e) => (e.type === 'delta' ? (e.content ?? '') : ''))
        .join('');
      assert.equal(deltaText, r.content);
      const req = events[0] as Extract<ProbeEvent, { type: 'request' }>;
      assert.match(req.url, /\/v1\/chat\/completions$/);
      assert.deepEqual((req.body as { stream_options: unknown }).stream_options, { include_usage: true });
      for (let i = 1; i < events.length; i++) assert.ok(events[i].at >= events[i - 1].at);
    });

    it('reasoning_content is kept apart from content', async () => {
      const sim = await pool.start((await import('./helpers')).scenarioPath('reasoning'));
      for (const stream of [true, false]) {
        const r = await runProbe({ baseUrl: sim.url }, { endpoint: 'chat', prompt: 'Hello there', stream });
        assert.equal(r.status, 'completed');
        assert.match(r.reasoning, /The user wants a short answer/);
        assert.match(r.content, /^Hello!/);
        assert.equal(r.verdict.kind, 'ok');
      }
    });

    it('nan.json scenario: chat without a model name still hits the NaN model', async () => {
      const sim = await pool.start((await import('./helpers')).scenarioPath('nan'));
      const r = await runProbe({ baseUrl: sim.url }, { endpoint: 'chat', prompt: 'Hello', stream: true, logprobs: true });
      assert.equal(r.verdict.kind, 'nan');
      assert.equal(r.matchedStop, 'NaN happened');
    });
  });

  describe('quick health probe', () => {
    it('healthy server: all three prompts ok', async () => {
      const sim = await pool.start((await import('./helpers')).scenarioPath('healthy'));
      const q = await runQuickProbe({ baseUrl: sim.url }, { maxTokens: 300 });
      assert.equal(q.items.length, 3);
      for (const item of q.items) assert.equal(item.result.verdict.kind, 'ok', `${item.id}: ${JSON.stringify(item.result.verdict.reasons)}`);
      assert.match(q.items[1].result.content, /def is_prime/);
      assert.match(q.items[2].result.content, /19, 20/);
      assert.equal(q.summary.verdict, 'ok');
      assert.equal(q.summary.errors, 0);
    });

    it('NaN server: worst verdict is nan', async () => {
      const sim = await pool.start((await import('./helpers')).scenarioPath('nan'));
      const q = await runQuickProbe({ baseUrl: sim.url }, { maxTokens: 64 });
      assert.equal(q.summary.verdict, 'nan');
      assert.match(q.summary.message, /NaN/);
    });

    it('unreachable server: all failed', async () => {
      const q = await runQuickProbe({ baseUrl: 'http://127.0.0.1:9' }, { maxTokens: 8, timeoutMs: 2000 });
      assert.equal(q.summary.errors, 3);
      assert.match(q.summary.message, /All probes failed/);
    });
  });
});

/** The reason of this code in a probe's verdict, once the verdict is of this kind (both asserted). */
function reasonIn(r: ProbeResult, kind: VerdictKind, code: ReasonCode): Reason {
  assert.equal(r.verdict.kind, kind, JSON.stringify(r.verdict.reasons));
  const found = r.verdict.reasons.find((x) => x.code === code);
  assert.ok(found, JSON.stringify(r.verdict.reasons));
  return found;
}
