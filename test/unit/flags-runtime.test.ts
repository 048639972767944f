/**
 * Runtime flag catalog: the real python3 builds the parser of a fake sglang package
 * (test/fixtures/fake-sglang) and of a fake vllm package (test/fixtures/fake-vllm-runtime) through LocalHost; hook-added choices, plugin flags and changed
 * defaults appear only at run time and mergeCatalogs marks them; the --help fallback; the cache.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCatalog, type FlagCatalog } from '../../src/core/flags';
import {
  actionsToCatalog,
  loadDumpScript,
  mergeCatalogs,
  parseArgparseHelp,
  parseMarkedJson,
  readRuntimeCatalog,
  runtimeCacheFile,
  RUNTIME_JSON_MARKER,
  RuntimeCatalogError,
} from '../../src/core/flags/runtime';
import { LocalHost } from '../../src/core/hosts';
import type { ExecOptions, ExecResult, Host } from '../../src/core/hosts';

const ROOT = join(__dirname, '..', '..');
const FAKE = join(ROOT, 'test', 'fixtures', 'fake-sglang');
const PYTHON = process.env.PYTHON ?? 'python3';
const ENV = { PYTHONPATH: FAKE, PYTHONDONTWRITEBYTECODE: '1' };
const TIMEOUT = 30_000;

/** A LocalHost that records every argv it runs. */
class RecordingHost implements Host {
  readonly id = 'local';
  readonly label = 'This machine';
  readonly calls: string[][] = [];
  private readonly inner = new LocalHost();
  exec(argv: string[], opts?: ExecOptions): Promise<ExecResult> {
    this.calls.push(argv);
    return this.inner.exec(argv, opts);
  }
  readFile(path: string): Promise<Uint8Array> {
    return this.inner.readFile(path);
  }
  stat(path: string): ReturnType<Host['stat']> {
    return this.inner.stat(path);
  }
  readDir(path: string): ReturnType<Host['readDir']> {
    return this.inner.readDir(path);
  }
  forwardPort(): ReturnType<Host['forwardPort']> {
    return Promise.reject(new Error('not used'));
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

const entry = (c: FlagCatalog, flag: string) => c.entries.find((e) => e.flag === flag);

describe('runtime flag catalog (fake sglang, real python3)', function () {
  this.timeout(TIMEOUT * 2);
  let script: string;
  let staticCatalog: FlagCatalog;
  const dirs: string[] = [];
  const tmp = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'id-rt-'));
    dirs.push(d);
    return d;
  };

  before(async function () {
    const r = spawnSync(PYTHON, ['--version'], { encoding: 'utf8', timeout: 10_000 });
    if (r.status !== 0) this.skip();
    script = await loadDumpScript(join(ROOT, 'python', 'dump_engine_args.py'));
    staticCatalog = await buildCatalog(readFileSync(join(FAKE, 'sglang', 'srt', 'server_args.py'), 'utf8'), { keepTree: false });
  });

  after(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('finds the script next to the sources without a path', async () => {
    assert.equal(await loadDumpScript(), script);
  });

  it("builds SGLang's parser and converts every action", async () => {
    const host = new RecordingHost();
    const rt = await readRuntimeCatalog(host, PYTHON, { script, env: ENV, timeoutMs: TIMEOUT });
    assert.equal(rt.source, 'dump');
    assert.equal(rt.fromCache, false);
    assert.equal(rt.version, '0.0.0-fake');
    assert.deepEqual(rt.warnings, []);
    // argv only: the script goes as one argument after -c, never through a shell
    assert.deepEqual(
      host.calls.map((c) => [c[0], c[1], c[3]]),
      [
        [PYTHON, '-c', 'version'],
        [PYTHON, '-c', 'dump'],
      ],
    );
    assert.equal(host.calls[0][2], script);

    const c = rt.catalog;
    assert.deepEqual(
      c.entries.map((e) => e.flag),
      [
        '--model-path',
        '--port',
        '--tp-size',
        '--attention-backend',
        '--fp4-gemm-backend',
        '--grammar-backend',
        '--disable-cuda-graph',
        '--mem-fraction-static',
        '--lora-paths',
        '--sampling-seed',
        '--fake-plugin-mode',
      ],
    );
    const model = entry(c, '--model-path')!;
    assert.deepEqual(model.aliases, ['--model']);
    assert.equal(model.required, true);
    const tp = entry(c, '--tp-size')!;
    assert.equal(tp.field, 'tp_size');
    assert.deepEqual(tp.aliases, ['--tensor-parallel-size']);
    assert.equal(tp.type, 'int');
    assert.equal(tp.default, 1);
    const fp4 = entry(c, '--fp4-gemm-backend')!;
    assert.equal(fp4.field, 'fp4_gemm_runner_backend');
    assert.equal(fp4.default, 'auto');
    assert.deepEqual(fp4.choices, ['auto', 'flashinfer_cutlass', 'flashinfer_cudnn', 'marlin']);
    assert.equal(fp4.group, 'Kernel backends');
    assert.deepEqual(entry(c, '--attention-backend')!.choices, ['triton', 'flashinfer', 'fa3', 'fake_plugin_attn']);
    assert.equal(entry(c, '--attention-backend')!.default, null);
    const cg = entry(c, '--disable-cuda-graph')!;
    assert.equal(cg.action, 'store_true');
    assert.equal(cg.nargs, 0);
    assert.equal(cg.default, false);
    assert.equal(entry(c, '--lora-paths')!.nargs, '*');
    // %(default)s is expanded the way argparse prints it
    assert.equal(entry(c, '--port')!.help, 'HTTP port (default: 30000).');
    // NaN has no JSON form: kept as its repr
    const seed = entry(c, '--sampling-seed')!;
    assert.equal(seed.default, undefined);
    assert.equal(seed.defaultExpr, 'nan');
    assert.equal(entry(c, '--grammar-backend')!.default, 'llguidance');
  });

  it('keeps the JSON intact when SGLang prints while importing', async () => {
    const rt = await readRuntimeCatalog(new LocalHost(), PYTHON, { script, env: { ...ENV, FAKE_SGLANG_NOISY: '1' }, timeoutMs: TIMEOUT });
    assert.equal(rt.source, 'dump');
    assert.ok(entry(rt.catalog, '--fake-plugin-mode'));
  });

  it('marks hook-added choices, plugin flags and changed defaults as run-time differences', async () => {
    // The static catalog sees the base list only, and knows it can grow.
    const st = entry(staticCatalog, '--attention-backend')!;
    assert.deepEqual(st.choices, ['triton', 'flashinfer', 'fa3']);
    assert.equal(st.dynamicChoices, true);
    assert.equal(entry(staticCatalog, '--fake-plugin-mode'), undefined);

    const rt = await readRuntimeCatalog(new LocalHost(), PYTHON, { script, env: ENV, timeoutMs: TIMEOUT });
    const m = mergeCatalogs(staticCatalog, rt.catalog);
    const kinds = m.differences.map((d) => `${d.kind} ${d.flag}`).sort();
    assert.deepEqual(kinds, ['choices-grew --attention-backend', 'default-differs --grammar-backend', 'runtime-only --fake-plugin-mode']);
    const grew = m.byFlag.get('--attention-backend')![0];
    assert.deepEqual(grew.added, ['fake_plugin_attn']);
    assert.match(grew.message, /grew at run time/);
    const def = m.differences.find((d) => d.kind === 'default-differs')!;
    assert.equal(def.staticDefault, 'xgrammar');
    assert.equal(def.runtimeDefault, 'llguidance');
    // merged entries carry the runtime truth and the static place in the file
    const merged = entry(m.catalog, '--attention-backend')!;
    assert.deepEqual(merged.choices, ['triton', 'flashinfer', 'fa3', 'fake_plugin_attn']);
    assert.equal(merged.line, st.line);
    assert.deepEqual(merged.range, st.range);
    assert.equal(m.catalog.era, staticCatalog.era);
    assert.equal(entry(m.catalog, '--fake-plugin-mode')!.line, 0);
    assert.equal(m.catalog.entries.length, rt.catalog.entries.length);
  });

  it('falls back to --help when the parser dump fails, and still sees run-time choices', async () => {
    const host = new RecordingHost();
    const rt = await readRuntimeCatalog(host, PYTHON, { script, env: { ...ENV, FAKE_SGLANG_BROKEN_DUMP: '1' }, timeoutMs: TIMEOUT });
    assert.equal(rt.source, 'help');
    assert.equal(rt.warnings.length, 1);
    assert.match(rt.warnings[0], /simulated import failure/);
    assert.deepEqual(host.calls.at(-1), [PYTHON, '-m', 'sglang.launch_server', '--help']);
    const c = rt.catalog;
    assert.equal(c.entries.length, 11);
    assert.deepEqual(entry(c, '--attention-backend')!.choices, ['triton', 'flashinfer', 'fa3', 'fake_plugin_attn']);
    assert.equal(entry(c, '--attention-backend')!.group, 'Kernel backends');
    assert.deepEqual(entry(c, '--model-path')!.aliases, ['--model']);
    assert.equal(entry(c, '--tp-size')!.field, 'tp_size');
    assert.equal(entry(c, '--port')!.default, 30000);
    assert.equal(entry(c, '--disable-cuda-graph')!.action, 'store_true');
    assert.equal(entry(c, '--lora-paths')!.nargs, '*');
    assert.equal(entry(c, '--fp4-gemm-backend')!.help, "Runner for dense NVFP4 GEMMs. 'auto' picks one by GPU.");
    // --help cannot name the dest of a flag with choices; the merge takes the static field
    const m = mergeCatalogs(staticCatalog, c, { keepStaticOnly: true });
    assert.equal(entry(m.catalog, '--fp4-gemm-backend')!.field, 'fp4_gemm_runner_backend');
    assert.ok(m.differences.some((d) => d.kind === 'choices-grew' && d.flag === '--attention-backend'));
    assert.ok(m.differences.some((d) => d.kind === 'runtime-only' && d.flag === '--fake-plugin-mode'));
  });

  it('caches by host, interpreter and version; a changed server_args.py or refresh is a miss', async () => {
    const cacheDir = tmp();
    const first = new RecordingHost();
    const a = await readRuntimeCatalog(first, PYTHON, { script, env: ENV, cacheDir, timeoutMs: TIMEOUT });
    assert.equal(a.fromCache, false);
    const files = readdirSync(cacheDir);
    assert.equal(files.length, 1);
    assert.equal(files[0], runtimeCacheFile(cacheDir, 'local', PYTHON, '0.0.0-fake').slice(cacheDir.length + 1));

    const second = new RecordingHost();
    const b = await readRuntimeCatalog(second, PYTHON, { script, env: ENV, cacheDir, timeoutMs: TIMEOUT });
    assert.equal(b.fromCache, true);
    assert.deepEqual(
      second.calls.map((c) => c[3]),
      ['version'],
      'a hit runs only the cheap version probe',
    );
    assert.deepEqual(b.catalog, a.catalog);

    const third = new RecordingHost();
    const c = await readRuntimeCatalog(third, PYTHON, { script, env: ENV, cacheDir, refresh: true, timeoutMs: TIMEOUT });
    assert.equal(c.fromCache, false);
    assert.deepEqual(
      third.calls.map((x) => x[3]),
      ['version', 'dump'],
    );

    // another interpreter path is another key
    assert.notEqual(runtimeCacheFile(cacheDir, 'local', '/usr/bin/python3', '0.0.0-fake'), runtimeCacheFile(cacheDir, 'local', PYTHON, '0.0.0-fake'));
    assert.notEqual(runtimeCacheFile(cacheDir, 'ssh:gpu1', PYTHON, '0.0.0-fake'), runtimeCacheFile(cacheDir, 'local', PYTHON, '0.0.0-fake'));

    // a fingerprint mismatch (as after editing server_args.py) is a miss
    const file = join(cacheDir, files[0]);
    const body = JSON.parse(readFileSync(file, 'utf8'));
    body.fingerprint = 'stale';
    writeFileSync(file, JSON.stringify(body));
    const fourth = new RecordingHost();
    const d = await readRuntimeCatalog(fourth, PYTHON, { script, env: ENV, cacheDir, timeoutMs: TIMEOUT });
    assert.equal(d.fromCache, false);
  });

  it('says so when the interpreter has no sglang', async () => {
    await assert.rejects(
      readRuntimeCatalog(new LocalHost(), PYTHON, { script, env: { PYTHONPATH: tmp() }, timeoutMs: TIMEOUT }),
      (e: Error) => e instanceof RuntimeCatalogError && /sglang is not importable/.test(e.message),
    );
  });

  it('reports a missing interpreter', async () => {
    await assert.rejects(readRuntimeCatalog(new LocalHost(), '/nonexistent/python3', { script, timeoutMs: TIMEOUT }), /not found/);
  });
});

describe('runtime flag catalog of vLLM (fake vllm, real python3)', function () {
  this.timeout(TIMEOUT * 2);
  const VLLM = join(ROOT, 'test', 'fixtures', 'fake-vllm-runtime');
  const VENV = { PYTHONPATH: VLLM, PYTHONDONTWRITEBYTECODE: '1' };
  let script: string;

  before(async function () {
    if (spawnSync(PYTHON, ['--version'], { encoding: 'utf8', timeout: 10_000 }).status !== 0) this.skip();
    script = await loadDumpScript(join(ROOT, 'python', 'dump_engine_args.py'));
  });

  it("builds vLLM's OpenAI-server parser: short aliases, --no-x negations, config groups, run-time choices and defaults", async () => {
    const host = new RecordingHost();
    const rt = await readRuntimeCatalog(host, PYTHON, {
      script,
      engine: 'vllm',
      env: { ...VENV, FAKE_VLLM_PLUGIN_BACKEND: 'FAKE_PLUGIN_ATTN', FAKE_VLLM_MAX_LEN: '32768', FAKE_VLLM_NOISY: '1' },
      timeoutMs: TIMEOUT,
    });
    assert.deepEqual([rt.source, rt.version, rt.install.engine, rt.warnings], ['dump', '0.11.0', 'vllm', []]);
    assert.equal(rt.install.argsFile?.path, join(VLLM, 'vllm', 'engine', 'arg_utils.py'));
    assert.deepEqual(
      host.calls.map((c) => [c[3], c[4]]),
      [
        ['version', 'vllm'],
        ['dump', 'vllm'],
      ],
    );
    const c = rt.catalog;
    assert.deepEqual(
      c.entries.map((e) => e.flag),
      ['--host', '--port', '--model', '--max-model-len', '--tensor-parallel-size', '--kv-cache-dtype', '--enable-prefix-caching', '--attention-backend'],
    );
    assert.deepEqual(entry(c, '--tensor-parallel-size')!.aliases, ['-tp']);
    const prefix = entry(c, '--enable-prefix-caching')!;
    assert.deepEqual([prefix.negations, prefix.action], [['--no-enable-prefix-caching'], 'BooleanOptionalAction']);
    const attention = entry(c, '--attention-backend')!;
    assert.deepEqual([attention.field, attention.group], ['backend', 'AttentionConfig']);
    assert.deepEqual(attention.choices, ['FLASH_ATTN', 'FLASHINFER', 'TRITON_ATTN', 'FAKE_PLUGIN_ATTN']);
    assert.equal(entry(c, '--max-model-len')!.default, 32768);
    assert.equal(entry(c, '--port')!.help, 'Port (default: 8000).');
  });

  it("falls back to the api_server module's --help, and keys its cache apart from SGLang's", async () => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'id-rt-vllm-'));
    try {
      const host = new RecordingHost();
      const rt = await readRuntimeCatalog(host, PYTHON, {
        script,
        engine: 'vllm',
        env: { ...VENV, FAKE_VLLM_BREAK_PARSER: '1' },
        cacheDir,
        timeoutMs: TIMEOUT,
      });
      assert.equal(rt.source, 'help');
      assert.match(rt.warnings[0], /could not build vLLM's parser: RuntimeError: fake vllm: the parser could not be built/);
      assert.deepEqual(host.calls.at(-1), [PYTHON, '-m', 'vllm.entrypoints.openai.api_server', '--help']);
      assert.deepEqual(entry(rt.catalog, '--kv-cache-dtype')!.choices, ['auto', 'fp8', 'fp8_e4m3', 'fp8_e5m2']);
      assert.deepEqual(readdirSync(cacheDir), [runtimeCacheFile(cacheDir, 'local', PYTHON, '0.11.0', 'vllm').slice(cacheDir.length + 1)]);
      assert.notEqual(runtimeCacheFile(cacheDir, 'local', PYTHON, '0.11.0', 'vllm'), runtimeCacheFile(cacheDir, 'local', PYTHON, '0.11.0'));
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  });

  it('says so when the interpreter has no vllm', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'id-rt-novllm-'));
    try {
      await assert.rejects(
        readRuntimeCatalog(new LocalHost(), PYTHON, { script, engine: 'vllm', env: { PYTHONPATH: empty }, timeoutMs: TIMEOUT }),
        (e: Error) => e instanceof RuntimeCatalogError && /vllm is not importable/.test(e.message),
      );
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('runtime catalog parsing (no python)', () => {
  it('reads the JSON after the marker only', () => {
    assert.deepEqual(parseMarkedJson(`noise {"x":1}\n${RUNTIME_JSON_MARKER}\n{"ok":true}\n`), { ok: true });
    assert.throws(() => parseMarkedJson('no marker'), RuntimeCatalogError);
    assert.throws(() => parseMarkedJson(`${RUNTIME_JSON_MARKER}\n{bad`), RuntimeCatalogError);
  });

  it('parses argparse help of several shapes', () => {
    const help = [
      'usage: x [-h] [--a A]',
      '         [--b {1,2}]',
      '',
      'options:',
      '  -h, --help            show this help message and exit',
      '  --enable-x, --no-enable-x',
      '                        Toggle x. (default: True)',
      '  -s, --short-and-long SHORT_AND_LONG',
      '                        Both (default: 0.5)',
      '  --pair A B            Two values',
      '  --maybe [MAYBE]       Optional value',
      '  --many M [M ...]      One or more',
      '  --ints {1,2,4}        Ints',
      '',
      'Group title:',
      '  --dest-from-metavar HIDDEN_DEST',
      '                        wrapped help',
      '                        over two lines',
    ].join('\n');
    const c = actionsToCatalog(parseArgparseHelp(help));
    assert.deepEqual(
      c.entries.map((e) => e.flag),
      ['--enable-x', '--short-and-long', '--pair', '--maybe', '--many', '--ints', '--dest-from-metavar'],
    );
    const bool = c.entries[0];
    assert.equal(bool.action, 'BooleanOptionalAction');
    assert.deepEqual(bool.negations, ['--no-enable-x']);
    assert.equal(bool.default, true);
    assert.deepEqual(c.entries[1].aliases, ['-s']);
    assert.equal(c.entries[1].default, 0.5);
    assert.equal(c.entries[2].nargs, 2);
    assert.equal(c.entries[3].nargs, '?');
    assert.equal(c.entries[4].nargs, '+');
    assert.deepEqual(c.entries[5].choices, [1, 2, 4]);
    assert.equal(c.entries[6].field, 'hidden_dest');
    assert.equal(c.entries[6].group, 'Group title');
    assert.equal(c.entries[6].help, 'wrapped help over two lines');
  });
});
