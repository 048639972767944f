/**
 * The language server over stdio with no server_args.py anywhere: the bundled catalog of SGLang
 * releases answers hover, completion and diagnostics, judged against the release each file runs
 * (an image tag in it, a pin near it, the selected server, the setting), and says when the
 * catalog in use and the file's pinned release differ.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CodeAction, CompletionItem, CompletionList, PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import { loadBundledCatalog } from '../../src/core/flags/bundled/load';
import { bundledHelpFor } from '../../src/core/flags/bundledHelp';
import type { CatalogEntriesResult, CatalogStatus } from '../../src/shared/lspProtocol';
import { StdioLspClient } from '../../src/lsp/stdioClient';
import { buildLanguageServer, byCode, completionLabels, hoverAt, LSP_SERVER, openForDiagnostics, posOf, uriOf } from '../support/lsp';

describe('language server with only a launch file: the bundled catalog of SGLang releases', function () {
  this.timeout(60_000);
  const clients: StdioLspClient[] = [];
  let ws: string;
  let newest: string;

  before(async function () {
    this.timeout(120_000);
    buildLanguageServer();
    newest = (await loadBundledCatalog()).newest().release.version;
    ws = mkdtempSync(join(tmpdir(), 'id-lsp-bundled-'));
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    rmSync(ws, { recursive: true, force: true });
  });

  async function start(configuration?: Record<string, unknown>): Promise<StdioLspClient> {
    const c = new StdioLspClient({ serverPath: LSP_SERVER, ...(configuration ? { configuration } : {}) });
    clients.push(c);
    await c.initialize(ws);
    return c;
  }
  const open = (c: StdioLspClient, path: string, languageId: string, text: string, pred?: (p: PublishDiagnosticsParams) => boolean) =>
    openForDiagnostics(c, path, languageId, text, pred, 15_000);

  it('hovers a flag with its type, default, choices, our own help and the release, with no server_args.py', async () => {
    const c = await start();
    const status = await c.request<CatalogStatus>('inferenceDoctor/catalogStatus', null);
    assert.equal(status.active?.kind, 'bundled');
    assert.equal(status.active?.version, newest);
    // The Backend Flags view reads the same catalog; a compare with an installed SGLang (staticOnly) never gets it.
    const entries = await c.request<CatalogEntriesResult>('inferenceDoctor/catalogEntries', {});
    assert.equal(entries.source?.kind, 'bundled');
    assert.ok(entries.entries.some((e) => e.flag === '--attention-backend'));
    const staticOnly = await c.request<CatalogEntriesResult>('inferenceDoctor/catalogEntries', { staticOnly: true });
    assert.equal(staticOnly.source, null);
    const dir = join(ws, 'plain');
    mkdirSync(dir);
    const file = join(dir, 'launch.sh');
    const text = 'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend flashinfer --moe-runner-backend auto\n';
    writeFileSync(file, text);
    await open(c, file, 'shellscript', text);
    const h = await hoverAt(c, file, text, '--attention-backend');
    assert.match(h, /Type: `str`/);
    assert.match(h, /Default: None/);
    assert.match(h, /Choices: (?=.*`flashinfer`)(?=.*`triton`)/);
    assert.ok(h.includes(bundledHelpFor('--attention-backend')!.summary), 'our own summary of the flag');
    assert.match(h, new RegExp(`bundled facts of SGLang ${newest.replace(/\./g, '\\.')}`));
    assert.match(h, /no release found for this file: the newest bundled release/);
    assert.doesNotMatch(h, /No flag catalog/);
    assert.ok(h.indexOf('Choices:') < h.indexOf('When to change it'), 'the facts come before the longer advice');
    assert.match(h, /Hopper \(SM 9\.0\)/, 'with the GPU unknown, every GPU note');
    // With this machine's GPU known, its notes only (marked), not the other GPUs'.
    const next = c.diagnostics(uriOf(file), () => true, 10_000);
    await c.conn.sendNotification('inferenceDoctor/setHostGpu', { hostLabel: 'This machine', computeCapability: 12.0 });
    await next;
    const mine = await hoverAt(c, file, text, '--attention-backend');
    assert.match(mine, /Blackwell RTX \(SM 12\.x: RTX PRO 6000, RTX 5090\) \(this GPU\)/);
    assert.doesNotMatch(mine, /Hopper \(SM 9\.0\)/);
  });

  it('diagnoses an invalid choice and a renamed flag, and completes flags and choices', async () => {
    const c = await start();
    const dir = join(ws, 'typos');
    mkdirSync(dir);
    const file = join(dir, 'run.sh');
    const text = 'python3 -m sglang.launch_server --model-path m --attention-backend flashinferr --fp4-gemm-runner-backend flashinfer_cudnn\n';
    writeFileSync(file, text);
    const p = await open(c, file, 'shellscript', text, (d) => d.diagnostics.length >= 2);
    const [choice] = byCode(p.diagnostics, 'invalid-choice');
    assert.ok(choice, JSON.stringify(p.diagnostics));
    assert.match(choice.message, /"flashinferr" is not a valid choice for --attention-backend: choose from flashinfer/);
    const [renamed] = byCode(p.diagnostics, 'renamed-flag');
    assert.match(renamed.message, /--fp4-gemm-runner-backend was renamed to --fp4-gemm-backend/);
    const fixes = await c.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri: uriOf(file) },
      range: renamed.range,
      context: { diagnostics: [renamed] },
    });
    assert.ok(fixes.some((a) => a.title === 'Rename to --fp4-gemm-backend'));

    const partial = 'python3 -m sglang.launch_server --model-path m --moe-runner-b';
    const uri2 = uriOf(join(dir, 'partial.sh'));
    await c.open(uri2, 'shellscript', partial, 1);
    const flags = await c.request<CompletionList | CompletionItem[]>('textDocument/completion', {
      textDocument: { uri: uri2 },
      position: posOf(partial, '--moe-runner-b', 14),
    });
    const labels = completionLabels(flags);
    assert.ok(labels.includes('--moe-runner-backend'), labels.join(' '));
    const withValue = 'python3 -m sglang.launch_server --model-path m --moe-runner-backend ';
    const uri3 = uriOf(join(dir, 'value.sh'));
    await c.open(uri3, 'shellscript', withValue, 1);
    const values = await c.request<CompletionList | CompletionItem[]>('textDocument/completion', {
      textDocument: { uri: uri3 },
      position: posOf(withValue, 'backend ', 8),
    });
    const choices = completionLabels(values);
    assert.ok(choices.includes('flashinfer_cutlass') && choices.includes('triton'), choices.join(' '));
  });

  it("judges a file against its own release: a requirements pin next to it (added in, removed in, a choice's first release)", async () => {
    const c = await start();
    const dir = join(ws, 'old');
    mkdirSync(dir);
    writeFileSync(join(dir, 'requirements.txt'), '# pinned for the cluster\nsglang[all]==0.4.6.post1\n');
    const file = join(dir, 'serve.sh');
    const text =
      'python3 -m sglang.launch_server --model-path m --enable-ep-moe --moe-runner-backend triton --attention-backend fa3\n' +
      'python3 -m sglang.launch_server --model-path m --attention-backend cutlass_mla\n';
    writeFileSync(file, text);
    const p = await open(c, file, 'shellscript', text, (d) => d.diagnostics.some((x) => /0\.4\.6/.test(x.message)));
    const missing = byCode(p.diagnostics, 'unknown-flag').find((d) => /--moe-runner-backend/.test(d.message));
    assert.ok(missing, JSON.stringify(p.diagnostics.map((d) => d.message)));
    assert.match(missing.message, /--moe-runner-backend does not exist in SGLang 0\.4\.6 \(added in 0\.5\.1\)/);
    assert.match(missing.message, /sglang\[all\]==0\.4\.6\.post1|requirements\.txt/);
    assert.ok(!p.diagnostics.some((d) => /--enable-ep-moe/.test(d.message)), '--enable-ep-moe is current in 0.4.6: no deprecation');
    const choice = byCode(p.diagnostics, 'invalid-choice').find((d) => /cutlass_mla/.test(d.message));
    assert.ok(choice, JSON.stringify(p.diagnostics.map((d) => d.message)));
    assert.match(choice.message, /Choice "cutlass_mla" of --attention-backend needs SGLang ≥ 0\.4\.\d+/);
    const h = await hoverAt(c, file, text, '--enable-ep-moe');
    assert.match(h, /bundled facts of SGLang 0\.4\.6/);
    const later = await hoverAt(c, file, text, '--moe-runner-backend');
    assert.match(
      later,
      /is not in the catalog \(bundled catalog of SGLang 0\.4\.6\)\. --moe-runner-backend does not exist in SGLang 0\.4\.6 \(added in 0\.5\.1\)/,
    );
  });

  it('reads the release from an image tag in a compose file, and the selected server overrides it', async () => {
    const c = await start();
    const dir = join(ws, 'compose');
    mkdirSync(dir);
    const file = join(dir, 'compose.yaml');
    const text = [
      'services:',
      '  sglang:',
      '    image: lmsysorg/sglang:v0.5.2-cu126',
      '    command: python3 -m sglang.launch_server --model-path m --enable-ep-moe --fp4-gemm-backend auto',
      '',
    ].join('\n');
    writeFileSync(file, text);
    const p = await open(c, file, 'yaml', text, (d) => d.diagnostics.some((x) => /0\.5\.2/.test(x.message)));
    const fp4 = byCode(p.diagnostics, 'unknown-flag').find((d) => /--fp4-gemm-backend/.test(d.message));
    assert.ok(fp4, JSON.stringify(p.diagnostics.map((d) => d.message)));
    assert.match(fp4.message, /does not exist in SGLang 0\.5\.2 \(added in 0\.5\.8\)/);
    assert.match(fp4.message, /lmsysorg\/sglang:v0\.5\.2-cu126/);
    assert.match(byCode(p.diagnostics, 'deprecated-flag')[0]?.message ?? '', /--enable-ep-moe is deprecated/);

    // The server picked in the Backend Flags view says it runs 0.5.12: that wins over the image tag, and the tag is named as differing.
    const next = c.diagnostics(
      uriOf(file),
      (d) => !d.diagnostics.some((x) => /--fp4-gemm-backend/.test(x.message)) && d.diagnostics.some((x) => x.code === 'release-mismatch'),
    );
    await c.conn.sendNotification('inferenceDoctor/setServerRelease', { label: 'gpu-box', version: '0.5.12' });
    const after = await next;
    const [mismatch] = byCode(after.diagnostics, 'release-mismatch');
    assert.match(mismatch.message, /SGLang 0\.5\.12 \(.*gpu-box.*\).*differs from.*v0\.5\.2-cu126/);
    assert.match(byCode(after.diagnostics, 'unknown-flag').find((d) => /--enable-ep-moe/.test(d.message))?.message ?? '', /removed in SGLang 0\.5\.5/);
  });

  it('follows the setting when nothing else says, and a workspace catalog wins but the pin is named', async () => {
    const c = await start({ 'inferenceDoctor.flags': { sglangVersion: '0.5.0rc2' } });
    const dir = join(ws, 'setting');
    mkdirSync(dir);
    const file = join(dir, 'go.sh');
    const text = 'python3 -m sglang.launch_server --model-path m --moe-runner-backend triton\n';
    writeFileSync(file, text);
    const p = await open(c, file, 'shellscript', text, (d) => d.diagnostics.length > 0);
    assert.match(byCode(p.diagnostics, 'unknown-flag')[0]?.message ?? '', /does not exist in SGLang 0\.5\.0rc2 \(added in 0\.5\.1\)/);
    assert.match(await hoverAt(c, file, text, '--model-path'), /setting inferenceDoctor\.flags\.sglangVersion/);
  });
});
