/**
 * The language server over stdio with vLLM launch files: a `vllm serve` script and a compose file
 * of the vllm/vllm-openai image are judged against the bundled vLLM catalog of the release each
 * names (image tag, `vllm==` pin next to it, else the newest snapshot): hover text, completion of
 * a Literal choice, unknown flags, `-O` by release, VLLM_ATTENTION_BACKEND in `environment:`.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CompletionItem, CompletionList, PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import type { DocumentCommand } from '../../src/shared/lspProtocol';
import { StdioLspClient } from '../../src/lsp/stdioClient';
import { VLLM_FLAG_HELP } from '../../src/core/flags/vllm/help';
import { buildLanguageServer, byCode, completionLabels, hoverAt, LSP_SERVER, openForDiagnostics, posOf, uriOf } from '../support/lsp';

describe('language server with vLLM launch files: the bundled vLLM catalog', function () {
  this.timeout(60_000);
  let c: StdioLspClient;
  let ws: string;

  before(async function () {
    this.timeout(180_000);
    buildLanguageServer();
    ws = mkdtempSync(join(tmpdir(), 'id-lsp-vllm-'));
    c = new StdioLspClient({ serverPath: LSP_SERVER });
    await c.initialize(ws);
  });
  after(async () => {
    await c?.close();
    rmSync(ws, { recursive: true, force: true });
  });

  const open = (path: string, languageId: string, text: string, pred: (p: PublishDiagnosticsParams) => boolean) => {
    writeFileSync(path, text);
    return openForDiagnostics(c, path, languageId, text, pred);
  };
  const hover = (path: string, text: string, needle: string, delta?: number) => hoverAt(c, path, text, needle, delta);

  it('a vllm serve script pinned by requirements.txt: hover, -O by release, an unknown and a too-new flag, choices', async () => {
    const dir = join(ws, 'script');
    mkdirSync(dir);
    writeFileSync(join(dir, 'requirements.txt'), 'vllm==0.11.0\n');
    const file = join(dir, 'serve.sh');
    const text = '#!/bin/sh\nvllm serve Qwen/Qwen3-8B --kv-cache-dtype fp8 -O3 --attention-backend FLASHINFER --max_model_len 8192 --enable-prefixcaching\n';
    // the pin next to the file is read in the background: wait for diagnostics judged against it
    const p = await open(file, 'shellscript', text, (d) => d.diagnostics.some((x) => x.message.includes('vLLM 0.11.0')));
    const unknown = byCode(p.diagnostics, 'unknown-flag');
    assert.ok(
      unknown.some(
        (d) =>
          d.message.startsWith('--attention-backend does not exist in vLLM 0.11.0 (added in 0.13.0).') &&
          d.message.includes('vllm==0.11.0 in requirements.txt'),
      ),
      JSON.stringify(p.diagnostics),
    );
    const typo = unknown.find((d) => d.message.includes('--enable-prefixcaching'));
    assert.ok(typo, JSON.stringify(p.diagnostics));
    assert.match(typo.message, /Did you mean '--enable-prefix-caching'/);
    assert.ok(!unknown.some((d) => d.message.includes('--max_model_len')), 'vLLM reads underscores as dashes');
    assert.equal(byCode(p.diagnostics, 'known-bad').length + byCode(p.diagnostics, 'diagnosis').length, 0, 'no SGLang rules on vLLM commands');

    const kv = await hover(file, text, '--kv-cache-dtype');
    assert.match(kv, /Choices: (?=.*`fp8`)(?=.*`auto`)/);
    assert.match(kv, /Field: `cache_dtype`/);
    assert.match(kv, /Default: "auto"/);
    assert.ok(kv.includes(VLLM_FLAG_HELP['--kv-cache-dtype'].summary), 'our own help');
    assert.match(kv, /bundled facts of vLLM 0\.11\.0/);
    const o = await hover(file, text, '-O3', 1);
    assert.match(o, /In this release `-O` means `--compilation-config`/);

    const cmds = await c.request<DocumentCommand[]>('inferenceDoctor/flagsForDocument', { uri: uriOf(file) });
    assert.equal(cmds[0]?.engine, 'vllm');
    assert.equal(cmds[0]?.entry, 'serve');

    // completion of a Literal choice after the flag, and of flag names
    const partial = 'vllm serve m --kv-cache-dtype ';
    const uri2 = uriOf(join(dir, 'partial.sh'));
    await c.open(uri2, 'shellscript', partial, 1);
    const values = await c.request<CompletionList | CompletionItem[]>('textDocument/completion', {
      textDocument: { uri: uri2 },
      position: posOf(partial, '--kv-cache-dtype ', 17),
    });
    assert.ok(completionLabels(values).includes('fp8_e4m3'), completionLabels(values).join(' '));
    const flagsText = 'vllm serve m --gpu-memory-util';
    const uri3 = uriOf(join(dir, 'flags.sh'));
    await c.open(uri3, 'shellscript', flagsText, 1);
    const flags = await c.request<CompletionList | CompletionItem[]>('textDocument/completion', {
      textDocument: { uri: uri3 },
      position: posOf(flagsText, '--gpu-memory-util', 17),
    });
    assert.ok(completionLabels(flags).includes('--gpu-memory-utilization'), completionLabels(flags).join(' '));
  });

  it('a compose file of the vllm/vllm-openai image: the tag picks the release, VLLM_ATTENTION_BACKEND in environment:', async () => {
    const dir = join(ws, 'compose');
    mkdirSync(dir);
    const file = join(dir, 'compose.yaml');
    const text = [
      'services:',
      '  llm:',
      '    image: vllm/vllm-openai:v0.13.0',
      '    environment:',
      '      VLLM_ATTENTION_BACKEND: FLASHINFER',
      '    command: ["--model", "Qwen/Qwen3-8B", "--kv-cache-dtype", "fp9", "-O", "3", "--no-such-flag"]',
      '',
    ].join('\n');
    const p = await open(file, 'yaml', text, (d) => d.diagnostics.some((x) => x.code === 'deprecated-env'));
    const [env] = byCode(p.diagnostics, 'deprecated-env');
    assert.match(env.message, /^VLLM_ATTENTION_BACKEND is deprecated in vLLM 0\.13\.0: use --attention-backend/);
    assert.match(env.message, /image tag vllm\/vllm-openai:v0\.13\.0 in compose\.yaml line 3/);
    assert.deepEqual(env.range.start, { line: 4, character: 6 });
    const [choice] = byCode(p.diagnostics, 'invalid-choice');
    assert.match(choice?.message ?? '', /"fp9" is not a valid choice for --kv-cache-dtype: choose from fp8/);
    assert.ok(byCode(p.diagnostics, 'unknown-flag').some((d) => d.message.includes('--no-such-flag')));
    const o = await hover(file, text, '"-O"', 1);
    assert.match(o, /In this release `-O` means `--optimization-level`/);
    const head = await hover(file, text, 'vllm/vllm-openai', 3);
    assert.match(head, /vLLM vllm\/vllm-openai image entrypoint/);

    // a later release no longer reads the variable
    const later = join(dir, 'later.yaml');
    const text2 = text.replace('v0.13.0', 'v0.15.0');
    const p2 = await open(later, 'yaml', text2, (d) => d.diagnostics.some((x) => x.code === 'deprecated-env'));
    assert.match(
      byCode(p2.diagnostics, 'deprecated-env')[0].message,
      /^vLLM 0\.15\.0 no longer reads VLLM_ATTENTION_BACKEND \(last read in 0\.14\.0\): it is ignored/,
    );
  });

  it('keeps SGLang files as they were: a SGLang command next to a vLLM one is judged against SGLang', async () => {
    const dir = join(ws, 'both');
    mkdirSync(dir);
    const file = join(dir, 'both.sh');
    const text = 'python3 -m sglang.launch_server --model-path m --attention-backend flashinferr\nvllm serve m --attention-backend FLASHINFER\n';
    const p = await open(file, 'shellscript', text, (d) => d.diagnostics.length >= 1);
    assert.ok(byCode(p.diagnostics, 'invalid-choice').some((d) => d.range.start.line === 0));
    assert.ok(!p.diagnostics.some((d) => d.range.start.line === 1), 'the newest vLLM has --attention-backend');
    const h = await hover(file, text, '--attention-backend', 2);
    assert.match(h, /bundled facts of SGLang/);
  });
});
