/**
 * A streamed answer saved as it came (curl -N), judged by core/probe/savedStream: the simulator's
 * own streams over real HTTP get the verdict a probe of the same model gets, and `detect` reads a
 * saved stream and a pretty-printed response from a file.
 */
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runProbe } from '../../src/core/probe/runner';
import { checkSavedStream, judgeSavedStream, looksLikeSavedStream } from '../../src/core/probe/savedStream';
import { startSimulator, type RunningSimulator } from '../../src/sim/server';
import { TRYOUT_SCENARIO } from '../../src/sim/tryout';
import { buildBundles, runCli } from './helpers';

const parseLine = (text: string): { id?: unknown; verdict?: string } => JSON.parse(text) as { id?: unknown; verdict?: string };

const PROMPT = 'Write one sentence about the sea.';

describe('saved streams (curl -N), judged as the probe judges a live one', function () {
  this.timeout(60_000);
  let sim: RunningSimulator;
  let dir: string;

  before(async function () {
    this.timeout(120_000);
    buildBundles('cli');
    sim = await startSimulator({ port: 0, host: '127.0.0.1', scenario: TRYOUT_SCENARIO });
    dir = mkdtempSync(join(tmpdir(), 'idoc-saved-'));
  });
  after(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The raw text of a streamed request, as curl -N would save it. */
  async function savedStream(path: string, body: Record<string, unknown>): Promise<string> {
    const res = await fetch(`${sim.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, stream: true }),
    });
    assert.equal(res.status, 200);
    return res.text();
  }

  const expected = { 'broken-nan-logits': 'nan', healthy: 'ok', 'broken-sentence-loop': 'degenerate', 'broken-token-salad': 'degenerate' } as const;
  for (const [model, kind] of Object.entries(expected)) {
    it(`${model}: the saved chat stream gets the verdict a probe without early stop gets`, async () => {
      const text = await savedStream('/v1/chat/completions', { model, messages: [{ role: 'user', content: PROMPT }], max_tokens: 128, temperature: 0 });
      assert.ok(looksLikeSavedStream(text));
      const saved = judgeSavedStream(text);
      assert.ok(saved.ok, !saved.ok ? saved.error : '');
      const live = await runProbe(
        { baseUrl: sim.url },
        { endpoint: 'chat', prompt: PROMPT, model, maxTokens: 128, temperature: 0, stream: true, earlyStop: false, logprobs: false, timeoutMs: 20_000 },
      );
      assert.equal(saved.verdict.kind, kind);
      assert.equal(live.verdict.kind, kind);
      assert.deepEqual(
        saved.verdict.reasons.map((r) => r.code),
        live.verdict.reasons.map((r) => r.code),
      );
      assert.equal(saved.content, live.content);
      assert.equal(saved.done, true);
    });
  }

  it("SGLang's native /generate stream (cumulative text) is put together once", async () => {
    const text = await savedStream('/generate', { text: PROMPT, sampling_params: { max_new_tokens: 64, temperature: 0 }, model: 'healthy' });
    const saved = judgeSavedStream(text);
    assert.ok(saved.ok, !saved.ok ? saved.error : '');
    assert.equal(saved.verdict.kind, 'ok', JSON.stringify(saved.verdict.reasons));
    assert.ok(saved.content.length > 10 && !/(.{12,})\1/.test(saved.content), saved.content);
  });

  it('detect reads a saved stream file and a pretty-printed response', async () => {
    const stream = join(dir, 'nan.sse');
    writeFileSync(
      stream,
      await savedStream('/v1/chat/completions', { model: 'broken-nan-logits', messages: [{ role: 'user', content: PROMPT }], max_tokens: 64 }),
    );
    const r = await runCli(['detect', stream]);
    assert.equal(r.code, 0, r.stderr);
    const [line, ...more] = r.stdout.trim().split('\n');
    assert.equal(more.length, 0, r.stdout);
    assert.equal(parseLine(line).verdict, 'nan');
    const pretty = join(dir, 'pretty.json');
    writeFileSync(pretty, JSON.stringify({ id: 'p', choices: [{ message: { content: '!'.repeat(40) }, finish_reason: 'length' }] }, null, 2));
    const p = await runCli(['detect', pretty]);
    assert.equal(p.code, 0, p.stderr);
    assert.deepEqual(
      p.stdout
        .trim()
        .split('\n')
        .map((l) => [parseLine(l).id, parseLine(l).verdict]),
      [['p', 'nan']],
    );
  });
});

describe('saved streams: what is cut, skipped or wrong', () => {
  const chunk = (content: string, extra: Record<string, unknown> = {}): string =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, finish_reason: null, ...extra }] })}\n\n`;

  it('skips keep-alive comments and a usage-only chunk; a chunk cut at the end leaves what came before', () => {
    const text = `: ping\n\ndata: {"usage": {"prompt_tokens": 3}}\n\n${chunk('The sea is calm today. ')}${chunk('Waves roll in.')}data: {"id":"c","choices":[{"index":0,"delta":{"content":"And th`;
    const r = judgeSavedStream(text);
    assert.ok(r.ok, !r.ok ? r.error : '');
    assert.equal(r.content, 'The sea is calm today. Waves roll in.');
    assert.equal(r.done, false);
    assert.equal(r.chunks, 2);
  });

  it('says what is wrong: a data line that is not JSON, an error chunk, no answer at all', () => {
    const bad = judgeSavedStream(`${chunk('Hi')}data: <html>proxy error</html>\n\n`);
    assert.ok(!bad.ok);
    assert.match(bad.error, /data: line 2 is not JSON/);
    const err = judgeSavedStream(`${chunk('Hi')}data: {"error": {"message": "CUDA error: an illegal memory access"}}\n\n`);
    assert.ok(!err.ok);
    assert.match(err.error, /illegal memory access/);
    const none = judgeSavedStream('data: {"usage": {}}\n\ndata: [DONE]\n\n');
    assert.ok(!none.ok);
    assert.match(none.error, /no chunk/);
  });

  it('tells a saved stream from other text, and marks its verdict on its first line for the editor', () => {
    assert.equal(looksLikeSavedStream('\n\ndata: {}\n'), true);
    assert.equal(looksLikeSavedStream('{"data": 1}\n'), false);
    assert.equal(looksLikeSavedStream('The data: it shows'), false);
    const text = `\n${chunk('!'.repeat(30), { finish_reason: 'stop', matched_stop: 'NaN happened' })}data: [DONE]\n`;
    const check = checkSavedStream(text);
    assert.equal(check.nan, 1);
    const [mark] = check.marks;
    assert.equal(mark.kind, 'nan');
    assert.equal(text.slice(mark.start, mark.end), chunk('!'.repeat(30), { finish_reason: 'stop', matched_stop: 'NaN happened' }).split('\n')[0]);
    assert.match(mark.message, /^The stream's answer \(1 chunks\): NaN: /);
  });
});
