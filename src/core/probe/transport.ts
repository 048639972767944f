/**
 * A small POST over node:http/https with a fetch-like surface (status, headers.get, a body
 * reader). The probe runner uses it instead of fetch: Node's own streams cost far less CPU per
 * chunk than WHATWG streams, which matters when 64 token streams run at once.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface BodyReader {
  read(): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }>;
  cancel(): Promise<void>;
  /**
   * The caller has all it needs and the server is about to end the body (a stream after
   * `data: [DONE]`): read the rest in the background so the kept-alive connection goes back to the
   * pool instead of being closed, but destroy it after RELEASE_MS or RELEASE_BYTES more.
   */
  release?(): void;
}

/** How long, and how much, a released body may still take before its connection is dropped. */
const RELEASE_MS = 2000;
const RELEASE_BYTES = 64 * 1024;

export interface LightResponse {
  status: number;
  statusText: string;
  ok: boolean;
  headers: { get(name: string): string | null };
  body: { getReader(): BodyReader } | null;
}

const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 256 });
const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 256 });

function readerOf(res: IncomingMessage): BodyReader {
  const it = res[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  return {
    async read() {
      const r = await it.next();
      return r.done ? { done: true } : { done: false, value: r.value };
    },
    cancel() {
      res.destroy();
      return Promise.resolve();
    },
    release() {
      const timer = setTimeout(() => res.destroy(), RELEASE_MS);
      timer.unref();
      void (async () => {
        let left = RELEASE_BYTES;
        try {
          for (;;) {
            const r = await it.next();
            if (r.done) break;
            left -= r.value.byteLength;
            if (left < 0) {
              res.destroy();
              break;
            }
          }
        } catch {
          // destroyed or reset: nothing to give back
        } finally {
          clearTimeout(timer);
        }
      })();
    },
  };
}

/** Attempts on kept-alive connections the server had already closed, before a fresh one is the answer. */
const STALE_RETRIES = 3;

/**
 * A server closes an idle kept-alive connection after its own timeout (uvicorn and Node: 5 s); a
 * request sent on it at that moment fails at once with a reset, and the server never saw it. Node's
 * documentation gives this test for when resending is safe.
 */
function staleSocket(req: { reusedSocket: boolean }, error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return req.reusedSocket && (code === 'ECONNRESET' || code === 'EPIPE');
}

/** POSTs `body`; resolves once the status line and headers arrive. Rejects like fetch on network errors. */
export function post(url: string, headers: Record<string, string>, body: string, signal: AbortSignal, attempt = 0): Promise<LightResponse> {
  return new Promise((resolve, reject) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    const https = target.protocol === 'https:';
    const payload = Buffer.from(body);
    const req = (https ? httpsRequest : httpRequest)(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(payload.length) },
        agent: https ? httpsAgent : httpAgent,
        signal,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        resolve({
          status,
          statusText: res.statusMessage ?? '',
          ok: status >= 200 && status < 300,
          headers: {
            get(name: string) {
              const v = res.headers[name.toLowerCase()];
              return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
            },
          },
          body: { getReader: () => readerOf(res) },
        });
      },
    );
    req.on('error', (error) => {
      if (attempt < STALE_RETRIES && !signal.aborted && staleSocket(req, error)) post(url, headers, body, signal, attempt + 1).then(resolve, reject);
      else reject(error);
    });
    req.end(payload);
  });
}
