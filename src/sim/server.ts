/**
 * An SGLang look-alike over HTTP for tests, demos and benchmarks. It reproduces the response
 * shapes of SGLang's OpenAI-compatible and native routes and the ways a broken GPU server answers;
 * it never judges the answers (no detector here). Importing this module has no side effects.
 *
 * Routing and handlers: routes.ts; request parsing: request.ts; bodies: whole.ts, stream.ts, shapes.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createRouter } from './routes';
import type { Scenario, SimEngine } from './scenario';
import { SimState } from './state';

export interface SimulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  scenario: Scenario | string;
  /** Overrides the scenario's apiKey. */
  apiKey?: string;
  /** Overrides the scenario's engine (`sim --engine vllm`). */
  engine?: SimEngine;
  /**
   * Sees every request first and calls `next` to route it, or answers it itself (launch mode: 503
   * while starting, the access log).
   */
  gate?: (req: IncomingMessage, res: ServerResponse, next: () => Promise<void>) => Promise<void>;
}

export interface RunningSimulator {
  url: string;
  port: number;
  /** Which server it plays (the scenario's engine, or the override). */
  engine: SimEngine;
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export async function startSimulator(options: SimulatorOptions): Promise<RunningSimulator> {
  const sim = new SimState(options.scenario, options.apiKey, options.engine);
  const route = createRouter(sim);
  const gate = options.gate;
  const handle = gate ? (req: IncomingMessage, res: ServerResponse) => gate(req, res, () => route(req, res)) : route;
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  sim.address = () => {
    const where = server.address();
    return where && typeof where === 'object' ? { host: where.address, port: where.port } : undefined;
  };
  // close() ends kept-alive and hung connections too.
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.keepAliveTimeout = 5000;

  const host = options.host ?? '127.0.0.1';
  await listen(server, options.port ?? 0, host);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    engine: sim.scenario.engine,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const s of sockets) s.destroy();
      }),
  };
}
