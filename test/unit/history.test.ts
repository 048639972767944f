import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HistoryStore } from '../../src/core/history';
import type { HistoryEntry } from '../../src/shared/webviewProtocol';
import type { ProbeResult } from '../../src/core/probe/types';

function result(content: string, overrides: Partial<ProbeResult> = {}): ProbeResult {
  return {
    status: 'completed',
    content,
    reasoning: '',
    contentDroppedChars: 0,
    totalChars: content.length,
    finishReason: 'stop',
    matchedStop: null,
    verdict: { kind: 'ok', reasons: [], onset: null },
    ttftMs: 12,
    durationMs: 100,
    completionTokens: 5,
    tokensPerSecond: 50,
    chunkCount: 5,
    ...overrides,
  };
}

function entry(startedAt: number, prompt = `prompt ${startedAt}`, content = 'answer'): Omit<HistoryEntry, 'id'> {
  return {
    serverId: 's1',
    serverLabel: 'local',
    baseUrl: 'http://127.0.0.1:30000',
    params: { endpoint: 'chat', prompt, stream: true },
    result: result(content),
    startedAt,
  };
}

describe('HistoryStore', () => {
  let root: string;
  beforeEach(async () => {
    root = await fs.mkdtemp(join(tmpdir(), 'history-test-'));
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it('adds, lists newest first, gets and deletes', async () => {
    const store = new HistoryStore(root);
    const a = await store.add(entry(1_700_000_000_000, 'first'));
    const b = await store.add(entry(1_700_000_001_000, 'second'));
    const list = await store.list();
    assert.deepEqual(
      list.map((s) => s.id),
      [b.id, a.id],
    );
    assert.equal(list[0].prompt, 'second');
    assert.equal(list[0].verdict, 'ok');
    assert.equal(list[0].status, 'completed');
    const got = await store.get(a.id);
    assert.equal(got?.params.prompt, 'first');
    assert.equal(got?.result.content, 'answer');
    assert.equal(await store.delete(a.id), true);
    assert.equal(await store.delete(a.id), false);
    assert.equal(await store.get(a.id), undefined);
    assert.deepEqual(
      (await store.list()).map((s) => s.id),
      [b.id],
    );
  });

  it('survives a new instance over the same directory', async () => {
    const a = await new HistoryStore(root).add(entry(1_700_000_000_000));
    const again = new HistoryStore(root);
    assert.deepEqual(
      (await again.list()).map((s) => s.id),
      [a.id],
    );
    assert.equal((await again.get(a.id))?.result.content, 'answer');
  });

  it('keeps only the newest maxEntries', async () => {
    const store = new HistoryStore(root, { maxEntries: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await store.add(entry(1_700_000_000_000 + i))).id);
    const list = await store.list();
    assert.deepEqual(
      list.map((s) => s.id),
      ids.slice(3).reverse(),
    );
    const files = (await fs.readdir(join(root, 'probe-history'))).filter((f) => f.endsWith('.json'));
    assert.equal(files.length, 3);
  });

  it('bounds content (keeping the tail) and prompts', async () => {
    const store = new HistoryStore(root, { maxContentChars: 10, maxPromptChars: 5 });
    const stored = await store.add({ ...entry(1_700_000_000_000, 'abcdefghij', '0123456789ABCDEFGHIJ') });
    assert.equal(stored.result.content, 'ABCDEFGHIJ');
    assert.equal(stored.result.contentDroppedChars, 10);
    assert.equal(stored.params.prompt, 'abcde');
    const read = await store.get(stored.id);
    assert.equal(read?.result.content, 'ABCDEFGHIJ');
  });

  it('reports and skips a corrupt or half-written file without losing other entries', async () => {
    const reported: string[] = [];
    const store = new HistoryStore(root, { onCorrupt: (file) => reported.push(file) });
    const good = await store.add(entry(1_700_000_000_000));
    const dir = join(root, 'probe-history');
    const full = JSON.stringify({ ...entry(1_700_000_005_000), id: 'halfwritten' });
    await fs.writeFile(join(dir, '1700000005000-halfwritten.json'), full.slice(0, full.length / 2));
    await fs.writeFile(join(dir, '1700000006000-garbage.json'), '\u0000\u0000not json');
    await fs.writeFile(join(dir, '1700000007000-wrongshape.json'), JSON.stringify({ id: 'wrongshape' }));
    const list = await store.list();
    assert.deepEqual(
      list.map((s) => s.id),
      [good.id],
    );
    assert.equal(reported.length, 3);
    // Reported once, not on every list().
    await store.list();
    assert.equal(reported.length, 3);
    assert.equal(await store.get('halfwritten'), undefined);
    // Still writable, and the good entry survives.
    const next = await store.add(entry(1_700_000_010_000));
    assert.deepEqual(
      (await store.list()).map((s) => s.id),
      [next.id, good.id],
    );
  });

  it('handles concurrent adds, also from two instances, without losing entries', async () => {
    const one = new HistoryStore(root);
    const two = new HistoryStore(root);
    const adds = Array.from({ length: 40 }, (_, i) => (i % 2 ? one : two).add(entry(1_700_000_000_000 + (i % 7), `p${i}`)));
    const stored = await Promise.all(adds);
    const list = await new HistoryStore(root).list();
    assert.equal(list.length, 40);
    assert.deepEqual(new Set(list.map((s) => s.id)), new Set(stored.map((e) => e.id)));
    const leftovers = (await fs.readdir(join(root, 'probe-history'))).filter((f) => f.startsWith('.tmp-'));
    assert.deepEqual(leftovers, []);
  });

  it('concurrent adds past the bound keep exactly the newest', async () => {
    const store = new HistoryStore(root, { maxEntries: 5 });
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.add(entry(1_700_000_000_000 + i, `p${i}`))));
    const list = await store.list();
    assert.deepEqual(
      list.map((s) => s.prompt),
      ['p19', 'p18', 'p17', 'p16', 'p15'],
    );
  });

  it('rejects ids that could escape the directory', async () => {
    const store = new HistoryStore(root);
    await store.add(entry(1_700_000_000_000));
    assert.equal(await store.get('../../etc/passwd'), undefined);
    assert.equal(await store.delete('../x'), false);
    const stored = await store.add({ ...entry(1_700_000_000_001), id: '../evil' });
    assert.match(stored.id, /^[A-Za-z0-9_-]+$/);
  });
});
