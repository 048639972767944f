import { strict as assert } from 'node:assert';
import { loadBundledCatalog, VLLM_BUNDLED_FILE } from '../../src/core/flags/bundled/load';
import { launchCommandOf, proposedLaunchEdits, sweepFlagOptions, vllmSweepEntries } from '../../src/fix/sweepPlan';
import { applyTextEdits } from '../../src/core/launch/edit';

describe('backend sweep of a vLLM launch file (the flags on offer, the row written back)', () => {
  const SCRIPT = '#!/bin/sh\nexec vllm serve nvidia/Qwen3-30B-A3B-NVFP4 --moe-backend flashinfer_cutlass --kv-cache-dtype fp8 --port 8000\n';

  it("offers the bundled vLLM release's backend flags with their choices and the file's current value", async () => {
    const bundled = await loadBundledCatalog(undefined, VLLM_BUNDLED_FILE);
    const cmd = launchCommandOf(SCRIPT, 'shellscript');
    assert.equal(cmd?.engine, 'vllm');
    const options = sweepFlagOptions(vllmSweepEntries(bundled, SCRIPT, '/srv/run.sh'), [], cmd);
    const moe = options.find((o) => o.flag === '--moe-backend');
    assert.ok(moe, options.map((o) => o.flag).join(', '));
    assert.equal(moe.current, 'flashinfer_cutlass');
    for (const c of ['cutlass', 'marlin', 'flashinfer_trtllm']) assert.ok(moe.choices.includes(c), c);
    assert.ok(!options.some((o) => o.flag === '--moe-runner-backend'), "SGLang's flags are not offered");
  });

  it('a release pinned in the file without --moe-backend (0.11.0) does not offer it', async () => {
    const bundled = await loadBundledCatalog(undefined, VLLM_BUNDLED_FILE);
    const compose = 'services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n    command: ["m", "--port", "8000"]\n';
    const flags = vllmSweepEntries(bundled, compose, '/srv/compose.yaml').map((e) => e.flag);
    assert.ok(flags.includes('--kv-cache-dtype'));
    assert.ok(!flags.includes('--moe-backend'));
  });

  it("writes a row's value into the vLLM command", () => {
    const edits = proposedLaunchEdits(SCRIPT, 'shellscript', [{ flag: '--moe-backend', value: 'cutlass' }]);
    assert.equal(applyTextEdits(SCRIPT, edits), SCRIPT.replace('flashinfer_cutlass', 'cutlass'));
  });
});
