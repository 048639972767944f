/**
 * The language server over stdio with vLLM launch files: a `vllm serve` script and a compose file
 * of the vllm/vllm-openai image are judged against the bundled vLLM catalog of the release each
 * names (image tag, `vllm==` pin next to it, else the newest snapshot): hover text, completion of
 * a Literal choice, unknown flags, `-O` by release, VLLM_ATTENTION_BACKEND in `environment:`.
 * Then the runtime catalog of an installed vLLM (the fake package's own parser, built by the real
 * python3) takes the bundled catalog's place on every vLLM command, and clearing it gives it back.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CompletionItem, CompletionList, PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import type { CatalogEntriesResult, CatalogStatus, DocumentCommand, SetRuntimeCatalogParams } from '../../src/shared/lspProtocol';
import { catalogToJson } from '../../src/core/flags';
import { loadDumpScript, readRuntimeCatalog } from '../../src/core/flags/runtime';
import { LocalHost } from '../../src/core/hosts/local';
import { StdioLspClient } from '../../src/lsp/stdioClient';
import { VLLM_FLAG_HELP } from '../../src/core/flags/vllm/help';
import { buildLanguageServer, byCode, completionLabels, hoverAt, LSP_SERVER, openForDiagnostics, posOf, uriOf } from '../support/lsp';

const REPO_ROOT = join(__dirname, '..', '..');

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
  /** The Backend Flags view's request. */
  const entries = (params: object) => c.request<CatalogEntriesResult>('inferenceDoctor/catalogEntries', params);

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

  it("catalogEntries for the Backend Flags view: vLLM's bundled catalog of the document's release, else the newest snapshot; SGLang's by default", async () => {
    const dir = join(ws, 'entries');
    mkdirSync(dir);
    writeFileSync(join(dir, 'requirements.txt'), 'vllm==0.11.0\n');
    const file = join(dir, 'serve.sh');
    await open(file, 'shellscript', '#!/bin/sh\nvllm serve m --attention-backend FLASHINFER\n', (d) =>
      d.diagnostics.some((x) => x.message.includes('vLLM 0.11.0')),
    );

    const pinned = await entries({ engine: 'vllm', uri: uriOf(file) });
    assert.equal(pinned.source?.engine, 'vllm');
    assert.equal(pinned.source?.kind, 'bundled');
    assert.equal(pinned.source?.version, '0.11.0');
    assert.ok(pinned.entries.some((e) => e.flag === '--kv-cache-dtype'));
    assert.ok(!pinned.entries.some((e) => e.flag === '--attention-backend'), 'added in 0.13.0');
    assert.equal(pinned.definitionUri, undefined, 'no source file for bundled vLLM facts');

    const newest = await entries({ engine: 'vllm' });
    assert.equal(newest.source?.version, 'main');
    assert.ok(newest.entries.some((e) => e.flag === '--attention-backend'));
    const unopened = await entries({ engine: 'vllm', uri: uriOf(join(dir, 'never-opened.sh')) });
    assert.equal(unopened.source?.version, 'main', 'a document the server does not hold names no release');

    const sglang = await entries({});
    assert.equal(sglang.source?.engine, undefined);
    assert.match(sglang.source?.label ?? '', /SGLang/);
    assert.ok(!sglang.entries.some((e) => e.flag === '--gpu-memory-utilization'), "SGLang's flags, not vLLM's");
    assert.deepEqual(await entries({ engine: 'vllm', knownGeneration: newest.generation }), {
      generation: newest.generation,
      unchanged: true,
      source: null,
      entries: [],
      choiceLists: [],
    });
  });

  it('tells the client when a pin read after its request moves the vLLM release, and the next ask gets the pinned catalog', async () => {
    const dir = join(ws, 'late-pin');
    mkdirSync(dir);
    writeFileSync(join(dir, 'requirements.txt'), 'vllm==0.11.0\n');
    const file = join(dir, 'serve.sh');
    const text = '#!/bin/sh\nvllm serve m --kv-cache-dtype fp8\n';
    writeFileSync(file, text);
    const uri = uriOf(file);
    const changed = (): number => c.notifications.filter((n) => n.method === 'inferenceDoctor/catalogChanged').length;
    // The view asks as the document opens (both messages in one write), before the server has read the files next to it.
    const opened = c.open(uri, 'shellscript', text);
    const first = await entries({ engine: 'vllm', uri });
    await opened;
    assert.equal(first.source?.version, 'main', 'the pin is not known yet');
    const seen = changed();
    const deadline = Date.now() + 10_000;
    while (changed() === seen && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(changed() > seen, 'catalogChanged after the pin was read');
    const again = await entries({ engine: 'vllm', uri, knownGeneration: first.generation });
    assert.notEqual(again.unchanged, true, 'the answer moved with the release');
    assert.equal(again.source?.version, '0.11.0');
    assert.ok(!again.entries.some((e) => e.flag === '--attention-backend'), 'added in 0.13.0');
    const settled = await entries({ engine: 'vllm', uri, knownGeneration: again.generation });
    assert.equal(settled.unchanged, true);
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

  it("an installed vLLM's runtime catalog replaces the bundled one on vLLM commands, and clearing it brings the bundled one back", async function () {
    const python = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8', timeout: 10_000 });
    if (python.status !== 0) this.skip();
    // The fake vLLM 0.11.0 has --attention-backend (the bundled 0.11.0 has not) and a plugin's backend only its parser knows.
    const rt = await readRuntimeCatalog(new LocalHost(), python.stdout.trim(), {
      script: await loadDumpScript(join(REPO_ROOT, 'python', 'dump_engine_args.py')),
      engine: 'vllm',
      env: { PYTHONPATH: join(REPO_ROOT, 'test', 'fixtures', 'fake-vllm-runtime'), PYTHONDONTWRITEBYTECODE: '1', FAKE_VLLM_PLUGIN_BACKEND: 'FAKE_PLUGIN_ATTN' },
      timeoutMs: 30_000,
    });
    assert.equal(rt.source, 'dump');
    const dir = join(ws, 'installed');
    mkdirSync(dir);
    writeFileSync(join(dir, 'requirements.txt'), 'vllm==0.11.0\n');
    const file = join(dir, 'serve.sh');
    const uri = uriOf(file);
    const text = '#!/bin/sh\nvllm serve Qwen/Qwen3-8B --attention-backend FAKE_PLUGIN_ATTN --kv-cache-dtype fp4 --max_model_len 4096\n';
    const bundled = await open(file, 'shellscript', text, (d) => d.diagnostics.some((x) => x.message.includes('vLLM 0.11.0')));
    assert.ok(
      byCode(bundled.diagnostics, 'unknown-flag').some((d) => d.message.startsWith('--attention-backend does not exist in vLLM 0.11.0')),
      JSON.stringify(bundled.diagnostics),
    );
    assert.match(await hover(file, text, '--kv-cache-dtype'), /bundled facts of vLLM 0\.11\.0/);

    const send = (p: SetRuntimeCatalogParams): Promise<void> => c.conn.sendNotification('inferenceDoctor/setRuntimeCatalog', p);
    const installed = c.diagnostics(uri, (d) => !byCode(d.diagnostics, 'unknown-flag').length && byCode(d.diagnostics, 'invalid-choice').length > 0);
    await send({ catalog: catalogToJson(rt.catalog), engine: 'vllm', hostLabel: 'gpu-box · python3', ...(rt.version ? { version: rt.version } : {}) });
    const withRuntime = await installed;
    const invalid = byCode(withRuntime.diagnostics, 'invalid-choice');
    assert.equal(invalid.length, 1, JSON.stringify(withRuntime.diagnostics));
    assert.match(invalid[0].message, /fp4/);
    const attention = await hover(file, text, '--attention-backend');
    assert.match(attention, /Catalog: runtime · installed server on gpu-box · python3 · vLLM 0\.11\.0/);
    assert.match(attention, /FAKE_PLUGIN_ATTN/);
    assert.match(await hover(file, text, '--max_model_len'), /is read by vLLM as `--max-model-len`/);
    // The Backend Flags view's vLLM rows are the installed vLLM's now, whatever the document pins.
    const viewEntries = await entries({ engine: 'vllm', uri });
    assert.equal(viewEntries.source?.kind, 'runtime');
    assert.equal(viewEntries.source?.label, 'gpu-box · python3');
    assert.ok(viewEntries.entries.find((e) => e.flag === '--attention-backend')?.choices?.includes('FAKE_PLUGIN_ATTN'));
    assert.equal(viewEntries.definitionUri, undefined);
    const status = await c.request<CatalogStatus>('inferenceDoctor/catalogStatus', null);
    assert.equal(status.vllmRuntime?.kind, 'runtime');
    assert.equal(status.vllmRuntime?.engine, 'vllm');
    assert.equal(status.vllmRuntime?.version, '0.11.0');
    assert.ok(!status.sources.some((x) => x.kind === 'runtime'), "SGLang's catalogs are not the installed vLLM's");
    // Completion offers the installed flags and resolves their help from the same catalog.
    const items = await c.request<CompletionList | CompletionItem[] | null>('textDocument/completion', {
      textDocument: { uri },
      position: posOf(text, '--attention-backend', 5),
    });
    const item = (items ? (Array.isArray(items) ? items : items.items) : []).find((i) => i.label === '--attention-backend');
    assert.ok(item, JSON.stringify(completionLabels(items)));
    const resolved = await c.request<CompletionItem>('completionItem/resolve', item);
    assert.match(JSON.stringify(resolved.documentation), /FAKE_PLUGIN_ATTN/);

    // SGLang's runtime catalog is another slot: clearing it leaves the vLLM one in place.
    await send({ catalog: null });
    assert.equal((await c.request<CatalogStatus>('inferenceDoctor/catalogStatus', null)).vllmRuntime?.version, '0.11.0');
    const back = c.diagnostics(uri, (d) => byCode(d.diagnostics, 'unknown-flag').some((x) => x.message.startsWith('--attention-backend does not exist')));
    await send({ catalog: null, engine: 'vllm' });
    await back;
    const bundledAgain = await entries({ engine: 'vllm', uri });
    assert.equal(bundledAgain.source?.kind, 'bundled');
    assert.equal(bundledAgain.source?.version, '0.11.0');
    assert.equal((await c.request<CatalogStatus>('inferenceDoctor/catalogStatus', null)).vllmRuntime, undefined);
  });
});
