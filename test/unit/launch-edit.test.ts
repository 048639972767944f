/**
 * Launch edits through the parser: after the edits, parsing the file again finds the command with
 * exactly the asked values, and nothing outside the changed spans moved.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findLaunchCommands, type LanguageHint, type LaunchCommand } from '../../src/core/launch';
import { applyTextEdits, flagEdits, type FlagChange } from '../../src/core/launch/edit';

const FIXTURES = join(__dirname, '..', 'fixtures', 'launch');

function flagValues(cmd: LaunchCommand, name: string): string[] | undefined {
  let hit: string[] | undefined;
  for (const a of cmd.args) if (a.kind === 'flag' && a.name === name) hit = (a.values ?? []).map((v) => v.value);
  return hit;
}

function change(text: string, hint: LanguageHint, changes: FlagChange[]): { text: string; cmd: LaunchCommand } {
  const [cmd] = findLaunchCommands(text, hint);
  assert.ok(cmd, 'no launch command in the input');
  const next = applyTextEdits(text, flagEdits(cmd, text, changes));
  const [again] = findLaunchCommands(next, hint);
  assert.ok(again, `the edited text lost its launch command:\n${next}`);
  return { text: next, cmd: again };
}

const SEED_FIX: FlagChange[] = [
  { flag: '--moe-runner-backend', value: 'flashinfer_cutlass' },
  { flag: '--fp4-gemm-backend', aliases: ['--fp4-gemm-runner-backend'], value: 'flashinfer_cudnn' },
];

describe('launch edits', () => {
  for (const [file, hint] of [
    ['serve.sh', 'shellscript'],
    ['sglang.service', 'systemd'],
    ['docker-compose.yml', 'yaml'],
    ['deployment.yaml', 'yaml'],
    ['Dockerfile', 'dockerfile'],
    ['launch.py', 'python'],
    ['README.md', 'markdown'],
  ] as const) {
    it(`${file}: sets the seed's fix and the file parses to exactly those values`, () => {
      const text = readFileSync(join(FIXTURES, file), 'utf8');
      const { text: next, cmd } = change(text, hint, SEED_FIX);
      assert.deepEqual(flagValues(cmd, '--moe-runner-backend'), ['flashinfer_cutlass']);
      const fp4 = flagValues(cmd, '--fp4-gemm-backend') ?? flagValues(cmd, '--fp4-gemm-runner-backend');
      assert.deepEqual(fp4, ['flashinfer_cudnn']);
      // Applying the same change again changes nothing: the edit is idempotent.
      assert.equal(change(next, hint, SEED_FIX).text, next);
    });
  }

  it('replaces a value in place (quotes kept), across a line continuation, leaving every other byte', () => {
    const text = "#!/bin/sh\n# keep me\npython -m sglang.launch_server \\\n  --model-path m \\\n  --attention-backend 'triton' --tp 2\necho done\n";
    const { text: next } = change(text, 'shellscript', [{ flag: '--attention-backend', value: 'flashinfer' }]);
    assert.equal(next, text.replace("'triton'", "'flashinfer'"));
  });

  it('handles --flag=value, removal (with its separator) and a value-less flag', () => {
    const text = 'python3 -m sglang.launch_server --model-path m --kv-cache-dtype=fp8_e4m3 --enable-torch-compile --tp 2\n';
    const set = change(text, 'shellscript', [{ flag: '--kv-cache-dtype', value: 'auto' }]);
    assert.equal(set.text, text.replace('=fp8_e4m3', '=auto'));
    const removed = change(text, 'shellscript', [{ flag: '--enable-torch-compile', value: false }]);
    assert.equal(removed.text, 'python3 -m sglang.launch_server --model-path m --kv-cache-dtype=fp8_e4m3 --tp 2\n');
    const added = change(text, 'shellscript', [{ flag: '--disable-cuda-graph', value: true }]);
    assert.equal(added.text, 'python3 -m sglang.launch_server --model-path m --kv-cache-dtype=fp8_e4m3 --enable-torch-compile --tp 2 --disable-cuda-graph\n');
    assert.equal(change(added.text, 'shellscript', [{ flag: '--disable-cuda-graph', value: true }]).text, added.text, 'already present');
  });

  it('quotes a value a shell would split, and a list item like its neighbours', () => {
    const sh = change('python -m sglang.launch_server --model-path m\n', 'shellscript', [{ flag: '--chat-template', value: 'my template.jinja' }]);
    assert.deepEqual(flagValues(sh.cmd, '--chat-template'), ['my template.jinja']);
    const py = 'import subprocess\nsubprocess.run(["python", "-m", "sglang.launch_server", "--model-path", "m"])\n';
    const out = change(py, 'python', [{ flag: '--tp', value: '4' }]);
    assert.equal(out.text, py.replace('"m"]', '"m", "--tp", "4"]'));
  });

  it('renames nothing it was not asked to: an alias is updated where it is written', () => {
    const text = 'python -m sglang.launch_server --model-path m --fp4-gemm-runner-backend cutlass\n';
    const { text: next, cmd } = change(text, 'shellscript', SEED_FIX.slice(1));
    assert.equal(next, text.replace('cutlass\n', 'flashinfer_cudnn\n'));
    assert.deepEqual(flagValues(cmd, '--fp4-gemm-runner-backend'), ['flashinfer_cudnn']);
  });

  it('appends several flags in the order they were asked for', () => {
    const text = 'python -m sglang.launch_server --model-path m\n';
    const { text: next } = change(text, 'shellscript', SEED_FIX);
    assert.equal(next, 'python -m sglang.launch_server --model-path m --moe-runner-backend flashinfer_cutlass --fp4-gemm-backend flashinfer_cudnn\n');
  });

  it('refuses overlapping edits instead of writing a garbled file', () => {
    const r = { start: { line: 0, character: 2 }, end: { line: 0, character: 5 } };
    const r2 = { start: { line: 0, character: 4 }, end: { line: 0, character: 6 } };
    assert.throws(
      () =>
        applyTextEdits('abcdefgh', [
          { range: r, newText: 'x' },
          { range: r2, newText: 'y' },
        ]),
      /overlapping/,
    );
  });
});
