/* eslint-disable @typescript-eslint/no-unsafe-return -- raw JSON shapes are asserted field by field */
import { strict as assert } from 'node:assert';
import type { RunningSimulator } from '../../src/sim/server';
import { SimPool, scenarioPath } from './helpers';

/** Test-only: parsed JSON whose shape the assertions check. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const parseAny = (text: string): any => JSON.parse(text);

interface Raw {
  status: number;
  text: string;
  type: string;
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Raw> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: r.status, text: await r.text(), type: r.headers.get('content-type') ?? '' };
}

async function get(url: string, headers: Record<string, string> = {}): Promise<Raw> {
  const r = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
  return { status: r.status, text: await r.text(), type: r.headers.get('content-type') ?? '' };
}

/** data: payloads of an SSE body, in order. */
function events(text: string): string[] {
  return text
    .split('\n\n')
    .filter((b) => b.startsWith('data: '))
    .map((b) => b.slice(6));
}

const chat = (model: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  model,
  messages: [{ role: 'user', content: 'Hello, how are you?' }],
  max_tokens: 64,
  ...extra,
});

describe('simulator response shapes (raw HTTP)', function () {
  this.timeout(20_000);
  const pool = new SimPool();
  let all: RunningSimulator;
  let keyed: RunningSimulator;
  let legacy: RunningSimulator;
  let nan: RunningSimulator;
  let reasoning: RunningSimulator;

  before(async () => {
    all = await pool.start(scenarioPath('all'));
    keyed = await pool.start(scenarioPath('healthy'), 'k3y');
    legacy = await pool.start(scenarioPath('legacy'));
    nan = await pool.start(scenarioPath('nan'));
    reasoning = await pool.start(scenarioPath('reasoning'));
  });
  after(() => pool.closeAll());

  it('chat non-stream: keys, explicit nulls, matched_stop, usage', async () => {
    const r = await post(`${all.url}/v1/chat/completions`, chat('healthy', { max_tokens: 500 }));
    assert.equal(r.status, 200);
    assert.match(r.type, /application\/json/);
    const body = JSON.parse(r.text);
    assert.deepEqual(Object.keys(body).slice(0, 6), ['id', 'object', 'created', 'model', 'choices', 'usage']);
    assert.equal(body.object, 'chat.completion');
    assert.equal(body.model, 'healthy');
    const c = body.choices[0];
    assert.deepEqual(Object.keys(c), ['index', 'message', 'logprobs', 'finish_reason', 'matched_stop']);
    assert.deepEqual(Object.keys(c.message), ['role', 'content', 'reasoning_content', 'tool_calls']);
    assert.equal(c.message.role, 'assistant');
    assert.match(c.message.content, /^Hello!/);
    assert.match(r.text, /"reasoning_content":null,"tool_calls":null/);
    assert.match(r.text, /"logprobs":null/);
    assert.equal(c.finish_reason, 'stop');
    assert.equal(c.matched_stop, 151645);
    assert.deepEqual(Object.keys(body.usage).slice(0, 3), ['prompt_tokens', 'total_tokens', 'completion_tokens']);
    assert.equal(body.usage.total_tokens, body.usage.prompt_tokens + body.usage.completion_tokens);
  });

  it('chat non-stream: max_tokens cuts with finish length and matched_stop null', async () => {
    const body = JSON.parse((await post(`${all.url}/v1/chat/completions`, chat('healthy', { max_tokens: 5 }))).text);
    assert.equal(body.choices[0].finish_reason, 'length');
    assert.equal(body.choices[0].matched_stop, null);
    assert.equal(body.usage.completion_tokens, 5);
  });

  it('chat stream: role chunk, content chunks, finish chunk with empty delta, usage chunk, [DONE]', async () => {
    const r = await post(`${all.url}/v1/chat/completions`, chat('nan-marker', { stream: true, stream_options: { include_usage: true } }));
    assert.match(r.type, /text\/event-stream/);
    assert.ok(r.text.endsWith('data: [DONE]\n\n'));
    const ev = events(r.text);
    assert.equal(ev.at(-1), '[DONE]');
    const chunks = ev.slice(0, -1).map((e) => parseAny(e));
    const ids = new Set(chunks.map((c): unknown => c.id));
    assert.equal(ids.size, 1);
    for (const c of chunks) assert.equal(c.object, 'chat.completion.chunk');
    assert.deepEqual(chunks[0].choices[0].delta, { role: 'assistant', content: '', reasoning_content: null, tool_calls: null });
    assert.equal(chunks[0].choices[0].finish_reason, null);
    const middle = chunks[1];
    assert.deepEqual(middle.choices[0].delta, { role: null, content: '!', reasoning_content: null, tool_calls: null });
    assert.equal(middle.usage, null);
    const finish = chunks.at(-2);
    assert.deepEqual(finish.choices[0].delta, {});
    assert.equal(finish.choices[0].finish_reason, 'stop');
    assert.equal(finish.choices[0].matched_stop, 'NaN happened');
    const usage = chunks.at(-1);
    assert.deepEqual(usage.choices, []);
    assert.ok(usage.usage.completion_tokens > 0);
  });

  it('no usage chunk without stream_options.include_usage', async () => {
    const ev = events((await post(`${all.url}/v1/chat/completions`, chat('healthy', { stream: true }))).text);
    const last = JSON.parse(ev.at(-2)!);
    assert.equal(last.choices[0].finish_reason, 'length');
  });

  it('logprobs carry bare NaN literals in the raw text', async () => {
    const r = await post(`${all.url}/v1/chat/completions`, chat('nan-marker', { logprobs: true }));
    assert.match(r.text, /"logprob":NaN/);
    assert.throws(() => JSON.parse(r.text));
    const s = await post(`${all.url}/v1/completions`, { model: 'neg-inf-logprobs', prompt: 'Hi', max_tokens: 4, logprobs: 1, stream: true });
    assert.match(s.text, /"token_logprobs":\[-Infinity\]/);
    const n = await post(`${nan.url}/generate`, { text: 'Hi', sampling_params: { max_new_tokens: 4 }, return_logprob: true, return_text_in_logprobs: true });
    assert.match(n.text, /"output_token_logprobs":\[\[NaN,0,"!"\]/);
  });

  it('completions: text_completion object with choices[].text', async () => {
    const body = JSON.parse((await post(`${all.url}/v1/completions`, { model: 'healthy', prompt: 'Count to 20', max_tokens: 300 })).text);
    assert.equal(body.object, 'text_completion');
    assert.deepEqual(Object.keys(body.choices[0]), ['index', 'text', 'logprobs', 'finish_reason', 'matched_stop']);
    assert.match(body.choices[0].text, /18, 19, 20/);
    const defaults = JSON.parse((await post(`${all.url}/v1/completions`, { model: 'healthy', prompt: 'Count to 20' })).text);
    assert.equal(defaults.usage.completion_tokens, 16, 'SGLang completions default max_tokens is 16');
    const ev = events((await post(`${all.url}/v1/completions`, { model: 'healthy', prompt: 'x', max_tokens: 3, stream: true })).text);
    const first = JSON.parse(ev[0]);
    assert.equal(first.object, 'text_completion');
    assert.equal(typeof first.choices[0].text, 'string');
    const fin = JSON.parse(ev.at(-2)!);
    assert.equal(fin.choices[0].text, '');
    assert.equal(fin.choices[0].finish_reason, 'length');
  });

  it('native /generate: cumulative streamed text, meta_info finish_reason', async () => {
    const whole = JSON.parse((await post(`${all.url}/generate`, { model: 'healthy', text: 'Count to 20', sampling_params: { max_new_tokens: 400 } })).text);
    assert.deepEqual(Object.keys(whole), ['text', 'meta_info']);
    assert.deepEqual(whole.meta_info.finish_reason, { type: 'stop', matched: 151645 });
    for (const k of ['id', 'prompt_tokens', 'completion_tokens', 'cached_tokens', 'e2e_latency']) assert.ok(k in whole.meta_info, k);
    const ev = events(
      (await post(`${all.url}/generate`, { model: 'healthy', text: 'Count to 20', stream: true, sampling_params: { max_new_tokens: 400 } })).text,
    );
    assert.equal(ev.at(-1), '[DONE]');
    const chunks = ev.slice(0, -1).map((e) => parseAny(e));
    for (let i = 1; i < chunks.length; i++) assert.ok(chunks[i].text.startsWith(chunks[i - 1].text), 'cumulative');
    assert.equal(chunks.at(-1).text, whole.text);
    assert.equal(chunks[0].meta_info.finish_reason, null);
    assert.deepEqual(chunks.at(-1).meta_info.finish_reason, { type: 'stop', matched: 151645 });
    const len = JSON.parse((await post(`${all.url}/generate`, { text: 'x', sampling_params: { max_new_tokens: 3 } })).text);
    assert.deepEqual(len.meta_info.finish_reason, { type: 'length', length: 3 });
    const nanBody = (await post(`${nan.url}/generate`, { text: 'Hello', sampling_params: { max_new_tokens: 100 } })).text;
    assert.deepEqual(JSON.parse(nanBody).meta_info.finish_reason, { type: 'stop', matched: 'NaN happened' });
  });

  it('/v1/models lists scenario models in order', async () => {
    const body = JSON.parse((await get(`${all.url}/v1/models`)).text);
    assert.equal(body.object, 'list');
    assert.equal(body.data[0].id, 'healthy');
    assert.deepEqual(
      Object.keys(body.data[0]).filter((k) => k !== 'parent'),
      ['id', 'object', 'created', 'owned_by', 'root', 'max_model_len'],
    );
    assert.equal(body.data[0].owned_by, 'sglang');
  });

  it('/server_info and /get_server_info: flat dataclass fields, internal_states list, version', async () => {
    for (const path of ['/server_info', '/get_server_info']) {
      const r = await get(`${nan.url}${path}`);
      assert.equal(r.status, 200);
      assert.match(r.text, /"last_gen_throughput":NaN/);
      assert.match(r.text, /"avg_spec_accept_length":Infinity/);
    }
    const body = JSON.parse((await get(`${all.url}/server_info`)).text);
    for (const k of [
      'fp4_gemm_runner_backend',
      'fp8_gemm_runner_backend',
      'moe_runner_backend',
      'attention_backend',
      'sampling_backend',
      'kv_cache_dtype',
      'quantization',
    ])
      assert.ok(k in body, k);
    assert.ok(!('fp4_gemm_backend' in body), 'keyed by field name, not flag');
    assert.ok(Array.isArray(body.internal_states));
    assert.equal(body.version, '0.5.9');
  });

  it('legacy server: only /get_server_info and /get_model_info', async () => {
    assert.equal((await get(`${legacy.url}/server_info`)).status, 404);
    assert.equal((await get(`${legacy.url}/get_server_info`)).status, 200);
    assert.equal((await get(`${legacy.url}/model_info`)).status, 404);
    const info = JSON.parse((await get(`${legacy.url}/get_model_info`)).text);
    assert.deepEqual(info, { model_path: 'meta-llama/Llama-3.1-8B-Instruct', tokenizer_path: 'meta-llama/Llama-3.1-8B-Instruct', is_generation: true });
  });

  it('/model_info on a new server has model_type and architectures', async () => {
    const info = JSON.parse((await get(`${all.url}/model_info`)).text);
    assert.equal(info.is_generation, true);
    assert.ok(Array.isArray(info.architectures));
  });

  it('/health is 200 with an empty body; /health_generate too, even on a NaN server', async () => {
    for (const path of ['/health', '/health_generate']) {
      const r = await get(`${nan.url}${path}`);
      assert.equal(r.status, 200);
      assert.equal(r.text, '');
    }
  });

  it('--api-key: 401 in OpenAI shape, native nested shape, health exempt', async () => {
    const r = await post(`${keyed.url}/v1/chat/completions`, chat('Qwen/Qwen3-8B'));
    assert.equal(r.status, 401);
    const body = JSON.parse(r.text);
    assert.deepEqual(Object.keys(body), ['object', 'message', 'type', 'param', 'code']);
    assert.equal(body.object, 'error');
    assert.equal(body.code, 401);
    assert.equal((await get(`${keyed.url}/v1/models`)).status, 401);
    const n = await post(`${keyed.url}/generate`, { text: 'x' });
    assert.equal(n.status, 401);
    assert.equal(typeof JSON.parse(n.text).error.message, 'string');
    assert.equal((await get(`${keyed.url}/health`)).status, 200);
    assert.equal((await post(`${keyed.url}/v1/chat/completions`, chat('Qwen/Qwen3-8B'), { authorization: 'Bearer k3y' })).status, 200);
  });

  it('validation errors: 400 flat OpenAI error; native {"error":{"message"}}', async () => {
    const r = await post(`${all.url}/v1/chat/completions`, { model: 'healthy' });
    assert.equal(r.status, 400);
    const body = JSON.parse(r.text);
    assert.equal(body.object, 'error');
    assert.equal(body.code, 400);
    assert.equal(body.type, 'BadRequestError');
    assert.match(body.message, /messages/);
    const n = await post(`${all.url}/generate`, { sampling_params: {} });
    assert.equal(n.status, 400);
    assert.deepEqual(Object.keys(JSON.parse(n.text)), ['error']);
    const bad = await fetch(`${all.url}/v1/completions`, { method: 'POST', body: '{nope' });
    assert.equal(bad.status, 400);
  });

  it('HTTP 500/503 and HTML error pages', async () => {
    const e500 = await post(`${all.url}/v1/chat/completions`, chat('http-500'));
    assert.equal(e500.status, 500);
    assert.equal(JSON.parse(e500.text).object, 'error');
    const native500 = await post(`${all.url}/generate`, { model: 'http-500', text: 'x' });
    assert.equal(typeof JSON.parse(native500.text).error.message, 'string');
    assert.equal((await post(`${all.url}/v1/chat/completions`, chat('http-503'))).status, 503);
    const html = await post(`${all.url}/v1/chat/completions`, chat('html-error'));
    assert.equal(html.status, 502);
    assert.match(html.type, /text\/html/);
    assert.match(html.text, /<title>502 Bad Gateway<\/title>/);
  });

  it('reasoning parser: reasoning_content deltas before content', async () => {
    const ev = events((await post(`${reasoning.url}/v1/chat/completions`, chat('Qwen/Qwen3-32B', { stream: true, max_tokens: 200 }))).text);
    const deltas = ev
      .slice(1, -1)
      .map((e) => parseAny(e).choices[0]?.delta)
      .filter(Boolean);
    const firstReasoning = deltas.findIndex((d) => typeof d.reasoning_content === 'string');
    const firstContent = deltas.findIndex((d) => typeof d.content === 'string' && d.content.length > 0);
    assert.ok(firstReasoning >= 0 && firstContent > firstReasoning);
    const whole = JSON.parse((await post(`${all.url}/v1/chat/completions`, chat('thinker', { max_tokens: 200 }))).text);
    assert.match(whole.choices[0].message.content, /^<think>/, 'without a parser the thinking stays inline');
  });

  it('cut: the socket closes in the middle of a chunk', async () => {
    const res = await fetch(`${all.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify(chat('cut', { stream: true })) });
    let text = '';
    await assert.rejects(async () => {
      const reader = res.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString();
      }
    });
    assert.ok(!text.endsWith('\n\n'), 'ends inside an event');
    assert.ok(!text.includes('[DONE]'));
  });

  it('is deterministic for the same request', async () => {
    const a = JSON.parse((await post(`${all.url}/v1/chat/completions`, chat('token-salad'))).text).choices[0].message.content;
    const b = JSON.parse((await post(`${all.url}/v1/chat/completions`, chat('token-salad'))).text).choices[0].message.content;
    assert.equal(a, b);
  });

  it('unknown routes 404 like FastAPI', async () => {
    const r = await get(`${all.url}/nope`);
    assert.equal(r.status, 404);
    assert.deepEqual(JSON.parse(r.text), { detail: 'Not Found' });
  });
});
