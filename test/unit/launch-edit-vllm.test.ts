/**
 * Edits of vLLM launch commands: flags as vLLM spells them (underscores count), and environment
 * variables set where the command's environment is written. After each edit the file is parsed
 * again and must say exactly the asked value.
 */
import assert from 'node:assert/strict';
import { findLaunchCommands, flagValue, type LanguageHint } from '../../src/core/launch';
import { applyTextEdits, EDITABLE_ENGINES, launchEdits, type FlagChange } from '../../src/core/launch/edit';
import { planSystemdChange } from '../../src/core/fix/systemd';

function edit(text: string, hint: LanguageHint, changes: FlagChange[]): string {
  const [cmd] = findLaunchCommands(text, hint, { engines: EDITABLE_ENGINES });
  assert.ok(cmd, 'a launch command');
  return applyTextEdits(text, launchEdits(cmd, text, changes));
}

const envOf = (text: string, hint: LanguageHint, name: string): string | undefined =>
  findLaunchCommands(text, hint, { engines: EDITABLE_ENGINES })[0]
    ?.env.filter((e) => e.name === name)
    .pop()?.value;

describe('launch edits of vLLM commands', () => {
  it('changes a flag written with underscores instead of adding a second spelling', () => {
    const text = '#!/bin/sh\nexec vllm serve nvidia/Qwen3-30B-A3B-NVFP4 --moe_backend flashinfer_cutlass --port 8000\n';
    const out = edit(text, 'shellscript', [{ flag: '--moe-backend', value: 'cutlass' }]);
    assert.equal(out, text.replace('flashinfer_cutlass', 'cutlass'));
  });

  it('adds a flag vLLM-style at the end of the command', () => {
    const text = 'vllm serve m --port 8000\n';
    const out = edit(text, 'shellscript', [{ flag: '--moe-backend', value: 'marlin' }]);
    assert.equal(out, 'vllm serve m --port 8000 --moe-backend marlin\n');
  });

  it('replaces an exported variable in place, keeping its quotes', () => {
    const text = '#!/bin/sh\nexport VLLM_USE_FLASHINFER_MOE_FP4="1"\nexec vllm serve m --port 8000\n';
    const out = edit(text, 'shellscript', [{ flag: 'VLLM_USE_FLASHINFER_MOE_FP4', value: false }]);
    assert.equal(out, text.replace('"1"', '"0"'));
    assert.equal(envOf(out, 'shellscript', 'VLLM_USE_FLASHINFER_MOE_FP4'), '0');
  });

  it('exports a variable the script does not set yet, on the line before the command', () => {
    const text = '#!/bin/sh\nset -e\nexec vllm serve m --port 8000\n';
    const out = edit(text, 'shellscript', [{ flag: 'VLLM_USE_FLASHINFER_MOE_FP4', value: '0' }]);
    assert.equal(out, '#!/bin/sh\nset -e\nexport VLLM_USE_FLASHINFER_MOE_FP4=0\nexec vllm serve m --port 8000\n');
    assert.equal(envOf(out, 'shellscript', 'VLLM_USE_FLASHINFER_MOE_FP4'), '0');
  });

  it("sets a compose service's environment: a mapping entry in place, or a new entry in the list's own style", () => {
    const mapping =
      'services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n    environment:\n      VLLM_USE_FLASHINFER_MOE_FP4: "1"\n      HF_HOME: /data\n    command: ["nvidia/Qwen3-30B-A3B-NVFP4", "--port", "8000"]\n';
    const changed = edit(mapping, 'yaml', [{ flag: 'VLLM_USE_FLASHINFER_MOE_FP4', value: '0' }]);
    assert.equal(changed, mapping.replace('"1"', '"0"'));
    const list = 'services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n    environment:\n      - HF_HOME=/data\n    command: --model m --port 8000\n';
    const added = edit(list, 'yaml', [
      { flag: 'VLLM_USE_FLASHINFER_MOE_FP4', value: '0' },
      { flag: '--moe-backend', value: 'cutlass' },
    ]);
    assert.equal(
      added,
      list.replace('- HF_HOME=/data\n', '- HF_HOME=/data\n      - VLLM_USE_FLASHINFER_MOE_FP4=0\n').replace('--port 8000', '--port 8000 --moe-backend cutlass'),
    );
    assert.equal(envOf(added, 'yaml', 'VLLM_USE_FLASHINFER_MOE_FP4'), '0');
    assert.equal(flagValue(findLaunchCommands(added, 'yaml', { engines: EDITABLE_ENGINES })[0], '--moe-backend'), 'cutlass');
  });

  it('says what to do by hand where the file has no place for a variable', () => {
    const compose = 'services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n    command: ["m", "--port", "8000"]\n';
    assert.throws(() => edit(compose, 'yaml', [{ flag: 'VLLM_USE_FLASHINFER_MOE_FP4', value: '0' }]), /set VLLM_USE_FLASHINFER_MOE_FP4=0 by hand/);
  });

  it('a systemd drop-in carries the changed vLLM command and the variable as a later Environment=', () => {
    const unit =
      '[Unit]\nDescription=vLLM\n\n[Service]\nEnvironment=VLLM_USE_FLASHINFER_MOE_FP4=1\nExecStart=/opt/venv/bin/vllm serve nvidia/Qwen3-30B-A3B-NVFP4 --port 8000\n';
    const plan = planSystemdChange('vllm', unit, [
      { flag: 'VLLM_USE_FLASHINFER_MOE_FP4', value: '0' },
      { flag: '--max-model-len', value: '8192' },
    ]);
    assert.match(
      plan.dropIn,
      /^\[Service\]\nEnvironment=VLLM_USE_FLASHINFER_MOE_FP4=0\nExecStart=\nExecStart=\/opt\/venv\/bin\/vllm serve nvidia\/Qwen3-30B-A3B-NVFP4 --port 8000 --max-model-len 8192\n$/m,
    );
  });
});
