import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findLaunchCommands, flagValue, LAUNCH_DOCUMENT_SELECTOR, launchSyntaxOf, launchSyntaxOfPath } from '../../src/core/launch/index';
import { LineIndex } from '../../src/core/lines';
import type { LanguageHint, LaunchCommand, Range } from '../../src/core/launch/index';

const fixture = (name: string): string => readFileSync(join(__dirname, '..', 'fixtures', 'launch', name), 'utf8');
const R = (r: Range): string => `${r.start.line}:${r.start.character}-${r.end.line}:${r.end.character}`;

/** Compact, exact view of a command: every arg with kind, value and range. */
function view(c: LaunchCommand): string[] {
  return c.args.map((a) => {
    const vals = a.kind === 'flag' ? ` {${(a.values ?? []).map((v) => `${v.value}@${R(v.range)}`).join(' | ')}}` : '';
    return `${a.kind} ${a.value} ${R(a.range)}${a.name ? ` name=${a.name}@${R(a.nameRange!)}` : ''}${a.dynamic ? ' dyn' : ''}${vals}`;
  });
}
const envView = (c: LaunchCommand): string[] => c.env.map((e) => `${e.source} ${e.name}=${e.value} ${R(e.nameRange)} ${R(e.valueRange)}`);

/** Checks that every range's text in the original document is the token's text. */
function checkTexts(text: string, cmds: LaunchCommand[]): void {
  const lines = text.split('\n');
  const slice = (r: Range): string => {
    if (r.start.line === r.end.line) return lines[r.start.line].slice(r.start.character, r.end.character);
    const parts = [lines[r.start.line].slice(r.start.character)];
    for (let l = r.start.line + 1; l < r.end.line; l++) parts.push(lines[l]);
    parts.push(lines[r.end.line].slice(0, r.end.character));
    return parts.join('\n');
  };
  for (const c of cmds) {
    assert.equal(slice(c.executable.range), c.executable.text);
    for (const a of c.args) {
      assert.equal(slice(a.range), a.text, `arg ${a.value}`);
      for (const v of a.values ?? []) assert.equal(slice(v.range), v.text, `value ${v.value}`);
    }
  }
}

function find(name: string, hint: LanguageHint): { text: string; cmds: LaunchCommand[] } {
  const text = fixture(name);
  const cmds = findLaunchCommands(text, hint);
  checkTexts(text, cmds);
  return { text, cmds };
}

describe('launch finder: fixtures', () => {
  it('shell script: env prefix, export, continuations, quotes, --flag=value, redirections, ;', () => {
    const { cmds } = find('serve.sh', 'shellscript');
    assert.equal(cmds.length, 2);
    const [a, b] = cmds;
    assert.equal(a.entry, 'launch_server');
    assert.equal(a.executable.value, 'python3.11');
    assert.equal(R(a.range), '6:0-12:18');
    assert.equal(R(a.entryRange), '6:54-6:88');
    assert.deepEqual(envView(a), [
      'export SGLANG_ENABLE_JIT_DEEPGEMM=0 3:7-3:33 3:34-3:35',
      'prefix CUDA_VISIBLE_DEVICES=0,1 6:0-6:20 6:21-6:24',
      'prefix SGLANG_SANITIZE_NAN_LOGITS=1 6:25-6:51 6:52-6:53',
    ]);
    assert.deepEqual(view(a), [
      'flag --model-path 7:2-7:14 name=--model-path@7:2-7:14 {$MODEL@7:15-7:23}',
      'value $MODEL 7:15-7:23 dyn',
      'flag --tp 8:2-8:6 name=--tp@8:2-8:6 {2@8:7-8:8}',
      'value 2 8:7-8:8',
      'flag --port=30000 8:9-8:21 name=--port@8:9-8:15 {30000@8:16-8:21}',
      'flag --served-model-name 9:2-9:21 name=--served-model-name@9:2-9:21 {qwen 3.5@9:22-9:32}',
      'value qwen 3.5 9:22-9:32',
      'flag --kv-cache-dtype 10:2-10:18 name=--kv-cache-dtype@10:2-10:18 {fp8_e4m3@10:19-10:29}',
      'value fp8_e4m3 10:19-10:29',
      'flag --enable-metrics 11:2-11:18 name=--enable-metrics@11:2-11:18 {}',
      'flag --random-seed 12:2-12:15 name=--random-seed@12:2-12:15 {-1@12:16-12:18}',
      'value -1 12:16-12:18',
    ]);
    assert.equal(b.entry, 'serve');
    assert.equal(R(b.range), '15:0-15:39');
    assert.deepEqual(view(b), ['flag --model-path 15:13-15:25 name=--model-path@15:13-15:25 {Qwen/Qwen3-8B@15:26-15:39}', 'value Qwen/Qwen3-8B 15:26-15:39']);
    assert.equal(flagValue(a, '--port'), '30000');
    assert.equal(flagValue(a, '--enable-metrics'), true);
  });

  it('systemd unit: the incident command, "-" prefix, Environment=, comment lines inside the continuation', () => {
    const { cmds } = find('sglang.service', 'systemd');
    assert.equal(cmds.length, 1);
    const c = cmds[0];
    assert.equal(c.executable.value, '/opt/sglang/.venv/bin/python');
    assert.equal(R(c.range), '7:11-12:86');
    assert.deepEqual(envView(c), ['systemd CUDA_VISIBLE_DEVICES=0,1 5:13-5:33 5:34-5:38', 'systemd SGLANG_ENABLE_JIT_DEEPGEMM=0 5:39-5:65 5:66-5:67']);
    assert.deepEqual(view(c), [
      'flag --model-path 8:4-8:16 name=--model-path@8:4-8:16 {nvidia/Qwen3.5-397B-A17B-NVFP4@8:17-8:47}',
      'value nvidia/Qwen3.5-397B-A17B-NVFP4 8:17-8:47',
      'flag --tp 9:4-9:8 name=--tp@9:4-9:8 {2@9:9-9:10}',
      'value 2 9:9-9:10',
      'flag --moe-runner-backend 12:4-12:24 name=--moe-runner-backend@12:4-12:24 {flashinfer_cutlass@12:25-12:43}',
      'value flashinfer_cutlass 12:25-12:43',
      'flag --fp4-gemm-runner-backend 12:44-12:69 name=--fp4-gemm-runner-backend@12:44-12:69 {flashinfer_cudnn@12:70-12:86}',
      'value flashinfer_cudnn 12:70-12:86',
    ]);
    assert.ok(!c.args.some((a) => a.value.includes('attention')), 'commented-out flag must not appear');
  });

  it('docker-compose: folded scalar, flow list across lines with mixed quotes, sh -c literal block', () => {
    const { cmds } = find('docker-compose.yml', 'yaml');
    assert.equal(cmds.length, 3);
    const [folded, flow, shell] = cmds;
    assert.equal(folded.form, 'shell');
    assert.equal(R(folded.range), '7:6-9:49');
    assert.deepEqual(envView(folded), ['yaml SGLANG_SANITIZE_NAN_LOGITS=0 4:8-4:34 4:35-4:36', 'yaml HF_TOKEN=${HF_TOKEN} 5:9-5:17 5:18-5:30']);
    assert.deepEqual(view(folded), [
      'flag --model-path 8:6-8:18 name=--model-path@8:6-8:18 {zai-org/GLM-4.7-Flash@8:19-8:40}',
      'value zai-org/GLM-4.7-Flash 8:19-8:40',
      'flag --attention-backend 9:6-9:25 name=--attention-backend@9:6-9:25 {flashinfer@9:26-9:36}',
      'value flashinfer 9:26-9:36',
      'flag --port 9:37-9:43 name=--port@9:37-9:43 {30000@9:44-9:49}',
      'value 30000 9:44-9:49',
    ]);
    assert.equal(flow.form, 'argv');
    assert.equal(R(flow.entryRange), '14:14-14:53');
    assert.deepEqual(envView(flow), ['yaml CUDA_VISIBLE_DEVICES=1 13:6-13:26 13:28-13:31']);
    assert.deepEqual(view(flow), [
      'flag --model-path 14:55-14:69 name=--model-path@14:56-14:68 {Qwen/QwQ-32B@14:71-14:85}'.replace('@14:56-14:68', '@14:55-14:69'),
      'value Qwen/QwQ-32B 14:71-14:85',
      'flag --attention-backend=fa3 15:14-15:39 name=--attention-backend@15:15-15:34 {fa3@15:35-15:39}',
      'flag --kv-cache-dtype 15:41-15:59 name=--kv-cache-dtype@15:41-15:59 {fp8_e4m3@15:61-15:71}',
      'value fp8_e4m3 15:61-15:71',
    ]);
    assert.equal(shell.entry, 'serve');
    assert.equal(R(shell.range), '22:13-23:40');
    assert.deepEqual(view(shell), [
      'flag --model-path 22:26-22:38 name=--model-path@22:26-22:38 {deepseek-ai/DeepSeek-V3@22:39-22:64}',
      'value deepseek-ai/DeepSeek-V3 22:39-22:64',
      'flag --tp 22:65-22:69 name=--tp@22:65-22:69 {8@22:70-22:71}',
      'value 8 22:70-22:71',
      'flag --attention-backend 23:10-23:29 name=--attention-backend@23:10-23:29 {trtllm_mla@23:30-23:40}',
      'value trtllm_mla 23:30-23:40',
    ]);
  });

  it('Kubernetes: command flow list + args block list with comments and quotes, env name/value pairs', () => {
    const { cmds } = find('deployment.yaml', 'yaml');
    assert.equal(cmds.length, 1);
    const c = cmds[0];
    assert.equal(R(c.range), '10:20-19:21');
    assert.deepEqual(envView(c), ['yaml SGLANG_SANITIZE_NAN_LOGITS=1 21:20-21:46 22:21-22:24', 'yaml CUDA_LAUNCH_BLOCKING=0 23:20-23:40 24:21-24:24']);
    assert.deepEqual(view(c), [
      'flag --model-path 12:14-12:26 name=--model-path@12:14-12:26 {nvidia/MiniMax-M2.7-NVFP4@13:14-13:39}',
      'value nvidia/MiniMax-M2.7-NVFP4 13:14-13:39',
      'flag --moe-runner-backend 15:14-15:34 name=--moe-runner-backend@15:14-15:34 {flashinfer_trtllm@16:14-16:33}',
      'value flashinfer_trtllm 16:14-16:33',
      'flag --tp=8 17:14-17:22 name=--tp@17:15-17:19 {8@17:20-17:22}',
      'flag --host 18:14-18:20 name=--host@18:14-18:20 {0.0.0.0@19:14-19:21}',
      'value 0.0.0.0 19:14-19:21',
    ]);
  });

  it('Dockerfile: RUN shell form, ENTRYPOINT + CMD exec forms joined, ENV with continuation', () => {
    const { cmds } = find('Dockerfile', 'dockerfile');
    assert.equal(cmds.length, 2);
    const [run, main] = cmds;
    assert.equal(R(run.range), '4:4-4:42');
    assert.deepEqual(view(run), ['flag --help 4:36-4:42 name=--help@4:36-4:42 {}']);
    assert.equal(main.form, 'argv');
    assert.equal(R(main.range), '5:12-8:74');
    assert.deepEqual(envView(main), ['dockerfile SGLANG_ENABLE_JIT_DEEPGEMM=0 1:4-1:30 1:31-1:32', 'dockerfile SGLANG_ENABLE_DEEP_GEMM=0 2:4-2:27 2:28-2:29']);
    assert.deepEqual(view(main), [
      'flag --host 6:12-6:20 name=--host@6:12-6:20 {0.0.0.0@6:22-6:31}',
      'value 0.0.0.0 6:22-6:31',
      'flag --model-path 8:5-8:19 name=--model-path@8:5-8:19 {zai-org/GLM-5.1-FP8@8:21-8:42}',
      'value zai-org/GLM-5.1-FP8 8:21-8:42',
      'flag --kv-cache-dtype 8:44-8:62 name=--kv-cache-dtype@8:44-8:62 {fp8_e4m3@8:64-8:74}',
      'value fp8_e4m3 8:64-8:74',
    ]);
  });

  it('Python: argv list with sys.executable and expressions, implicit concatenation with an f-string', () => {
    const { cmds } = find('launch.py', 'python');
    assert.equal(cmds.length, 2);
    const [argv, str] = cmds;
    assert.equal(argv.form, 'argv');
    assert.equal(argv.executable.value, 'sys.executable');
    assert.equal(R(argv.range), '8:4-12:33');
    assert.deepEqual(view(argv), [
      'flag --model-path 9:4-9:18 name=--model-path@9:4-9:18 {model_path@9:20-9:30}',
      'value model_path 9:20-9:30 dyn',
      'flag --port 10:4-10:12 name=--port@10:4-10:12 {str(port)@10:14-10:23}',
      'value str(port) 10:14-10:23 dyn',
      'flag --mem-fraction-static 11:4-11:27 name=--mem-fraction-static@11:4-11:27 {0.85@11:29-11:35}',
      'value 0.85 11:29-11:35',
      'flag --chunked-prefill-size=4096 12:4-12:33 name=--chunked-prefill-size@12:5-12:27 {4096@12:28-12:33}',
    ]);
    assert.equal(str.form, 'shell');
    assert.equal(R(str.range), '16:11-17:46');
    assert.deepEqual(view(str), [
      'flag --model-path 16:43-16:55 name=--model-path@16:43-16:55 {Qwen/Qwen3-8B@16:56-16:69}',
      'value Qwen/Qwen3-8B 16:56-16:69',
      'flag --port 17:12-17:18 name=--port@17:12-17:18 {{port}@17:19-17:25}',
      'value {port} 17:19-17:25 dyn',
      'flag --disable-cuda-graph 17:26-17:46 name=--disable-cuda-graph@17:26-17:46 {}',
    ]);
  });

  it('Markdown: recurses into bash, yaml, python (~~~) and unlabelled fences, skips prose and other languages', () => {
    const { cmds } = find('README.md', 'markdown');
    assert.deepEqual(
      cmds.map((c) => `${c.entry} ${c.host} ${c.form} ${R(c.range)}`),
      ['launch_server shellscript shell 5:0-5:64', 'serve yaml argv 11:10-11:60', 'launch_server python argv 17:16-17:73', 'serve plaintext shell 21:2-21:41'],
    );
    assert.deepEqual(view(cmds[3]), [
      'flag --model-path 21:15-21:27 name=--model-path@21:15-21:27 {x@21:28-21:29}',
      'value x 21:28-21:29',
      'flag --port 21:30-21:36 name=--port@21:30-21:36 {1234@21:37-21:41}',
      'value 1234 21:37-21:41',
    ]);
  });
});

describe('launch finder: details', () => {
  const one = (text: string, hint: LanguageHint = 'shellscript'): LaunchCommand => {
    const cmds = findLaunchCommands(text, hint);
    assert.equal(cmds.length, 1, JSON.stringify(cmds));
    checkTexts(text, cmds);
    return cmds[0];
  };

  it('a continuation inside a token joins it and keeps ranges in the original text', () => {
    const c = one('python -m sglang.launch_server --kv-cache\\\n-dtype=bf16');
    assert.deepEqual(view(c), ['flag --kv-cache-dtype=bf16 0:31-1:11 name=--kv-cache-dtype@0:31-1:6 {bf16@1:7-1:11}']);
  });

  it("escapes in double quotes and $'…' strings decode; CRLF line ends work", () => {
    const c = one('python3 -m sglang.launch_server --chat-template "a \\"b\\" c" \\\r\n  --tp 2\r\n');
    assert.deepEqual(view(c), [
      'flag --chat-template 0:32-0:47 name=--chat-template@0:32-0:47 {a "b" c@0:48-0:59}',
      'value a "b" c 0:48-0:59',
      'flag --tp 1:2-1:6 name=--tp@1:2-1:6 {2@1:7-1:8}',
      'value 2 1:7-1:8',
    ]);
  });

  it('finds commands inside bash -c and keeps the outer env prefix', () => {
    const c = one(`CUDA_VISIBLE_DEVICES=3 bash -c 'exec python -m sglang.launch_server --port 1'`);
    assert.deepEqual(envView(c), ['prefix CUDA_VISIBLE_DEVICES=3 0:0-0:20 0:21-0:22']);
    assert.deepEqual(view(c), ['flag --port 0:68-0:74 name=--port@0:68-0:74 {1@0:75-0:76}', 'value 1 0:75-0:76']);
  });

  it('systemd "@" prefix drops argv[0]; interpreter options before -m are skipped', () => {
    const c = one('[Service]\nExecStart=@/usr/bin/python3 sglang-server -u -m sglang.launch_server --tp 4\n', 'systemd');
    assert.equal(c.executable.value, '/usr/bin/python3');
    assert.deepEqual(view(c), ['flag --tp 1:69-1:73 name=--tp@1:69-1:73 {4@1:74-1:75}', 'value 4 1:74-1:75']);
  });

  it('flagArity decides how many words a flag takes', () => {
    const text = 'python -m sglang.launch_server --enable-metrics extra --tp 2 3';
    const c = findLaunchCommands(text, 'shellscript', { flagArity: (n) => (n === '--enable-metrics' ? 0 : n === '--tp' ? 1 : undefined) })[0];
    assert.deepEqual(
      c.args.map((a) => `${a.kind}:${a.value}`),
      ['flag:--enable-metrics', 'positional:extra', 'flag:--tp', 'value:2', 'positional:3'],
    );
    // without the hint, unknown flags take every following non-flag word (nargs="+")
    const d = findLaunchCommands(text, 'shellscript')[0];
    assert.deepEqual(
      d.args.map((a) => `${a.kind}:${a.value}`),
      ['flag:--enable-metrics', 'value:extra', 'flag:--tp', 'value:2', 'value:3'],
    );
  });

  it('an unterminated quote ends at its line and later commands are still found', () => {
    const cmds = findLaunchCommands('echo "oops\npython -m sglang.launch_server --tp 2\n', 'shellscript');
    assert.equal(cmds.length, 1);
    assert.equal(flagValue(cmds[0], '--tp'), '2');
  });

  it('ignores echo/printf text, comments and non-launch modules', () => {
    assert.deepEqual(
      findLaunchCommands('echo "python -m sglang.launch_server --tp 2"\n# sglang serve\npython -m sglang.bench_serving --x 1\n', 'shellscript'),
      [],
    );
    assert.deepEqual(findLaunchCommands('no sglang here', 'yaml'), []);
  });

  it('YAML single- and double-quoted scalar escapes', () => {
    const c = one(`command: ['python3', '-m', 'sglang.launch_server', '--served-model-name', 'it''s', "--tp", "\\u0032"]`, 'yaml');
    assert.equal(flagValue(c, '--served-model-name'), "it's");
    assert.equal(flagValue(c, '--tp'), '2');
    assert.equal(R(c.args[1].range), '0:74-0:81');
    assert.equal(R(c.args[3].range), '0:91-0:99');
  });

  it('YAML node properties before a value (an anchor, a tag) are skipped: the command under them is read', () => {
    const block = one(['command: &cmd', '  - python3', '  - -m', '  - sglang.launch_server', '  - --tp', '  - "2"'].join('\n'), 'yaml');
    assert.equal(flagValue(block, '--tp'), '2');
    const flow = one(`args: !!seq &a ['python3', '-m', 'sglang.launch_server', '--port', '30001']`, 'yaml');
    assert.equal(flagValue(flow, '--port'), '30001');
    assert.equal(R(flow.args[1].range), '0:67-0:74', 'the value with its quotes');
  });

  it('run: literal blocks are shell scripts', () => {
    const text = ['steps:', '  - run: |', "      python -m sglang.launch_server --model-path 'it''s' \\", '        --tp "\\u0032"'].join('\n');
    const c = one(text, 'yaml');
    // a literal block is not YAML-unescaped: the shell joins 'it''s' into its
    assert.equal(flagValue(c, '--model-path'), 'its');
    assert.equal(R(c.args[1].range), '2:50-2:57');
    assert.equal(flagValue(c, '--tp'), '\\u0032');
  });
});

describe('launch syntax of a file (one rule set for server, remote reader and client selector)', () => {
  it('a unit file is systemd whatever its language id; else the id decides; else the name', () => {
    assert.equal(launchSyntaxOf('plaintext', 'file:///etc/systemd/system/sglang.service'), 'systemd');
    assert.equal(launchSyntaxOf('ini', 'file:///srv/x.timer'), 'systemd');
    assert.equal(launchSyntaxOf('shellscript', 'file:///etc/systemd/run.sh'), 'shellscript');
    assert.equal(launchSyntaxOf('dockercompose', 'file:///srv/compose.yaml'), 'yaml');
    assert.equal(launchSyntaxOf('someones-own', 'file:///srv/Dockerfile.gpu'), 'dockerfile');
    assert.equal(launchSyntaxOf('someones-own', 'file:///srv/notes.txt'), undefined);
    // Language ids are foreign text: no Object.prototype member is a syntax.
    assert.equal(launchSyntaxOf('constructor', 'file:///srv/notes.txt'), undefined);
  });

  it('by name alone (files read from a host)', () => {
    const cases: [string, LanguageHint | undefined][] = [
      ['/etc/systemd/system/sglang.service', 'systemd'],
      ['/etc/systemd/system/sglang.service.d/env', 'systemd'],
      ['/etc/sglang.conf', 'systemd'],
      ['/srv/compose.yaml', 'yaml'],
      ['/srv/k8s.YML', 'yaml'],
      ['/srv/Dockerfile', 'dockerfile'],
      ['/srv/app.dockerfile', 'dockerfile'],
      ['/srv/run.sh', 'shellscript'],
      ['/srv/serve.py', 'python'],
      ['/srv/README.markdown', 'markdown'],
      ['/srv/run', undefined],
    ];
    for (const [path, hint] of cases) assert.equal(launchSyntaxOfPath(path), hint, path);
  });

  it('every language id the client selects is one the server reads', () => {
    for (const f of LAUNCH_DOCUMENT_SELECTOR) {
      if (f.language) assert.ok(launchSyntaxOf(f.language, 'file:///x/launch'), f.language);
    }
    assert.ok(
      LAUNCH_DOCUMENT_SELECTOR.some((f) => !f.language && f.pattern?.includes('service')),
      'unit files with any id',
    );
  });
});

describe('LineIndex (core line table)', () => {
  it('offsets and positions both ways; out-of-range positions are clamped', () => {
    const lines = new LineIndex('ab\ncd\n\nxyz');
    assert.deepEqual(lines.pos(0), { line: 0, character: 0 });
    assert.deepEqual(lines.pos(4), { line: 1, character: 1 });
    assert.deepEqual(lines.pos(7), { line: 3, character: 0 });
    assert.equal(lines.offset({ line: 1, character: 1 }), 4);
    assert.equal(lines.offset({ line: 0, character: 99 }), 3, 'stops at the next line start');
    assert.equal(lines.offset({ line: 99, character: 1 }), 8, 'last line');
    assert.equal(lines.offset({ line: 3, character: 99 }), 10, 'end of text');
  });
});
