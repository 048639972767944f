/** The flag catalog of a split package (flags in srt/arg_groups/fields/*.py): packageLayout.ts. */
import { strict as assert } from 'node:assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildCatalog,
  buildPackageCatalog,
  catalogToJson,
  resolveLocalPackage,
  type FlagCatalog,
  type FlagEntry,
  type PackageReadFile,
} from '../../src/core/flags';

const FIXTURES = join(__dirname, '..', 'fixtures', 'server_args');
const SPLIT = join(FIXTURES, 'split_layout');
const read = (f: string): string => readFileSync(join(FIXTURES, f), 'utf8');
const SGLANG_MAIN = '/tmp/sglang-main/python/sglang';

function entry(c: FlagCatalog, flag: string): FlagEntry {
  const e = c.entries.find((x) => x.flag === flag || x.aliases.includes(flag));
  assert.ok(e, `no entry for ${flag}`);
  return e;
}

/** What an entry says apart from where it is. */
function meaning(e: FlagEntry): Omit<FlagEntry, 'file' | 'line' | 'range'> {
  const { file: _f, line: _l, range: _r, ...rest } = e;
  return rest;
}

/** 1-based line of the first line of `file` that starts (after indentation) with `prefix`. */
function lineOf(file: string, prefix: string): number {
  const i = readFileSync(join(SPLIT, 'sglang', 'srt', file), 'utf8')
    .split('\n')
    .findIndex((l) => l.trimStart().startsWith(prefix));
  assert.ok(i >= 0, `${prefix} in ${file}`);
  return i + 1;
}

describe('flag catalog of a split package (arg_groups/fields)', function () {
  this.timeout(30_000);
  let split: Awaited<ReturnType<typeof buildPackageCatalog>>;
  let single: FlagCatalog;
  before(async () => {
    const pkg = await resolveLocalPackage(join(SPLIT, 'sglang'));
    assert.ok(pkg);
    split = await buildPackageCatalog(pkg.serverArgs, pkg.readFile);
    single = await buildCatalog(read('split_layout_single.py'), { keepTree: false });
  });

  it('reads as completely as the same flags written in one file', () => {
    assert.equal(split.package.layout, 'split');
    assert.deepEqual(split.diagnostics, []);
    assert.equal(split.entries.length, 14);
    assert.deepEqual(split.entries.map(meaning), single.entries.map(meaning));
    assert.equal(split.era, single.era);
    const lists = (c: FlagCatalog): unknown[] => c.choiceLists.map(({ line: _l, file: _f, ...rest }) => rest).sort((a, b) => (a.name < b.name ? -1 : 1));
    assert.deepEqual(lists(split), lists(single));
  });

  it('entries carry the file and line they are defined at', () => {
    const at = (flag: string, file: string, prefix: string): void => {
      const e = entry(split, flag);
      assert.equal(e.file, `sglang/srt/${file}`, flag);
      assert.equal(e.line, lineOf(file, prefix), flag);
      assert.equal(e.range.start.line, e.line - 1);
    };
    at('--fp4-gemm-backend', 'arg_groups/fields/kernel.py', 'fp4_gemm_runner_backend:');
    at('--attention-backend', 'arg_groups/fields/attention.py', 'attention_backend:');
    at('--model-path', 'arg_groups/fields/model.py', 'model_path:');
    at('--tp-size', 'arg_groups/fields/serving.py', 'tp_size:');
    at('--nsa-decode-backend', 'server_args.py', 'parser.add_argument(');
    assert.equal(entry(split, '--config').file, 'sglang/srt/server_args.py');
    assert.deepEqual(split.package.files.slice(0, 1), ['sglang/srt/server_args.py']);
  });

  it('a field whose flag is not its name, aliases, no_cli, a deprecated flag registered by hand', () => {
    const fp4 = entry(split, '--fp4-gemm-backend');
    assert.equal(fp4.field, 'fp4_gemm_runner_backend');
    assert.deepEqual(fp4.choices, ['auto', 'flashinfer_cutlass', 'flashinfer_trtllm', 'marlin']);
    assert.equal(fp4.default, 'auto');
    assert.deepEqual(entry(split, '--model').aliases, ['--model']);
    assert.deepEqual(entry(split, '--tensor-parallel-size').flag, '--tp-size');
    assert.ok(!split.entries.some((e) => e.field === 'disable_cuda_graph'), 'no_cli makes no flag');
    assert.deepEqual(entry(split, '--enable-fused-moe').negations, ['--no-enable-fused-moe']);
    const nsa = entry(split, '--nsa-decode-backend');
    assert.equal(nsa.deprecated, true);
    assert.equal(nsa.replacement, '--dsa-decode-backend');
    assert.equal(nsa.field, 'dsa_decode_backend');
  });

  it('base classes across files, in reverse MRO order (relative and absolute imports)', () => {
    // CPython's dataclasses.fields(ServerArgs) of the fixture package, minus the no_cli field
    assert.deepEqual(
      split.entries.filter((e) => e.file !== 'sglang/srt/server_args.py').map((e) => e.field),
      [
        'model_path',
        'load_format',
        'trust_remote_code',
        'context_length',
        'attention_backend',
        'dsa_decode_backend',
        'fp4_gemm_runner_backend',
        'grammar_backend',
        'enable_fused_moe',
        'host',
        'port',
        'tp_size',
      ],
    );
  });

  it('choice lists from choices.py: aliases (X = Y), function hooks and bound-method hooks', () => {
    const dsa = entry(split, '--dsa-decode-backend');
    assert.deepEqual(dsa.choices, ['flashmla_sparse', 'flashmla_kv', 'fa3', 'tilelang']);
    assert.equal(dsa.choicesExpr, 'NSA_CHOICES');
    assert.equal(dsa.dynamicChoices, true, 'NSA_CHOICES is DSA_CHOICES, which add_dsa_choices grows');
    assert.equal(entry(split, '--attention-backend').dynamicChoices, true);
    assert.deepEqual(entry(split, '--attention-backend').deprecatedChoices, [{ value: 'nsa', replacement: 'dsa' }]);
    assert.equal(entry(split, '--fp4-gemm-backend').dynamicChoices, true);
    assert.equal(entry(split, '--grammar-backend').dynamicChoices, undefined);
    const list = (name: string) => split.choiceLists.find((l) => l.name === name);
    assert.equal(list('NSA_CHOICES')?.file, 'sglang/srt/arg_groups/choices.py');
    assert.deepEqual(list('DSA_CHOICES')?.hooks, ['add_dsa_choices']);
    assert.deepEqual(list('FP4_GEMM_BACKEND_CHOICES')?.hooks, ['add_fp4_gemm_backend_choices']);
    assert.deepEqual(list('FP4_GEMM_BACKEND_CHOICES')?.usedBy, ['--fp4-gemm-backend']);
    assert.deepEqual(list('ATTENTION_BACKEND_CHOICES')?.hooks, ['add_attention_backend_choices']);
    assert.equal(list('ATTENTION_BACKEND_CHOICES')?.line, 5);
  });

  it('an assembled ServerArgs (collect_input_fields + POSITIONAL_FIELD_ORDER), read through any readFile', async () => {
    const files = new Map<string, string>();
    for (const f of [
      'arg_groups/arg_utils.py',
      'arg_groups/choices.py',
      'arg_groups/fields/model.py',
      'arg_groups/fields/attention.py',
      'arg_groups/fields/kernel.py',
      'arg_groups/fields/serving.py',
    ])
      files.set(`sglang/srt/${f}`, readFileSync(join(SPLIT, 'sglang', 'srt', f), 'utf8'));
    files.set('sglang/srt/arg_groups/field_order.py', 'POSITIONAL_FIELD_ORDER = (\n    "model_path",\n    "host",\n    "tp_size",\n)\n');
    files.set(
      'sglang/srt/arg_groups/fields/__init__.py',
      'from sglang.srt.arg_groups.field_order import POSITIONAL_FIELD_ORDER\n\n\ndef collect_input_fields(sources):\n    return sources\n',
    );
    files.set(
      'sglang/srt/server_args.py',
      [
        'from sglang.srt.arg_groups.arg_utils import add_cli_args_from_dataclass',
        'from sglang.srt.arg_groups.fields import collect_input_fields',
        'from sglang.srt.arg_groups.fields.model import Model',
        'from sglang.srt.arg_groups.fields.serving import Serving',
        'from sglang.srt.arg_groups.fields.attention import Attention',
        '',
        '',
        'class ServerArgs:',
        '    @staticmethod',
        '    def add_cli_args(parser):',
        '        add_cli_args_from_dataclass(parser, ServerArgs)',
        '        parser.add_argument("--config", type=str, help="A YAML file.")',
        '',
        '',
        '_INPUT_NAMESPACES = [Model, Attention, Serving]',
        '_annotations, _defaults, _namespaces = collect_input_fields(_INPUT_NAMESPACES)',
        '',
      ].join('\n'),
    );
    const asked: string[] = [];
    const readFile: PackageReadFile = (rel) => {
      asked.push(rel);
      return Promise.resolve(files.get(rel));
    };
    const c = await buildPackageCatalog('sglang/srt/server_args.py', readFile);
    assert.equal(c.package.layout, 'split');
    assert.deepEqual(
      c.entries.map((e) => e.field),
      ['model_path', 'host', 'tp_size', 'load_format', 'trust_remote_code', 'context_length', 'attention_backend', 'dsa_decode_backend', 'port', 'config'],
    );
    assert.equal(entry(c, '--dsa-decode-backend').dynamicChoices, true);
    assert.ok(!asked.includes('sglang/srt/arg_groups/fields/kernel.py'), 'only the modules it names are read');
  });

  it('a server_args.py of an older layout reads exactly as before (plus file)', async () => {
    for (const f of ['inline_v04.py', 'choices_lists_2025.py', 'dataclass_main.py']) {
      const pkg = await resolveLocalPackage(join(FIXTURES, f));
      assert.ok(pkg);
      assert.equal(pkg.serverArgs, f);
      const viaPackage = await buildPackageCatalog(pkg.serverArgs, pkg.readFile);
      const viaText = await buildCatalog(read(f), { keepTree: false });
      assert.equal(viaPackage.package.layout, 'single', f);
      assert.ok(viaPackage.entries.every((e) => e.file === f));
      const strip = (c: FlagCatalog) =>
        catalogToJson({ ...c, entries: c.entries.map(({ file: _f, ...e }) => e), choiceLists: c.choiceLists.map(({ file: _f, ...l }) => l) });
      assert.deepEqual(strip(viaPackage), strip(viaText), f);
    }
  });

  it('PATH may be server_args.py, the sglang package or the srt directory', async () => {
    for (const p of [join(SPLIT, 'sglang', 'srt', 'server_args.py'), join(SPLIT, 'sglang'), join(SPLIT, 'sglang', 'srt'), SPLIT]) {
      const pkg = await resolveLocalPackage(p);
      assert.ok(pkg, p);
      assert.equal(pkg.root, SPLIT);
      assert.equal(pkg.serverArgs, 'sglang/srt/server_args.py');
    }
    assert.equal(await resolveLocalPackage(join(SPLIT, 'nowhere')), undefined);
  });

  it('unreadable base classes and files become diagnostics, never a throw', async () => {
    const text = readFileSync(join(SPLIT, 'sglang', 'srt', 'server_args.py'), 'utf8');
    const c = await buildPackageCatalog('sglang/srt/server_args.py', (rel) => Promise.resolve(rel === 'sglang/srt/server_args.py' ? text : undefined));
    assert.ok(c.diagnostics.some((d) => /Base class (Serving|Kernel|Model)/.test(d.message)));
    assert.ok(c.entries.some((e) => e.flag === '--config'));
    const none = await buildPackageCatalog('sglang/srt/server_args.py', () => Promise.resolve(undefined));
    assert.equal(none.entries.length, 0);
    assert.equal(none.diagnostics[0].severity, 'error');
  });

  (existsSync(SGLANG_MAIN) ? it : it.skip)(`SGLang main's split layout (${SGLANG_MAIN}) reads as completely as the one-file era`, async () => {
    const pkg = await resolveLocalPackage(SGLANG_MAIN);
    assert.ok(pkg);
    const c = await buildPackageCatalog(pkg.serverArgs, pkg.readFile);
    assert.equal(c.package.layout, 'split');
    assert.ok(c.entries.length > 450, `${c.entries.length} flags`);
    assert.ok(new Set(c.entries.map((e) => e.file)).size >= 12);
    const fp4 = entry(c, '--fp4-gemm-backend');
    assert.equal(fp4.file, 'sglang/srt/arg_groups/fields/exec_.py');
    assert.equal(fp4.field, 'fp4_gemm_runner_backend');
    assert.ok(fp4.choices && fp4.choices.length >= 5 && fp4.dynamicChoices);
    assert.equal(c.entries[0].flag, '--model-path', 'POSITIONAL_FIELD_ORDER puts model_path first');
    assert.deepEqual(entry(c, '--tp-size').aliases, ['--tensor-parallel-size']);
    assert.equal(entry(c, '--sampling-backend').file, 'sglang/srt/server_args.py');
  });
});
