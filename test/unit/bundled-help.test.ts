import * as assert from 'node:assert/strict';
import {
  BUNDLED_ARCH_LABELS,
  BUNDLED_FLAG_HELP,
  BUNDLED_HELP_ALIASES,
  bundledArchOf,
  bundledHelpFor,
  bundledHelpMarkdown,
  type BundledGpuArch,
} from '../../src/core/flags/bundledHelp';

/**
 * Facts, not text: the first and last SGLang release whose server_args.py declares each flag
 * (option strings of add_argument calls and dataclass fields, read from the release tags
 * v0.3.0 ... v0.5.18 of sgl-project/sglang with this project's catalog extractor).
 */
const RELEASE_FLAGS: Readonly<Record<string, readonly [string, string]>> = {
  '--attention-backend': ['v0.3.1.post1', 'v0.5.18'],
  '--bf16-gemm-backend': ['v0.5.15', 'v0.5.18'],
  '--chunked-prefill-size': ['v0.3.0', 'v0.5.18'],
  '--context-length': ['v0.3.0', 'v0.5.18'],
  '--cuda-graph-backend-decode': ['v0.5.14', 'v0.5.18'],
  '--cuda-graph-backend-prefill': ['v0.5.14', 'v0.5.18'],
  '--cuda-graph-bs': ['v0.4.1.post5', 'v0.5.18'],
  '--cuda-graph-bs-decode': ['v0.5.14', 'v0.5.18'],
  '--cuda-graph-max-bs': ['v0.3.5', 'v0.5.18'],
  '--cuda-graph-max-bs-decode': ['v0.5.14', 'v0.5.18'],
  '--data-parallel-size': ['v0.3.0', 'v0.5.18'],
  '--decode-attention-backend': ['v0.4.9.post5', 'v0.5.18'],
  '--deepep-mode': ['v0.4.4.post4', 'v0.5.18'],
  '--disable-cuda-graph': ['v0.3.0', 'v0.5.18'],
  '--disable-cuda-graph-padding': ['v0.3.0', 'v0.5.18'],
  '--disable-custom-all-reduce': ['v0.3.0', 'v0.5.18'],
  '--disable-nan-detection': ['v0.3.4', 'v0.4.0.post1'],
  '--disable-overlap-schedule': ['v0.3.6', 'v0.5.18'],
  '--disable-radix-cache': ['v0.3.0', 'v0.5.18'],
  '--disable-shared-experts-fusion': ['v0.4.4.post4', 'v0.5.18'],
  '--disaggregation-mode': ['v0.4.4.post2', 'v0.5.18'],
  '--disaggregation-transfer-backend': ['v0.4.5.post1', 'v0.5.18'],
  '--dp-size': ['v0.3.0', 'v0.5.18'],
  '--dsa-decode-backend': ['v0.5.13', 'v0.5.18'],
  '--dsa-prefill-backend': ['v0.5.13', 'v0.5.18'],
  '--dtype': ['v0.3.0', 'v0.5.18'],
  '--enable-deepep-moe': ['v0.4.4.post2', 'v0.5.4'],
  '--enable-deterministic-inference': ['v0.5.3', 'v0.5.18'],
  '--enable-dp-attention': ['v0.3.6', 'v0.5.18'],
  '--enable-ep-moe': ['v0.4.0.post1', 'v0.5.4'],
  '--enable-eplb': ['v0.4.6.post5', 'v0.5.18'],
  '--enable-fp32-lm-head': ['v0.5.3', 'v0.5.18'],
  '--enable-hierarchical-cache': ['v0.4.2.post1', 'v0.5.18'],
  '--enable-mixed-chunk': ['v0.3.0', 'v0.5.18'],
  '--enable-nan-detection': ['v0.3.6', 'v0.5.12.post1'],
  '--enable-symm-mem': ['v0.4.10.post2', 'v0.5.18'],
  '--enable-torch-compile': ['v0.3.0', 'v0.5.18'],
  '--enable-torch-symm-mem': ['v0.5.3', 'v0.5.18'],
  '--enable-two-batch-overlap': ['v0.4.7', 'v0.5.18'],
  '--ep': ['v0.4.10', 'v0.5.18'],
  '--ep-num-redundant-experts': ['v0.4.6.post5', 'v0.5.18'],
  '--ep-size': ['v0.4.0.post1', 'v0.5.18'],
  '--expert-parallel-size': ['v0.4.0.post1', 'v0.5.18'],
  '--flashinfer-mxfp4-moe-precision': ['v0.5.1', 'v0.5.18'],
  '--fp4-gemm-backend': ['v0.5.8', 'v0.5.18'],
  '--fp8-gemm-backend': ['v0.5.6.post2', 'v0.5.18'],
  '--grammar-backend': ['v0.3.5', 'v0.5.18'],
  '--hicache-io-backend': ['v0.4.9.post1', 'v0.5.18'],
  '--hicache-ratio': ['v0.4.4.post2', 'v0.5.18'],
  '--hicache-size': ['v0.4.5.post3', 'v0.5.18'],
  '--hicache-storage-backend': ['v0.4.9.post3', 'v0.5.18'],
  '--hicache-write-policy': ['v0.4.5.post3', 'v0.5.18'],
  '--init-expert-location': ['v0.4.6.post5', 'v0.5.18'],
  '--json-model-override-args': ['v0.3.1.post1', 'v0.5.18'],
  '--kv-cache-dtype': ['v0.3.0', 'v0.5.18'],
  '--load-format': ['v0.3.0', 'v0.5.18'],
  '--lora-backend': ['v0.4.2.post2', 'v0.5.18'],
  '--mamba-backend': ['v0.5.9', 'v0.5.18'],
  '--mamba-ssm-dtype': ['v0.5.2', 'v0.5.18'],
  '--max-running-requests': ['v0.3.0', 'v0.5.18'],
  '--max-total-tokens': ['v0.3.0', 'v0.5.18'],
  '--mem-fraction-static': ['v0.3.0', 'v0.5.18'],
  '--mm-attention-backend': ['v0.4.6.post3', 'v0.5.18'],
  '--model': ['v0.4.8.post1', 'v0.5.18'],
  '--model-path': ['v0.3.0', 'v0.5.18'],
  '--moe-a2a-backend': ['v0.4.10.post2', 'v0.5.18'],
  '--moe-dense-tp-size': ['v0.4.5.post2', 'v0.5.18'],
  '--moe-runner-backend': ['v0.5.1', 'v0.5.18'],
  '--nsa-decode-backend': ['v0.5.4', 'v0.5.18'],
  '--nsa-prefill-backend': ['v0.5.4', 'v0.5.18'],
  '--page-size': ['v0.4.4', 'v0.5.18'],
  '--pipeline-parallel-size': ['v0.4.6.post2', 'v0.5.18'],
  '--pp-size': ['v0.4.6.post2', 'v0.5.18'],
  '--prefill-attention-backend': ['v0.4.9.post5', 'v0.5.18'],
  '--quantization': ['v0.3.0', 'v0.5.18'],
  '--quantization-param-path': ['v0.4.1.post6', 'v0.5.18'],
  '--random-seed': ['v0.3.0', 'v0.5.18'],
  '--reasoning-parser': ['v0.4.3.post3', 'v0.5.18'],
  '--sampling-backend': ['v0.3.1.post1', 'v0.5.18'],
  '--served-model-name': ['v0.3.0', 'v0.5.18'],
  '--speculative-algorithm': ['v0.4.1.post4', 'v0.5.18'],
  '--speculative-attention-mode': ['v0.5.2', 'v0.5.18'],
  '--speculative-draft-attention-backend': ['v0.5.7', 'v0.5.18'],
  '--speculative-draft-model-path': ['v0.4.1.post4', 'v0.5.18'],
  '--speculative-eagle-topk': ['v0.4.1.post4', 'v0.5.18'],
  '--speculative-moe-runner-backend': ['v0.5.4.post3', 'v0.5.18'],
  '--speculative-num-draft-tokens': ['v0.4.1.post4', 'v0.5.18'],
  '--speculative-num-steps': ['v0.4.1.post4', 'v0.5.18'],
  '--tensor-parallel-size': ['v0.3.0', 'v0.5.18'],
  '--tool-call-parser': ['v0.4.2', 'v0.5.18'],
  '--torch-compile-max-bs': ['v0.3.5', 'v0.5.18'],
  '--tp-size': ['v0.3.0', 'v0.5.18'],
  '--triton-attention-num-kv-splits': ['v0.4.0.post2', 'v0.5.18'],
  '--triton-attention-reduce-in-fp32': ['v0.3.0', 'v0.5.18'],
  '--trust-remote-code': ['v0.3.0', 'v0.5.18'],
};

/** Aliases that are no release's option string, and why they still resolve. */
const NON_RELEASE_ALIASES: Readonly<Record<string, 'field-name' | 'argparse-prefix'>> = {
  // The dataclass field (and /server_info key) with dashes; the flag was always --fpN-gemm-backend.
  '--fp4-gemm-runner-backend': 'field-name',
  '--fp8-gemm-runner-backend': 'field-name',
  // Unique prefixes of one long flag in every release, which argparse's allow_abbrev accepts.
  '--tp': 'argparse-prefix',
  '--dp': 'argparse-prefix',
};

/** Release tags v0.3.0 ... v0.5.18 of sgl-project/sglang (facts: the tag names). */
const RELEASE_TAGS = new Set(
  (
    'v0.3.0 v0.3.1.post1 v0.3.1.post2 v0.3.1.post3 v0.3.2 v0.3.3 v0.3.3.post1 v0.3.4 v0.3.4.post1 v0.3.4.post2 v0.3.5 v0.3.5.post1 ' +
    'v0.3.5.post2 v0.3.6 v0.3.6.post1 v0.3.6.post2 v0.3.6.post3 v0.4.0 v0.4.0.post1 v0.4.0.post2 v0.4.1 v0.4.1.post1 v0.4.1.post2 ' +
    'v0.4.1.post3 v0.4.1.post4 v0.4.1.post5 v0.4.1.post6 v0.4.1.post7 v0.4.2 v0.4.2.post1 v0.4.2.post2 v0.4.2.post3 v0.4.2.post4 v0.4.3 ' +
    'v0.4.3.post1 v0.4.3.post2 v0.4.3.post3 v0.4.3.post4 v0.4.4 v0.4.4.post1 v0.4.4.post2 v0.4.4.post3 v0.4.4.post4 v0.4.5 v0.4.5.post1 ' +
    'v0.4.5.post2 v0.4.5.post3 v0.4.6 v0.4.6.post1 v0.4.6.post2 v0.4.6.post3 v0.4.6.post4 v0.4.6.post5 v0.4.7 v0.4.7.post1 v0.4.8 ' +
    'v0.4.8.post1 v0.4.9 v0.4.9.post1 v0.4.9.post2 v0.4.9.post3 v0.4.9.post4 v0.4.9.post5 v0.4.9.post6 v0.4.10 v0.4.10.post1 ' +
    'v0.4.10.post2 v0.5.1 v0.5.1.post1 v0.5.1.post2 v0.5.1.post3 v0.5.2 v0.5.3 v0.5.3.post1 v0.5.3.post2 v0.5.3.post3 v0.5.4 ' +
    'v0.5.4.post1 v0.5.4.post2 v0.5.4.post3 v0.5.5 v0.5.5.post1 v0.5.5.post2 v0.5.5.post3 v0.5.6 v0.5.6.post1 v0.5.6.post2 v0.5.7 ' +
    'v0.5.8 v0.5.8.post1 v0.5.9 v0.5.10 v0.5.10.post1 v0.5.11 v0.5.12 v0.5.12.post1 v0.5.13 v0.5.13.post1 v0.5.14 v0.5.15 ' +
    'v0.5.15.post1 v0.5.16 v0.5.17 v0.5.18'
  ).split(' '),
);

/** The flags the catalog's hover must explain (old and new names). */
const REQUIRED = [
  '--attention-backend',
  '--prefill-attention-backend',
  '--decode-attention-backend',
  '--mm-attention-backend',
  '--speculative-draft-attention-backend',
  '--sampling-backend',
  '--grammar-backend',
  '--moe-runner-backend',
  '--moe-a2a-backend',
  '--fp8-gemm-backend',
  '--fp8-gemm-runner-backend',
  '--fp4-gemm-backend',
  '--fp4-gemm-runner-backend',
  '--flashinfer-mxfp4-moe-precision',
  '--quantization',
  '--kv-cache-dtype',
  '--dtype',
  '--load-format',
  '--cuda-graph-max-bs',
  '--cuda-graph-bs',
  '--disable-cuda-graph',
  '--disable-cuda-graph-padding',
  '--enable-torch-compile',
  '--torch-compile-max-bs',
  '--disable-radix-cache',
  '--chunked-prefill-size',
  '--mem-fraction-static',
  '--max-running-requests',
  '--max-total-tokens',
  '--page-size',
  '--tp-size',
  '--tp',
  '--dp-size',
  '--ep-size',
  '--pp-size',
  '--enable-dp-attention',
  '--enable-deepep-moe',
  '--deepep-mode',
  '--enable-ep-moe',
  '--speculative-algorithm',
  '--speculative-num-steps',
  '--speculative-eagle-topk',
  '--speculative-num-draft-tokens',
  '--lora-backend',
  '--disaggregation-mode',
  '--disaggregation-transfer-backend',
  '--enable-mixed-chunk',
  '--enable-two-batch-overlap',
  '--disable-overlap-schedule',
  '--enable-nan-detection',
  '--triton-attention-num-kv-splits',
  '--nsa-prefill-backend',
  '--nsa-decode-backend',
  '--dsa-prefill-backend',
  '--dsa-decode-backend',
  '--mamba-ssm-dtype',
  '--enable-fp32-lm-head',
  '--model-path',
  '--served-model-name',
  '--trust-remote-code',
  '--context-length',
  '--random-seed',
  '--enable-deterministic-inference',
  '--enable-hierarchical-cache',
  '--quantization-param-path',
  '--json-model-override-args',
  '--disable-custom-all-reduce',
  '--enable-symm-mem',
  '--moe-dense-tp-size',
  '--ep-num-redundant-experts',
  '--init-expert-location',
  '--tool-call-parser',
  '--reasoning-parser',
];

const ARCHES = new Set<BundledGpuArch>(['sm80', 'sm89', 'sm90', 'sm100', 'sm120', 'rocm', 'any']);
const VERSION = /\bv\d+\.\d+\.\d+(?:\.post\d+)?/g;

/** Every text of an entry, with a label for messages. */
function textsOf(flag: string): [string, string][] {
  const h = BUNDLED_FLAG_HELP[flag];
  const out: [string, string][] = [[`${flag} summary`, h.summary]];
  if (h.when !== undefined) out.push([`${flag} when`, h.when]);
  for (const g of h.gpus ?? []) out.push([`${flag} ${g.arch}`, g.note]);
  return out;
}

/** The text outside `code spans`. */
function outsideCode(md: string): string {
  return md.replace(/`[^`]*`/g, '');
}

describe('bundled flag help', () => {
  const keys = Object.keys(BUNDLED_FLAG_HELP);

  it('has at least 60 entries', () => {
    assert.ok(keys.length >= 60, `only ${keys.length} entries`);
  });

  it('keys only flags that exist in at least one SGLang release', () => {
    for (const k of keys) assert.ok(Object.hasOwn(RELEASE_FLAGS, k), `${k} is no release's flag`);
  });

  it('keeps every text within its length limit, trimmed and non-empty', () => {
    for (const k of keys) {
      const h = BUNDLED_FLAG_HELP[k];
      assert.ok(h.summary.length > 0 && h.summary.length <= 90, `${k} summary is ${h.summary.length} chars`);
      if (h.when !== undefined) assert.ok(h.when.length > 0 && h.when.length <= 200, `${k} when is ${h.when.length} chars`);
      for (const g of h.gpus ?? []) {
        assert.ok(ARCHES.has(g.arch), `${k}: unknown arch ${g.arch}`);
        assert.ok(g.note.length > 0 && g.note.length <= 160, `${k} ${g.arch} note is ${g.note.length} chars`);
      }
      for (const [where, t] of textsOf(k)) {
        assert.equal(t, t.trim(), `${where} has outer whitespace`);
        assert.ok(!/[\n\r\t]/.test(t), `${where} has a control character`);
        assert.ok(!/[<>]/.test(t), `${where} has an angle bracket`);
        assert.equal((t.match(/`/g) ?? []).length % 2, 0, `${where} has an unbalanced backtick`);
      }
    }
  });

  it('names only real release tags when it cites a version', () => {
    for (const k of keys) {
      for (const [where, t] of textsOf(k)) {
        for (const v of t.match(VERSION) ?? []) assert.ok(RELEASE_TAGS.has(v), `${where} cites ${v}, not a release tag`);
      }
    }
  });

  it('agrees with the release table where a summary gives a first release or a range', () => {
    for (const k of keys) {
      const s = BUNDLED_FLAG_HELP[k].summary;
      const [first, last] = RELEASE_FLAGS[k];
      const since = /\((v[\d.]+(?:post\d+)?)\+\)/.exec(s);
      if (since) assert.equal(since[1], first, `${k}: summary says since ${since[1]}, releases say ${first}`);
      const range = /\((v[\d.]+(?:post\d+)?) to (v[\d.]+(?:post\d+)?)\)/.exec(s);
      if (range) assert.deepEqual([range[1], range[2]], [first, last], `${k}: summary range differs from the releases`);
    }
  });

  it('covers every required flag, directly or through an alias', () => {
    for (const f of REQUIRED) assert.ok(bundledHelpFor(f), `no help for ${f}`);
  });

  it('resolves every alias to an existing entry, and each alias is a real name', () => {
    for (const [alias, target] of Object.entries(BUNDLED_HELP_ALIASES)) {
      assert.ok(Object.hasOwn(BUNDLED_FLAG_HELP, target), `${alias} -> ${target}: no such entry`);
      assert.ok(!Object.hasOwn(BUNDLED_FLAG_HELP, alias), `${alias} is both an alias and an entry`);
      assert.equal(bundledHelpFor(alias), BUNDLED_FLAG_HELP[target]);
      const why = NON_RELEASE_ALIASES[alias];
      if (why === 'argparse-prefix') assert.ok(target.startsWith(alias), `${alias} is no prefix of ${target}`);
      else if (why === 'field-name') assert.ok(Object.hasOwn(RELEASE_FLAGS, target), `${target} is no release flag`);
      else assert.ok(Object.hasOwn(RELEASE_FLAGS, alias), `${alias} is no release's flag`);
    }
    assert.equal(bundledHelpFor('--fp4-gemm-runner-backend'), BUNDLED_FLAG_HELP['--fp4-gemm-backend']);
    assert.equal(bundledHelpFor('--nsa-decode-backend'), BUNDLED_FLAG_HELP['--dsa-decode-backend']);
    assert.equal(bundledHelpFor('--cuda-graph-max-bs'), BUNDLED_FLAG_HELP['--cuda-graph-max-bs-decode']);
  });

  it('normalises what people write: =value, field names, missing dashes, case', () => {
    const fp4 = BUNDLED_FLAG_HELP['--fp4-gemm-backend'];
    assert.equal(bundledHelpFor('--fp4-gemm-backend=marlin'), fp4);
    assert.equal(bundledHelpFor('fp4_gemm_runner_backend'), fp4);
    assert.equal(bundledHelpFor('fp4-gemm-backend'), fp4);
    assert.equal(bundledHelpFor('  --FP4-GEMM-BACKEND '), fp4);
    assert.equal(bundledHelpFor('--tp=8'), BUNDLED_FLAG_HELP['--tp-size']);
    assert.equal(bundledHelpFor('--no-such-flag'), undefined);
    assert.equal(bundledHelpFor(''), undefined);
    for (const proto of ['__proto__', 'constructor', 'toString', '--__proto__', 'hasOwnProperty']) assert.equal(bundledHelpFor(proto), undefined, proto);
  });

  it('is frozen', () => {
    assert.ok(Object.isFrozen(BUNDLED_FLAG_HELP));
    assert.ok(Object.isFrozen(BUNDLED_HELP_ALIASES));
  });

  it('maps compute capabilities to the arch of their notes', () => {
    assert.equal(bundledArchOf(8.0), 'sm80');
    assert.equal(bundledArchOf(8.6), 'sm80');
    assert.equal(bundledArchOf(8.9), 'sm89');
    assert.equal(bundledArchOf(9.0), 'sm90');
    assert.equal(bundledArchOf(10.0), 'sm100');
    assert.equal(bundledArchOf(10.3), 'sm100');
    assert.equal(bundledArchOf(12.0), 'sm120');
    assert.equal(bundledArchOf(12.1), 'sm120');
    assert.equal(bundledArchOf(7.5), undefined);
    assert.equal(bundledArchOf(Number.NaN), undefined);
  });

  describe('markdown', () => {
    /** The GPU note lines of a hover, in order. */
    const noteLines = (md: string): string[] => md.split('\n').filter((l) => l.startsWith('- **'));

    it('puts the note of the matching GPU first and marks it', () => {
      const cases: [number, BundledGpuArch][] = [
        [12.0, 'sm120'],
        [10.0, 'sm100'],
        [10.3, 'sm100'],
        [9.0, 'sm90'],
        [8.0, 'sm80'],
      ];
      for (const [cc, arch] of cases) {
        const lines = noteLines(bundledHelpMarkdown('--attention-backend', cc)!);
        assert.ok(lines[0].startsWith(`- **${BUNDLED_ARCH_LABELS[arch].replace(/[\\*_[\]<>#|!]/g, (c) => `\\${c}`)} (this GPU):**`), `${cc}: ${lines[0]}`);
        const mine = BUNDLED_FLAG_HELP['--attention-backend'].gpus!.filter((g) => g.arch === arch).length;
        for (let i = 0; i < lines.length; i++) assert.equal(lines[i].includes('(this GPU)'), i < mine, `${cc}: line ${i}`);
      }
    });

    it('keeps the declared order with `any` first when no GPU matches', () => {
      const md = bundledHelpMarkdown('--page-size')!;
      const lines = noteLines(md);
      assert.ok(lines[0].startsWith('- **Any GPU:**'), lines[0]);
      assert.ok(!md.includes('(this GPU)'));
      const other = noteLines(bundledHelpMarkdown('--page-size', 7.5)!);
      assert.deepEqual(other, lines);
    });

    it('includes the summary and the advice, through aliases too', () => {
      const md = bundledHelpMarkdown('--fp4-gemm-runner-backend', 12.0)!;
      const h = BUNDLED_FLAG_HELP['--fp4-gemm-backend'];
      assert.ok(md.startsWith(h.summary.replace(/[\\*_[\]<>#|!]/g, (c) => `\\${c}`)));
      assert.ok(md.includes('**When to change it:**'));
      assert.equal(bundledHelpMarkdown('--no-such-flag'), undefined);
      assert.ok(!bundledHelpMarkdown('--served-model-name')!.includes('- **'), 'an entry without GPU notes has no list');
    });

    it('renders nothing dangerous: no HTML, no links, no command URIs', () => {
      for (const k of [...keys, ...Object.keys(BUNDLED_HELP_ALIASES)]) {
        for (const cc of [undefined, 8.9, 9.0, 10.0, 12.0]) {
          const md = bundledHelpMarkdown(k, cc)!;
          assert.ok(md, k);
          assert.ok(!/command:/i.test(md), `${k}: command URI`);
          assert.ok(!/<[a-z/!?]/i.test(md), `${k}: raw HTML`);
          assert.ok(!/\]\(/.test(outsideCode(md)), `${k}: Markdown link`);
          assert.ok(!/(^|[^\\])[[\]]/.test(outsideCode(md).replace(/\\\\/g, '')), `${k}: unescaped bracket`);
          assert.ok(!/https?:|javascript:|data:/i.test(md), `${k}: URL`);
        }
      }
    });
  });
});
