/** The probe transport resends a request that met a kept-alive connection the server had just closed. */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { post } from '../../src/core/probe/transport';

async function readAll(res: Awaited<ReturnType<typeof post>>): Promise<string> {
  const reader = res.body!.getReader();
  let text = '';
  for (;;) {
    const r = await reader.read();
    if (r.done) return text;
    text += Buffer.from(r.value).toString();
  }
}

describe('probe transport: stale kept-alive connections', () => {
  let server: Server;
  let url = '';
  const sockets = new Set<Socket>();
  let served = 0;

  before(async () => {
    // The second request on any connection finds it closed, as when the server's idle timeout wins the race.
    server = createServer((req, res) => {
      const socket = req.socket as Socket & { requests?: number };
      socket.requests = (socket.requests ?? 0) + 1;
      if (socket.requests > 1) {
        socket.destroy();
        return;
      }
      served++;
      req.resume();
      req.on('end', () => res.end(`answer ${served}`));
    });
    server.on('connection', (s) => sockets.add(s));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`;
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends again on a new connection, so the caller sees the answer, not a reset', async () => {
    const signal = new AbortController().signal;
    assert.equal(await readAll(await post(url, {}, '{}', signal)), 'answer 1');
    await new Promise((resolve) => setImmediate(resolve)); // the socket goes back to the pool
    assert.equal(await readAll(await post(url, {}, '{}', signal)), 'answer 2');
    assert.ok(sockets.size >= 2, 'the second answer came over a fresh connection');
  });
});
