/**
 * The language server's runtime catalogs by engine: an installed vLLM's catalog goes to its own
 * slot (SGLang's stays), reads options as vLLM spells them, and its version is the release vLLM
 * commands are judged against unless a server or nothing better says otherwise.
 */
import { strict as assert } from 'node:assert';
import { catalogToJson, type FlagCatalog, type FlagEntry } from '../../src/core/flags';
import { CatalogStore } from '../../src/lsp/catalogs';
import { openDoc } from '../../src/lsp/documents';
import { ReleaseFinder } from '../../src/lsp/releases';

const entry = (flag: string, field: string): FlagEntry => ({
  flag,
  aliases: [],
  negations: [],
  field,
  source: 'add_argument',
  line: 0,
  range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
});
const catalog = (...entries: FlagEntry[]): FlagCatalog => ({ entries, choiceLists: [], era: 'inline', diagnostics: [] });
const vllmJson = catalogToJson(catalog(entry('--max-model-len', 'max_model_len'), entry('--compilation-config', 'compilation_config')));
const sglangJson = catalogToJson(catalog(entry('--model-path', 'model_path')));

describe('runtime catalogs by engine in the language server', () => {
  it("keeps an installed vLLM's catalog apart from SGLang's, spelled as vLLM reads options", () => {
    const store = new CatalogStore({});
    store.setRuntime({ catalog: sglangJson, hostLabel: 'box', version: '0.5.2' });
    const before = store.generation;
    assert.deepEqual(
      store.setRuntime({ catalog: vllmJson, engine: 'vllm', hostLabel: 'box · /venv/bin/python', version: '0.11.0', computeCapability: 12 }),
      [],
    );
    assert.ok(store.generation > before);
    const v = store.vllmRuntime!.index;
    assert.equal(v.meta.kind, 'runtime');
    assert.equal(v.meta.engine, 'vllm');
    assert.equal(v.resolve('--max_model_len')?.entry.flag, '--max-model-len', 'underscores, as vLLM accepts them');
    assert.equal(v.resolve('--compilation-config.cudagraph_mode')?.entry.flag, '--compilation-config', 'a dotted key of a JSON config flag');
    assert.equal(store.runtime?.index.meta.version, '0.5.2', "SGLang's runtime catalog stays");
    assert.equal(store.runtime?.index.resolve('--model_path'), undefined, 'SGLang takes no underscore spellings');
    assert.equal(store.active(), store.runtime?.index, "the SGLang checks' catalog is SGLang's");
    assert.equal(store.ruleComputeCapability(), 12, "the host's GPU, whichever engine was loaded");

    // Damaged JSON keeps what was there; null clears one engine only.
    assert.match(store.setRuntime({ catalog: { version: 99 } as never, engine: 'vllm' }).join(), /unsupported JSON/);
    assert.equal(store.vllmRuntime?.index, v);
    store.setRuntime({ catalog: null });
    assert.equal(store.runtime, undefined);
    assert.equal(store.vllmRuntime?.index, v);
    store.setRuntime({ catalog: null, engine: 'vllm' });
    assert.equal(store.vllmRuntime, undefined);
  });

  it("takes the installed vLLM's version as the host's release, over an image tag in the file", async () => {
    const store = new CatalogStore({});
    await store.loadVllmBundled();
    const releases = new ReleaseFinder(
      store,
      () => [],
      () => undefined,
    );
    const doc = openDoc('untitled:compose.yaml', 'yaml', 1, 'services:\n  vllm:\n    image: vllm/vllm-openai:v0.13.0\n    command: --model m\n');
    assert.equal(releases.chooseVllm(doc)?.chosen.version, '0.13.0');
    store.setRuntime({ catalog: vllmJson, engine: 'vllm', hostLabel: 'gpu-box · python3', version: '0.11.0' });
    const choice = releases.chooseVllm(doc)!;
    assert.equal(choice.chosen.version, '0.11.0');
    assert.equal(choice.chosen.source, 'host');
    assert.match(choice.chosen.detail, /vllm 0\.11\.0 installed on gpu-box · python3/);
    assert.equal(releases.vllmContext(choice)?.release.version, '0.11.0');
    // A runtime catalog that did not say its version leaves the file's own release.
    store.setRuntime({ catalog: vllmJson, engine: 'vllm', hostLabel: 'gpu-box' });
    assert.equal(releases.chooseVllm(doc)?.chosen.version, '0.13.0');
  });
});
