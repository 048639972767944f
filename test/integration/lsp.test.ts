/**
 * The language server over stdio with a real JSON-RPC client: catalogs of three eras (workspace,
 * settings, runtime), hover, completion, diagnostics and their quick fixes, definition, symbols,
 * workspace rules, incremental catalog updates, and a seeded fuzz of 1,000+ mutated documents.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  CodeAction,
  CompletionItem,
  CompletionList,
  Diagnostic,
  DocumentSymbol,
  Hover,
  Location,
  MarkupContent,
  PublishDiagnosticsParams,
  TextEdit,
} from 'vscode-languageserver-protocol';
import { buildCatalog, catalogToJson } from '../../src/core/flags';
import type { CatalogStatus, DocumentCommand } from '../../src/shared/lspProtocol';
import { StdioLspClient } from '../../src/lsp/stdioClient';
import { buildLanguageServer, byCode, hoverText, LSP_SERVER, posOf, readable, uriOf } from '../support/lsp';
import { waitFor } from '../support/wait';

const ROOT = join(__dirname, '..', '..');
const FIX = join(ROOT, 'test', 'fixtures');
const LAUNCH = join(FIX, 'launch');
const ARGS = join(FIX, 'server_args');

const read = (p: string): string => readFileSync(p, 'utf8');

/** Applies LSP text edits to a string (edits must not overlap). */
function applyEdits(text: string, edits: TextEdit[]): string {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  const off = (p: { line: number; character: number }): number => starts[p.line] + p.character;
  const sorted = [...edits].sort((a, b) => off(b.range.start) - off(a.range.start));
  let out = text;
  for (const e of sorted) out = out.slice(0, off(e.range.start)) + e.newText + out.slice(off(e.range.end));
  return out;
}

async function activeCatalog(c: StdioLspClient, kind: string): Promise<CatalogStatus> {
  return waitFor(`${kind} catalog`, async () => {
    const s = await c.request<CatalogStatus>('inferenceDoctor/catalogStatus', null);
    return s.active?.kind === kind ? s : undefined;
  });
}

function makeWorkspace(serverArgs?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'id-lsp-'));
  if (serverArgs) {
    mkdirSync(join(dir, 'sglang', 'srt'), { recursive: true });
    cpSync(join(ARGS, serverArgs), join(dir, 'sglang', 'srt', 'server_args.py'));
  }
  return dir;
}

const clients: StdioLspClient[] = [];
const dirs: string[] = [];
function client(configuration?: Record<string, unknown>): StdioLspClient {
  const c = new StdioLspClient({ serverPath: LSP_SERVER, ...(configuration ? { configuration } : {}) });
  clients.push(c);
  return c;
}

async function openAndDiagnose(c: StdioLspClient, uri: string, languageId: string, text: string, version = 1): Promise<PublishDiagnosticsParams> {
  const p = c.diagnostics(uri, (d) => d.version === version);
  await c.open(uri, languageId, text, version);
  return p;
}

async function change(c: StdioLspClient, uri: string, text: string, version: number): Promise<PublishDiagnosticsParams> {
  const p = c.diagnostics(uri, (d) => d.version === version);
  await c.conn.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] });
  return p;
}

async function actions(c: StdioLspClient, uri: string, d: Diagnostic): Promise<CodeAction[]> {
  return c.request<CodeAction[]>('textDocument/codeAction', { textDocument: { uri }, range: d.range, context: { diagnostics: [d] } });
}

describe('language server over stdio', function () {
  this.timeout(60_000);

  before(function () {
    this.timeout(120_000);
    buildLanguageServer();
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  describe('main-era workspace catalog', () => {
    let c: StdioLspClient;
    let ws: string;
    const serviceText = read(join(LAUNCH, 'sglang.service'));
    let serviceUri: string;
    let service: PublishDiagnosticsParams;

    before(async function () {
      this.timeout(60_000);
      ws = makeWorkspace('dataclass_main.py');
      dirs.push(ws);
      mkdirSync(join(ws, '.inference-doctor'));
      writeFileSync(
        join(ws, '.inference-doctor', 'rules.json'),
        JSON.stringify({
          rules: [
            {
              id: 'ws-port-31337',
              title: 'Port 31337 is firewalled here',
              symptom: 'clients time out',
              engine: 'sglang',
              confidence: 'confirmed',
              sources: ['team wiki'],
              match: { fields: { port: ['31337'] } },
              fix: { summary: 'Use port 30000', set: [{ flag: '--port', field: 'port', value: 30000 }] },
            },
          ],
        }),
      );
      c = client();
      const init = await c.initialize(ws);
      assert.ok(init.capabilities.hoverProvider);
      const status = await activeCatalog(c, 'workspace');
      assert.equal(status.active!.era, 'dataclass');
      assert.ok(status.active!.flags > 150);
      assert.equal(status.rules.files.length, 1);
      serviceUri = uriOf(join(ws, 'sglang.service'));
      service = await openAndDiagnose(c, serviceUri, 'ini', serviceText);
    });

    it('flags the renamed --fp4-gemm-runner-backend and renames it', async () => {
      const [d] = byCode(service.diagnostics, 'renamed-flag');
      assert.ok(d, JSON.stringify(service.diagnostics));
      assert.match(d.message, /--fp4-gemm-runner-backend was renamed to --fp4-gemm-backend/);
      assert.deepEqual(d.range.start, posOf(serviceText, '--fp4-gemm-runner-backend'));
      const [a] = await actions(c, serviceUri, d);
      assert.equal(a.title, 'Rename to --fp4-gemm-backend');
      const fixed = applyEdits(serviceText, a.edit!.changes![serviceUri]);
      assert.match(fixed, /--moe-runner-backend flashinfer_cutlass --fp4-gemm-backend flashinfer_cudnn\n/);
    });

    it('warns about the known-bad GDN rule, names the GPUs, and applies its fix', async () => {
      const [d] = byCode(service.diagnostics, 'known-bad');
      assert.ok(d);
      assert.equal(d.severity, 2);
      assert.match(d.message, /GDN/);
      assert.match(d.message, /SM 12\.x GPUs .*the GPU is unknown/);
      assert.match(d.message, /Fix: Use the Triton attention backend/);
      const [a] = await actions(c, serviceUri, d);
      const fixed = applyEdits(serviceText, a.edit!.changes![serviceUri]);
      assert.match(fixed, /--fp4-gemm-runner-backend flashinfer_cudnn --attention-backend triton\n/);
      // the commented-out flag is not part of the command
      assert.equal(byCode(service.diagnostics, 'unknown-flag').length, 0);
    });

    it('reports invalid choices, unknown flags with did-you-mean, duplicates and deprecations, each with fixes', async () => {
      const text = [
        '#!/bin/sh',
        'python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend flashinfr \\',
        '  --chunked-prefil-size 4096 --port 1 --port 2 --enable-flashinfer-mla --attention-backend=nsa',
        '',
      ].join('\n');
      const uri = uriOf(join(ws, 'run.sh'));
      const { diagnostics } = await openAndDiagnose(c, uri, 'shellscript', text);
      const [bad] = byCode(diagnostics, 'invalid-choice');
      assert.match(bad.message, /"flashinfr" is not a valid choice for --attention-backend/);
      const choiceFixes = await actions(c, uri, bad);
      assert.equal(choiceFixes[0].title, 'Replace with flashinfer');
      assert.ok(choiceFixes.length >= 10, 'one action per valid choice');
      assert.ok(choiceFixes[0].isPreferred);
      assert.match(applyEdits(text, choiceFixes[0].edit!.changes![uri]), /--attention-backend flashinfer \\/);

      const [unknown] = byCode(diagnostics, 'unknown-flag');
      assert.match(unknown.message, /Unknown flag --chunked-prefil-size.*Did you mean '--chunked-prefill-size'/);
      assert.equal(unknown.severity, 1);
      const [rename] = await actions(c, uri, unknown);
      assert.match(applyEdits(text, rename.edit!.changes![uri]), / --chunked-prefill-size 4096/);

      const dups = byCode(diagnostics, 'duplicate-flag');
      assert.ok(dups.some((d) => /--port is given again/.test(d.message)));
      assert.ok(dups.some((d) => /--attention-backend/.test(d.message)));
      const portDup = dups.find((d) => /--port/.test(d.message))!;
      const [remove] = await actions(c, uri, portDup);
      assert.match(applyEdits(text, remove.edit!.changes![uri]), /4096 --port 2 --enable/);

      const [dep] = byCode(diagnostics, 'deprecated-flag');
      assert.match(dep.message, /--enable-flashinfer-mla is deprecated; use --attention-backend/);
      const [depChoice] = byCode(diagnostics, 'deprecated-choice');
      assert.match(depChoice.message, /"nsa" is a deprecated value of --attention-backend; use "dsa"/);
      const [toDsa] = await actions(c, uri, depChoice);
      assert.match(applyEdits(text, toDsa.edit!.changes![uri]), /--attention-backend=dsa\n/);
    });

    it('hovers flags with help, default, choices, value meaning, source and known issues', async () => {
      const text = 'python -m sglang.launch_server --model-path nvidia/Qwen3.5-397B-A17B-NVFP4 --attention-backend flashinfer --tp 2\n';
      const uri = uriOf(join(ws, 'hover.sh'));
      await openAndDiagnose(c, uri, 'shellscript', text);
      const h = await c.request<Hover>('textDocument/hover', { textDocument: { uri }, position: posOf(text, '--attention-backend', 3) });
      const md = hoverText(h);
      assert.match(md, /`--attention-backend`/);
      assert.match(md, /Kernel family for attention/);
      assert.match(md, /Choices: .*\*\*`flashinfer`\*\*/);
      assert.match(md, /Catalog: workspace · .*server_args\.py:233/);
      assert.match(md, /Known issues/);
      assert.match(md, /GDN/);
      const hv = await c.request<Hover>('textDocument/hover', { textDocument: { uri }, position: posOf(text, 'flashinfer', 2) });
      assert.match(hoverText(hv), /`flashinfer`: overrides the default/);
      const tp = await c.request<Hover>('textDocument/hover', { textDocument: { uri }, position: posOf(text, '--tp', 2) });
      assert.match(hoverText(tp), /`--tp` is an abbreviation of `--tp-size`/);
      const none = await c.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: { line: 1, character: 0 } });
      assert.equal(none, null);
    });

    it('completes flags after -- and choices after a flag or --flag=', async () => {
      const text = 'python -m sglang.launch_server --model-path x --att\n';
      const uri = uriOf(join(ws, 'complete.sh'));
      await openAndDiagnose(c, uri, 'shellscript', text);
      const flags = await c.request<CompletionList>('textDocument/completion', { textDocument: { uri }, position: posOf(text, '--att', 5) });
      const item = flags.items.find((i) => i.label === '--attention-backend');
      assert.ok(item);
      assert.deepEqual((item.textEdit as TextEdit).range, { start: posOf(text, '--att'), end: posOf(text, '--att', 5) });
      // lean items: documentation arrives through completionItem/resolve
      assert.equal(item.documentation, undefined);
      assert.ok(item.data);
      assert.ok(flags.items.every((i) => i.label.includes('att') || /a.*t.*t/.test(i.label)));
      const resolved = await c.request<CompletionItem>('completionItem/resolve', item);
      assert.equal(resolved.label, '--attention-backend');
      assert.match(readable((resolved.documentation as MarkupContent).value), /\*\*`--attention-backend`\*\*/);
      assert.match(readable((resolved.documentation as MarkupContent).value), /Choices: .*`triton`/);
      const all = await c.request<CompletionList>('textDocument/completion', { textDocument: { uri }, position: posOf(text, '--att', 2) });
      assert.ok(all.isIncomplete && all.items.length > 0 && all.items.length <= 100);

      const t2 = 'python -m sglang.launch_server --model-path x --attention-backend tr\n';
      await change(c, uri, t2, 2);
      const choices = await c.request<CompletionList>('textDocument/completion', { textDocument: { uri }, position: posOf(t2, ' tr', 3) });
      assert.ok(choices.items.some((i) => i.label === 'triton'));
      assert.ok(choices.items.some((i) => i.label === 'trtllm_mha'));
      assert.deepEqual((choices.items[0].textEdit as TextEdit).range.start, posOf(t2, ' tr', 1));

      const t3 = 'python -m sglang.launch_server --model-path x --fp4-gemm-backend=\n';
      await change(c, uri, t3, 3);
      const eq = await c.request<CompletionList>('textDocument/completion', { textDocument: { uri }, position: posOf(t3, '=', 1) });
      assert.deepEqual(
        eq.items.map((i) => i.label),
        ['auto', 'flashinfer_cudnn', 'flashinfer_cutedsl', 'flashinfer_cutlass', 'flashinfer_trtllm', 'marlin'],
      );
    });

    it('goes to the definition in server_args.py and lists document symbols', async () => {
      const loc = await c.request<Location>('textDocument/definition', {
        textDocument: { uri: serviceUri },
        position: posOf(serviceText, '--moe-runner-backend', 4),
      });
      assert.equal(loc.uri, uriOf(join(ws, 'sglang', 'srt', 'server_args.py')));
      const defLine = read(join(ARGS, 'dataclass_main.py')).split('\n')[loc.range.start.line];
      assert.match(defLine, /^\s+moe_runner_backend:/);

      const compose = read(join(LAUNCH, 'docker-compose.yml'));
      const uri = uriOf(join(ws, 'docker-compose.yml'));
      await openAndDiagnose(c, uri, 'yaml', compose);
      const syms = await c.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri } });
      assert.equal(syms.length, 3);
      assert.deepEqual(
        syms[1].children!.map((s) => s.name),
        ['--model-path', '--attention-backend', '--kv-cache-dtype'],
      );
      assert.equal(syms[1].children![1].detail, 'fa3');
      assert.equal(syms[0].detail, 'zai-org/GLM-4.7-Flash');
    });

    it('applies workspace rules and answers flagsForDocument', async () => {
      const text = 'sglang serve --model-path x --port 31337\n';
      const uri = uriOf(join(ws, 'port.sh'));
      const { diagnostics } = await openAndDiagnose(c, uri, 'shellscript', text);
      const [d] = byCode(diagnostics, 'known-bad');
      assert.match(d.message, /Port 31337 is firewalled/);
      const [a] = await actions(c, uri, d);
      assert.equal(applyEdits(text, a.edit!.changes![uri]), 'sglang serve --model-path x --port 30000\n');
      const cmds = await c.request<DocumentCommand[]>('inferenceDoctor/flagsForDocument', { uri });
      assert.equal(cmds.length, 1);
      assert.deepEqual(cmds[0].rules, ['ws-port-31337']);
      assert.deepEqual(
        cmds[0].flags.map((f) => [f.name, f.field, f.values]),
        [
          ['--model-path', 'model_path', ['x']],
          ['--port', 'port', ['31337']],
        ],
      );
    });

    it('updates the catalog incrementally while server_args.py is edited', async () => {
      const argsPath = join(ws, 'sglang', 'srt', 'server_args.py');
      const argsUri = uriOf(argsPath);
      const src = read(argsPath);
      await c.open(argsUri, 'python', src);
      const at = posOf(src, 'cli_name="--fp4-gemm-backend"', 'cli_name="'.length);
      const next = c.diagnostics(serviceUri, (p) => byCode(p.diagnostics, 'renamed-flag').length === 0);
      await c.conn.sendNotification('textDocument/didChange', {
        textDocument: { uri: argsUri, version: 2 },
        contentChanges: [
          { range: { start: at, end: { line: at.line, character: at.character + '--fp4-gemm-backend'.length } }, text: '--fp4-gemm-runner-backend' },
        ],
      });
      const p = await next;
      assert.equal(byCode(p.diagnostics, 'unknown-flag').length, 0);
      const h = await c.request<Hover>('textDocument/hover', {
        textDocument: { uri: serviceUri },
        position: posOf(serviceText, '--fp4-gemm-runner-backend', 3),
      });
      assert.match(hoverText(h), /Kernel family for NVFP4 dense GEMM/);
    });
  });

  describe('2025-era workspace catalog', () => {
    it('accepts --fp4-gemm-runner-backend and checks its choices', async () => {
      const ws = makeWorkspace('choices_lists_2025.py');
      dirs.push(ws);
      const c = client();
      await c.initialize(ws);
      const s = await activeCatalog(c, 'workspace');
      assert.equal(s.active!.era, 'choices-lists');
      const text = read(join(LAUNCH, 'sglang.service'));
      const uri = uriOf(join(ws, 'sglang.service'));
      const p = await openAndDiagnose(c, uri, 'ini', text);
      assert.deepEqual(
        p.diagnostics.map((d) => d.code),
        ['known-bad'],
      );
      const h = await c.request<Hover>('textDocument/hover', { textDocument: { uri }, position: posOf(text, '--fp4-gemm-runner-backend', 3) });
      assert.match(hoverText(h), /Default: "flashinfer_cutlass"/);
      const bad = await change(c, uri, text.replace('flashinfer_cudnn', 'marlin'), 2);
      const [d] = byCode(bad.diagnostics, 'invalid-choice');
      assert.equal(d.severity, 2, 'the 2025 list grows at run time: a warning, not an error');
    });
  });

  describe('inline-era catalog from settings, then none, then runtime', () => {
    it('reads inferenceDoctor.flags.serverArgsPath through workspace/configuration', async () => {
      const ws = makeWorkspace();
      dirs.push(ws);
      const c = client({ 'inferenceDoctor.flags': { serverArgsPath: join(ARGS, 'inline_v04.py') } });
      await c.initialize(ws);
      const s = await activeCatalog(c, 'settings');
      assert.equal(s.active!.era, 'inline');
      const text = 'python -m sglang.launch_server --model-path m --attention-backend fa3\n';
      const uri = uriOf(join(ws, 'a.sh'));
      const p = await openAndDiagnose(c, uri, 'shellscript', text);
      const [d] = byCode(p.diagnostics, 'invalid-choice');
      assert.equal(d.severity, 1);
      assert.match(d.message, /choose from (?=.*flashinfer)(?=.*triton)(?=.*torch_native)/);
    });

    it("without a catalog of the user's uses the bundled one, still checks rules, and takes a runtime catalog with the GPU", async () => {
      const ws = makeWorkspace();
      dirs.push(ws);
      const c = client();
      await c.initialize(ws);
      const s0 = await c.request<CatalogStatus>('inferenceDoctor/catalogStatus', null);
      assert.equal(s0.active?.kind, 'bundled');
      const text = read(join(LAUNCH, 'sglang.service'));
      const uri = uriOf(join(ws, 'x.service'));
      const p = await openAndDiagnose(c, uri, 'plaintext', text);
      assert.deepEqual(
        p.diagnostics.map((d) => d.code),
        ['renamed-flag', 'known-bad'],
      );
      assert.match(byCode(p.diagnostics, 'renamed-flag')[0].message, /--fp4-gemm-runner-backend was renamed to --fp4-gemm-backend/);
      assert.match(byCode(p.diagnostics, 'known-bad')[0].message, /the GPU is unknown/);
      const h = await c.request<Hover>('textDocument/hover', { textDocument: { uri }, position: posOf(text, '--tp', 2) });
      assert.match(hoverText(h), /Catalog: bundled facts of SGLang \d+\.\d+\.\d+/);

      const catalog = catalogToJson(await buildCatalog(read(join(ARGS, 'choices_lists_2025.py')), { keepTree: false }));
      const next = c.diagnostics(uri, (d) => d.diagnostics.some((x) => x.code === 'known-bad' && !/GPU is unknown/.test(x.message)));
      await c.conn.sendNotification('inferenceDoctor/setRuntimeCatalog', { catalog, hostLabel: 'gpu-box', version: '0.5.0', computeCapability: 12.0 });
      const withGpu = await next;
      assert.ok(byCode(withGpu.diagnostics, 'known-bad').length >= 1);
      assert.ok(byCode(withGpu.diagnostics, 'known-bad').some((d) => /Matches the selected host: GPU compute capability 12\.0/.test(d.message)));
      const s1 = await activeCatalog(c, 'runtime');
      assert.equal(s1.computeCapability, 12);
      const h2 = await c.request<Hover>('textDocument/hover', { textDocument: { uri }, position: posOf(text, '--moe-runner-backend', 3) });
      assert.match(hoverText(h2), /installed server on gpu-box · SGLang 0\.5\.0/);
    });
    it("this machine's GPU (setHostGpu) decides the rules until a runtime catalog names a host's GPU", async () => {
      const ws = makeWorkspace();
      dirs.push(ws);
      const c = client();
      await c.initialize(ws);
      const text = read(join(LAUNCH, 'sglang.service'));
      const uri = uriOf(join(ws, 'x.service'));
      const p = await openAndDiagnose(c, uri, 'plaintext', text);
      assert.match(byCode(p.diagnostics, 'known-bad')[0].message, /the GPU is unknown/);
      const local = c.diagnostics(uri, (d) => d.diagnostics.some((x) => /Matches the selected host: GPU compute capability 12\.0/.test(x.message)));
      await c.conn.sendNotification('inferenceDoctor/setHostGpu', { hostLabel: 'This machine', computeCapability: 12.0, gpuName: 'NVIDIA RTX PRO 6000' });
      await local;
      assert.equal((await c.request<CatalogStatus>('inferenceDoctor/catalogStatus', null)).computeCapability, 12);
      // The hover of a built-in rule's flag offers the fix as one trusted command link, its arguments ours.
      const seed = 'python -m sglang.launch_server --model-path nvidia/Qwen3.5-397B-A17B-NVFP4 --fp4-gemm-backend flashinfer_cutlass\n';
      const seedUri = uriOf(join(ws, 'seed (copy).sh'));
      await openAndDiagnose(c, seedUri, 'shellscript', seed);
      const h = hoverText(await c.request<Hover>('textDocument/hover', { textDocument: { uri: seedUri }, position: posOf(seed, '--fp4-gemm-backend', 3) }));
      const links = [...h.matchAll(/\[Apply to Server and Re-probe\]\(command:inferenceDoctor\.applyAndVerify\?([^)\s]+)\)/g)];
      assert.ok(links.length >= 1, h);
      const [args] = JSON.parse(decodeURIComponent(links[0][1])) as [{ uri: string; changes: { flag: string; value: string }[]; summary: string }];
      assert.equal(args.uri, seedUri, 'a path with parentheses survives the link');
      assert.ok(
        args.changes.some((x) => x.flag === '--fp4-gemm-backend' && x.value === 'flashinfer_cudnn'),
        JSON.stringify(args),
      );
      assert.match(args.summary, /cuDNN/);
      // An H100 host chosen through its installed SGLang: the SM 12 rules no longer hold.
      const hopper = c.diagnostics(uri, (d) => !d.diagnostics.some((x) => x.code === 'known-bad'));
      await c.conn.sendNotification('inferenceDoctor/setRuntimeCatalog', { catalog: null, hostLabel: 'h100-box', computeCapability: 9.0 });
      await hopper;
      // Garbage is ignored, not believed.
      await c.conn.sendNotification('inferenceDoctor/setRuntimeCatalog', { catalog: null });
      const again = c.diagnostics(uri, (d) => d.diagnostics.some((x) => /the GPU is unknown/.test(x.message)));
      await c.conn.sendNotification('inferenceDoctor/setHostGpu', { hostLabel: 'x', computeCapability: 'twelve' });
      await again;
    });
  });

  describe('fuzz', () => {
    it('survives 1,200 seeded mutated launch documents and answers each within a bound', async function () {
      this.timeout(180_000);
      const ws = makeWorkspace('dataclass_main.py');
      dirs.push(ws);
      const c = client();
      await c.initialize(ws);
      await activeCatalog(c, 'workspace');
      let seed = 0x5eed1234;
      const rand = (): number => {
        seed = (seed + 0x6d2b79f5) | 0;
        let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      };
      const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)];
      const files: [string, string][] = [
        ['sglang.service', 'ini'],
        ['serve.sh', 'shellscript'],
        ['docker-compose.yml', 'yaml'],
        ['deployment.yaml', 'yaml'],
        ['Dockerfile', 'dockerfile'],
        ['launch.py', 'python'],
        ['README.md', 'markdown'],
      ];
      const sources = files.map(([f, lang]) => ({ text: read(join(LAUNCH, f)), lang, name: f }));
      const junk = [
        '--',
        '-',
        '=',
        '"',
        "'",
        '\\\n',
        '\n',
        ' ',
        '$(',
        '`',
        '[',
        ']',
        '{',
        '--attention-backend',
        'flashinfer',
        '\u00e9',
        '\ud83d\ude00',
        '\t',
        '#',
        '- ',
        ': ',
      ];
      const mutate = (s: string): string => {
        let t = s;
        const n = 1 + Math.floor(rand() * 6);
        for (let k = 0; k < n; k++) {
          const i = Math.floor(rand() * (t.length + 1));
          const op = rand();
          if (op < 0.4) t = t.slice(0, i) + pick(junk) + t.slice(i);
          else if (op < 0.7) t = t.slice(0, i) + t.slice(i + 1 + Math.floor(rand() * 20));
          else if (op < 0.85) {
            const j = Math.floor(rand() * t.length);
            t = t.slice(0, i) + t.slice(j, j + 40) + t.slice(i);
          } else t = t.slice(0, i) + t.slice(i).replace(/\n/, '');
        }
        return t;
      };
      let worst = 0;
      const N = 1200;
      for (let k = 0; k < N; k++) {
        const src = sources[k % sources.length];
        const text = mutate(src.text);
        const uri = uriOf(join(ws, `f${k % 7}`, src.name));
        const t0 = performance.now();
        const diags = c.diagnostics(uri, (d) => d.version === 1, 5000);
        await c.open(uri, src.lang, text);
        await diags;
        const lines = text.split('\n');
        const line = Math.floor(rand() * lines.length);
        const position = { line, character: Math.floor(rand() * (lines[line].length + 1)) };
        const [h, comp] = await Promise.all([
          c.request('textDocument/hover', { textDocument: { uri }, position }, 5000),
          c.request('textDocument/completion', { textDocument: { uri }, position }, 5000),
          c.request('textDocument/documentSymbol', { textDocument: { uri } }, 5000),
        ]);
        void h;
        void comp;
        await c.conn.sendNotification('textDocument/didClose', { textDocument: { uri } });
        worst = Math.max(worst, performance.now() - t0);
        assert.equal(c.exited, undefined, `server exited at document ${k}: ${c.stderr.slice(-500)}`);
      }
      assert.ok(worst < 5000, `worst round ${worst} ms`);
      const s = await c.request<CatalogStatus>('inferenceDoctor/catalogStatus', null, 2000);
      assert.equal(s.active?.kind, 'workspace');
      console.log(`      ${N} mutated documents, worst open+diagnose+hover+completion+symbols round ${worst.toFixed(1)} ms`);
    });
  });
});
