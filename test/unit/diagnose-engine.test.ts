/**
 * The diagnosis engine on small rules written for these tests: how conditions judge (held,
 * failed, unknown, defaults), when a finding is raised at all, how two causes rank, and the next
 * check that separates them.
 */
import assert from 'node:assert/strict';
import { diagnose, evidenceOfSpec, judgeFinding, judgeRule, symptomsOf } from '../../src/core/diagnose/rules';
import type { DiagnosisRule, EvidenceSpec } from '../../src/core/diagnose/rules';
import { fromLaunch, mergeAll } from '../../src/core/diagnose';

const fp4Moe: DiagnosisRule = {
  id: 'sglang-test-fp4-moe',
  title: 'FP4 MoE runner without kernels for this GPU',
  engine: 'sglang',
  symptoms: ['nan', 'token0-flood'],
  mechanism: 'The MoE runner takes an FP4 path that has no code for this GPU family, so logits come out NaN.',
  when: {
    gpu: { family: ['blackwell-rtx'] },
    quantization: ['nvfp4'],
    flags: { moe_runner_backend: { in: ['flashinfer_trtllm', 'auto'], unset: 'held' } },
  },
  fix: [{ flags: { '--moe-runner-backend': 'flashinfer_cutlass' }, note: 'A runner that has SM120 kernels.' }],
  ruleOut: ['Answers stay broken with the cutlass runner.'],
  sources: ['https://github.com/example/repo/issues/1'],
  cases: [],
};

const fp8Kv: DiagnosisRule = {
  id: 'sglang-test-fp8-kv',
  title: 'FP8 KV cache without scales',
  engine: 'sglang',
  symptoms: ['gibberish', 'repetition', 'nan'],
  mechanism: 'An FP8 KV cache stored without per-tensor scales loses the range of the keys.',
  when: { kvCacheDtype: { in: ['fp8_e4m3'] }, versions: { sglang: '<0.5.5' } },
  fix: [{ flags: { '--kv-cache-dtype': 'auto' }, note: 'Keep the KV cache in the model dtype.' }],
  ruleOut: ['The answers stay broken with a bf16 KV cache.'],
  sources: ['https://github.com/example/repo/issues/2'],
  cases: [],
};

const crash: DiagnosisRule = {
  id: 'vllm-test-arch',
  title: 'Kernel library built without this architecture',
  engine: 'vllm',
  symptoms: ['crash'],
  mechanism: 'The wheel carries no device code for the GPU, so the first kernel launch fails.',
  when: { signatures: ['kernel-missing'], gpu: { cc: { min: '12.0' } } },
  fix: [{ packages: [{ name: 'vllm', action: 'upgrade' }], note: 'A build that includes the architecture.' }],
  ruleOut: ['The log has no kernel-image error.'],
  sources: ['https://github.com/example/repo/issues/3'],
  cases: [],
};

function judge(rule: DiagnosisRule, spec: EvidenceSpec): string {
  const ev = evidenceOfSpec(spec);
  const j = judgeFinding(rule, ev, symptomsOf(ev, spec.symptom));
  return j ? j.finding.confidence : 'none';
}

describe('diagnosis engine', () => {
  it('reads garbled words and word salad in a probe as gibberish, and a loop as repetition', () => {
    const of = (probeReasons: EvidenceSpec['probeReasons']) => symptomsOf(evidenceOfSpec({ engine: 'sglang', probeReasons })).map((o) => o.symptom);
    assert.deepEqual(of(['garbled-words']), ['gibberish']);
    assert.deepEqual(of(['word-salad', 'garbled-words']), ['gibberish']);
    assert.deepEqual(of(['long-loop']), ['repetition']);
  });
  it('matches when every condition holds, and reads a GPU by name', () => {
    assert.equal(
      judge(fp4Moe, {
        engine: 'sglang',
        gpu: 'NVIDIA RTX PRO 6000 Blackwell Server Edition',
        quantization: 'nvfp4',
        flags: { moe_runner_backend: 'flashinfer_trtllm' },
      }),
      'match',
    );
    assert.equal(judge(fp4Moe, { engine: 'sglang', gpu: '12.0', quantization: 'nvfp4', flags: { moe_runner_backend: 'auto' }, symptom: 'nan' }), 'match');
  });

  it('says nothing when one condition fails', () => {
    assert.equal(judge(fp4Moe, { engine: 'sglang', gpu: 'H100', quantization: 'nvfp4', flags: { moe_runner_backend: 'flashinfer_trtllm' } }), 'none');
    assert.equal(judge(fp4Moe, { engine: 'sglang', gpu: '12.0', quantization: 'nvfp4', flags: { moe_runner_backend: 'triton' } }), 'none');
    assert.equal(judge(fp4Moe, { engine: 'vllm', gpu: '12.0', quantization: 'nvfp4', flags: { moe_runner_backend: 'auto' } }), 'none');
  });

  it('raises a possible finding with checks when a deciding condition held and the GPU is unknown', () => {
    const ev = evidenceOfSpec({ engine: 'sglang', quantization: 'nvfp4', flags: { moe_runner_backend: 'flashinfer_trtllm' } });
    const j = judgeFinding(fp4Moe, ev, []);
    assert.equal(j?.finding.confidence, 'possible');
    assert.ok(
      j.finding.missing.some((m) => /nvidia-smi/.test(m)),
      j.finding.missing.join('|'),
    );
  });

  it('never raises a finding on a GPU or trait alone', () => {
    assert.equal(judge(fp4Moe, { gpu: '12.0', symptom: 'nan' }), 'none');
    assert.equal(judge(crash, { gpu: '12.0', symptom: 'crash' }), 'none');
  });

  it('drops a rule whose symptoms do not fit, and counts NaN and a token-0 flood as kin', () => {
    const base: EvidenceSpec = { engine: 'sglang', gpu: '12.0', quantization: 'nvfp4', flags: { moe_runner_backend: 'auto' } };
    assert.equal(judge(fp4Moe, { ...base, symptom: 'crash' }), 'none');
    assert.equal(judge(fp4Moe, { ...base, probeReasons: ['token0-run'] }), 'match');
    assert.equal(judge(fp4Moe, { ...base, probeReasons: ['nan-marker'] }), 'match');
  });

  it("applies a rule's default for an unset flag only when a configuration was read", () => {
    // No flags at all: whether the runner is set is unknown, so nothing deciding held.
    assert.equal(judge(fp4Moe, { engine: 'sglang', gpu: '12.0', quantization: 'nvfp4' }), 'possible');
    // A launch command without the flag: its default applies.
    const launch = fromLaunch('python -m sglang.launch_server --model-path nvidia/Some-Model-NVFP4 --quantization modelopt_fp4 --tp 2\n', 'serve.sh');
    const ev = mergeAll(launch, evidenceOfSpec({ gpu: '12.0' }));
    const outcomes = judgeRule(fp4Moe, ev);
    const runner = outcomes.find((o) => o.key === 'flags.moe_runner_backend');
    assert.equal(runner?.state, 'held', runner?.text);
    assert.equal(judgeFinding(fp4Moe, ev, [])?.finding.confidence, 'match');
  });

  it('reads version specifiers and KV dtypes in either spelling', () => {
    assert.equal(judge(fp8Kv, { engine: 'sglang', kvCacheDtype: 'fp8', versions: { sglang: '0.5.3' } }), 'match');
    assert.equal(judge(fp8Kv, { engine: 'sglang', kvCacheDtype: 'torch.float8_e4m3fn', versions: { sglang: '0.5.3rc1' } }), 'match');
    assert.equal(judge(fp8Kv, { engine: 'sglang', kvCacheDtype: 'fp8_e4m3', versions: { sglang: '0.5.6' } }), 'none');
    assert.equal(judge(fp8Kv, { engine: 'sglang', kvCacheDtype: 'bf16', versions: { sglang: '0.5.3' } }), 'none');
  });

  it('fails a signature rule when a log was read without the signature, and leaves it unknown with no log', () => {
    assert.equal(judge(crash, { engine: 'vllm', gpu: '12.0', signatures: ['kernel-missing'] }), 'match');
    assert.equal(judge(crash, { engine: 'vllm', gpu: '12.0', signatures: ['oom'], symptom: 'crash' }), 'none');
    const outcomes = judgeRule(crash, evidenceOfSpec({ engine: 'vllm', gpu: '12.0' }));
    assert.equal(outcomes.find((o) => o.kind === 'signatures')?.state, 'unknown');
  });

  it('ranks a match above a possible one and names the check that separates the top two', () => {
    const ev = evidenceOfSpec({
      engine: 'sglang',
      gpu: '12.0',
      quantization: 'nvfp4',
      flags: { moe_runner_backend: 'auto' },
      kvCacheDtype: 'fp8_e4m3',
      symptom: 'nan',
    });
    const d = diagnose(ev, { rules: [fp8Kv, fp4Moe] });
    assert.deepEqual(
      d.findings.map((f) => [f.id, f.confidence]),
      [
        ['sglang-test-fp4-moe', 'match'],
        ['sglang-test-fp8-kv', 'possible'],
      ],
    );
    assert.match(d.nextCheck ?? '', /sglang version/);
    assert.deepEqual(d.findings[0].fix.flags, { '--moe-runner-backend': 'flashinfer_cutlass' });
    assert.ok(d.findings[0].evidence.some((e) => e.stance === 'for' && /compute capability 12\.0/.test(e.text)));
  });

  it('orders two matches by how sure their evidence is', () => {
    const sure = evidenceOfSpec({
      engine: 'sglang',
      gpu: '12.0',
      quantization: 'nvfp4',
      flags: { moe_runner_backend: 'auto' },
      kvCacheDtype: 'fp8_e4m3',
      versions: { sglang: '0.5.2' },
      symptom: 'nan',
    });
    const guessedQuant = mergeAll(
      evidenceOfSpec({
        engine: 'sglang',
        gpu: '12.0',
        flags: { moe_runner_backend: 'auto' },
        kvCacheDtype: 'fp8_e4m3',
        versions: { sglang: '0.5.2' },
        symptom: 'nan',
      }),
      evidenceOfSpec({ quantization: 'nvfp4', certainty: 'guess' }),
    );
    assert.equal(diagnose(sure, { rules: [fp4Moe, fp8Kv] }).findings.length, 2);
    const d = diagnose(guessedQuant, { rules: [fp4Moe, fp8Kv] });
    assert.equal(d.findings[0].id, 'sglang-test-fp8-kv');
    assert.ok(d.findings[1].evidence.some((e) => e.stance === 'against' && /guessed/.test(e.text)));
  });

  it('reads dotted flags inside a JSON dict value', () => {
    const rule: DiagnosisRule = {
      ...crash,
      id: 'vllm-test-graph',
      symptoms: ['gibberish'],
      when: { flags: { 'compilation_config.cudagraph_mode': { in: ['FULL'] } } },
    };
    assert.equal(judge(rule, { engine: 'vllm', flags: { compilation_config: '{"cudagraph_mode": "FULL"}' } }), 'match');
    assert.equal(judge(rule, { engine: 'vllm', flags: { compilation_config: '{"cudagraph_mode": "PIECEWISE"}' } }), 'none');
  });
});
