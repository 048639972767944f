/**
 * The diagnosis rules in launch files (src/lsp/launchDiagnosis.ts through analyzeText, as the
 * language server and `check` run them): the GPU a file names stands in for an unknown host's,
 * silencing known-bad rules for another GPU, and causes whose every condition holds become
 * warnings with the first fix as a quick fix.
 */
import assert from 'node:assert/strict';
import { analyzeText } from '../../src/lsp/analysis';
import { builtinRules } from '../../src/core/rules';

const rules = builtinRules().rules;

function analyze(text: string, fileName: string, computeCapability?: number) {
  return analyzeText(text, 'shellscript', undefined, { rules, fileName, ...(computeCapability !== undefined ? { computeCapability } : {}) });
}

const H100_FP8 = 'python -m sglang.launch_server --model-path Qwen/Qwen3-32B-FP8 --quantization fp8 --attention-backend fa3 --kv-cache-dtype fp8_e4m3 --tp 2\n';

describe('launch files judged with the GPU they name and the diagnosis rules', () => {
  it('keeps a known-bad rule for the GPU a comment names, and says the file is why', () => {
    const a = analyze(`#!/bin/sh\n# 2x H100 80GB\n${H100_FP8}`, '/deploy/serve.sh');
    const kb = a.diagnostics.filter((d) => d.code === 'known-bad');
    assert.equal(kb.length, 1, JSON.stringify(kb.map((d) => d.message)));
    assert.match(kb[0].message, /on H100 with FA3/);
    assert.match(kb[0].message, /Applies: the file is for NVIDIA H100 \(comment in serve\.sh line 2\)/);
  });

  it('drops a known-bad rule written for another GPU than the one the file names', () => {
    const unknown = analyze(H100_FP8, '/deploy/serve.sh').diagnostics.filter((d) => d.code === 'known-bad');
    assert.equal(unknown.length, 2, 'with no GPU known, the H100 and the SM 12.x rules may both apply');
    const rtx = analyze(`# RTX PRO 6000 workstation\n${H100_FP8}`, '/deploy/serve.sh').diagnostics.filter((d) => d.code === 'known-bad');
    assert.equal(rtx.length, 1, JSON.stringify(rtx.map((d) => d.message)));
    assert.match(rtx[0].message, /SM 12\.x/);
    assert.doesNotMatch(rtx[0].message, /H100/);
    const byName = analyze(H100_FP8, '/deploy/b200-serve.sh');
    assert.equal(byName.diagnostics.filter((d) => d.code === 'known-bad').length, 0);
  });

  it('drops NVIDIA rules on a ROCm image', () => {
    const compose = `# runs lmsysorg/sglang:v0.5.6-rocm700-mi30x\n${H100_FP8}`;
    assert.equal(analyze(compose, '/deploy/serve.sh').diagnostics.filter((d) => d.code === 'known-bad').length, 0);
  });

  it("the host's GPU wins over what the file says", () => {
    const a = analyze(`# RTX PRO 6000 workstation\n${H100_FP8}`, '/deploy/serve.sh', 9.0);
    const kb = a.diagnostics.filter((d) => d.code === 'known-bad');
    assert.equal(kb.length, 1);
    assert.match(kb[0].message, /Matches the selected host/);
  });

  it('warns with a diagnosis rule whose every condition holds, on the flag, with its fix as a quick fix', () => {
    const text =
      '#!/bin/sh\n# B200 node\npython -m sglang.launch_server --model-path zai-org/GLM-4.5-Air --quantization fp8 --moe-runner-backend deep_gemm --tp 8\n';
    const a = analyze(text, '/deploy/serve.sh');
    const d = a.diagnostics.find((x) => x.code === 'diagnosis');
    assert.ok(d, JSON.stringify(a.diagnostics.map((x) => `${String(x.code)}: ${x.message}`)));
    assert.match(d.message, /^Likely cause of .*answers: /);
    assert.match(d.message, /Read from hints: /);
    assert.equal(text.split('\n')[d.range.start.line].slice(d.range.start.character, d.range.end.character).split(' ')[0], '--moe-runner-backend');
    assert.ok(d.codeDescription?.href.startsWith('https://github.com/'));
    const fixes = (d.data as { fixes: { title: string; edits: { newText: string }[] }[] }).fixes;
    assert.ok(fixes.length && fixes[0].edits.length, JSON.stringify(d.data));
  });

  it('raises nothing from the diagnosis rules on a plain launch with no backend flags', () => {
    const a = analyze('python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --tp 1\n', '/deploy/h100.sh');
    assert.deepEqual(
      a.diagnostics.filter((d) => d.code === 'diagnosis').map((d) => d.message),
      [],
    );
  });
});
