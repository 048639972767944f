/**
 * The static reader of vLLM's flags on fixture trees of each shape (written for these tests, not
 * vLLM's files): plain add_argument calls with EngineArgs defaults, config dataclasses in one
 * module read through get_kwargs, and the config package with pydantic fields, Literal aliases,
 * a frontend loop over dataclass fields and the `-O` argv rewrite. Plus envs.py.
 */
import { strict as assert } from 'node:assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { FlagCatalog, FlagEntry } from '../../src/core/flags';
import { sharedPythonParser } from '../../src/core/flags/parser';
import { readVllmEnvVars } from '../../src/core/flags/vllm/envs';
import { readVllmFlags, type VllmSources } from '../../src/core/flags/vllm/reader';

const FIXTURES = join(__dirname, '..', 'fixtures', 'vllm');

/** Every .py file of a fixture tree, keyed by its path under the tree (as a release's repository has them). */
function tree(name: string): VllmSources {
  const root = join(FIXTURES, name);
  const out: VllmSources = {};
  const walk = (dir: string): void => {
    for (const f of readdirSync(dir)) {
      const p = join(dir, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (f.endsWith('.py')) out[relative(root, p).split(sep).join('/')] = readFileSync(p, 'utf8');
    }
  };
  walk(root);
  return out;
}

async function catalog(name: string): Promise<FlagCatalog> {
  return readVllmFlags(await sharedPythonParser(), tree(name));
}

function get(c: FlagCatalog, flag: string): FlagEntry {
  const e = c.entries.find((x) => x.flag === flag);
  assert.ok(e, `${flag} missing from ${c.entries.map((x) => x.flag).join(' ')}`);
  return e;
}

describe('vLLM flag reader', () => {
  it('reads plain add_argument calls, defaults through EngineArgs, the frontend, and skips positionals', async () => {
    const c = await catalog('inline');
    assert.equal(c.era, 'inline');
    const tp = get(c, '--tensor-parallel-size');
    assert.deepEqual(tp.aliases, ['-tp']);
    assert.equal(tp.type, 'int');
    assert.equal(tp.default, 1);
    assert.deepEqual(get(c, '--kv-cache-dtype').choices, ['auto', 'fp8', 'fp8_e5m2']);
    assert.equal(get(c, '--kv-cache-dtype').default, 'auto');
    const pc = get(c, '--enable-prefix-caching');
    assert.equal(pc.action, 'BooleanOptionalAction');
    assert.deepEqual(pc.negations, ['--no-enable-prefix-caching']);
    assert.equal(pc.default, null);
    assert.equal(get(c, '--enforce-eager').default, false);
    assert.equal(get(c, '--gpu-memory-utilization').default, 0.9);
    assert.equal(get(c, '--use-v2-block-manager').deprecated, true);
    assert.ok(
      c.entries.some((e) => e.flag === '--disable-log-requests'),
      'AsyncEngineArgs flags',
    );
    assert.deepEqual(get(c, '--tool-call-parser').choices, ['hermes', 'mistral']);
    assert.equal(get(c, '--port').default, 8000);
    assert.ok(!c.entries.some((e) => e.flag.includes('model_tag')));
    assert.ok(
      c.entries.every((e) => e.help === undefined),
      'no help text is read',
    );
  });

  it('follows get_kwargs to config dataclass fields in one module: Literal aliases, Optional, bool|str, field(default_factory)', async () => {
    const c = await catalog('single-config');
    const kv = get(c, '--kv-cache-dtype');
    assert.equal(kv.field, 'cache_dtype', 'the flag name differs from the field');
    assert.equal(kv.group, 'CacheConfig');
    assert.equal(kv.source, 'dataclass');
    assert.deepEqual(kv.choices, ['auto', 'fp8', 'fp8_e4m3', 'fp8_e5m2']);
    assert.deepEqual(get(c, '--tokenizer-mode').choices, ['auto', 'slow', 'mistral']);
    assert.equal(get(c, '--block-size').type, 'int');
    assert.equal(get(c, '--block-size').default, 16);
    assert.equal(get(c, '--max-model-len').type, 'human_readable_int');
    assert.equal(get(c, '--cpu-offload-gb').type, 'float');
    const eager = get(c, '--enforce-eager');
    assert.equal(eager.action, 'BooleanOptionalAction');
    assert.deepEqual(eager.negations, ['--no-enforce-eager']);
    const token = get(c, '--hf-token');
    assert.equal(token.nargs, '?', 'bool | str: a bare flag or a value');
    assert.equal(token.const, true);
    const cc = get(c, '--compilation-config');
    assert.deepEqual(cc.aliases, ['-O'], 'before the optimization level, -O was the compilation config');
    assert.equal(cc.type, 'json');
    assert.equal(cc.defaultExpr, 'default_factory=CompilationConfig');
  });

  it('reads the config package: pydantic Field defaults, X | None, dict splats, kwargs under a new name, loops, the -O rewrite', async () => {
    const c = await catalog('config-package');
    assert.equal(get(c, '--block-size').default, 16);
    assert.deepEqual(get(c, '--kv-cache-dtype').choices, ['auto', 'bfloat16', 'fp8', 'fp8_e4m3']);
    assert.deepEqual(get(c, '--kv-offloading-backend').choices, ['native', 'lmcache', null], 'None is a choice of an optional Literal');
    assert.equal(get(c, '--enable-prefix-caching').action, 'BooleanOptionalAction');
    assert.equal(get(c, '--enable-prefix-caching').default, null);
    const moe = get(c, '--moe-backend');
    assert.deepEqual(moe.choices, ['auto', 'triton', 'cutlass', 'marlin']);
    assert.equal(moe.group, 'KernelConfig');
    assert.deepEqual(get(c, '--compilation-config').aliases, ['-cc']);
    const opt = get(c, '--optimization-level');
    assert.deepEqual(opt.aliases, ['-O'], '-O3 is rewritten to --optimization-level 3');
    assert.equal(opt.defaultExpr, 'OptimizationLevel.O2');
    const g = get(c, '--guided-decoding-backend');
    assert.equal(g.deprecated, true);
    assert.equal(g.type, 'str');
    assert.equal(get(c, '--old-toggle').type, 'bool');
    // the frontend: one flag per field, base class included
    assert.equal(get(c, '--host').default, null);
    assert.equal(get(c, '--port').default, 8000);
    assert.deepEqual(get(c, '--uvicorn-log-level').choices, ['debug', 'info', 'warning']);
    assert.deepEqual(get(c, '--enable-auto-tool-choice').negations, ['--no-enable-auto-tool-choice']);
    assert.ok(c.entries.some((e) => e.flag === '--config'));
    assert.ok(c.entries.some((e) => e.flag === '--enable-log-requests'));
    assert.equal(c.entries.filter((e) => e.flag === '--enable-prefix-caching').length, 1);
  });

  it('reads envs.py: names, types, defaults and Literal choices of the TYPE_CHECKING block', async () => {
    const vars = readVllmEnvVars(await sharedPythonParser(), readFileSync(join(FIXTURES, 'envs.py'), 'utf8'));
    assert.deepEqual(
      vars.map((v) => v.name),
      ['VLLM_HOST_IP', 'VLLM_PORT', 'VLLM_USE_V1', 'VLLM_ATTENTION_BACKEND', 'VLLM_FLASHINFER_MOE_BACKEND'],
    );
    const port = vars.find((v) => v.name === 'VLLM_PORT')!;
    assert.equal(port.type, 'Optional[int]');
    assert.equal(port.default, null);
    assert.equal(vars.find((v) => v.name === 'VLLM_USE_V1')!.default, true);
    assert.deepEqual(vars.find((v) => v.name === 'VLLM_FLASHINFER_MOE_BACKEND')!.choices, ['throughput', 'latency']);
  });

  it('says so when arg_utils.py has no flags', async () => {
    const c = readVllmFlags(await sharedPythonParser(), { 'vllm/engine/arg_utils.py': 'x = 1\n' });
    assert.equal(c.entries.length, 0);
    assert.equal(c.era, 'unknown');
    assert.equal(c.diagnostics.length, 1);
  });
});
