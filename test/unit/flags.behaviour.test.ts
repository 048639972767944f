/** Behaviour of the flag catalog on each server_args.py trap (sglang-facts.md section 3). */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCatalog, catalogFromJson, catalogToJson, familyOf, updateCatalog, type FlagCatalog, type FlagEntry } from '../../src/core/flags';

const FIXTURES = join(__dirname, '..', 'fixtures', 'server_args');
const read = (f: string): string => readFileSync(join(FIXTURES, f), 'utf8');

function entry(c: FlagCatalog, flag: string): FlagEntry {
  const e = c.entries.find((x) => x.flag === flag || x.aliases.includes(flag) || x.negations.includes(flag));
  assert.ok(e, `no entry for ${flag}`);
  return e;
}

describe('flag catalog: traps of server_args.py', function () {
  this.timeout(30_000);
  let main: FlagCatalog;
  let lists: FlagCatalog;
  let inline: FlagCatalog;
  before(async () => {
    main = await buildCatalog(read('dataclass_main.py'), { keepTree: false });
    lists = await buildCatalog(read('choices_lists_2025.py'), { keepTree: false });
    inline = await buildCatalog(read('inline_v04.py'), { keepTree: false });
  });

  it('leading blank lines and comments lose no flag and shift every line by as much (all three eras)', async () => {
    for (const [file, base] of [
      ['inline_v04.py', inline],
      ['choices_lists_2025.py', lists],
      ['dataclass_main.py', main],
    ] as const) {
      for (const prefix of ['\n\n\n', '\n'.repeat(40), '# a comment\n\n\n']) {
        const shifted = await buildCatalog(prefix + read(file), { keepTree: false });
        const k = prefix.split('\n').length - 1;
        assert.deepEqual(
          shifted.entries.map((e) => [e.flag, e.line - k]),
          base.entries.map((e) => [e.flag, e.line]),
          `${file} after ${k} lines`,
        );
      }
    }
  });

  it('flag is not the field: cli_name renames fp4/fp8 GEMM flags', () => {
    const fp4 = entry(main, '--fp4-gemm-backend');
    assert.equal(fp4.field, 'fp4_gemm_runner_backend');
    assert.equal(entry(main, '--fp8-gemm-backend').field, 'fp8_gemm_runner_backend');
    assert.ok(!main.entries.some((e) => e.flag === '--fp4-gemm-runner-backend'));
    assert.deepEqual(fp4.choices, ['auto', 'flashinfer_cudnn', 'flashinfer_cutedsl', 'flashinfer_cutlass', 'flashinfer_trtllm', 'marlin']);
    assert.equal(fp4.resolvable, true);
    assert.equal(fp4.dynamicChoices, true, 'FP4 list grows through add_fp4_gemm_runner_backend_choices');
    assert.equal(fp4.group, 'exec.kernel');
    assert.equal(familyOf(fp4), 'gemm');
  });

  it('2025 era: --fp4-gemm-runner-backend defaults to flashinfer_cutlass, dest= kept', () => {
    const e = entry(lists, '--fp4-gemm-runner-backend');
    assert.equal(e.default, 'flashinfer_cutlass');
    assert.equal(e.field, 'fp4_gemm_runner_backend');
    assert.equal(e.choicesExpr, 'FP4_GEMM_RUNNER_BACKEND_CHOICES');
    const list = lists.choiceLists.find((l) => l.name === 'FP4_GEMM_RUNNER_BACKEND_CHOICES')!;
    assert.deepEqual(list.hooks, ['add_fp4_gemm_runner_backend_choices']);
    assert.equal(list.growsAtRuntime, true);
    assert.ok(list.usedBy.includes('--fp4-gemm-runner-backend'));
    assert.equal(entry(lists, '--fp8-gemm-backend').field, 'fp8_gemm_runner_backend');
  });

  it('aliases: --tp / --tensor-parallel-size and --model / --model-path', () => {
    assert.deepEqual(entry(main, '--tp-size').aliases, ['--tensor-parallel-size']);
    const model = entry(main, '--model');
    assert.equal(model.flag, '--model-path');
    assert.equal(model.required, true);
    assert.equal(entry(inline, '--tp-size').flag, '--tensor-parallel-size');
    assert.equal(entry(inline, '--tp-size').field, 'tp_size');
  });

  it('multi-line calls, implicit concatenation and f-string help', () => {
    const load = entry(main, '--load-format');
    assert.match(load.help!, /safetensors first, "dummy" fills/);
    const ctx = entry(main, '--context-length');
    assert.match(ctx.help!, /\n\n\{human_readable_int\.__doc__\}$/);
    assert.equal(ctx.type, 'human_readable_int');
    assert.match(entry(main, '--dtype').help!, /^Weight and activation dtype\.\n\n\* "auto"/);
  });

  it('choices from constants, Literal, LIST + [...], comprehensions, dict keys, tuples, sorted sets', () => {
    assert.deepEqual(entry(main, '--weight-loader-mode').choices, ['eager', 'lazy', 'mmap']);
    assert.deepEqual(entry(main, '--draft-page-stride').choices, [1, 2, 4]);
    assert.equal(entry(main, '--draft-page-stride').type, 'int');
    assert.deepEqual(entry(main, '--dsa-decode-backend').choices?.at(-1), 'auto');
    const moe = entry(main, '--moe-runner-backend');
    assert.ok(!moe.choices!.includes('experimental_sgl_marlin'));
    assert.ok(moe.choices!.includes('marlin'));
    assert.deepEqual(entry(main, '--tool-call-parser').choices, ['qwen25', 'mistral', 'llama3', 'deepseekv3']);
    assert.deepEqual(entry(main, '--kv-cache-dtype').choices, ['auto', 'fp8_e5m2', 'fp8_e4m3', 'mxfp8', 'bf16', 'bfloat16', 'nvfp4']);
    assert.deepEqual(entry(main, '--bf16-gemm-backend').choices, ['auto', 'cutedsl', 'gemv', 'torch']);
    assert.deepEqual(entry(main, '--mm-attention-backend').choices, ['fa3', 'sdpa', 'triton_attn']);
    assert.deepEqual(entry(lists, '--hicache-io-backend').choices, ['direct', 'kernel', 'kernel_ascend']);
    assert.deepEqual(entry(lists, '--speculative-draft-attention-backend').choices, ['flashinfer', 'fa3', 'triton', 'trtllm_mha']);
  });

  it('imported names and call results are dynamic, with the expression kept', () => {
    const spec = entry(main, '--speculative-algorithm');
    assert.equal(spec.choices, undefined);
    assert.equal(spec.choicesExpr, 'SPECULATIVE_ALGORITHMS');
    assert.equal(spec.dynamicChoices, true);
    const rp = entry(main, '--reasoning-parser');
    assert.equal(rp.choicesExpr, 'registered_reasoning_parsers()');
    assert.equal(rp.dynamicChoices, true);
  });

  it('sets with conditional entries keep the base and are marked dynamic', () => {
    const s = entry(main, '--sampling-backend');
    assert.deepEqual([...s.choices!].sort(), ['ascend', 'flashinfer', 'pytorch']);
    assert.equal(s.dynamicChoices, true);
    const list = main.choiceLists.find((l) => l.name === 'SAMPLING_BACKEND_CHOICES')!;
    assert.deepEqual(list.conditionalValues, ['token_oracle']);
  });

  it('bool -> store_true, BooleanOptionalAction -> --no-*, List -> nargs "+"', () => {
    const b = entry(main, '--trust-remote-code');
    assert.equal(b.action, 'store_true');
    assert.equal(b.default, false);
    const o = entry(main, '--enable-overlap-schedule');
    assert.equal(o.action, 'BooleanOptionalAction');
    assert.deepEqual(o.negations, ['--no-enable-overlap-schedule']);
    assert.equal(entry(main, '--no-enable-piecewise-cuda-graph').default, true);
    assert.equal(entry(main, '--enable-multimodal').action, 'store_true', 'Optional[bool] without action is store_true');
    const l = entry(main, '--cuda-graph-bs');
    assert.equal(l.nargs, '+');
    assert.equal(l.type, 'int');
    assert.equal(entry(main, '--hicache-storage-extra').nargs, undefined, 'type_parser turns List off');
    assert.ok(entry(main, '--lora-target-modules').choices!.includes('all'));
  });

  it('defaults from default_factory, arithmetic, CHOICES[0], ServerArgs.x', () => {
    assert.deepEqual(entry(main, '--api-keys').default, []);
    assert.deepEqual(entry(main, '--cuda-graph-fallback-sizes').default, [1, 2, 4, 8]);
    assert.deepEqual(entry(main, '--cuda-graph-default-sizes').default, [1, 2, 4, 8, 12, 16, 24, 32]);
    assert.equal(entry(main, '--max-prefill-budget').default, 16384);
    assert.equal(entry(main, '--dp-attention-split').default, 4);
    assert.equal(entry(main, '--grammar-backend').default, 'xgrammar');
    assert.equal(entry(lists, '--kv-cache-dtype').default, 'auto');
    assert.equal(entry(lists, '--nsa-prefill-backend').default, 'flashmla_sparse');
    assert.equal(entry(lists, '--max-total-num-tokens-hint').default, 262143);
    assert.equal(entry(inline, '--max-lora-chunk').default, 16384);
    assert.equal(entry(inline, '--constrained-json-max-depth').default, 32);
  });

  it('no_cli fields and unannotated fields make no flag', () => {
    for (const f of ['model_config_hash', 'server_secret', 'launch_time']) {
      assert.ok(!main.entries.some((e) => e.field === f), f);
    }
  });

  it('deprecated aliases (custom actions) and deprecated values in choice lists', () => {
    const nsa = entry(main, '--nsa-prefill-backend');
    assert.equal(nsa.deprecated, true);
    assert.equal(nsa.replacement, '--dsa-prefill-backend');
    assert.equal(nsa.field, 'dsa_prefill_backend');
    assert.equal(nsa.default, '==SUPPRESS==');
    const so = entry(main, '--stream-output');
    assert.equal(so.deprecated, true);
    assert.equal(so.replacement, '--incremental-streaming-output');
    const fim = entry(main, '--enable-flashinfer-mla');
    assert.equal(fim.deprecated, true);
    assert.equal(fim.replacement, '--attention-backend');
    assert.equal(entry(main, '--collect-tokens-histogram').deprecated, true);
    const attn = entry(main, '--attention-backend');
    assert.deepEqual(attn.deprecatedChoices, [
      { value: 'nsa', replacement: 'dsa' },
      { value: 'compressed', replacement: 'dsv4' },
    ]);
    assert.equal(entry(inline, '--disable-nan-detection').replacement, '--enable-nan-detection');
  });

  it('era detection and families', () => {
    assert.equal(main.era, 'dataclass');
    assert.equal(lists.era, 'choices-lists');
    assert.equal(inline.era, 'inline');
    assert.equal(familyOf(entry(main, '--moe-a2a-backend')), 'moe');
    assert.equal(familyOf(entry(main, '--attention-backend')), 'attention');
    assert.equal(familyOf(entry(main, '--kv-cache-dtype')), 'kv-cache');
    assert.equal(familyOf(entry(main, '--lora-backend')), 'lora');
    assert.equal(familyOf(entry(main, '--speculative-num-steps')), 'speculative');
    assert.equal(familyOf(entry(main, '--disaggregation-mode')), 'disaggregation');
    assert.equal(familyOf(entry(main, '--grammar-backend')), 'grammar');
    assert.equal(familyOf(entry(main, '--sampling-backend')), 'sampling');
    assert.equal(familyOf(entry(main, '--port')), 'other');
  });

  it('ranges are 0-based and cover the definition', () => {
    const src = read('dataclass_main.py').split('\n');
    const e = entry(main, '--fp4-gemm-backend');
    assert.match(src[e.range.start.line].slice(e.range.start.character), /^fp4_gemm_runner_backend: A\[/);
    assert.equal(e.line, e.range.start.line + 1);
    assert.match(src[e.range.end.line].slice(0, e.range.end.character), /\] = "auto"$/);
  });

  it('partial files and syntax errors give a partial catalog plus diagnostics', async () => {
    const src = read('dataclass_main.py');
    const cut = await buildCatalog(src.slice(0, Math.floor(src.length / 2)), { keepTree: false });
    assert.ok(cut.entries.length > 20);
    const broken = await buildCatalog(src.replace('tp_size: A[', 'tp_size: A[('), { keepTree: false });
    assert.ok(broken.diagnostics.some((d) => d.severity === 'error'));
    assert.ok(broken.entries.length > 150);
  });

  it('incremental update after a one-line edit', async () => {
    const src = read('dataclass_main.py');
    const first = await buildCatalog(src);
    const lines = src.split('\n');
    const row = lines.findIndex((l) => l.includes('"flashinfer_cudnn",'));
    const col = lines[row].indexOf('flashinfer_cudnn');
    const next = updateCatalog(first, {
      range: { start: { line: row, character: col }, end: { line: row, character: col + 'flashinfer_cudnn'.length } },
      text: 'flashinfer_cudnn_v2',
    });
    assert.ok(entry(next, '--fp4-gemm-backend').choices!.includes('flashinfer_cudnn_v2'));
    const fresh = await buildCatalog(src.replace('"flashinfer_cudnn",', '"flashinfer_cudnn_v2",'), { keepTree: false });
    assert.deepEqual(catalogToJson(next), catalogToJson(fresh));
    // A field edit that moves lines: positions follow.
    const at = lines.findIndex((l) => l.startsWith('    tp_size: A['));
    const moved = updateCatalog(next, { range: { start: { line: at, character: 0 }, end: { line: at, character: 0 } }, text: '    # note\n' });
    assert.equal(entry(moved, '--tp-size').line, at + 2);
    assert.throws(() => updateCatalog(next, { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '' }));
  });

  it('JSON round trip for the cache', () => {
    const json = JSON.parse(JSON.stringify(catalogToJson(main))) as unknown;
    const back = catalogFromJson(json)!;
    assert.deepEqual(back.entries, main.entries);
    assert.equal(catalogFromJson({ version: 99 }), undefined);
  });
});
