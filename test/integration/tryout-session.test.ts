/**
 * "Try the Simulator" below the UI: TryoutSimulator and the ServerStore's session servers against
 * a small fake `vscode` module, with the simulator on real loopback HTTP. Starting twice runs one
 * simulator; stopping closes its port and takes it off the list; a stop asked for while it starts
 * stops what that start brings up; the session server is never saved and cannot be edited or
 * removed through the store. The e2e tier drives the same through code-server's UI.
 */
/* eslint-disable @typescript-eslint/no-explicit-any -- a stand-in for the vscode module: loose types on purpose */
import assert from 'node:assert/strict';
import { installFakeVscode } from '../support/fakeVscode';
import { listening, waitFor } from '../support/wait';
import type { ServerStore as ServerStoreType } from '../../src/servers/serverStore';
import type { TryoutSimulator as TryoutSimulatorType } from '../../src/servers/tryoutSimulator';

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

describe('Try the Simulator: the session simulator and its server entry', function () {
  this.timeout(30_000);
  let ServerStore: typeof ServerStoreType;
  let TryoutSimulator: typeof TryoutSimulatorType;
  const saved = new Map<string, unknown>();
  const refreshed: (string | undefined)[] = [];

  let uninstallFakeVscode: (() => void) | undefined;

  before(async () => {
    uninstallFakeVscode = installFakeVscode(fakeVscode, 'tryout');
    ({ ServerStore } = await import('../../src/servers/serverStore'));
    ({ TryoutSimulator } = await import('../../src/servers/tryoutSimulator'));
  });

  after(() => uninstallFakeVscode?.());

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
    assert.ok(await listening(a.baseUrl));
    await assert.rejects(store.update(a.id, { label: 'x' }), /runs that server itself/);
    await assert.rejects(store.remove(a.id), /runs that server itself/);

    assert.equal(await tryout.stop(), true);
    assert.deepEqual(store.list(), []);
    assert.equal(contextKeys.get('inferenceDoctor.simulatorRunning'), false);
    assert.equal(await listening(a.baseUrl), false, 'its port is closed');
    assert.equal(await tryout.stop(), false, 'a second stop has nothing to stop');
    assert.ok(changes >= 2, 'the view hears of both');
  });

  it('starts again after a stop, under the same entry on a new port; a start during the stop keeps its Stop', async () => {
    const { store, tryout } = setUp();
    const first = await tryout.start();
    const stopping = tryout.stop();
    const second = await tryout.start();
    assert.equal(await stopping, true);
    assert.equal(second.id, first.id);
    assert.notEqual(second.baseUrl, first.baseUrl);
    assert.deepEqual(
      store.list().map((s) => s.baseUrl),
      [second.baseUrl],
    );
    assert.equal(contextKeys.get('inferenceDoctor.simulatorRunning'), true, 'the running one can still be stopped');
    assert.ok(await listening(second.baseUrl));
    await tryout.stop();
  });

  it('closing the window (dispose) closes its port', async () => {
    const { tryout } = setUp();
    const server = await tryout.start();
    tryout.dispose();
    await waitFor('the port to close', async () => !(await listening(server.baseUrl)), 5_000);
  });

  it('a stop asked for while it starts stops the simulator that start brings up', async () => {
    const { store, tryout } = setUp();
    const starting = tryout.start();
    const stopped = tryout.stop();
    const server = await starting;
    assert.equal(await stopped, true);
    assert.deepEqual(store.list(), []);
    assert.equal(await listening(server.baseUrl), false);
  });
});
