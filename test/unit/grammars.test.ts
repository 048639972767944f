/**
 * Grammar tests with the real TextMate tokenizer (vscode-textmate + the Oniguruma WASM build).
 * Host languages are tiny fixture grammars; the injection grammar is injected into each of them the
 * way VS Code does it (`getInjections` + the grammar's injectionSelector).
 */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as oniguruma from 'vscode-oniguruma';
import * as vsctm from 'vscode-textmate';

const root = join(__dirname, '..', '..');
const INJECTION = 'inference-doctor.sglang-launch.injection';
const files: Record<string, string> = {
  'source.shell': 'test/fixtures/grammars/mini-shell.tmLanguage.json',
  'source.yaml': 'test/fixtures/grammars/mini-yaml.tmLanguage.json',
  'source.ini': 'test/fixtures/grammars/mini-ini.tmLanguage.json',
  'source.dockerfile': 'test/fixtures/grammars/mini-dockerfile.tmLanguage.json',
  'source.sglang-log': 'syntaxes/sglang-log.tmLanguage.json',
  [INJECTION]: 'syntaxes/sglang-launch.injection.tmLanguage.json',
};

let registry: vsctm.Registry | undefined;
async function getRegistry(): Promise<vsctm.Registry> {
  if (registry) return registry;
  const wasm = readFileSync(join(root, 'node_modules/vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns: string[]) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s: string) => new oniguruma.OnigString(s),
    }),
    loadGrammar: (scopeName: string) => {
      const f = files[scopeName];
      if (!f) return Promise.resolve(null);
      const path = join(root, f);
      return Promise.resolve(vsctm.parseRawGrammar(readFileSync(path, 'utf8'), path));
    },
    getInjections: (scopeName: string) => (scopeName === 'source.sglang-log' || scopeName === INJECTION ? undefined : [INJECTION]),
  });
  return registry;
}

interface Tok {
  text: string;
  start: number;
  line: number;
  scopes: string[];
}

async function tokenize(scope: string, text: string): Promise<Tok[]> {
  const grammar = await (await getRegistry()).loadGrammar(scope);
  assert.ok(grammar, `grammar ${scope}`);
  let stack = vsctm.INITIAL;
  const out: Tok[] = [];
  text.split('\n').forEach((line, n) => {
    const r = grammar.tokenizeLine(line, stack);
    for (const t of r.tokens) out.push({ text: line.slice(t.startIndex, t.endIndex), start: t.startIndex, line: n, scopes: t.scopes });
    stack = r.ruleStack;
  });
  return out;
}

/** Scopes of the token covering the `nth` occurrence of `needle` (its first character). */
function scopesAt(toks: Tok[], text: string, needle: string, nth = 0): string[] {
  const lines = text.split('\n');
  let seen = 0;
  for (let n = 0; n < lines.length; n++) {
    let i = lines[n].indexOf(needle);
    while (i >= 0) {
      if (seen++ === nth) {
        const t = toks.find((k) => k.line === n && k.start <= i && i < k.start + k.text.length);
        assert.ok(t, `token at ${needle}`);
        return t.scopes;
      }
      i = lines[n].indexOf(needle, i + 1);
    }
  }
  throw new Error(`${needle} not found`);
}

function has(toks: Tok[], text: string, needle: string, scope: string, nth = 0): void {
  const scopes = scopesAt(toks, text, needle, nth);
  assert.ok(
    scopes.some((s) => s === scope || s.startsWith(`${scope}.`) || s.split(' ').includes(scope)),
    `${JSON.stringify(needle)} should have ${scope}; has ${scopes.join(', ')}`,
  );
}
function hasNot(toks: Tok[], text: string, needle: string, scopePrefix: string, nth = 0): void {
  const scopes = scopesAt(toks, text, needle, nth);
  assert.ok(!scopes.some((s) => s.startsWith(scopePrefix)), `${JSON.stringify(needle)} should not have ${scopePrefix}; has ${scopes.join(', ')}`);
}

describe('grammars: sglang-launch injection', () => {
  it('highlights a shell launch command across continuation lines', async () => {
    const text = [
      '#!/bin/bash',
      '# python3 -m sglang.launch_server --not-a-flag',
      'CUDA_VISIBLE_DEVICES=0,1 SGLANG_ENABLE_JIT_DEEPGEMM=0 python3 -m sglang.launch_server \\',
      '  --model-path "nvidia/Qwen3.5-397B-A17B-NVFP4" --tp 2 \\',
      "  --fp4-gemm-backend=flashinfer_cudnn --kv-cache-dtype 'bf16'",
      'echo --not-a-flag',
    ].join('\n');
    const toks = await tokenize('source.shell', text);
    has(toks, text, 'CUDA_VISIBLE_DEVICES', 'variable.other.env.sglang');
    has(toks, text, 'SGLANG_ENABLE_JIT_DEEPGEMM', 'variable.other.env.sglang');
    has(toks, text, 'python3 -m', 'support.function.interpreter.python.sglang', 1);
    has(toks, text, 'sglang.launch_server \\', 'entity.name.function.launch.sglang');
    has(toks, text, '--model-path', 'variable.parameter.flag.sglang');
    has(toks, text, '"nvidia', 'string.quoted.double.value.sglang');
    has(toks, text, '2 \\', 'constant.numeric.value.sglang');
    has(toks, text, '--fp4-gemm-backend', 'variable.parameter.flag.sglang');
    has(toks, text, '=flashinfer_cudnn', 'keyword.operator.assignment.sglang');
    has(toks, text, 'flashinfer_cudnn', 'string.unquoted.value.sglang');
    has(toks, text, "'bf16'", 'string.quoted.single.value.sglang');
    has(toks, text, '--kv-cache-dtype', 'meta.launch-command.sglang');
    // comments and commands after the launch are left alone
    hasNot(toks, text, '--not-a-flag', 'variable.parameter', 0);
    has(toks, text, '--not-a-flag', 'comment.line.number-sign.shell', 0);
    hasNot(toks, text, '--not-a-flag', 'variable.parameter', 1);
  });

  it('highlights ExecStart and Environment= in a systemd unit (source.ini host)', async () => {
    const text = [
      '[Service]',
      'Environment=SGLANG_SANITIZE_NAN_LOGITS=1',
      '; a comment with --flag',
      'ExecStart=/opt/venv/bin/python3 -m sglang.launch_server --moe-runner-backend flashinfer_cutlass \\',
      '    --fp4-gemm-runner-backend flashinfer_cudnn',
    ].join('\n');
    const toks = await tokenize('source.ini', text);
    has(toks, text, 'SGLANG_SANITIZE_NAN_LOGITS', 'variable.other.env.sglang');
    has(toks, text, '1', 'string.unquoted.env-value.sglang');
    has(toks, text, '/opt/venv/bin/python3', 'support.function.interpreter.python.sglang');
    has(toks, text, '--moe-runner-backend', 'variable.parameter.flag.sglang');
    has(toks, text, 'flashinfer_cutlass', 'string.unquoted.value.sglang');
    has(toks, text, '--fp4-gemm-runner-backend', 'variable.parameter.flag.sglang');
    hasNot(toks, text, '--flag', 'variable.parameter');
  });

  it('highlights YAML flow lists, block lists and env entries', async () => {
    const text = [
      'services:',
      '  sglang:',
      '    environment:',
      '      - CUDA_VISIBLE_DEVICES=0',
      '      - FLASHINFER_JIT_VERBOSE=1',
      '    command: ["python3", "-m", "sglang.launch_server", "--tp", "2"]',
      '  other:',
      '    args:',
      '      - sglang.launch_server',
      '      - --model-path',
      '      - "--kv-cache-dtype=bf16"',
      '    # - --commented',
    ].join('\n');
    const toks = await tokenize('source.yaml', text);
    has(toks, text, 'CUDA_VISIBLE_DEVICES', 'variable.other.env.sglang');
    has(toks, text, 'FLASHINFER_JIT_VERBOSE', 'variable.other.env.sglang');
    has(toks, text, 'python3', 'support.function.interpreter.python.sglang');
    has(toks, text, 'sglang.launch_server"', 'entity.name.function.launch.sglang');
    has(toks, text, '--tp', 'variable.parameter.flag.sglang');
    has(toks, text, 'sglang.launch_server', 'entity.name.function.launch.sglang', 1);
    has(toks, text, '--model-path', 'variable.parameter.flag.sglang');
    has(toks, text, '--kv-cache-dtype', 'variable.parameter.flag.sglang');
    hasNot(toks, text, '--commented', 'variable.parameter');
  });

  it('highlights Dockerfile exec and shell forms', async () => {
    const text = [
      'FROM lmsysorg/sglang:latest',
      'ENV SGLANG_ENABLE_DEEP_GEMM=0',
      'CMD ["python3", "-m", "sglang.launch_server", "--attention-backend", "triton"]',
      'RUN sglang serve --model-path Qwen/Qwen3-8B --port 30000',
    ].join('\n');
    const toks = await tokenize('source.dockerfile', text);
    has(toks, text, 'SGLANG_ENABLE_DEEP_GEMM', 'variable.other.env.sglang');
    has(toks, text, 'sglang.launch_server', 'entity.name.function.launch.sglang');
    has(toks, text, '--attention-backend', 'variable.parameter.flag.sglang');
    has(toks, text, 'serve', 'entity.name.function.launch.sglang');
    has(toks, text, '--port', 'variable.parameter.flag.sglang');
    has(toks, text, '30000', 'constant.numeric.value.sglang');
    has(toks, text, 'RUN', 'keyword.other.special-method.dockerfile');
  });
});

describe('grammars: sglang-log', () => {
  const text = [
    '[2026-11-02 10:15:01 TP0] Prefill batch. #new-seq: 1, #new-token: 512, #cached-token: 0, token usage: 0.01, #running-req: 0, #queue-req: 0',
    '[2026-11-02 10:15:02 TP0] Decode batch. #running-req: 4, #token: 2048, token usage: 0.02, gen throughput (token/s): 812.35, #queue-req: 0',
    '[2026-11-02 10:15:03] WARNING Detected errors during sampling! NaN in the logits.',
    '[2026-11-02 10:15:04 TP1] ERROR CUDA error: an illegal memory access was encountered',
    'RuntimeError: No valid tactics found for the FP4 GEMM',
    'Unsupported architecture sm_120',
    'INFO:     127.0.0.1:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    'Traceback (most recent call last):',
    '  File "/sgl-workspace/sglang/python/sglang/srt/layers/sampler.py", line 123, in forward',
    'torch.AcceleratorError: CUDA error: device-side assert triggered',
    'logprob: NaN',
  ].join('\n');

  it('scopes timestamps, levels, batch metrics and errors', async () => {
    const toks = await tokenize('source.sglang-log', text);
    has(toks, text, '2026-11-02 10:15:01', 'constant.numeric.timestamp.sglang-log');
    has(toks, text, ' TP0', 'entity.name.tag.rank.sglang-log');
    has(toks, text, 'Prefill batch', 'keyword.other.batch.sglang-log');
    has(toks, text, '#running-req', 'variable.other.metric.sglang-log', 1);
    has(toks, text, '812.35', 'constant.numeric.metric.sglang-log');
    has(toks, text, 'WARNING', 'markup.warning.level.sglang-log');
    has(toks, text, 'ERROR', 'markup.error.level.sglang-log');
    has(toks, text, 'INFO', 'markup.info.level.sglang-log');
    has(toks, text, 'Detected errors during sampling', 'invalid.illegal.nan.sampling.sglang-log');
    has(toks, text, 'CUDA error', 'invalid.illegal.cuda-error.sglang-log');
    has(toks, text, 'illegal memory access', 'invalid.illegal.cuda-error');
    has(toks, text, 'No valid tactics', 'invalid.illegal.cuda-error.no-valid-tactics.sglang-log');
    has(toks, text, 'Unsupported architecture', 'invalid.illegal.cuda-error.unsupported-architecture.sglang-log');
    has(toks, text, 'POST', 'keyword.other.http-method.sglang-log');
    has(toks, text, '200', 'constant.numeric.status.sglang-log');
    has(toks, text, 'Traceback', 'markup.heading.traceback.sglang-log');
    has(toks, text, '/sgl-workspace', 'string.quoted.double.path.sglang-log');
    has(toks, text, '123, in', 'constant.numeric.line.sglang-log');
    has(toks, text, 'forward', 'entity.name.function.sglang-log');
    has(toks, text, 'RuntimeError', 'entity.name.type.exception.sglang-log');
    has(toks, text, 'NaN', 'invalid.illegal.nan.sglang-log', 1);
  });

  it('language configuration and grammar files are valid JSON with the right scope names', () => {
    const log = JSON.parse(readFileSync(join(root, 'syntaxes/sglang-log.tmLanguage.json'), 'utf8'));
    assert.equal(log.scopeName, 'source.sglang-log');
    const inj = JSON.parse(readFileSync(join(root, 'syntaxes/sglang-launch.injection.tmLanguage.json'), 'utf8'));
    assert.equal(inj.scopeName, INJECTION);
    for (const host of ['source.shell', 'source.ini', 'source.systemd', 'source.yaml', 'source.dockerfile']) assert.ok(inj.injectionSelector.includes(host));
    const conf = JSON.parse(readFileSync(join(root, 'syntaxes/sglang-log.language-configuration.json'), 'utf8'));
    assert.ok(Array.isArray(conf.brackets));
  });
});
