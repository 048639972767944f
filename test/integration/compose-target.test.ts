/**
 * The compose restart target on a real file and real processes. No Docker engine runs on the
 * machines this project is tested on, so `docker` is a stand-in script that records its argv and
 * answers `ps` and `logs`; what is checked is ours: which service's command is edited (through the
 * launch parser, anchors and all), the docker calls made (every argument as data), and the byte for
 * byte restore.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ComposeTarget, composeServices, serviceLaunchCommand } from '../../src/core/fix/compose';
import { LocalHost } from '../../src/core/hosts/local';

const COMPOSE = `# two servers on one box
x-common: &common
  image: lmsysorg/sglang:v0.5.5-cu129
  ipc: host
services:
  small:
    <<: *common
    command: python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --port 30001 --attention-backend flashinfer
  big:
    <<: *common
    command: &cmd
      - python3
      - -m
      - sglang.launch_server
      - --model-path
      - nvidia/Qwen3.5-397B-A17B-NVFP4
      - --fp4-gemm-backend
      - flashinfer_cutlass   # the seed's value
      - --port
      - "30000"
`;

describe('compose restart target (stand-in docker CLI)', () => {
  let dir: string;
  let file: string;
  let calls: string;
  let docker: string;
  const recorded = (): string[][] =>
    readFileSync(calls, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as string[]);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'id-compose-'));
    file = join(dir, 'compose.yaml');
    calls = join(dir, 'calls.jsonl');
    writeFileSync(file, COMPOSE);
    writeFileSync(calls, '');
    docker = join(dir, 'docker');
    // Records argv as JSON (node, so every byte is kept); `ps` says running, `logs` prints a line.
    writeFileSync(
      docker,
      `#!${process.execPath}\nconst a = process.argv.slice(2);\nrequire('fs').appendFileSync(${JSON.stringify(calls)}, JSON.stringify(a) + '\\n');\n` +
        `if (a.includes('ps')) console.log('3f2c9a1b');\nif (a.includes('logs')) console.log('big-1  | RuntimeError: CUDA error: no kernel image is available');\n`,
    );
    chmodSync(docker, 0o755);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('edits only the named service (an anchored argv list), recreates it, and restores the file byte for byte', async () => {
    const target = new ComposeTarget(new LocalHost(), file, 'big', [docker]);
    await target.apply([{ flag: '--fp4-gemm-backend', value: 'flashinfer_cudnn' }]);
    const changed = readFileSync(file, 'utf8');
    assert.equal(changed, COMPOSE.replace('- flashinfer_cutlass   #', '- flashinfer_cudnn   #'), 'one value changed, the comment kept');
    assert.ok(changed.includes('--attention-backend flashinfer\n'), 'the other service is untouched');
    assert.equal(await target.isRunning(), true);
    assert.match(await target.logTail(), /no kernel image/);
    await target.restore();
    assert.equal(readFileSync(file, 'utf8'), COMPOSE);
    assert.deepEqual(recorded(), [
      ['compose', '-f', file, 'up', '-d', '--force-recreate', '--no-deps', '--', 'big'],
      ['compose', '-f', file, 'ps', '--status', 'running', '-q', '--', 'big'],
      ['compose', '-f', file, 'logs', '--no-color', '--tail', '40', '--', 'big'],
      ['compose', '-f', file, 'up', '-d', '--force-recreate', '--no-deps', '--', 'big'],
    ]);
  });

  it('a plain command string of another service is edited in place', async () => {
    const target = new ComposeTarget(new LocalHost(), file, 'small', [docker]);
    await target.apply([{ flag: '--attention-backend', value: 'triton' }]);
    assert.equal(readFileSync(file, 'utf8'), COMPOSE.replace('--attention-backend flashinfer', '--attention-backend triton'));
  });

  it('lists the services that launch SGLang or vLLM (the pick offers those), none for a file that is no compose file', () => {
    assert.deepEqual(composeServices(COMPOSE), ['small', 'big']);
    assert.deepEqual(composeServices(`${COMPOSE}  web:\n    image: nginx\n`), ['small', 'big']);
    assert.deepEqual(composeServices('#!/bin/sh\npython3 -m sglang.launch_server --port 1\n'), []);
    assert.deepEqual(composeServices('services: [\n'), []);
  });

  it('a vLLM service of the vllm/vllm-openai image: its entrypoint arguments and its environment: are edited, and restored', async () => {
    const vllm = `services:
  vllm:
    image: vllm/vllm-openai:v0.11.0
    environment:
      VLLM_USE_FLASHINFER_MOE_FP4: "1"
      HF_HOME: /data
    command: ["nvidia/Qwen3-30B-A3B-NVFP4", "--port", "8000", "--max_model_len", "8192"]
`;
    writeFileSync(file, vllm);
    assert.deepEqual(composeServices(vllm), ['vllm']);
    const target = new ComposeTarget(new LocalHost(), file, 'vllm', [docker]);
    await target.apply([
      { flag: 'VLLM_USE_FLASHINFER_MOE_FP4', value: false },
      { flag: '--max-model-len', value: '16384' },
    ]);
    assert.equal(readFileSync(file, 'utf8'), vllm.replace('"1"', '"0"').replace('"8192"', '"16384"'));
    await target.restore();
    assert.equal(readFileSync(file, 'utf8'), vllm);
    assert.deepEqual(recorded()[0], ['compose', '-f', file, 'up', '-d', '--force-recreate', '--no-deps', '--', 'vllm']);
  });

  it('says what is wrong: no such service, no launch command, bad YAML, a name that could be an option', () => {
    assert.throws(() => serviceLaunchCommand(COMPOSE, 'huge'), /No service "huge"/);
    assert.throws(() => serviceLaunchCommand('services:\n  web:\n    command: nginx -g "daemon off;"\n', 'web'), /no SGLang or vLLM launch command/);
    assert.throws(() => serviceLaunchCommand('services: [\n', 'big'), /not valid YAML/);
    assert.throws(() => new ComposeTarget(new LocalHost(), file, '--rm', [docker]), /Not a compose service name/);
  });
});
