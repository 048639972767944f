/**
 * The bundled vLLM catalog (data/vllm-catalog.json): flags added and removed across releases, `-O`
 * by release, environment variables deprecated in favour of a flag and then ignored, release
 * matching (a version newer than the bundled releases reads the main snapshot), and the vLLM
 * release detection of launch files.
 */
import { strict as assert } from 'node:assert';
import { loadBundledCatalog, VLLM_BUNDLED_FILE } from '../../src/core/flags/bundled/load';
import { mergeReleaseCatalogs } from '../../src/core/flags/bundled/merge';
import { flagHistoryText, type BundledCatalog } from '../../src/core/flags/bundled/query';
import { familyOf, type FlagCatalog, type FlagEntry } from '../../src/core/flags';
import { envVarStatus, mergeEnvVars } from '../../src/core/flags/vllm/bundled';
import { vllmReleasesInText } from '../../src/core/release/vllm';
import { CatalogStore } from '../../src/lsp/catalogs';
import { analyzeText } from '../../src/lsp/analysis';
import { Checker } from '../../src/cli/check/engine';
import { join } from 'node:path';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';

const idx = (b: BundledCatalog, v: string): number => {
  const m = b.match(v);
  assert.ok(m?.exact, `${v} is bundled`);
  return m.index;
};
const entryIn = (b: BundledCatalog, v: string, option: string): FlagEntry | undefined =>
  b.catalogFor(idx(b, v)).entries.find((e) => e.flag === option || e.aliases.includes(option));

describe('bundled vLLM catalog', () => {
  let b: BundledCatalog;
  before(async () => {
    b = await loadBundledCatalog(undefined, VLLM_BUNDLED_FILE);
  });

  it('holds releases 0.6.0 to 0.15.0 and a main snapshot, each with its commit', () => {
    const vs = b.releases.map((r) => r.version);
    for (const v of ['0.6.0', '0.7.0', '0.8.0', '0.9.0', '0.10.0', '0.11.0', '0.12.0', '0.13.0', '0.14.0', '0.15.0', 'main']) assert.ok(vs.includes(v), v);
    assert.equal(b.data.engine, 'vllm');
    assert.equal(b.engineLabel, 'vLLM');
    for (const r of b.releases) {
      assert.match(r.commit ?? '', /^[0-9a-f]{40}$/);
      assert.ok(r.flags > 90, `${r.version}: ${r.flags} flags`);
    }
    assert.equal(b.releases[0].layout, 'inline', 'early releases used plain add_argument calls');
    assert.equal(b.releases.find((r) => r.version === '0.11.0')?.layout, 'mixed');
  });

  it('ships facts, no vLLM help text', () => {
    const text = JSON.stringify(b.data);
    assert.ok(!/"help"/.test(text));
  });

  it('knows when a flag was added and removed', () => {
    assert.ok(!entryIn(b, '0.12.0', '--attention-backend'));
    assert.ok(entryIn(b, '0.13.0', '--attention-backend'));
    const note = b.explainMissing('--attention-backend', idx(b, '0.11.0'));
    assert.deepEqual(note, { kind: 'added-later', addedIn: '0.13.0' });
    assert.equal(flagHistoryText('--attention-backend', '0.11.0', note, 'vLLM'), '--attention-backend does not exist in vLLM 0.11.0 (added in 0.13.0).');
    assert.ok(entryIn(b, '0.6.0', '--use-v2-block-manager'));
    const gone = b.explainMissing('--use-v2-block-manager', idx(b, '0.11.0'));
    assert.equal(gone?.kind, 'removed');
  });

  it("groups vLLM's backend flags into the families SGLang's use (the Backend Flags view's groups)", () => {
    const familyIn = (v: string, option: string): string => {
      const e = entryIn(b, v, option);
      assert.ok(e, `${option} in ${v}`);
      return familyOf(e);
    };
    const expected: [string, string, string][] = [
      ['main', '--attention-backend', 'attention'],
      ['main', '--moe-backend', 'moe'],
      ['0.15.0', '--all2all-backend', 'moe'],
      ['0.15.0', '--kv-cache-dtype', 'kv-cache'],
      ['0.15.0', '--enable-prefix-caching', 'kv-cache'],
      ['0.15.0', '--block-size', 'kv-cache'],
      ['0.15.0', '--gpu-memory-utilization', 'kv-cache'],
      ['0.15.0', '--kv-offloading-backend', 'kv-cache'],
      ['0.15.0', '--quantization', 'gemm'],
      ['main', '--linear-backend', 'gemm'],
      ['0.15.0', '--kv-transfer-config', 'disaggregation'],
      ['0.15.0', '--speculative-config', 'speculative'],
      ['0.15.0', '--structured-outputs-config', 'grammar'],
      ['0.8.0', '--guided-decoding-backend', 'grammar'],
      ['0.15.0', '--logprobs-mode', 'sampling'],
      ['0.15.0', '--max-loras', 'lora'],
      ['0.15.0', '--port', 'other'],
      ['0.15.0', '--tensor-parallel-size', 'other'],
    ];
    assert.deepEqual(
      expected.map(([v, o]) => [v, o, familyIn(v, o)]),
      expected,
    );
  });

  it('reads -O by release: the compilation config up to 0.11, the optimization level from 0.12', () => {
    assert.equal(entryIn(b, '0.11.0', '-O')?.flag, '--compilation-config');
    assert.equal(entryIn(b, '0.12.0', '-O')?.flag, '--optimization-level');
    assert.equal(entryIn(b, 'main', '-O')?.flag, '--optimization-level');
    assert.deepEqual(entryIn(b, '0.12.0', '--compilation-config')?.aliases, ['-cc']);
  });

  it('keeps the field of a flag whose name differs, and Literal choices per release', () => {
    const kv = entryIn(b, '0.11.0', '--kv-cache-dtype')!;
    assert.equal(kv.field, 'cache_dtype');
    assert.ok(kv.choices?.includes('fp8'));
    assert.ok(!kv.choices?.includes('fp8_ds_mla'));
    assert.ok(entryIn(b, '0.13.0', '--kv-cache-dtype')!.choices?.includes('fp8_ds_mla'));
    assert.deepEqual(b.explainChoice('cache_dtype', 'fp8_ds_mla', idx(b, '0.11.0')), { kind: 'added-later', addedIn: '0.11.1' });
    assert.equal(entryIn(b, '0.6.0', '--tensor-parallel-size')?.aliases.includes('-tp'), true);
  });

  it('says a VLLM_* variable is deprecated while its flag exists, and ignored once envs.py drops it', () => {
    const at = (v: string) => envVarStatus(b, 'VLLM_ATTENTION_BACKEND', idx(b, v));
    assert.equal(at('0.11.0').state, 'current');
    const dep = at('0.13.0');
    assert.equal(dep.state, 'deprecated');
    assert.equal(dep.replacement, '--attention-backend');
    assert.equal(dep.flagSince, '0.13.0');
    const ignored = at('0.15.0');
    assert.equal(ignored.state, 'ignored');
    assert.equal(ignored.lastIn, '0.14.0');
    assert.equal(envVarStatus(b, 'VLLM_FLASHINFER_MOE_BACKEND', idx(b, 'main')).replacement, '--moe-backend');
    assert.equal(envVarStatus(b, 'VLLM_NOT_A_VARIABLE', 0).state, 'unknown');
  });

  it('answers a version newer than every bundled release, or none, from the main snapshot', async () => {
    const store = new CatalogStore({});
    await store.loadVllmBundled();
    assert.equal(store.vllmBundledFor('0.19.1')?.match.release.version, 'main');
    assert.equal(store.vllmBundledFor(undefined)?.match.release.version, 'main');
    assert.equal(store.vllmBundledFor('0.11.0')?.match.release.version, '0.11.0');
    assert.equal(store.vllmBundledFor('0.11.2')?.match.release.version, '0.11.1', 'the nearest older release');
    assert.equal(store.vllmBundledFor('0.11.0')?.loaded.index.meta.engine, 'vllm');
  });
});

describe('vLLM catalog merge', () => {
  const e = (flag: string, extra: Partial<FlagEntry> = {}): FlagEntry => ({
    flag,
    aliases: [],
    negations: [],
    field: flag.slice(2).replace(/-/g, '_'),
    source: 'dataclass',
    line: 1,
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    ...extra,
  });
  const cat = (entries: FlagEntry[]): FlagCatalog => ({ entries, choiceLists: [], era: 'dataclass', diagnostics: [] });

  it('merges flags and env vars into variants by release, marked as vLLM', () => {
    const data = mergeReleaseCatalogs(
      [
        { release: { version: '0.1.0', date: '2025-01-01', layout: 'inline' }, catalog: cat([e('--a', { help: 'theirs' })]) },
        { release: { version: '0.2.0', date: '2025-02-01', layout: 'dataclass' }, catalog: cat([e('--a', { choices: ['x'] }), e('--b')]) },
      ],
      'vllm',
    );
    assert.equal(data.engine, 'vllm');
    assert.deepEqual(
      data.flags.map((f) => [f.flag, f.variants.map((v) => v.in)]),
      [
        ['--a', [[[0, 0]], [[1, 1]]]],
        ['--b', [[[1, 1]]]],
      ],
    );
    const env = mergeEnvVars([[{ name: 'VLLM_ATTENTION_BACKEND', type: 'str', line: 1 }], [{ name: 'VLLM_ATTENTION_BACKEND', type: 'str', line: 2 }]]);
    assert.deepEqual(env, [{ name: 'VLLM_ATTENTION_BACKEND', replacement: '--attention-backend', variants: [{ in: [[0, 1]], facts: { type: 'str' } }] }]);
  });
});

describe('vLLM release of a launch file', () => {
  it('reads vllm/vllm-openai image tags and vllm== pins, with where they are', () => {
    const found = vllmReleasesInText(
      'services:\n  a:\n    image: vllm/vllm-openai:v0.11.0\n  b:\n    image: docker.io/vllm/vllm-openai:v0.10.1-cu128\n  c:\n    image: vllm/vllm-openai:latest\n',
      '/x/compose.yaml',
    );
    assert.deepEqual(
      found.map((c) => [c.version, c.source, c.detail]),
      [
        ['0.11.0', 'image', 'image tag vllm/vllm-openai:v0.11.0 in compose.yaml line 3'],
        ['0.10.1', 'image', 'image tag docker.io/vllm/vllm-openai:v0.10.1-cu128 in compose.yaml line 5'],
      ],
    );
    assert.deepEqual(found[0].range, { line: 2, character: 28, endLine: 2, endCharacter: 35 });
    const pins = vllmReleasesInText('torch==2.8\nvllm[flashinfer]==0.9.2\npip install "vllm==0.8.5"\nvllm-router==1.0\n', 'requirements.txt');
    assert.deepEqual(
      pins.map((c) => c.version),
      ['0.9.2', '0.8.5'],
    );
  });
});

describe('inference-doctor check on vLLM files', () => {
  it('checks vLLM commands against the release a pin next to the file names, with no SGLang rules', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'id-check-vllm-'));
    try {
      writeFileSync(join(dir, 'requirements.txt'), 'vllm==0.12.0\n');
      const bundled = await loadBundledCatalog();
      const vllmBundled = await loadBundledCatalog(undefined, VLLM_BUNDLED_FILE);
      const checker = new Checker({ cwd: dir, bundled, vllmBundled });
      const text = 'export VLLM_ATTENTION_BACKEND=FLASHINFER\nvllm serve m --attention-backend FLASHINFER --kv-cache-dtype fp9 -O3\n';
      const r = await checker.checkText(text, join(dir, 'serve.sh'));
      assert.equal(r.commands, 1);
      assert.deepEqual(
        r.findings.map((f) => [f.line, f.code]),
        [
          [2, 'unknown-flag'],
          [2, 'invalid-choice'],
        ],
      );
      assert.match(
        r.findings[0].message,
        /^--attention-backend does not exist in vLLM 0\.12\.0 \(added in 0\.13\.0\)\. \(vllm==0\.12\.0 in requirements\.txt line 1\)/,
      );
      // without the vLLM catalog, vLLM commands are not looked for (as before)
      const plain = await new Checker({ cwd: dir, bundled }).checkText(text, join(dir, 'serve.sh'));
      assert.equal(plain.commands, 0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('vLLM commands in the analysis', () => {
  it('reads options as vLLM spells them: underscores, dotted JSON keys, -O3 beside the config flag', async () => {
    const store = new CatalogStore({});
    await store.loadVllmBundled();
    const v11 = store.vllmBundledFor('0.11.0')!;
    const release = { version: '0.11.0', detail: 'test', bundled: store.vllmBundled!, releaseIndex: v11.match.index };
    const text = 'vllm serve m --max_num_seqs 8 -O3 --compilation-config.cudagraph_mode=FULL --compilation-config.bogus=1 --block-size 16 --block-size 32\n';
    const a = analyzeText(text, 'shellscript', undefined, { rules: [], vllm: { index: v11.loaded.index, release } });
    const ac = a.commands[0];
    assert.equal(ac.cmd.engine, 'vllm');
    assert.equal(ac.flags.find((f) => f.arg.name === '--max_num_seqs')?.entry?.flag, '--max-num-seqs');
    assert.equal(ac.flags.find((f) => f.arg.name === '-O')?.entry?.flag, '--compilation-config');
    assert.equal(ac.flags.find((f) => f.arg.name === '--compilation-config.cudagraph_mode')?.entry?.flag, '--compilation-config');
    assert.deepEqual(
      a.diagnostics.map((d) => [d.code, d.message.split(' ')[0]]),
      [['duplicate-flag', '--block-size']],
      'the parts of one JSON config flag are merged, not duplicates; an SGLang catalog is not consulted',
    );
    assert.equal(ac.matches.length, 0);
    assert.equal(ac.findings, undefined, 'no diagnosis rules on vLLM commands');
  });
});
