import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  builtinRules,
  competingFixAdvice,
  compareVersions,
  globToRegExp,
  matchRules,
  mergeRules,
  parseRulesText,
  parseVersion,
  satisfies,
  validateAgainstSchema,
  ruleSchema,
} from '../../src/core/rules/index';
import type { KnownBadRule, MatchContext } from '../../src/core/rules/index';

const root = join(__dirname, '..', '..');
const builtin = builtinRules();

/** One scenario per row of sglang-facts.md section 5: the context that row describes. */
const SCENARIOS: Record<string, MatchContext> = {
  'sm120-nvfp4-moe-fp4-cutlass-nan': {
    fields: { fp4_gemm_runner_backend: 'flashinfer_cutlass' },
    computeCapability: 12.0,
    modelName: 'nvidia/Qwen3.5-397B-A17B-NVFP4',
  },
  'sm120-gdn-hybrid-flashinfer-attention': {
    fields: { attention_backend: 'flashinfer' },
    computeCapability: 12.0,
    modelName: 'Qwen/Qwen3-Next-80B-A3B-Instruct',
  },
  'sm100-nvfp4-moe-trtllm-flashinfer-0616': {
    fields: { moe_runner_backend: 'flashinfer_trtllm' },
    computeCapability: 10.3,
    quantization: 'modelopt_fp4',
    versions: { 'flashinfer-python': '0.6.16.post4' },
  },
  'b200-minimax-nvfp4-trtllm-moe-mojibake': {
    fields: { moe_runner_backend: 'flashinfer_trtllm' },
    computeCapability: 10.0,
    modelName: 'nvidia/MiniMax-M2.7-NVFP4',
  },
  'deepseek-b200-trtllm-mla-gibberish': { fields: { attention_backend: 'trtllm_mla' }, computeCapability: 10.0, modelName: 'deepseek-ai/DeepSeek-R1-0528' },
  'glm47-flash-sm120-flashinfer-attention': { fields: { attention_backend: 'flashinfer' }, computeCapability: 12.0, modelName: 'zai-org/GLM-4.7-Flash' },
  'h100-fp8-fa3-fp8kv-repetition': {
    fields: { attention_backend: 'fa3', kv_cache_dtype: 'fp8_e4m3' },
    computeCapability: 9.0,
    modelName: 'Qwen/Qwen3-32B-FP8',
  },
  'qwq-fa3-fp8kv-nonsense': { fields: { attention_backend: 'fa3', kv_cache_dtype: 'fp8_e5m2' }, modelName: 'Qwen/QwQ-32B' },
  'glm51-fp8-b300-fp8kv-accuracy': { fields: { kv_cache_dtype: 'fp8_e4m3' }, computeCapability: 10.3, modelName: 'zai-org/GLM-5.1-FP8' },
  'sanitize-nan-logits-hides-nan': { fields: {}, env: { SGLANG_SANITIZE_NAN_LOGITS: '1' } },
  'qwen35-mxfp4-token0-flood': { fields: {}, modelName: 'Qwen/Qwen3.5-35B-A3B-MXFP4' },
  'sm120-nvfp4-dense-gemm-zeros': { fields: { fp4_gemm_runner_backend: 'auto' }, computeCapability: 12.0, quantization: 'modelopt_fp4' },
  'sm120-fp8-deepgemm-crash': { fields: { fp8_gemm_runner_backend: 'auto' }, computeCapability: 12.0, modelName: 'Qwen/Qwen3-30B-A3B-FP8' },
  'glm47-nvfp4-trtllm-moe-old-flashinfer': {
    fields: { moe_runner_backend: 'flashinfer_trtllm' },
    modelName: 'nvidia/GLM-4.7-NVFP4',
    versions: { flashinfer: '0.6.1' },
  },
  'vllm-sm120-flashinfer-fp8kv-cudagraph': {
    fields: { attention_backend: 'FLASHINFER', kv_cache_dtype: 'fp8', enforce_eager: false },
    computeCapability: 12.0,
    engine: 'vllm',
  },
  'qwen25-coder-cudagraph-broken-under-load': { fields: { disable_cuda_graph: false }, modelName: 'Qwen/Qwen2.5-Coder-7B-Instruct' },
};

describe('rules: built-in known-bad set', () => {
  it('loads and validates without errors', () => {
    assert.deepEqual(builtin.errors, []);
    assert.equal(builtin.rules.length, 16);
  });

  it('the JSON file itself validates against the schema', () => {
    const data = JSON.parse(readFileSync(join(root, 'rules/known-bad.json'), 'utf8'));
    assert.deepEqual(validateAgainstSchema(ruleSchema, data), []);
  });

  it('has every section-5 row, with sources and engine', () => {
    assert.deepEqual(builtin.rules.map((r) => r.id).sort(), Object.keys(SCENARIOS).sort());
    const urls = builtin.rules.flatMap((r) => r.sources).filter((s) => s.startsWith('https://'));
    for (const n of [
      'sglang/issues/34629',
      'sglang/issues/26324',
      'sglang/issues/8736',
      'sglang/issues/18874',
      'sglang/issues/20820',
      'sglang/issues/5700',
      'sglang/issues/22671',
      'sglang/issues/33187',
      'sglang/issues/33817',
      'flashinfer/issues/2577',
      'sglang/issues/18870',
      'flashinfer/issues/2485',
      'vllm/issues/41651',
      'sglang/issues/1863',
    ]) {
      assert.ok(
        urls.some((u) => u.endsWith(n)),
        n,
      );
    }
    assert.equal(builtin.rules.find((r) => r.id === 'vllm-sm120-flashinfer-fp8kv-cudagraph')!.engine, 'vllm');
    assert.equal(builtin.rules.find((r) => r.id === 'deepseek-b200-trtllm-mla-gibberish')!.confidence, 'unconfirmed');
  });

  for (const [id, ctx] of Object.entries(SCENARIOS)) {
    it(`${id} fully matches its own scenario`, () => {
      const hit = matchRules(builtin.rules, ctx).find((m) => m.rule.id === id);
      assert.ok(hit, `no match for ${id}`);
      assert.equal(hit.status, 'match', JSON.stringify(hit.unknown));
    });
  }

  it('the incident command on an RTX PRO 6000 no longer matches the incident rule once fixed', () => {
    const fixed = {
      fields: { fp4_gemm_runner_backend: 'flashinfer_cudnn', moe_runner_backend: 'flashinfer_cutlass', attention_backend: 'triton' },
      computeCapability: 12.0,
      modelName: 'nvidia/Qwen3.5-397B-A17B-NVFP4',
    };
    const ids = matchRules(builtin.rules, fixed).map((m) => m.rule.id);
    assert.ok(!ids.includes('sm120-nvfp4-moe-fp4-cutlass-nan'));
    assert.ok(!ids.includes('sm120-gdn-hybrid-flashinfer-attention'));
  });

  it('an unknown GPU is reported as unknown, not as a failure', () => {
    const ms = matchRules(builtin.rules, { fields: { fp4_gemm_runner_backend: 'flashinfer_cutlass' }, modelName: 'nvidia/Qwen3.5-397B-A17B-NVFP4' });
    const m = ms.find((x) => x.rule.id === 'sm120-nvfp4-moe-fp4-cutlass-nan')!;
    assert.equal(m.status, 'possible');
    assert.deepEqual(
      m.unknown.map((u) => u.kind),
      ['gpu'],
    );
    assert.match(m.unknown[0].message, /applies to SM 12\.x GPUs.*the GPU is unknown/);
    // known and different GPU: the rule fails
    assert.ok(
      !matchRules(builtin.rules, {
        fields: { fp4_gemm_runner_backend: 'flashinfer_cutlass' },
        modelName: 'nvidia/Qwen3.5-397B-A17B-NVFP4',
        computeCapability: 9.0,
      }).some((x) => x.rule.id === m.rule.id),
    );
  });

  it('versions outside the range and other engines do not match; unknown versions are unknown', () => {
    const base = SCENARIOS['sm100-nvfp4-moe-trtllm-flashinfer-0616'];
    const id = 'sm100-nvfp4-moe-trtllm-flashinfer-0616';
    assert.ok(!matchRules(builtin.rules, { ...base, versions: { flashinfer: '0.6.15.post1' } }).some((m) => m.rule.id === id));
    const unk = matchRules(builtin.rules, { ...base, versions: {} }).find((m) => m.rule.id === id)!;
    assert.equal(unk.status, 'possible');
    assert.match(unk.unknown[0].message, /flashinfer >=0\.6\.16\.post4,<=0\.6\.17; the installed version is unknown/);
    assert.ok(!matchRules(builtin.rules, { ...base, engine: 'vllm' }).some((m) => m.rule.id === id));
  });

  it('an empty context matches nothing unless includeAllUnknown is set', () => {
    assert.deepEqual(matchRules(builtin.rules, { fields: {} }), []);
    assert.equal(matchRules(builtin.rules, { fields: {} }, { includeAllUnknown: true }).length, 16);
  });
});

describe('rules: workspace rules', () => {
  const good = {
    id: 'my-team-tp8-oom',
    engine: 'sglang',
    title: 'Our 8-GPU box needs a smaller static memory fraction',
    symptom: 'CUDA out of memory at start-up.',
    match: { fields: { tp_size: [8] }, gpu: { computeCapability: { min: 9.0, max: 9.0 } } },
    fix: { summary: 'Lower --mem-fraction-static.', set: [{ flag: '--mem-fraction-static', field: 'mem_fraction_static', value: 0.8 }] },
    confidence: 'confirmed',
    sources: ['internal wiki'],
  };

  it('adds valid rules, overrides built-ins by id, honours disable', () => {
    const override = { ...builtin.rules[0], title: 'Team copy', origin: undefined };
    delete (override as Partial<KnownBadRule>).origin;
    const ws = parseRulesText(JSON.stringify({ rules: [good, override], disable: ['qwq-fa3-fp8kv-nonsense'] }), '.inference-doctor/rules.json');
    assert.deepEqual(ws.errors, []);
    const merged = mergeRules(builtin, ws);
    assert.deepEqual(merged.errors, []);
    assert.deepEqual(merged.overridden, [builtin.rules[0].id]);
    assert.deepEqual(merged.disabled, ['qwq-fa3-fp8kv-nonsense']);
    assert.equal(merged.rules.length, 16);
    assert.equal(merged.rules.find((r) => r.id === builtin.rules[0].id)!.title, 'Team copy');
    const m = matchRules(merged.rules, { fields: { tp_size: 8 }, computeCapability: 9.0 });
    assert.equal(m[0].rule.id, 'my-team-tp8-oom');
    assert.equal(m[0].rule.origin, '.inference-doctor/rules.json');
  });

  it('rejects invalid rules with clear messages and keeps the valid ones', () => {
    const bad = [
      { ...good, id: 'Bad Id!' },
      { ...good, id: 'no-fix', fix: undefined },
      { ...good, id: 'bad-confidence', confidence: 'maybe' },
      { ...good, id: 'bad-range', match: { versions: { flashinfer: '>=banana' } } },
      { ...good, id: 'bad-cc', match: { gpu: { computeCapability: { min: 12, max: 9 } } } },
      { ...good, id: 'extra-prop', colour: 'red' },
      { ...good, id: 'bad-flag', fix: { summary: 'x', set: [{ flag: 'tp', field: 'tp_size', value: 2 }] } },
      { ...good, id: 'bad-field-cond', match: { fields: { tp_size: [] } } },
    ];
    const res = mergeRules(builtin, { source: 'ws/rules.json', data: JSON.parse(JSON.stringify({ rules: [good, ...bad] })) });
    assert.ok(res.rules.some((r) => r.id === 'my-team-tp8-oom'));
    const byRule = new Map<string, string[]>();
    for (const e of res.errors) byRule.set(e.rule!, [...(byRule.get(e.rule!) ?? []), `${e.path}: ${e.message}`]);
    assert.deepEqual(
      [...byRule.keys()].sort(),
      ['Bad Id!', 'bad-cc', 'bad-confidence', 'bad-field-cond', 'bad-flag', 'bad-range', 'extra-prop', 'no-fix'].sort(),
    );
    for (const e of res.errors) assert.equal(e.source, 'ws/rules.json');
    const msg = (id: string): string => byRule.get(id)!.join('\n');
    assert.match(msg('Bad Id!'), /\/rules\/1\/id: "Bad Id!" does not match/);
    assert.match(msg('no-fix'), /\/rules\/2: missing required property "fix"/);
    assert.match(msg('bad-confidence'), /\/rules\/3\/confidence: must be one of "confirmed", "likely", "unconfirmed"; got "maybe"/);
    assert.match(msg('bad-range'), /\/rules\/4\/match\/versions\/flashinfer/);
    assert.match(msg('bad-cc'), /min 12 is above max 9/);
    assert.match(msg('extra-prop'), /unknown property "colour"/);
    assert.match(msg('bad-flag'), /\/rules\/7\/fix\/set\/0\/flag: "tp" does not match/);
    assert.match(msg('bad-field-cond'), /\/rules\/8\/match\/fields\/tp_size: must have at least 1 item/);
  });

  it('reports broken JSON and wrong outer shapes', () => {
    assert.match(parseRulesText('{ "rules": [', 'x.json').errors[0].message, /not valid JSON/);
    assert.match(parseRulesText('[]', 'x.json').errors[0].message, /must be a JSON object with a "rules" array/);
    assert.match(parseRulesText('{"rules": {}}', 'x.json').errors[0].message, /must be array/);
    assert.match(parseRulesText('{"rules": [], "extra": 1}', 'x.json').errors[0].message, /unknown property "extra"/);
  });

  it('duplicate ids inside one file are rejected', () => {
    const r = parseRulesText(JSON.stringify({ rules: [good, good] }), 'dup.json');
    assert.equal(r.rules.length, 1);
    assert.match(r.errors[0].message, /duplicate rule id/);
  });
});

describe('rules: versions and globs', () => {
  const lt = (a: string, b: string): void => assert.ok(compareVersions(parseVersion(a)!, parseVersion(b)!) < 0, `${a} < ${b}`);
  it('orders PEP 440-ish versions', () => {
    lt('0.6.15', '0.6.15.post1');
    lt('0.6.15.post1', '0.6.16');
    lt('0.6.16.dev1', '0.6.16a1');
    lt('0.6.16a1', '0.6.16b2');
    lt('0.6.16rc1', '0.6.16');
    lt('0.6.16', '0.6.16.post4');
    lt('0.6.16.post4', '0.6.17');
    lt('0.4.9', '0.4.10');
    assert.equal(compareVersions(parseVersion('2.8.0+cu128')!, parseVersion('2.8')!), 0);
    assert.equal(parseVersion('not a version'), null);
  });
  it('evaluates ranges', () => {
    assert.equal(satisfies('0.6.16.post4', '>=0.6.16.post4,<=0.6.17'), true);
    assert.equal(satisfies('0.6.17', '>=0.6.16.post4,<=0.6.17'), true);
    assert.equal(satisfies('0.6.16.post3', '>=0.6.16.post4,<=0.6.17'), false);
    assert.equal(satisfies('0.6.15.post1', '<=0.6.15.post1'), true);
    assert.equal(satisfies('0.6.1', '<0.6.2'), true);
    assert.equal(satisfies('0.6.4', '==0.6.*'), true);
    assert.equal(satisfies('0.7.0', '==0.6.*'), false);
    assert.equal(satisfies('0.6.9', '~=0.6.2'), true);
    assert.equal(satisfies('0.7.0', '~=0.6.2'), false);
    assert.equal(satisfies('0.5.0', '<0.4 || >=0.5'), true);
    assert.equal(satisfies('0.6.0', '>=banana'), null);
  });
  it('globs are case-insensitive and treat regex characters literally', () => {
    assert.ok(globToRegExp('*qwen3.5*-a*b*').test('nvidia/Qwen3.5-397B-A17B-NVFP4'));
    assert.ok(!globToRegExp('*qwen3.5*').test('Qwen3x5'));
    assert.ok(globToRegExp('*(x)+[y]*').test('a(x)+[y]b'));
  });
});

describe('which fix to try first when known issues disagree', () => {
  it('the seed: cuDNN (confirmed, the model named) before Marlin (likely), said on both rules', () => {
    const ctx: MatchContext = {
      engine: 'sglang',
      fields: { fp4_gemm_runner_backend: 'flashinfer_cutlass' },
      computeCapability: 12.0,
      modelName: 'nvidia/Qwen3.5-397B-A17B-NVFP4',
    };
    const matches = matchRules(builtin.rules, ctx);
    const advice = competingFixAdvice(matches);
    const ids = matches.filter((m) => advice.get(m)?.includes('--fp4-gemm-backend')).map((m) => m.rule.id);
    assert.deepEqual(ids, ['sm120-nvfp4-moe-fp4-cutlass-nan', 'sm120-nvfp4-dense-gemm-zeros']);
    const text = advice.get(matches[0])!;
    assert.equal(advice.get(matches[1]), text, 'both rules say the same order');
    assert.match(
      text,
      /^Known issues disagree on --fp4-gemm-backend: try flashinfer_cudnn first \(confirmed; all \d+ conditions hold, this model is named\), then marlin \(likely;/,
    );
  });

  it('no advice where the rules agree or only one holds (another NVFP4 model: only Marlin)', () => {
    const other = matchRules(builtin.rules, {
      engine: 'sglang',
      fields: { fp4_gemm_runner_backend: 'flashinfer_cutlass', attention_backend: 'triton' },
      computeCapability: 12.0,
      modelName: 'nvidia/DeepSeek-R1-0528-FP4',
    });
    assert.ok(other.some((m) => m.rule.id === 'sm120-nvfp4-dense-gemm-zeros'));
    assert.equal(competingFixAdvice(other).size, 0);
  });
});
