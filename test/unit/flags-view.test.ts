/**
 * The Backend Flags view without VS Code: which engine it shows (the user's choice, the selected
 * server's engine, the last launch file's), how its title names the catalog, and the rows of the
 * language server's real catalogEntries answer for vLLM and SGLang: families, the filter, a row's
 * description, and where a flag is defined (never for vLLM's catalogs).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { CatalogStore } from '../../src/lsp/catalogs';
import { catalogEntries } from '../../src/lsp/handlers/customMethods';
import { catalogTitle, viewEngine } from '../../src/flags/flagsEngine';
import { definitionOf, flagRowDescription, groupByFamily, matchesFilter } from '../../src/flags/flagRows';
import { catalogToJson, type FlagEntry } from '../../src/core/flags';
import type { CatalogEntriesResult, CatalogSourceInfo } from '../../src/shared/lspProtocol';

const FIXTURES = join(__dirname, '..', 'fixtures', 'server_args');

function entry(result: CatalogEntriesResult, flag: string): FlagEntry {
  const e = result.entries.find((x) => x.flag === flag);
  assert.ok(e, `${flag} in ${result.source?.label}`);
  return e;
}

describe('Backend Flags view: the engine it shows', () => {
  it("the user's choice wins, then the selected server's engine, then the last launch file's, else SGLang", () => {
    assert.equal(viewEngine({ chosen: 'sglang', server: 'vllm', editor: ['vllm'] }), 'sglang');
    assert.equal(viewEngine({ chosen: 'vllm', server: 'sglang' }), 'vllm');
    assert.equal(viewEngine({ server: 'vllm', editor: ['sglang'] }), 'vllm');
    assert.equal(viewEngine({ server: 'sglang', editor: ['vllm'] }), 'sglang');
    assert.equal(viewEngine({ server: 'unknown', editor: ['vllm'] }), 'vllm', 'a server that does not say is no hint');
    assert.equal(viewEngine({ editor: ['sglang', 'vllm'] }), 'sglang', 'a file starting both engines decides nothing');
    assert.equal(viewEngine({}), 'sglang');
  });

  it('ignores a stored choice that is no engine (workspaceState is not typed)', () => {
    for (const chosen of ['VLLM', 'tgi', 1, null, {}]) assert.equal(viewEngine({ chosen, editor: ['vllm'] }), 'vllm', JSON.stringify(chosen));
  });

  it('names the engine and the catalog in the title', () => {
    const src = (s: Partial<CatalogSourceInfo>): CatalogSourceInfo => ({ kind: 'bundled', label: 'x', era: 'dataclass', flags: 1, errors: [], ...s });
    assert.equal(catalogTitle('vllm', src({ version: '0.11.0', engine: 'vllm' })), 'vLLM · bundled release 0.11.0');
    assert.equal(catalogTitle('vllm', src({ version: 'main', engine: 'vllm' })), 'vLLM · bundled main snapshot');
    assert.equal(
      catalogTitle('vllm', src({ kind: 'runtime', label: 'gpu-box · /opt/venv/bin/python', version: '0.11.0' })),
      'vLLM · installed at gpu-box · /opt/venv/bin/python (0.11.0)',
    );
    assert.equal(catalogTitle('sglang', src({ kind: 'workspace', label: '/w/sglang/srt/server_args.py' })), 'SGLang · workspace file server_args.py');
    assert.equal(catalogTitle('sglang', src({ kind: 'settings', label: 'C:\\sg\\server_args.py' })), 'SGLang · settings file server_args.py');
    assert.equal(catalogTitle('sglang', null), 'SGLang');
  });
});

describe("Backend Flags view: rows of the language server's answer", () => {
  let store: CatalogStore;
  beforeEach(async () => {
    store = new CatalogStore({});
    await Promise.all([store.loadBundled(), store.loadVllmBundled()]);
  });

  it("vLLM: the bundled catalog of the document's release, else the newest snapshot; SGLang's request unchanged", () => {
    const newest = catalogEntries(store, { engine: 'vllm' });
    assert.equal(newest.source?.engine, 'vllm');
    assert.equal(newest.source?.kind, 'bundled');
    assert.equal(newest.source?.version, 'main');
    const pinned = catalogEntries(store, { engine: 'vllm' }, { vllm: '0.11.0' });
    assert.equal(pinned.source?.version, '0.11.0');
    assert.ok(!pinned.entries.some((e) => e.flag === '--attention-backend'), 'added in 0.13.0');
    const sglang = catalogEntries(store, {}, { vllm: '0.11.0' });
    assert.equal(sglang.source?.engine, undefined);
    assert.match(sglang.source?.label ?? '', /SGLang/);
    assert.ok(entry(sglang, '--fp4-gemm-backend'));
  });

  it("vLLM's flags by family, filtered by flag, field or choice, and no place to open", () => {
    const r = catalogEntries(store, { engine: 'vllm' });
    const groups = groupByFamily(r.entries, '');
    const family = (flag: string) => groups.find((g) => g.entries.some((e) => e.flag === flag))?.family;
    assert.equal(family('--attention-backend'), 'attention');
    assert.equal(family('--moe-backend'), 'moe');
    assert.equal(family('--kv-cache-dtype'), 'kv-cache');
    assert.equal(family('--quantization'), 'gemm');
    assert.equal(family('--port'), 'other');
    assert.equal(groups.at(-1)?.family, 'other', 'families in the view order, Other last');
    const kv = groups.find((g) => g.family === 'kv-cache')!.entries.map((e) => e.flag);
    assert.deepEqual(
      kv,
      [...kv].sort((a, b) => a.localeCompare(b)),
    );

    assert.deepEqual(
      groupByFamily(r.entries, 'GPU-MEMORY').map((g) => [g.family, g.entries.map((e) => e.flag)]),
      [['kv-cache', ['--gpu-memory-utilization']]],
    );
    // A choice matches too (fp8_e4m3 is one of --kv-cache-dtype's), and so does the config group.
    assert.ok(matchesFilter(entry(r, '--kv-cache-dtype'), 'FP8_E4M3'));
    assert.ok(!matchesFilter(entry(r, '--port'), 'fp8_e4m3'));
    assert.ok(matchesFilter(entry(r, '--attention-backend'), 'attentionconfig'));
    assert.ok(
      r.entries.every((e) => definitionOf(r, e) === undefined),
      'bundled vLLM entries carry no source location',
    );
  });

  it("an installed vLLM answers vLLM's request, and is never pointed at SGLang's server_args.py", async () => {
    store.setWorkspace(await store.fromFile('workspace', join(FIXTURES, 'dataclass_main.py')));
    const sglang = catalogEntries(store, {});
    const fp4 = entry(sglang, '--fp4-gemm-backend');
    assert.deepEqual(definitionOf(sglang, fp4), { uri: sglang.definitionUri, line: fp4.line });

    const bundled = catalogEntries(store, { engine: 'vllm' }, { vllm: '0.11.0' });
    const installed = {
      ...bundled,
      entries: [...bundled.entries, { ...entry(bundled, '--kv-cache-dtype'), flag: '--attention-backend', field: 'attention_backend' }],
    };
    const catalog = { ...store.vllmBundledFor('0.11.0')!.loaded.index.catalog, entries: installed.entries };
    store.setRuntime({ catalog: catalogToJson(catalog), engine: 'vllm', hostLabel: 'gpu-box · python3', version: '0.11.0' });
    const r = catalogEntries(store, { engine: 'vllm' }, { vllm: '0.9.0' });
    assert.equal(r.source?.kind, 'runtime');
    assert.equal(r.source?.engine, 'vllm');
    assert.equal(catalogTitle('vllm', r.source), 'vLLM · installed at gpu-box · python3 (0.11.0)');
    assert.ok(entry(r, '--attention-backend'));
    assert.equal(r.definitionUri, undefined);
    assert.equal(definitionOf(r, entry(r, '--kv-cache-dtype')), undefined);
    assert.equal(catalogEntries(store, {}).source?.kind, 'workspace', "SGLang's view keeps its own catalog");
  });

  it("a row says the server's value, the default when it differs, deprecation and run-time differences", () => {
    const r = catalogEntries(store, { engine: 'vllm' });
    const kv = entry(r, '--kv-cache-dtype');
    assert.equal(flagRowDescription(kv, undefined, []), 'default auto');
    assert.equal(flagRowDescription(kv, 'fp8', []), '● fp8 · default auto');
    assert.equal(flagRowDescription(kv, 'auto', []), '● auto');
    assert.equal(
      flagRowDescription({ ...kv, deprecated: true }, undefined, [{ kind: 'choices-grew', flag: kv.flag, field: kv.field, added: ['fp4'], message: '' }]),
      'default auto · deprecated · +1 at run time',
    );
  });
});
