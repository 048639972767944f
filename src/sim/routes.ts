/**
 * Request routing: health (no key needed), the API key check, the generation routes and the
 * information routes, each a small handler; errors become SGLang's error shapes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorMessage } from '../core/errors';
import { planAnswer } from './answers';
import { withDrift } from './drift';
import { HttpError, openAiError, readBody, sendError, sendJson, type Route } from './http';
import { parseRequest } from './request';
import { buildServerInfo, modelInfo } from './serverInfo';
import type { SimState } from './state';
import { answerStream } from './stream';
import { countsNans, isNanAnswer, vllmInfoRoutes, vllmPlan } from './vllm';
import { answerWhole } from './whole';

const HTML_ERROR = `<html>
<head><title>502 Bad Gateway</title></head>
<body>
<center><h1>502 Bad Gateway</h1></center>
<hr><center>nginx/1.24.0</center>
</body>
</html>
`;

const GENERATION_ROUTES = new Map<string, Route>([
  ['/v1/chat/completions', 'chat'],
  ['/v1/completions', 'completions'],
  ['/generate', 'generate'],
]);

async function readJsonObject(req: IncomingMessage): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    body = JSON.parse(await readBody(req)) as unknown;
  } catch (error) {
    throw error instanceof HttpError ? error : new HttpError(400, 'JSON decode error: the request body is not valid JSON', 'BadRequestError');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'The request body must be a JSON object', 'BadRequestError');
  return body as Record<string, unknown>;
}

async function handleGeneration(sim: SimState, req: IncomingMessage, res: ServerResponse, route: Route): Promise<void> {
  const r = parseRequest(sim, route, await readJsonObject(req));
  switch (r.behaviour.behaviour) {
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
  const seed = sim.scenario.seed;
  const planned = withDrift(planAnswer({ behaviour: r.behaviour, prompt: r.prompt, maxTokens: r.maxTokens, seed }), r.behaviour, r.prompt, seed, r.maxTokens);
  const vllm = sim.scenario.engine === 'vllm';
  const plan = vllm ? vllmPlan(sim, r.body, planned) : planned;
  sim.running++;
  try {
    if (r.stream) await answerStream(sim, res, r, plan);
    else await answerWhole(sim, res, r, plan);
  } finally {
    sim.running--;
  }
  if (!vllm) return;
  const reason = res.writableFinished ? plan.finishReason : 'abort';
  sim.finished.set(reason, (sim.finished.get(reason) ?? 0) + 1);
  if (isNanAnswer(r.behaviour) && countsNans(sim)) sim.corruptedRequests++;
}

/** GET routes that describe the server; SGLang renamed the get_* ones (legacyRoutes: only the old names). */
function infoRoutes(sim: SimState): Map<string, (res: ServerResponse) => void> {
  const models = (res: ServerResponse): void =>
    sendJson(res, 200, {
      object: 'list',
      data: sim.modelNames.map((id) => ({ id, object: 'model', created: sim.startedAt, owned_by: 'sglang', root: id, parent: null, max_model_len: 32768 })),
    });
  const legacy = !!sim.scenario.legacyRoutes;
  const model = (res: ServerResponse): void => sendJson(res, 200, modelInfo(sim.firstModel, legacy));
  const server = (res: ServerResponse): void => sendJson(res, 200, buildServerInfo(sim.scenario, sim.firstModel, !!sim.apiKey, sim.address()));
  if (sim.scenario.engine === 'vllm') return vllmInfoRoutes(sim);
  return new Map([
    ['/v1/models', models],
    ['/get_model_info', model],
    ['/get_server_info', server],
    ...(legacy
      ? []
      : ([
          ['/model_info', model],
          ['/server_info', server],
        ] as const)),
  ]);
}

function sendHealth(sim: SimState, res: ServerResponse, path: string): void {
  if (sim.scenario.engine === 'vllm' && path !== '/health') return sendJson(res, 404, { detail: 'Not Found' });
  const status = path === '/health' ? 200 : (sim.scenario.healthGenerateStatus ?? 200);
  res.writeHead(status, { 'content-length': 0 });
  res.end();
}

function sendUnauthorised(sim: SimState, res: ServerResponse, path: string): void {
  if (sim.scenario.engine === 'vllm') sendJson(res, 401, { error: 'Unauthorized' });
  else if (path.startsWith('/v1/')) sendJson(res, 401, openAiError(401, 'Invalid API key: send Authorization: Bearer <key>', 'AuthenticationError'));
  else sendJson(res, 401, { error: { message: 'Unauthorized' } });
}

/** The error as the route family answers it; FastAPI's own `{"detail"}` for 404 and 405. */
function sendFailure(sim: SimState, res: ServerResponse, route: Route | 'other', error: unknown): void {
  const err = error instanceof HttpError ? error : new HttpError(500, `Internal error in simulator: ${errorMessage(error)}`, 'InternalServerError');
  if (res.headersSent) res.destroy();
  else if (err.status === 404 && route === 'other') sendJson(res, 404, { detail: 'Not Found' });
  else if (err.status === 405) sendJson(res, 405, { detail: 'Method Not Allowed' });
  else sendError(res, route, err, sim.scenario.engine);
}

/** The simulator's request listener. */
export function createRouter(sim: SimState): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const info = infoRoutes(sim);
  return async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const method = req.method ?? 'GET';
    const generation = GENERATION_ROUTES.get(path);
    // vLLM's OpenAI server has no native /generate.
    const route: Route | 'other' = generation === 'generate' && sim.scenario.engine === 'vllm' ? 'other' : (generation ?? 'other');
    try {
      if (path === '/health' || path === '/health_generate') return sendHealth(sim, res, path);
      if (!sim.authorised(req.headers.authorization)) return sendUnauthorised(sim, res, path);
      if (route !== 'other') {
        if (method !== 'POST' && !(route === 'generate' && method === 'PUT')) throw new HttpError(405, 'Method Not Allowed', 'MethodNotAllowed');
        return await handleGeneration(sim, req, res, route);
      }
      const handler = info.get(path);
      if (!handler) return sendJson(res, 404, { detail: 'Not Found' });
      if (method !== 'GET') throw new HttpError(405, 'Method Not Allowed', 'MethodNotAllowed');
      handler(res);
    } catch (error) {
      sendFailure(sim, res, route, error);
    }
  };
}
