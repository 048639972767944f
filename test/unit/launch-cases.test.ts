/**
 * Launch files that were missed or misread: bash argument arrays, Python argv built over several
 * statements, a blank line in a folded compose block, comment lines inside Dockerfile continuations,
 * process matchers (pkill/pgrep/ps|grep) that name a launch without running it, and YAML read
 * through the yaml library (anchors and aliases, multi-document streams, every scalar style,
 * environment forms, CI scripts, Helm templates that do not parse). Every range is checked against
 * the source: a token's range holds exactly its text.
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { findLaunchCommands, flagValue } from '../../src/core/launch/index';
import { applyTextEdits, flagEdits, type FlagChange } from '../../src/core/launch/edit';
import { LineIndex } from '../../src/core/lines';
import type { LanguageHint, LaunchArg, LaunchCommand, Range } from '../../src/core/launch/index';

const fixture = (name: string): string => readFileSync(join(__dirname, '..', 'fixtures', 'launch', name), 'utf8');
const R = (r: Range): string => `${r.start.line}:${r.start.character}-${r.end.line}:${r.end.character}`;

function sliceOf(text: string, r: Range): string {
  const lines = new LineIndex(text);
  return text.slice(lines.offset(r.start), lines.offset(r.end));
}

/** Every token's range holds its text; every flag's name range holds its name. */
function checkTexts(text: string, cmds: LaunchCommand[]): void {
  for (const c of cmds) {
    assert.equal(sliceOf(text, c.executable.range), c.executable.text);
    for (const a of c.args) {
      assert.equal(sliceOf(text, a.range), a.text, `arg ${a.value}`);
      // a quoted flag's name range is its token, quotes included
      if (a.kind === 'flag' && !a.dynamic) assert.equal(sliceOf(text, a.nameRange!).replace(/^(["'])(.*)\1$/, '$2'), a.name, `name of ${a.value}`);
      for (const v of a.values ?? []) assert.equal(sliceOf(text, v.range), v.text, `value ${v.value}`);
    }
    for (const e of c.env) {
      assert.ok(sliceOf(text, e.nameRange).includes(e.name), `env name ${e.name}`);
    }
  }
}

function find(text: string, hint: LanguageHint): LaunchCommand[] {
  const cmds = findLaunchCommands(text, hint);
  checkTexts(text, cmds);
  return cmds;
}

/** The flag named `name` (last one), with the line its name is on. */
function flag(cmd: LaunchCommand, name: string): LaunchArg {
  const hits = cmd.args.filter((a) => a.kind === 'flag' && a.name === name);
  assert.ok(hits.length, `no ${name} in ${cmd.args.map((a) => a.value).join(' ')}`);
  return hits[hits.length - 1];
}
const line = (a: LaunchArg): number => a.range.start.line;
const flags = (c: LaunchCommand): string[] => c.args.filter((a) => a.kind === 'flag').map((a) => a.name!);

function edit(text: string, hint: LanguageHint, changes: FlagChange[], pick = 0): string {
  const cmd = findLaunchCommands(text, hint)[pick];
  assert.ok(cmd, 'no launch command in the input');
  return applyTextEdits(text, flagEdits(cmd, text, changes));
}

describe('launch finder: bash argument arrays', () => {
  it('reads the flags of args=( … ) and args+=( … ) where "${args[@]}" is passed, with their own ranges', () => {
    const text = fixture('args-array.sh');
    const cmds = find(text, 'shellscript');
    assert.equal(cmds.length, 1, 'pkill/pgrep/kill/ps|grep/killall lines are no launches');
    const [c] = cmds;
    assert.equal(c.entry, 'launch_server');
    assert.deepEqual(flags(c), ['--model-path', '--attention-backend', '--port', '--tp', '--log-level']);
    const lines = text.split('\n');
    // the array's flags are read on the array's lines
    assert.equal(line(flag(c, '--model-path')), lines.indexOf('  --model-path "$MODEL"'));
    assert.equal(line(flag(c, '--attention-backend')), lines.indexOf('  --attention-backend fa3'));
    assert.equal(R(flag(c, '--attention-backend').values![0].range), '8:22-8:25');
    assert.equal(flagValue(c, '--tp'), '2');
    assert.equal(line(flag(c, '--tp')), lines.indexOf('  args+=(--tp 2)'));
    assert.ok(flag(c, '--model-path').values![0].dynamic, '"$MODEL" is not known statically');
    assert.ok(!c.args.some((a) => a.value.includes('${args')), 'the "${args[@]}" word itself is no argument');
    // the command's range covers the array, so hover finds the command on the array's lines
    assert.ok(c.range.start.line <= line(flag(c, '--model-path')) && c.range.end.line === lines.findIndex((l) => l.startsWith('exec ')));
    assert.equal(R(c.entryRange), `${lines.findIndex((l) => l.startsWith('exec '))}:5-${lines.findIndex((l) => l.startsWith('exec '))}:36`);
  });

  it('sglang serve "${ARGS[@]}" with declare -a ARGS=( … ) on one line', () => {
    const c = find(fixture('serve-array.sh'), 'shellscript');
    assert.equal(c.length, 1);
    assert.equal(c[0].entry, 'serve');
    assert.deepEqual(flags(c[0]), ['--model-path', '--kv-cache-dtype']);
    assert.equal(R(flag(c[0], '--kv-cache-dtype').range), '1:32-1:48');
  });

  it('an array assigned again starts over; an array never passed adds nothing', () => {
    const text = 'a=(--tp 2)\na=(--port 1)\nb=(--enable-metrics)\npython -m sglang.launch_server "${a[@]}"\n';
    const [c] = find(text, 'shellscript');
    assert.deepEqual(flags(c), ['--port']);
  });
});

describe('launch finder: Python argv built step by step', () => {
  it('cmd = [...] then extend / += / append reads as one command, subprocess pkill lists are no launch', () => {
    const text = fixture('build_cmd.py');
    const cmds = find(text, 'python');
    assert.equal(cmds.length, 1);
    const [c] = cmds;
    assert.equal(c.form, 'argv');
    assert.equal(c.executable.value, 'sys.executable');
    assert.deepEqual(flags(c), ['--model-path', '--tp', '--enable-metrics', '--moe-runner-backend']);
    assert.equal(flagValue(c, '--moe-runner-backend'), 'triton');
    assert.ok(flag(c, '--tp').values![0].dynamic, 'str(tp)');
    const lines = text.split('\n');
    assert.equal(line(flag(c, '--enable-metrics')), lines.indexOf('        cmd.append("--enable-metrics")'));
  });

  it('cmd = cmd + [...] grows the list too; a new assignment starts another command', () => {
    const text = [
      'cmd = ["python3", "-m", "sglang.launch_server"]',
      "cmd = cmd + ['--port', '30000']",
      'run(cmd)',
      'cmd = ["python3", "-m", "sglang.launch_server", "--tp", "2"]',
      'cmd.append("--enable-metrics")',
    ].join('\n');
    const cmds = find(text, 'python');
    assert.deepEqual(cmds.map(flags), [['--port'], ['--tp', '--enable-metrics']]);
  });

  it('an edit adds a flag inside a list, never inside an append() call', () => {
    const text = fixture('build_cmd.py');
    const next = edit(text, 'python', [{ flag: '--attention-backend', value: 'triton' }]);
    assert.equal(next, text.replace('str(tp)]', 'str(tp), "--attention-backend", "triton"]'));
    assert.deepEqual(flags(find(next, 'python')[0]), ['--model-path', '--tp', '--attention-backend', '--enable-metrics', '--moe-runner-backend']);
  });
});

describe('launch finder: Dockerfile comment lines inside continuations', () => {
  it('shell form: a # line between \\ lines is dropped, the flags after it are read', () => {
    const [c] = find(fixture('Dockerfile.comments'), 'dockerfile');
    assert.deepEqual(flags(c), ['--model-path', '--attention-backend', '--port']);
    assert.equal(flagValue(c, '--attention-backend'), 'flashinfer', 'the commented-out triton is not read');
    assert.equal(R(flag(c, '--port').range), '7:4-7:10');
    assert.deepEqual(
      c.env.map((e) => e.name),
      ['SGLANG_ENABLE_JIT_DEEPGEMM'],
    );
  });

  it('exec form: a # line after a \\ is dropped', () => {
    const [c] = find(fixture('Dockerfile.exec-comments'), 'dockerfile');
    assert.equal(c.form, 'argv');
    assert.deepEqual(
      c.args.map((a) => a.value),
      ['--model-path', 'Qwen/Qwen3-8B', '--tp', '2'],
    );
  });
});

describe('launch finder: commands that only name a launch', () => {
  for (const [text, hint] of [
    ["pkill -f 'sglang serve'", 'shellscript'],
    ['pkill -f "python3 -m sglang.launch_server --port 30000"', 'shellscript'],
    ['pgrep -f sglang.launch_server', 'shellscript'],
    ['pgrep -af "python -m sglang.launch_server"', 'shellscript'],
    ['ps aux | grep launch_server', 'shellscript'],
    ['ps -ef | grep "sglang serve --model-path" | grep -v grep', 'shellscript'],
    ['killall -9 sglang serve', 'shellscript'],
    ['kill $(pgrep -f "python -m sglang.launch_server")', 'shellscript'],
    ['sudo -u svc pkill -f "sglang serve --port 1"', 'shellscript'],
    ['echo python -m sglang.launch_server --tp 2', 'shellscript'],
    ['[Service]\nExecStop=/usr/bin/pkill -f "sglang.launch_server --port 1"\n', 'systemd'],
    ['RUN pkill -f "python3 -m sglang.launch_server --tp 2" || true\n', 'dockerfile'],
    ['import os\nos.system("pkill -f \'python -m sglang.launch_server --tp 2\'")\n', 'python'],
    ['steps:\n  - run: pkill -f "sglang serve --tp 2"\n', 'yaml'],
  ] as const) {
    it(`not a launch: ${JSON.stringify(text)}`, () => {
      assert.deepEqual(findLaunchCommands(text, hint), []);
    });
  }

  it('exec, nohup and timeout still run the launch', () => {
    for (const t of ['exec python -m sglang.launch_server --tp 2', 'nohup sglang serve --tp 2 &', 'timeout 600 python3 -m sglang.launch_server --tp 2']) {
      assert.equal(flagValue(find(t, 'shellscript')[0], '--tp'), '2', t);
    }
  });
});

describe('launch finder: YAML through the yaml library', () => {
  it('compose: two documents, an anchored command used through an alias, a folded block with a blank line', () => {
    const text = fixture('compose-anchor.yaml');
    assert.equal(parseAllDocuments(text).length, 2);
    const cmds = find(text, 'yaml');
    // primary (the anchor) and replica (the alias) are one command at the anchored source; canary is the second document
    assert.equal(cmds.length, 2);
    const [anchored, canary] = cmds;
    const lines = text.split('\n');
    assert.equal(anchored.form, 'argv');
    assert.equal(flagValue(anchored, '--attention-backend'), 'flashinferr');
    assert.equal(flagValue(anchored, '--fp4-gemm-runner-backend'), 'flashinfer_cutlass');
    assert.equal(line(flag(anchored, '--attention-backend')), lines.indexOf('      - --attention-backend'));
    assert.equal(R(flag(anchored, '--fp4-gemm-runner-backend').values![0].range), '16:8-16:28', 'with its quotes');
    assert.equal(R(flag(anchored, '--port').range), '17:8-17:16');
    // the folded entrypoint: the flags after the empty line are read
    assert.equal(canary.form, 'shell');
    assert.deepEqual(flags(canary), ['--model-path', '--attention-backend', '--tp']);
    assert.equal(R(flag(canary, '--attention-backend').values![0].range), '34:26-34:32');
    assert.equal(flagValue(canary, '--tp'), '2');
    assert.deepEqual(
      canary.env.map((e) => `${e.name}=${e.value} ${R(e.valueRange)}`),
      ['CUDA_VISIBLE_DEVICES=2 29:28-29:31'],
    );
  });

  it('an alias of an anchor outside any command key yields the command, ranges at the anchor', () => {
    const text = [
      'x-launch: &launch [python3, -m, sglang.launch_server, --tp, "2"]',
      'services:',
      '  a:',
      '    environment: {SGLANG_X: "1"}',
      '    command: *launch',
    ].join('\n');
    const [c] = find(text, 'yaml');
    assert.equal(R(c.entryRange), '0:19-0:52');
    assert.equal(R(flag(c, '--tp').range), '0:54-0:58');
    assert.deepEqual(
      c.env.map((e) => e.name),
      ['SGLANG_X'],
    );
  });

  it('merge keys: a service inherits the command of an anchored map', () => {
    const text = [
      'x-base: &base',
      '  image: lmsysorg/sglang',
      '  command: python3 -m sglang.launch_server --tp 4',
      'services:',
      '  a:',
      '    <<: *base',
      '    environment: [A=1]',
    ].join('\n');
    const [c] = find(text, 'yaml');
    assert.equal(R(flag(c, '--tp').range), '2:43-2:47');
    assert.deepEqual(
      c.env.map((e) => `${e.name}=${e.value}`),
      ['A=1'],
    );
  });

  it('Kubernetes: multi-document stream, command: &cmd reused by a second container with its own args, ConfigMap script, env forms', () => {
    const text = fixture('k8s-anchor.yaml');
    const cmds = find(text, 'yaml');
    assert.equal(cmds.length, 3);
    const [script, leader, follower] = cmds;
    assert.equal(script.form, 'shell');
    assert.equal(R(flag(script, '--port').range), '7:64-7:70');
    assert.equal(R(leader.entryRange), '19:25-19:64');
    assert.deepEqual(flags(leader), ['--model-path', '--moe-runner-backend', '--tp']);
    assert.deepEqual(
      leader.env.map((e) => `${e.name}=${e.value}${e.dynamic ? ' (dynamic)' : ''} ${R(e.nameRange)}`),
      ['SGLANG_SANITIZE_NAN_LOGITS=1 27:20-27:46', 'HF_TOKEN= (dynamic) 29:20-29:28'],
    );
    // the alias: entry at the anchored source, the follower's own args on its lines
    assert.equal(R(follower.entryRange), '19:25-19:64');
    assert.deepEqual(flags(follower), ['--model-path', '--node-rank']);
    assert.equal(R(flag(follower, '--node-rank').range), '38:14-38:25');
    assert.equal(flagValue(follower, '--node-rank'), '1');
  });

  it('every scalar style maps each word to its source: plain, quoted with escapes, folded, literal', () => {
    const text = [
      'a:',
      '  command: "python3 -m sglang.launch_server --served-model-name \\"my model\\" --tp\\t2\\',
      '    \\ --port 1"',
      'b:',
      "  command: 'python3 -m sglang.launch_server --chat-template ''t.jinja''",
      '',
      "    --tp 4'",
      'c:',
      '  command: >-',
      '    python3 -m sglang.launch_server',
      '      --tp 8',
      '    --port 2',
      'd:',
      '  command: python3 -m sglang.launch_server',
      '    --tp 16 # a comment',
      'e:',
      '  command:',
      '    - |',
      '      set -e',
      '      sglang serve --tp 32',
    ].join('\n');
    const cmds = find(text, 'yaml');
    assert.deepEqual(
      cmds.map((c) => flagValue(c, '--tp')),
      ['2', '4', '8', '16', '32'],
    );
    assert.equal(flagValue(cmds[0], '--served-model-name'), 'my model');
    assert.equal(R(flag(cmds[0], '--tp').range), '1:77-1:81');
    assert.equal(R(flag(cmds[0], '--port').range), '2:6-2:12', 'after an escaped line break and an escaped space');
    assert.equal(flagValue(cmds[1], '--chat-template'), 't.jinja');
    assert.equal(R(flag(cmds[1], '--tp').range), '6:4-6:8', 'after an empty line in a single-quoted scalar');
    assert.equal(R(flag(cmds[2], '--tp').range), '10:6-10:10', 'a more-indented line of a folded block');
    assert.equal(R(flag(cmds[2], '--port').range), '11:4-11:10');
    assert.equal(R(flag(cmds[3], '--tp').range), '14:4-14:8');
    assert.ok(!cmds[3].args.some((a) => a.value.includes('comment')));
    assert.equal(cmds[4].entry, 'serve');
    assert.equal(R(flag(cmds[4], '--tp').range), '19:19-19:23');
  });

  it('CI files: GitHub run: blocks and GitLab script: lists are shell scripts with their env', () => {
    const text = [
      'jobs:',
      '  smoke:',
      '    env:',
      '      SGLANG_SANITIZE_NAN_LOGITS: 1',
      '    steps:',
      '      - run: |',
      '          pip install sglang',
      '          python -m sglang.launch_server --model-path ${{ matrix.model }} \\',
      '            --tp 2 &',
      'test:',
      '  script:',
      '    - nvidia-smi',
      '    - sglang serve --model-path m --port 30000',
    ].join('\n');
    const cmds = find(text, 'yaml');
    assert.equal(cmds.length, 2);
    assert.equal(flagValue(cmds[0], '--tp'), '2');
    assert.equal(R(flag(cmds[0], '--tp').range), '8:12-8:16');
    assert.ok(flag(cmds[0], '--model-path').values![0].dynamic, 'a ${{ }} expression');
    assert.equal(R(flag(cmds[1], '--port').range), '12:34-12:40');
  });

  it('environment: list and map forms, quoted names and values', () => {
    const text = [
      'services:',
      '  s:',
      '    environment:',
      '      - "A=1"',
      "      - B='x y'",
      '    command: ["sglang", "serve"]',
      '  t:',
      '    environment:',
      '      C: "3"',
      '      D:',
      '    command: ["sglang", "serve"]',
    ].join('\n');
    const cmds = find(text, 'yaml');
    assert.deepEqual(
      cmds.map((c) => c.env.map((e) => `${e.name}=${e.value} ${R(e.nameRange)} ${R(e.valueRange)}`)),
      [
        ['A=1 3:9-3:10 3:11-3:13', "B='x y' 4:8-4:9 4:10-4:15"],
        ['C=3 8:6-8:7 8:9-8:12', 'D= 9:6-9:7 9:6-9:7'],
      ],
    );
  });

  it('a Helm template that does not parse still yields its command, template values dynamic, at their true positions', () => {
    const text = fixture('helm-deployment.yaml');
    assert.ok(
      parseAllDocuments(text).some((d) => d.errors.length > 0),
      'the template is not valid YAML as it stands',
    );
    const cmds = find(text, 'yaml');
    assert.equal(cmds.length, 1);
    const [c] = cmds;
    const lines = text.split('\n');
    assert.deepEqual(flags(c), ['--model-path', '--attention-backend', '--tp', '--port']);
    assert.equal(line(flag(c, '--attention-backend')), lines.indexOf('            - --attention-backend'));
    assert.ok(flag(c, '--attention-backend').values![0].dynamic);
    assert.equal(flag(c, '--attention-backend').values![0].value, '{{ .Values.attentionBackend | default "flashinfer" }}');
    assert.ok(flag(c, '--tp').dynamic, '--tp={{ .Values.tp }}');
    assert.equal(flagValue(c, '--port'), '30000');
    assert.ok(c.env.some((e) => e.name === 'SGLANG_SANITIZE_NAN_LOGITS' && e.value === '1'));
  });

  it('a YAML fence in Markdown: offsets of the fence, anchors inside it', () => {
    const text = ['# Deploy', '', '```yaml', 'x: &c [sglang, serve, --tp, "2"]', 'command: *c', '```', ''].join('\n');
    const [c] = find(text, 'markdown');
    assert.equal(R(flag(c, '--tp').range), '3:22-3:26');
  });
});

describe('launch edits at the new ranges', () => {
  it('bash array: a value set in place on the array line, a flag added in the array, the first item removed', () => {
    const text = fixture('args-array.sh');
    const set = edit(text, 'shellscript', [{ flag: '--attention-backend', value: 'flashinfer' }]);
    assert.equal(set, text.replace('--attention-backend fa3', '--attention-backend flashinfer'));
    assert.equal(flagValue(find(set, 'shellscript')[0], '--attention-backend'), 'flashinfer');

    const simple = 'args=(\n  --model-path m\n  --attention-backend fa3\n)\npython3 -m sglang.launch_server "${args[@]}"\n';
    const added = edit(simple, 'shellscript', [{ flag: '--tp', value: '2' }]);
    assert.equal(added, simple.replace('fa3\n', 'fa3 --tp 2\n'));
    const removed = edit(simple, 'shellscript', [{ flag: '--model-path', value: false }]);
    assert.equal(removed, simple.replace('--model-path m', ''));
    assert.deepEqual(flags(find(removed, 'shellscript')[0]), ['--attention-backend']);
  });

  it('folded compose block: a flag after the empty line is edited in place', () => {
    const text = fixture('compose-anchor.yaml');
    const next = edit(text, 'yaml', [{ flag: '--attention-backend', value: 'flashinfer' }], 1);
    assert.equal(next, text.replace('--attention-backend triton', '--attention-backend flashinfer'));
    const again = find(next, 'yaml');
    assert.equal(flagValue(again[1], '--attention-backend'), 'flashinfer');
    assert.equal(flagValue(again[0], '--attention-backend'), 'flashinferr', 'the other document is untouched');
  });

  it('an anchored command is edited at the anchor (the alias follows it)', () => {
    const text = fixture('compose-anchor.yaml');
    const next = edit(text, 'yaml', [
      { flag: '--attention-backend', value: 'flashinfer' },
      { flag: '--fp4-gemm-backend', aliases: ['--fp4-gemm-runner-backend'], value: 'flashinfer_cudnn' },
      { flag: '--tp', value: '2' },
    ]);
    assert.equal(
      next,
      text
        .replace('      - flashinferr\n', '      - flashinfer\n')
        .replace('"flashinfer_cutlass"', '"flashinfer_cudnn"')
        .replace('      - "30000"\n', '      - "30000"\n      - "--tp"\n      - "2"\n'),
    );
    const [c] = find(next, 'yaml');
    assert.equal(flagValue(c, '--tp'), '2');
  });
});
