/**
 * vLLM launch commands: `vllm serve` in shell, `python -m vllm.entrypoints.openai.api_server`, the
 * vllm/vllm-openai image's entrypoint arguments in compose (`command:` list or string) and
 * Kubernetes (`args:`), Dockerfile CMD after `FROM vllm/vllm-openai`, `-O3`, and that callers
 * asking for SGLang only never see them.
 */
import { strict as assert } from 'node:assert';
import { findLaunchCommands, type LanguageHint, type LaunchCommand, type Range } from '../../src/core/launch/index';
import { LineIndex } from '../../src/core/lines';

const BOTH = { engines: ['sglang', 'vllm'] as const };

function find(text: string, hint: LanguageHint): LaunchCommand[] {
  const cmds = findLaunchCommands(text, hint, BOTH);
  const lines = new LineIndex(text);
  const slice = (r: Range): string => text.slice(lines.offset(r.start), lines.offset(r.end));
  for (const c of cmds) for (const a of c.args) assert.equal(slice(a.range), a.text, `range of ${a.value}`);
  return cmds;
}
const flags = (c: LaunchCommand): string[] => c.args.filter((a) => a.kind === 'flag').map((a) => a.name!);
const value = (c: LaunchCommand, name: string): string | undefined => c.args.find((a) => a.kind === 'flag' && a.name === name)?.values?.[0]?.value;

describe('vLLM launch commands', () => {
  it('finds vllm serve in a shell script, with its model, exported env and continuation lines', () => {
    const text = 'export VLLM_ATTENTION_BACKEND=FLASHINFER\nvllm serve Qwen/Qwen3-8B \\\n  --tensor-parallel-size 2 \\\n  --kv-cache-dtype=fp8\n';
    const [c, ...rest] = find(text, 'shellscript');
    assert.equal(rest.length, 0);
    assert.equal(c.engine, 'vllm');
    assert.equal(c.entry, 'serve');
    assert.equal(c.args[0].kind, 'positional');
    assert.equal(c.args[0].value, 'Qwen/Qwen3-8B');
    assert.deepEqual(flags(c), ['--tensor-parallel-size', '--kv-cache-dtype']);
    assert.equal(value(c, '--kv-cache-dtype'), 'fp8');
    assert.deepEqual(
      c.env.map((e) => [e.name, e.source]),
      [['VLLM_ATTENTION_BACKEND', 'export']],
    );
  });

  it('finds the OpenAI api_server module, and reads -O3 / -O=3 as -O with a value', () => {
    const text = 'python3 -m vllm.entrypoints.openai.api_server --model m -O3\nvllm serve m -O=2 -O 1\n';
    const [a, b] = find(text, 'shellscript');
    assert.equal(a.entry, 'api_server');
    assert.equal(a.engine, 'vllm');
    const o = a.args.find((x) => x.name === '-O')!;
    assert.equal(o.values?.[0]?.value, '3');
    assert.equal(o.inline, true);
    assert.deepEqual(o.nameRange, { start: { line: 0, character: 56 }, end: { line: 0, character: 58 } });
    assert.deepEqual(
      b.args.filter((x) => x.name === '-O').map((x) => x.values?.[0]?.value),
      ['2', '1'],
    );
  });

  it('reads a compose service of the vllm/vllm-openai image: its command list or string is the entrypoint arguments', () => {
    const text = [
      'services:',
      '  llm:',
      '    image: vllm/vllm-openai:v0.11.0',
      '    environment:',
      '      - VLLM_ATTENTION_BACKEND=FLASHINFER',
      '    command: ["--model", "Qwen/Qwen3-8B", "--kv-cache-dtype", "fp8"]',
      '  small:',
      '    image: vllm/vllm-openai:latest',
      '    command: --model m --dtype half',
      '  custom:',
      '    image: vllm/vllm-openai:v0.11.0',
      '    entrypoint: ["python3", "app.py"]',
      '    command: ["--model", "x"]',
      '',
    ].join('\n');
    const cmds = find(text, 'yaml');
    assert.equal(cmds.length, 2, 'an entrypoint of its own is not the image entrypoint');
    const [a, b] = cmds;
    assert.equal(a.entry, 'image');
    assert.equal(a.executable.value, 'vllm/vllm-openai:v0.11.0');
    assert.equal(a.form, 'argv');
    assert.deepEqual(flags(a), ['--model', '--kv-cache-dtype']);
    assert.deepEqual(
      a.env.map((e) => e.name),
      ['VLLM_ATTENTION_BACKEND'],
    );
    assert.equal(b.form, 'shell');
    assert.equal(value(b, '--dtype'), 'half');
  });

  it('reads Kubernetes args of a vllm/vllm-openai container, and a vllm serve command list', () => {
    const text = [
      'apiVersion: apps/v1',
      'kind: Deployment',
      'spec:',
      '  template:',
      '    spec:',
      '      containers:',
      '        - name: a',
      '          image: vllm/vllm-openai:v0.9.2',
      '          args: ["--model", "m", "--gpu-memory-utilization", "0.8"]',
      '          env:',
      '            - name: VLLM_ATTENTION_BACKEND',
      '              value: XFORMERS',
      '        - name: b',
      '          image: vllm/vllm-openai:v0.9.2',
      '          command: ["vllm", "serve"]',
      '          args: ["m", "--port", "8001"]',
      '        - name: c',
      '          image: vllm/vllm-openai:v0.9.2',
      '          command: ["python3", "other.py"]',
      '          args: ["--model", "m"]',
      '',
    ].join('\n');
    const cmds = find(text, 'yaml');
    assert.equal(cmds.length, 2);
    assert.equal(cmds[0].entry, 'image');
    assert.equal(value(cmds[0], '--gpu-memory-utilization'), '0.8');
    assert.deepEqual(
      cmds[0].env.map((e) => [e.name, e.value]),
      [['VLLM_ATTENTION_BACKEND', 'XFORMERS']],
    );
    assert.equal(cmds[1].entry, 'serve');
    assert.equal(value(cmds[1], '--port'), '8001');
  });

  it('reads a Dockerfile CMD after FROM vllm/vllm-openai, and CMD ["vllm", "serve", …] anywhere', () => {
    const a = find('FROM vllm/vllm-openai:v0.10.1\nENV VLLM_USE_V1=1\nCMD ["--model", "m", "--max-model-len", "8192"]\n', 'dockerfile');
    assert.equal(a.length, 1);
    assert.equal(a[0].entry, 'image');
    assert.equal(value(a[0], '--max-model-len'), '8192');
    assert.deepEqual(
      a[0].env.map((e) => e.name),
      ['VLLM_USE_V1'],
    );
    const b = find('FROM python:3.12\nRUN pip install vllm==0.10.1\nCMD ["vllm", "serve", "m", "--port", "8000"]\n', 'dockerfile');
    assert.equal(b.length, 1);
    assert.equal(b[0].entry, 'serve');
    assert.equal(find('FROM python:3.12\nCMD ["--model", "m"]\n', 'dockerfile').length, 0);
  });

  it('finds vllm in Python argv lists and Markdown fences', () => {
    assert.equal(find('import subprocess\nsubprocess.run(["vllm", "serve", "m", "--tp", "2"])\n', 'python')[0]?.engine, 'vllm');
    const md = find('Run:\n\n```bash\nvllm serve m --max-num-seqs 8\n```\n', 'markdown');
    assert.equal(md[0]?.engine, 'vllm');
  });

  it('leaves vLLM commands out for callers that ask for SGLang only (the default)', () => {
    const text = 'vllm serve m --tp 2\npython -m sglang.launch_server --model-path m --tp 2\n';
    assert.deepEqual(
      findLaunchCommands(text, 'shellscript').map((c) => c.engine),
      ['sglang'],
    );
    assert.deepEqual(
      find(text, 'shellscript').map((c) => c.engine),
      ['vllm', 'sglang'],
    );
    assert.equal(findLaunchCommands('vllm serve m\n', 'shellscript').length, 0);
  });
});
