/**
 * "Try the Simulator" below the UI: TryoutSimulator and the ServerStore's session servers against
 * a small fake `vscode` module, with the simulator on real loopback HTTP. Starting twice runs one
 * simulator; stopping closes its port and takes it off the list; a stop asked for while it starts
 * stops what that start brings up; the session server is never saved and cannot be edited or
 * removed through the store. The e2e tier drives the same through code-server's UI.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- a stand-in for the vscode module: loose types on purpose */
import assert from 'node:assert/strict';
import Module from 'node:module';
import { join, resolve } from 'node:path';
import type { ServerStore as ServerStoreType } from '../../src/servers/serverStore';
import type { TryoutSimulator as TryoutSimulatorType } from '../../src/servers/tryoutSimulator';

const ROOT = resolve(__dirname, '..', '..');

class EventEmitter<T> {
  private listeners: ((e: T) => void)[] = [];
  event = (l: (e: T) => void) => {
    this.listeners.push(l);
    return { dispose: () => (this.listeners = this.listeners.filter((x) => x !== l)) };
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners = [];
  }
}

/** What the code under test sets with setContext. */
const contextKeys = new Map<string, unknown>();
const fakeVscode = {
  EventEmitter,
  commands: {
    executeCommand: (id: string, key: string, value: unknown) => {
      if (id === 'setContext') contextKeys.set(key, value);
      return Promise.resolve();
    },
  },
};

const M = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
const original = M._resolveFilename;
let cachedBefore = new Set<string>();

/** Whether anything answers HTTP at `url`. */
async function answers(url: string): Promise<boolean> {
  try {
    await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) });
    return true;
  } catch {
    return false;
  }
}

describe('Try the Simulator: the session simulator and its server entry', function () {
  this.timeout(30_000);
  let ServerStore: typeof ServerStoreType;
  let TryoutSimulator: typeof TryoutSimulatorType;
  const saved = new Map<string, unknown>();
  const refreshed: (string | undefined)[] = [];

  before(async () => {
    cachedBefore = new Set(Object.keys(require.cache));
    const fake = join(ROOT, 'test', 'integration', '__fake_vscode_tryout__.js');
    M._resolveFilename = function (request: string, ...rest: unknown[]) {
      return request === 'vscode' ? fake : original.call(this, request, ...rest);
    };
    require.cache[fake] = { id: fake, filename: fake, loaded: true, exports: fakeVscode } as unknown as NodeJS.Module;
    ({ ServerStore } = await import('../../src/servers/serverStore'));
    ({ TryoutSimulator } = await import('../../src/servers/tryoutSimulator'));
  });

  after(() => {
    // Later test files load the project's modules afresh, with the real resolution.
    M._resolveFilename = original;
    for (const key of Object.keys(require.cache)) if (!cachedBefore.has(key)) delete require.cache[key];
  });

  function setUp(): { store: ServerStoreType; tryout: TryoutSimulatorType } {
    const memento = { get: (k: string) => saved.get(k), update: (k: string, v: unknown) => (saved.set(k, v), Promise.resolve()) };
    const secrets = { get: () => Promise.resolve(undefined), store: () => Promise.resolve(), delete: () => Promise.resolve() };
    const config = { get: () => [], onDidChange: () => ({ dispose: () => undefined }) };
    const store = new ServerStore(memento as any, secrets as any, config as any);
    const health = { refresh: (id?: string) => (refreshed.push(id), Promise.resolve()) };
    return { store, tryout: new TryoutSimulator(store, health as any) };
  }

  it('lists one simulator however often it is started, never saves it, and stops it for good', async () => {
    const { store, tryout } = setUp();
    let changes = 0;
    store.onDidChange(() => changes++);
    const [a, b] = await Promise.all([tryout.start(), tryout.start()]);
    assert.equal(a, b, 'two clicks while it starts give the same server');
    assert.equal((await tryout.start()).baseUrl, a.baseUrl);
    assert.match(a.baseUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.deepEqual(
      store.list().map((s) => s.id),
      [a.id],
    );
    assert.ok(store.isSession(a.id));
    assert.equal(saved.size, 0, 'nothing written to global state');
    assert.equal(contextKeys.get('inferenceDoctor.simulatorRunning'), true);
    assert.deepEqual(refreshed, [a.id], 'its health is checked at once');
    assert.ok(await answers(a.baseUrl));
    await assert.rejects(store.update(a.id, { label: 'x' }), /runs that server itself/);
    await assert.rejects(store.remove(a.id), /runs that server itself/);

    assert.equal(await tryout.stop(), true);
    assert.deepEqual(store.list(), []);
    assert.equal(contextKeys.get('inferenceDoctor.simulatorRunning'), false);
    assert.equal(await answers(a.baseUrl), false, 'its port is closed');
    assert.equal(await tryout.stop(), false, 'a second stop has nothing to stop');
    assert.ok(changes >= 2, 'the view hears of both');
  });

  it('a stop asked for while it starts stops the simulator that start brings up', async () => {
    const { store, tryout } = setUp();
    const starting = tryout.start();
    const stopped = tryout.stop();
    const server = await starting;
    assert.equal(await stopped, true);
    assert.deepEqual(store.list(), []);
    assert.equal(await answers(server.baseUrl), false);
  });
});
