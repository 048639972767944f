/**
 * An SGLang look-alike over HTTP for tests, demos and benchmarks. It reproduces the response
 * shapes of SGLang's OpenAI-compatible and native routes and the ways a broken GPU server answers;
 * it never judges the answers (no detector here). Importing this module has no side effects.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { stringifyPyJson } from '../core/pyjson';
import { EOS_TOKEN_ID, hashString, planAnswer, tokenize, type AnswerPlan, type SimToken } from './answers';
import { loadScenario, type ModelBehaviour, type ResolvedScenario, type Scenario } from './scenario';
import { buildServerInfo, modelInfo } from './serverInfo';

export interface SimulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  scenario: Scenario | string;
  /** Overrides the scenario's apiKey. */
  apiKey?: string;
}

export interface RunningSimulator {
  url: string;
  port: number;
  close(): Promise<void>;
}

type Route = 'chat' | 'completions' | 'generate';

class HttpError extends Error {
  constructor(readonly status: number, message: string, readonly type: string, readonly param: string | null = null) {
    super(message);
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = stringifyPyJson(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function openAiError(status: number, message: string, type: string, param: string | null = null): Record<string, unknown> {
  return { object: 'error', message, type, param, code: status };
}

function sendError(res: ServerResponse, route: Route | 'other', err: HttpError): void {
  if (route === 'generate') sendJson(res, err.status, { error: { message: err.message } });
  else sendJson(res, err.status, openAiError(err.status, err.message, err.type, err.param));
}

async function readBody(req: IncomingMessage, limit = 16 * 1024 * 1024): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new HttpError(413, 'Request body too large', 'BadRequestError');
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** Text of the last user turn (string content or the text parts of an array). */
function lastUserText(messages: unknown[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown; content?: unknown } | null;
    if (!m || m.role !== 'user') continue;
    if (typeof m.content === 'string') return m.content;
    if (Array.isArray(m.content)) {
      return m.content
        .map((p: unknown) => (p && typeof p === 'object' && 'text' in p && typeof p.text === 'string' ? p.text : ''))
        .join(' ');
    }
  }
  return '';
}

const HTML_ERROR = `<html>
<head><title>502 Bad Gateway</title></head>
<body>
<center><h1>502 Bad Gateway</h1></center>
<hr><center>nginx/1.24.0</center>
</body>
</html>
`;

interface Request {
  route: Route;
  body: Record<string, unknown>;
  model: string;
  behaviour: ModelBehaviour;
  prompt: string;
  stream: boolean;
  includeUsage: boolean;
  logprobs: boolean;
  maxTokens: number;
  id: string;
  created: number;
}

export async function startSimulator(options: SimulatorOptions): Promise<RunningSimulator> {
  const scenario: ResolvedScenario = loadScenario(options.scenario);
  const apiKey = options.apiKey ?? scenario.apiKey;
  const modelNames = [...scenario.models.keys()];
  const firstModel = modelNames[0] ?? 'default';
  const sockets = new Set<Socket>();
  let counter = 0;
  const startedAt = Math.floor(Date.now() / 1000);

  function resolveModel(name: unknown): { model: string; behaviour: ModelBehaviour } {
    const model = typeof name === 'string' && name ? name : firstModel;
    const behaviour = scenario.models.get(model) ?? scenario.default;
    if (!behaviour) throw new HttpError(404, `The model \`${model}\` does not exist.`, 'NotFoundError', 'model');
    return { model, behaviour };
  }

  function parseRequest(route: Route, body: Record<string, unknown>): Request {
    let prompt: string;
    let maxTokens: unknown;
    let logprobs = false;
    const sp = (body.sampling_params ?? {}) as Record<string, unknown>;
    if (route === 'chat') {
      if (!Array.isArray(body.messages) || body.messages.length === 0) {
        throw new HttpError(400, "1 validation error:\n  {'type': 'missing', 'loc': ('body', 'messages'), 'msg': 'Field required'}", 'BadRequestError', 'messages');
      }
      prompt = lastUserText(body.messages);
      maxTokens = body.max_completion_tokens ?? body.max_tokens;
      logprobs = body.logprobs === true;
    } else if (route === 'completions') {
      const p = body.prompt;
      if (typeof p !== 'string' && !Array.isArray(p)) {
        throw new HttpError(400, "1 validation error:\n  {'type': 'missing', 'loc': ('body', 'prompt'), 'msg': 'Field required'}", 'BadRequestError', 'prompt');
      }
      prompt = typeof p === 'string' ? p : String(p[0] ?? '');
      maxTokens = body.max_tokens ?? 16;
      logprobs = typeof body.logprobs === 'number' || body.logprobs === true;
    } else {
      if (typeof body.text !== 'string' && !Array.isArray(body.input_ids)) {
        throw new HttpError(400, 'Either text, input_ids or input_embeds should be provided.', 'BadRequestError');
      }
      prompt = typeof body.text === 'string' ? body.text : '';
      maxTokens = sp.max_new_tokens ?? 128;
      logprobs = body.return_logprob === true;
    }
    if (maxTokens !== undefined && maxTokens !== null && (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 0)) {
      throw new HttpError(400, 'max_tokens must be a non-negative integer', 'BadRequestError', 'max_tokens');
    }
    // Native requests carry no model field in SGLang; the simulator honours one if present.
    const { model, behaviour } = resolveModel(body.model);
    const so = body.stream_options as { include_usage?: unknown } | null | undefined;
    counter++;
    return {
      route, body, model, behaviour, prompt, logprobs,
      stream: body.stream === true,
      includeUsage: so?.include_usage === true,
      maxTokens: typeof maxTokens === 'number' ? maxTokens : (behaviour.defaultMaxTokens ?? 256),
      id: hashString(`${counter}:${prompt}`, scenario.seed).toString(16).padStart(8, '0') + counter.toString(16).padStart(8, '0'),
      created: Math.floor(Date.now() / 1000),
    };
  }

  // ---------- shapes ----------
  const useParser = (r: Request): boolean => r.route === 'chat' && !!scenario.reasoningParser;

  function chatLogprobs(tokens: SimToken[]): unknown {
    return { content: tokens.map((t) => ({ token: t.text, bytes: [...Buffer.from(t.text)], logprob: t.logprob, top_logprobs: [] })) };
  }

  function completionLogprobs(tokens: SimToken[], offset: number): unknown {
    const text_offset: number[] = [];
    let at = offset;
    for (const t of tokens) {
      text_offset.push(at);
      at += t.text.length;
    }
    return { text_offset, token_logprobs: tokens.map((t) => t.logprob), tokens: tokens.map((t) => t.text), top_logprobs: tokens.map(() => null) };
  }

  function usage(r: Request, completion: number): Record<string, unknown> {
    const prompt = tokenize(r.prompt).length + (r.route === 'chat' ? 12 : 0);
    return { prompt_tokens: prompt, total_tokens: prompt + completion, completion_tokens: completion, prompt_tokens_details: null, reasoning_tokens: 0 };
  }

  function nativeFinish(plan: AnswerPlan, n: number): unknown {
    return plan.finishReason === 'length' ? { type: 'length', length: n } : { type: 'stop', matched: plan.matchedStop };
  }

  function nativeMeta(r: Request, completion: number, finish: unknown, tokens: SimToken[] | null, started: number): Record<string, unknown> {
    const meta: Record<string, unknown> = {
      id: r.id,
      finish_reason: finish,
      prompt_tokens: tokenize(r.prompt).length,
      weight_version: 'default',
      completion_tokens: completion,
      cached_tokens: 0,
      e2e_latency: (performance.now() - started) / 1000,
    };
    if (tokens) {
      meta.input_token_logprobs = [];
      meta.output_token_logprobs = tokens.map((t) => [t.logprob, t.id, r.body.return_text_in_logprobs === true ? t.text : null]);
    }
    return meta;
  }

  /** All tokens of a plan in order: reasoning first (wrapped in <think> unless parsed). */
  function sequence(r: Request, plan: AnswerPlan): Iterable<{ token: SimToken; reasoning: boolean }> {
    const parsed = useParser(r);
    function* gen(): Generator<{ token: SimToken; reasoning: boolean }> {
      if (plan.reasoning.length) {
        if (!parsed) yield { token: { text: '<think>\n', id: 151667, logprob: -0.001 }, reasoning: false };
        for (const t of plan.reasoning) yield { token: t, reasoning: parsed };
        if (!parsed) yield { token: { text: '\n</think>\n\n', id: 151668, logprob: -0.001 }, reasoning: false };
      }
      for (const t of plan.content) yield { token: t, reasoning: false };
    }
    return gen();
  }

  // ---------- non-stream ----------
  async function answerWhole(res: ServerResponse, r: Request, plan: AnswerPlan): Promise<void> {
    const started = performance.now();
    const b = r.behaviour;
    let content = '';
    let reasoning = '';
    const tokens: SimToken[] = [];
    let n = 0;
    for (const { token, reasoning: isReasoning } of sequence(r, plan)) {
      if (isReasoning) reasoning += token.text;
      else content += token.text;
      if (r.logprobs) tokens.push(token);
      n++;
    }
    const delay = (b.firstTokenDelayMs ?? 0) + n * (b.tokenDelayMs ?? (b.behaviour === 'slow' ? 200 : 0));
    if (delay > 0) await sleep(delay);
    let body: unknown;
    if (r.route === 'chat') {
      body = {
        id: r.id, object: 'chat.completion', created: r.created, model: r.model,
        choices: [{
          index: 0,
          message: { role: 'assistant', content, reasoning_content: useParser(r) ? reasoning || null : null, tool_calls: null },
          logprobs: r.logprobs ? chatLogprobs(tokens) : null,
          ...chatFinish(plan),
        }],
        usage: usage(r, n),
        metadata: { weight_version: 'default' },
      };
    } else if (r.route === 'completions') {
      body = {
        id: r.id, object: 'text_completion', created: r.created, model: r.model,
        choices: [{ index: 0, text: content, logprobs: r.logprobs ? completionLogprobs(tokens, 0) : null, finish_reason: plan.finishReason, matched_stop: plan.matchedStop }],
        usage: usage(r, n),
        metadata: { weight_version: 'default' },
      };
    } else {
      body = { text: content, meta_info: nativeMeta(r, n, nativeFinish(plan, n), r.logprobs ? tokens : null, started) };
    }
    const text = b.behaviour === 'bad-json' ? 'Internal Server Error (upstream returned no JSON)' : stringifyPyJson(body);
    if (b.behaviour === 'cut') {
      const bytes = Buffer.from(text);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
      res.write(bytes.subarray(0, Math.floor(bytes.length / 2)), () => res.socket?.destroy());
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }

  // ---------- stream ----------
  async function answerStream(res: ServerResponse, r: Request, plan: AnswerPlan): Promise<void> {
    const started = performance.now();
    const b = r.behaviour;
    let closed = false;
    res.on('close', () => { closed = true; });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const write = async (text: string): Promise<void> => {
      if (closed) return;
      if (!res.write(text)) {
        await new Promise<void>((resolve) => {
          const done = (): void => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
    };
    // Non-finite floats only occur in logprobs; skip the slower Python-style writer otherwise.
    const event = r.logprobs ? (obj: unknown): string => `data: ${stringifyPyJson(obj)}\n\n` : (obj: unknown): string => `data: ${JSON.stringify(obj)}\n\n`;
    let sinceYield = 0;
    const tokenDelay = b.tokenDelayMs ?? (b.behaviour === 'slow' ? 200 : 0);
    const perChunk = Math.max(1, b.tokensPerChunk ?? 1);
    const cutAt = b.behaviour === 'cut' ? (b.cutAfterTokens ?? 8) : b.behaviour === 'error-midstream' || b.behaviour === 'bad-json' ? 5 : -1;
    const base = { id: r.id, object: r.route === 'chat' ? 'chat.completion.chunk' : 'text_completion', created: r.created, model: r.model };

    if (b.firstTokenDelayMs) await sleep(b.firstTokenDelayMs);
    if (r.route === 'chat') {
      await write(event({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '', reasoning_content: null, tool_calls: null }, logprobs: null, finish_reason: null, matched_stop: null }], usage: null }));
    }

    let n = 0;
    let cumulative = '';
    const allTokens: SimToken[] = [];
    let pending: { token: SimToken; reasoning: boolean }[] = [];
    let badLineSent = false;

    const chunkFor = (group: { token: SimToken; reasoning: boolean }[]): string => {
      const tokens = group.map((g) => g.token);
      const text = tokens.map((t) => t.text).join('');
      if (r.route === 'chat') {
        const isReasoning = group[0].reasoning;
        return event({
          ...base,
          choices: [{
            index: 0,
            delta: { role: null, content: isReasoning ? null : text, reasoning_content: isReasoning ? text : null, tool_calls: null },
            logprobs: r.logprobs ? chatLogprobs(tokens) : null,
            finish_reason: null,
            matched_stop: null,
          }],
          usage: null,
        });
      }
      if (r.route === 'completions') {
        const offset = cumulative.length;
        cumulative += text;
        return event({ ...base, choices: [{ index: 0, text, logprobs: r.logprobs ? completionLogprobs(tokens, offset) : null, finish_reason: null, matched_stop: null }], usage: null });
      }
      cumulative += text;
      if (r.logprobs) allTokens.push(...tokens);
      return event({ text: cumulative, meta_info: nativeMeta(r, n, null, r.logprobs ? allTokens : null, started), index: 0 });
    };

    const flush = async (): Promise<boolean> => {
      if (!pending.length) return true;
      const group = pending;
      pending = [];
      const text = chunkFor(group);
      if (cutAt >= 0 && n >= cutAt) {
        if (b.behaviour === 'cut') {
          // Half a chunk, then the socket goes away: no terminating chunk, no [DONE].
          const half = text.slice(0, Math.floor(text.length / 2));
          if (!closed) res.write(half, () => res.socket?.destroy());
          return false;
        }
        if (b.behaviour === 'error-midstream') {
          await write(event({ error: { object: 'error', message: 'CUDA error: an illegal memory access was encountered', type: 'InternalServerError', param: null, code: 500 } }));
          await write('data: [DONE]\n\n');
          res.end();
          return false;
        }
        if (b.behaviour === 'bad-json' && !badLineSent) {
          badLineSent = true;
          await write('data: upstream connect error or disconnect/reset before headers. reset reason: overflow\n\n');
        }
      }
      await write(text);
      return true;
    };

    for (const item of sequence(r, plan)) {
      if (closed) return;
      // Reasoning and content never share a chunk.
      if (pending.length && pending[0].reasoning !== item.reasoning && !(await flush())) return;
      pending.push(item);
      n++;
      if (pending.length >= perChunk) {
        if (!(await flush())) return;
        if (tokenDelay > 0) await sleep(tokenDelay * perChunk);
        else if (++sinceYield >= 16) {
          // Like a real server, let the event loop breathe (and notice a client that left).
          sinceYield = 0;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      }
    }
    if (!(await flush())) return;
    if (closed) return;

    if (r.route === 'generate') {
      await write(event({ text: cumulative, meta_info: nativeMeta(r, n, nativeFinish(plan, n), r.logprobs ? allTokens : null, started), index: 0 }));
    } else if (r.route === 'chat') {
      await write(event({ ...base, choices: [{ index: 0, delta: {}, logprobs: null, ...chatFinish(plan) }], usage: null }));
    } else {
      await write(event({ ...base, choices: [{ index: 0, text: '', logprobs: null, finish_reason: plan.finishReason, matched_stop: plan.matchedStop }], usage: null }));
    }
    if (r.includeUsage && r.route !== 'generate') await write(event({ ...base, choices: [], usage: usage(r, n) }));
    if (b.behaviour !== 'no-done') await write('data: [DONE]\n\n');
    res.end();
  }

  // ---------- routing ----------
  async function handleGeneration(req: IncomingMessage, res: ServerResponse, route: Route): Promise<void> {
    let body: unknown;
    try {
      body = JSON.parse(await readBody(req)) as unknown;
    } catch (error) {
      throw error instanceof HttpError ? error : new HttpError(400, 'JSON decode error: the request body is not valid JSON', 'BadRequestError');
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'The request body must be a JSON object', 'BadRequestError');
    const r = parseRequest(route, body as Record<string, unknown>);
    const kind = r.behaviour.behaviour;
    switch (kind) {
      case 'hang':
        return; // keep the socket open forever; close() destroys it
      case 'http-500':
        throw new HttpError(500, 'Internal server error: CUDA error: an illegal memory access was encountered', 'InternalServerError');
      case 'http-503':
        throw new HttpError(503, 'The server is not ready to accept requests: scheduler is restarting', 'ServiceUnavailableError');
      case 'html-error':
        res.writeHead(502, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(HTML_ERROR) });
        res.end(HTML_ERROR);
        return;
      case 'error-midstream':
        if (!r.stream) throw new HttpError(500, 'CUDA error: an illegal memory access was encountered', 'InternalServerError');
        break;
      default:
        break;
    }
    const plan = planAnswer({ behaviour: r.behaviour, prompt: r.prompt, maxTokens: r.maxTokens, seed: scenario.seed });
    if (r.stream) await answerStream(res, r, plan);
    else await answerWhole(res, r, plan);
  }

  function authorised(req: IncomingMessage): boolean {
    if (!apiKey) return true;
    return req.headers.authorization === `Bearer ${apiKey}`;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const method = req.method ?? 'GET';
    const route: Route | 'other' =
      path === '/v1/chat/completions' ? 'chat' : path === '/v1/completions' ? 'completions' : path === '/generate' ? 'generate' : 'other';
    try {
      if (path === '/health' || path === '/health_generate') {
        const status = path === '/health' ? 200 : (scenario.healthGenerateStatus ?? 200);
        res.writeHead(status, { 'content-length': 0 });
        res.end();
        return;
      }
      if (!authorised(req)) {
        if (path.startsWith('/v1/')) sendJson(res, 401, openAiError(401, 'Invalid API key: send Authorization: Bearer <key>', 'AuthenticationError'));
        else sendJson(res, 401, { error: { message: 'Unauthorized' } });
        return;
      }
      if (route !== 'other') {
        if (method !== 'POST' && !(route === 'generate' && method === 'PUT')) throw new HttpError(405, 'Method Not Allowed', 'MethodNotAllowed');
        await handleGeneration(req, res, route);
        return;
      }
      const legacy = !!scenario.legacyRoutes;
      const known = ['/v1/models', '/get_model_info', '/get_server_info', ...(legacy ? [] : ['/model_info', '/server_info'])];
      if (!known.includes(path)) {
        sendJson(res, 404, { detail: 'Not Found' });
        return;
      }
      if (method !== 'GET') throw new HttpError(405, 'Method Not Allowed', 'MethodNotAllowed');
      if (path === '/v1/models') {
        sendJson(res, 200, {
          object: 'list',
          data: modelNames.map((id) => ({ id, object: 'model', created: startedAt, owned_by: 'sglang', root: id, parent: null, max_model_len: 32768 })),
        });
      } else if (path === '/get_model_info' || (path === '/model_info' && !legacy)) {
        sendJson(res, 200, modelInfo(firstModel, legacy));
      } else if (path === '/get_server_info' || (path === '/server_info' && !legacy)) {
        const where = server.address();
        sendJson(res, 200, buildServerInfo(scenario, firstModel, !!apiKey, where && typeof where === 'object' ? { host: where.address, port: where.port } : undefined));
      } else {
        sendJson(res, 404, { detail: 'Not Found' });
      }
    } catch (error) {
      const err = error instanceof HttpError ? error : new HttpError(500, `Internal error in simulator: ${String(error)}`, 'InternalServerError');
      if (res.headersSent) res.destroy();
      else if (err.status === 404 && route === 'other') sendJson(res, 404, { detail: 'Not Found' });
      else if (err.status === 405) sendJson(res, 405, { detail: 'Method Not Allowed' });
      else sendError(res, route, err);
    }
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.keepAliveTimeout = 5000;

  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      }),
  };
}

export { EOS_TOKEN_ID };

/** finish_reason + matched_stop as the OpenAI chat layer reports them (tool-call stops lose the marker). */
function chatFinish(plan: AnswerPlan): { finish_reason: string; matched_stop: string | number | null } {
  if (plan.toolCallStop && plan.finishReason === 'stop') return { finish_reason: 'tool_calls', matched_stop: null };
  return { finish_reason: plan.finishReason, matched_stop: plan.matchedStop };
}
