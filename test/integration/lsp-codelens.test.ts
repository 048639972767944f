/**
 * Code lenses on server_args.py over stdio: the three era fixtures (as the workspace catalog and as
 * a remote-scheme document with its own catalog), edits updating them incrementally, and a runtime
 * catalog adding "+N at run time".
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CodeLens } from 'vscode-languageserver-protocol';
import { buildCatalog, catalogToJson } from '../../src/core/flags';
import { StdioLspClient } from '../../src/lsp/stdioClient';
import type { CatalogEntriesResult, CatalogStatus, FlagLensArgs } from '../../src/shared/lspProtocol';
import { buildLanguageServer, LSP_SERVER } from '../support/lsp';
import { waitFor } from '../support/wait';

const ROOT = join(__dirname, '..', '..');
const ARGS = join(ROOT, 'test', 'fixtures', 'server_args');
const read = (name: string): string => readFileSync(join(ARGS, name), 'utf8');

interface Era {
  file: string;
  flags: number;
  lists: number;
  /** [0-based line, title] of some flag lenses. */
  titles: [number, string][];
  /** [0-based line, title] of a *_CHOICES lens, when the era has lists. */
  list?: [number, string];
}

const ERAS: Era[] = [
  {
    file: 'inline_v04.py',
    flags: 96,
    lists: 0,
    titles: [
      [408, '--attention-backend · 3 choices · default None'],
      [248, '--port · default 30000'],
      [480, '--disable-cuda-graph · default false'],
    ],
  },
  {
    file: 'choices_lists_2025.py',
    flags: 191,
    lists: 19,
    titles: [
      [402, '--fp4-gemm-runner-backend · 3 choices · default flashinfer_cutlass'],
      [373, '--attention-backend · 13 choices · default None'],
    ],
    list: [35, 'used by 2 flags · can grow at run time'],
  },
  {
    file: 'dataclass_main.py',
    flags: 203,
    lists: 11,
    titles: [
      [275, '--fp4-gemm-backend · 6 choices · default auto (decided at start-up)'],
      [232, '--attention-backend · 16 choices · default None (decided at start-up)'],
    ],
    list: [81, 'used by no flag'],
  },
];

const lensesOf = (c: StdioLspClient, uri: string): Promise<CodeLens[]> => c.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri } });
const titleAt = (lenses: CodeLens[], line: number): string | undefined => lenses.find((l) => l.range.start.line === line)?.command?.title;

function checkEra(lenses: CodeLens[], era: Era, uri: string): void {
  assert.equal(lenses.length, era.flags * 4 + era.lists, 'four lenses per flag, one per choice list');
  for (const [line, title] of era.titles) {
    const row = lenses.filter((l) => l.range.start.line === line).map((l) => l.command!);
    assert.equal(row[0].title, title);
    assert.equal(row[0].command, '', 'the summary is not clickable');
    assert.deepEqual(
      row.slice(1).map((c) => [c.title, c.command]),
      [
        ['Copy Flag', 'inferenceDoctor.copyFlag'],
        ['Find Usages', 'inferenceDoctor.findFieldUsages'],
        ['Reveal in Backend Flags', 'inferenceDoctor.revealFlag'],
      ],
    );
    const args = row[1].arguments![0] as FlagLensArgs;
    assert.equal(args.flag, title.split(' ')[0]);
    assert.equal(args.uri, uri);
    assert.ok(args.field);
  }
  if (era.list) assert.equal(titleAt(lenses, era.list[0]), era.list[1]);
  // document order
  for (let i = 1; i < lenses.length; i++) assert.ok(lenses[i - 1].range.start.line <= lenses[i].range.start.line);
}

describe('code lenses on server_args.py over stdio', function () {
  this.timeout(60_000);
  const clients: StdioLspClient[] = [];
  const dirs: string[] = [];

  before(function () {
    this.timeout(120_000);
    buildLanguageServer();
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  function client(): StdioLspClient {
    const c = new StdioLspClient({ serverPath: LSP_SERVER });
    clients.push(c);
    return c;
  }

  for (const era of ERAS) {
    it(`${era.file}: lenses from the workspace catalog`, async () => {
      const ws = mkdtempSync(join(tmpdir(), 'id-lens-'));
      dirs.push(ws);
      mkdirSync(join(ws, 'sglang', 'srt'), { recursive: true });
      const path = join(ws, 'sglang', 'srt', 'server_args.py');
      cpSync(join(ARGS, era.file), path);
      const c = client();
      const init = await c.initialize(ws);
      assert.ok(init.capabilities.codeLensProvider);
      await waitFor('workspace catalog', async () => {
        const s = await c.request<CatalogStatus>('inferenceDoctor/catalogStatus', null);
        return s.active?.kind === 'workspace' ? s : undefined;
      });
      const uri = pathToFileURL(path).toString();
      await c.open(uri, 'python', read(era.file));
      checkEra(await lensesOf(c, uri), era, uri);
    });

    it(`${era.file}: lenses on a remote-scheme document (its own catalog)`, async () => {
      const c = client();
      await c.initialize(undefined);
      const uri = `inference-doctor-remote://ssh_3aroot_40gpu1/opt/venv/lib/python3.12/site-packages/sglang/srt/server_args.py`;
      await c.open(uri, 'python', read(era.file));
      checkEra(await lensesOf(c, uri), era, uri);
    });
  }

  it('a field file of a split package (srt/arg_groups/fields/*.py) gets lenses for its fields, from the package catalog', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'id-lens-split-'));
    dirs.push(ws);
    cpSync(join(ARGS, 'split_layout'), ws, { recursive: true });
    const c = client();
    await c.initialize(ws);
    await waitFor('workspace catalog of the package', async () => {
      const s = await c.request<CatalogStatus>('inferenceDoctor/catalogStatus', null);
      return s.active?.kind === 'workspace' && s.active.flags === 14 ? s : undefined;
    });
    const kernel = join(ws, 'sglang', 'srt', 'arg_groups', 'fields', 'kernel.py');
    const text = readFileSync(kernel, 'utf8');
    const fp4Line = text.split('\n').findIndex((l) => l.trimStart().startsWith('fp4_gemm_runner_backend:'));
    const uri = pathToFileURL(kernel).toString();
    await c.open(uri, 'python', text);
    const lenses = await lensesOf(c, uri);
    assert.equal(lenses.length, 3 * 4, 'four lenses for each of the three CLI fields of kernel.py');
    assert.equal(titleAt(lenses, fp4Line), '--fp4-gemm-backend · 4 choices · default auto');
    const args = lenses.find((l) => l.range.start.line === fp4Line && l.command?.title === 'Copy Flag')!.command!.arguments![0] as FlagLensArgs;
    assert.deepEqual([args.flag, args.field, args.uri], ['--fp4-gemm-backend', 'fp4_gemm_runner_backend', uri]);
    // Open Flag Definition: the entry's file under definitionBaseUri
    const entries = await c.request<CatalogEntriesResult>('inferenceDoctor/catalogEntries', {});
    const fp4 = entries.entries.find((e) => e.flag === '--fp4-gemm-backend')!;
    assert.equal(`${entries.definitionBaseUri}/${fp4.file}`, uri);
    assert.equal(fp4.line, fp4Line + 1);
    // an edit to the field file rebuilds the package catalog
    const edited = text.replace('    ] = "auto"\n    grammar_backend', '    ] = "marlin"\n    grammar_backend');
    assert.notEqual(edited, text);
    await c.conn.sendNotification('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: edited }] });
    await waitFor('lens after the edit', async () =>
      titleAt(await lensesOf(c, uri), fp4Line) === '--fp4-gemm-backend · 4 choices · default marlin' ? true : undefined,
    );
  });

  it('other documents get no lenses', async () => {
    const c = client();
    await c.initialize(undefined);
    const uri = 'file:///tmp/launch.sh';
    await c.open(uri, 'shellscript', 'python -m sglang.launch_server --tp 2\n');
    assert.deepEqual(await lensesOf(c, uri), []);
  });

  it('a flag added to the workspace server_args.py gets its lenses', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'id-lens-'));
    dirs.push(ws);
    mkdirSync(join(ws, 'sglang', 'srt'), { recursive: true });
    const path = join(ws, 'sglang', 'srt', 'server_args.py');
    cpSync(join(ARGS, 'inline_v04.py'), path);
    const c = client();
    await c.initialize(ws);
    await waitFor('workspace catalog', async () => {
      const s = await c.request<CatalogStatus>('inferenceDoctor/catalogStatus', null);
      return s.active?.kind === 'workspace' ? s : undefined;
    });
    const uri = pathToFileURL(path).toString();
    await c.open(uri, 'python', read('inline_v04.py'));
    const before = await lensesOf(c, uri);
    const added = "        parser.add_argument('--my-new-backend', type=str, default='a', choices=['a', 'b'], help='New.')\n";
    await c.conn.sendNotification('textDocument/didChange', {
      textDocument: { uri, version: 2 },
      contentChanges: [{ range: { start: { line: 409, character: 0 }, end: { line: 409, character: 0 } }, text: added }],
    });
    const after = await lensesOf(c, uri);
    assert.equal(after.length, before.length + 4);
    assert.equal(titleAt(after, 409), '--my-new-backend · 2 choices · default a');
    assert.equal(titleAt(after, 408), ERAS[0].titles[0][1]);
  });

  describe('edits update the lenses incrementally', () => {
    let c: StdioLspClient;
    let version = 1;
    const text = read('dataclass_main.py');
    const lines = text.split('\n');
    const change = (range: { start: { line: number; character: number }; end: { line: number; character: number } }, newText: string) =>
      c.conn.sendNotification('textDocument/didChange', { textDocument: { uri: URI, version: ++version }, contentChanges: [{ range, text: newText }] });
    const URI = 'inference-doctor-remote://gpu1/srv/sglang/srt/server_args.py';

    before(async () => {
      c = client();
      await c.initialize(undefined);
      await c.open(URI, 'python', text, version);
      assert.equal(titleAt(await lensesOf(c, URI), 275), ERAS[2].titles[0][1]);
    });

    it('a changed default', async () => {
      const line = lines.findIndex((l, i) => i > 275 && l === '    ] = "auto"');
      const col = lines[line].indexOf('auto');
      await change({ start: { line, character: col }, end: { line, character: col + 4 } }, 'marlin');
      assert.equal(titleAt(await lensesOf(c, URI), 275), '--fp4-gemm-backend · 6 choices · default marlin (decided at start-up)');
    });

    it('a choice added to a *_CHOICES list', async () => {
      const line = lines.findIndex((l) => l.startsWith('FP4_GEMM_RUNNER_BACKEND_CHOICES'));
      await change({ start: { line: line + 1, character: 0 }, end: { line: line + 1, character: 0 } }, '    "my_new_backend",\n');
      const lenses = await lensesOf(c, URI);
      assert.equal(titleAt(lenses, 276), '--fp4-gemm-backend · 7 choices · default marlin (decided at start-up)');
      assert.equal(titleAt(lenses, 275), undefined, 'lenses below the insertion moved down one line');
    });

    it('lines inserted at the top move every lens', async () => {
      const before = await lensesOf(c, URI);
      await change({ start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, '# one\n# two\n');
      const after = await lensesOf(c, URI);
      assert.equal(after.length, before.length);
      assert.deepEqual(
        after.map((l) => l.range.start.line),
        before.map((l) => l.range.start.line + 2),
      );
      assert.equal(titleAt(after, 278), '--fp4-gemm-backend · 7 choices · default marlin (decided at start-up)');
    });

    it('a full-text change rebuilds', async () => {
      const current = (await c.request<CodeLens[]>('textDocument/codeLens', { textDocument: { uri: URI } })).length;
      await c.conn.sendNotification('textDocument/didChange', { textDocument: { uri: URI, version: ++version }, contentChanges: [{ text }] });
      const rebuilt = await lensesOf(c, URI);
      assert.equal(rebuilt.length, ERAS[2].flags * 4 + ERAS[2].lists);
      assert.equal(current, rebuilt.length);
      assert.equal(titleAt(rebuilt, 275), ERAS[2].titles[0][1]);
    });

    it('a runtime catalog with more choices shows "+N at run time"', async () => {
      const rt = await buildCatalog(text, { keepTree: false });
      const fp4 = rt.entries.find((e) => e.flag === '--fp4-gemm-backend')!;
      fp4.choices = [...fp4.choices!, 'plugin_gemm'];
      await c.conn.sendNotification('inferenceDoctor/setRuntimeCatalog', { catalog: catalogToJson(rt), hostLabel: 'gpu1' });
      const title = await waitFor('runtime lens', async () => {
        const t = titleAt(await lensesOf(c, URI), 275);
        return t?.includes('at run time') ? t : undefined;
      });
      assert.equal(title, '--fp4-gemm-backend · 6 choices (+1 at run time) · default auto (decided at start-up)');
    });

    it('closing the document drops its catalog', async () => {
      await c.conn.sendNotification('textDocument/didClose', { textDocument: { uri: URI } });
      assert.deepEqual(await lensesOf(c, URI), []);
    });
  });
});
