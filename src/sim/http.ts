/** HTTP plumbing of the simulator: JSON answers, SGLang's two error shapes, bounded request bodies. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { stringifyPyJson } from '../core/pyjson';
import type { SimEngine } from './scenario';

/** Which route family a request hit: the error shape depends on it. */
export type Route = 'chat' | 'completions' | 'generate';

/** A failure answered with `status`: thrown by parsing and handlers, turned into a response by the router. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly type: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = stringifyPyJson(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export function openAiError(status: number, message: string, type: string, param: string | null = null): Record<string, unknown> {
  return { object: 'error', message, type, param, code: status };
}

/** The OpenAI layer's error object, or the native routes' `{"error": {"message"}}`; vLLM nests every error under `error`. */
export function sendError(res: ServerResponse, route: Route | 'other', err: HttpError, engine: SimEngine = 'sglang'): void {
  if (engine === 'vllm') sendJson(res, err.status, { error: { message: err.message, type: err.type, param: err.param, code: err.status } });
  else if (route === 'generate') sendJson(res, err.status, { error: { message: err.message } });
  else sendJson(res, err.status, openAiError(err.status, err.message, err.type, err.param));
}

export async function readBody(req: IncomingMessage, limit = 16 * 1024 * 1024): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new HttpError(413, 'Request body too large', 'BadRequestError');
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}
