/**
 * Shared HTTP plumbing for the probe runner and the server API: turning fetch failures and
 * error responses into ProbeErrors whose message says what happened and what to do.
 */
import { tryParsePyJson } from '../pyjson';
import type { ProbeError, ServerTarget } from './types';

/** Joins a base URL (no trailing slash expected, tolerated) and a route path. */
export function joinUrl(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, '')}${path}`;
}

export function authHeaders(target: ServerTarget): Record<string, string> {
  return target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {};
}

const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_SIGNATURE_FAILURE',
  'CERT_REVOKED',
  'EPROTO',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_TLS_HANDSHAKE_TIMEOUT',
]);

interface ErrorWithCause {
  message?: string;
  code?: string;
  cause?: unknown;
  name?: string;
}

/** Walks err.cause links and returns the first Node error code found. */
export function errorCode(error: unknown): string | undefined {
  let e = error as ErrorWithCause | undefined;
  for (let depth = 0; e && depth < 5; depth++) {
    if (typeof e.code === 'string') return e.code;
    e = e.cause as ErrorWithCause | undefined;
  }
  return undefined;
}

function innermostMessage(error: unknown): string {
  let e = error as ErrorWithCause | undefined;
  let message = e?.message ?? String(error);
  for (let depth = 0; e && depth < 5; depth++) {
    if (e.message) message = e.message;
    e = e.cause as ErrorWithCause | undefined;
  }
  return message;
}

/** A fetch() rejection that happened before any response: unreachable or TLS. */
export function connectionError(error: unknown, url: string): ProbeError {
  const code = errorCode(error);
  const detail = innermostMessage(error);
  let origin = url;
  try {
    origin = new URL(url).origin;
  } catch {
    // keep the raw text
  }
  if ((code && (TLS_CODES.has(code) || code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL'))) || /certificate|ssl|tls/i.test(detail)) {
    return {
      kind: 'tls',
      message: `TLS problem talking to ${origin} (${code ?? detail}). Check the server's certificate, or use http:// if the server does not speak HTTPS.`,
    };
  }
  const hint =
    code === 'ECONNREFUSED'
      ? 'connection refused: is the server running, and is the port right?'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'the host name does not resolve: check the URL.'
        : code === 'ECONNRESET' || code === 'UND_ERR_SOCKET'
          ? 'the connection was closed before the server answered: check that the URL points at the inference server and not at another service.'
          : code === 'EHOSTUNREACH' || code === 'ENETUNREACH'
            ? 'no route to the host: check the network or the SSH tunnel.'
            : `${detail}.`;
  return { kind: 'unreachable', message: `Cannot reach ${origin}: ${hint}${code ? ` (${code})` : ''}` };
}

/** Visible text of an HTML page, collapsed to one line. */
export function htmlToText(html: string): string {
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The human message inside an error body: OpenAI flat, native nested, FastAPI detail, or text. */
export function errorBodyMessage(body: string, contentType = ''): string {
  const trimmed = body.trim();
  if (!trimmed) return '';
  const parsed = tryParsePyJson(trimmed);
  if (parsed.ok && parsed.value && typeof parsed.value === 'object') {
    const v = parsed.value as Record<string, unknown>;
    if (typeof v.message === 'string') return v.message;
    if (v.error && typeof v.error === 'object') {
      const inner = v.error as Record<string, unknown>;
      if (typeof inner.message === 'string') return inner.message;
    }
    if (typeof v.error === 'string') return v.error;
    if (typeof v.detail === 'string') return v.detail;
    if (Array.isArray(v.detail)) {
      return v.detail.map((d: unknown) => (d && typeof d === 'object' && 'msg' in d ? String(d.msg) : JSON.stringify(d))).join('; ');
    }
    return trimmed.slice(0, 300);
  }
  if (/html/i.test(contentType) || /^<(!doctype|html|head|body)/i.test(trimmed)) {
    const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(trimmed);
    return title ? `HTML page "${htmlToText(title[1])}"` : `HTML page: ${htmlToText(trimmed).slice(0, 200)}`;
  }
  return trimmed.slice(0, 300);
}

/** Snippet of a body for ProbeError.bodySnippet: HTML reduced to its text. */
export function bodySnippet(body: string, contentType = ''): string {
  const trimmed = body.trim();
  if (/html/i.test(contentType) || /^<(!doctype|html|head|body)/i.test(trimmed)) return htmlToText(trimmed).slice(0, 500);
  return trimmed.slice(0, 500);
}

/** A non-2xx response as a ProbeError with advice. */
export function httpError(status: number, statusText: string, body: string, contentType: string, hasApiKey: boolean): ProbeError {
  const message = errorBodyMessage(body, contentType);
  const snippet = bodySnippet(body, contentType);
  const said = message ? `: ${message}` : '';
  if (status === 401 || status === 403) {
    const advice = hasApiKey
      ? 'The server rejected the API key: check that it matches the --api-key the server was launched with.'
      : 'The server needs an API key: set the API key for this server (the value of the --api-key it was launched with).';
    return { kind: 'auth', status, message: `${status} ${statusText || 'Unauthorized'}${said}. ${advice}`, bodySnippet: snippet };
  }
  const hint =
    status === 404
      ? ' Check the base URL and that the server offers this endpoint.'
      : status === 400 || status === 422
        ? ' The server refused the request parameters.'
        : status === 502 || status === 504
          ? ' A proxy in front of the server could not reach it: is the inference server up?'
          : status === 503
            ? ' The server is not ready or is overloaded: wait for it to finish loading, or check its logs.'
            : status >= 500
              ? ' The server failed while answering: check its logs (look for CUDA errors).'
              : '';
  return { kind: 'http', status, message: `The server answered ${status}${statusText ? ` ${statusText}` : ''}${said}.${hint}`, bodySnippet: snippet };
}

/** Reads at most `limit` bytes of a body as text (the rest is discarded). */
export async function readTextLimited(
  response: { body: { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> } } | null },
  limit = 64 * 1024,
): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || !value) break;
      size += value.byteLength;
      text += decoder.decode(value, { stream: true });
      if (size >= limit) {
        await reader.cancel().catch(() => undefined);
        break;
      }
    }
  } catch {
    // keep what arrived
  }
  return text + decoder.decode();
}
