/**
 * "Load Flags from Installed SGLang or vLLM" and the source search on a host with vLLM, over a
 * real loopback sshd: discovery finds an interpreter with the fake vLLM (test/fixtures/fake-vllm-runtime)
 * and the fake SGLang beside it; the command (run against a small fake `vscode` module, as
 * remote-ui.test.ts does) lists it with both versions, asks whose flags, builds vLLM's own parser
 * on the host and hands the language client a catalog marked vLLM, with the host's GPU; an
 * interpreter discovery never saw is asked which engines it has. The search covers the vLLM package,
 * and the flag-declaration preset looks where each engine declares its flags.
 */
/* eslint-disable @typescript-eslint/require-await -- stand-ins for the vscode API return promises */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectSsh, type SshHost } from '../../src/core/hosts/ssh';
import { resolveSshTarget } from '../../src/core/hosts/sshConfig';
import { BACKEND_OPTION_PRESETS } from '../../src/core/hosts/search';
import { HostSession, sourceName } from '../../src/core/remote/session';
import { ruleContextFromReport } from '../../src/core/remote/ruleContext';
import { catalogFromJson } from '../../src/core/flags';
import { runtimeInterpreters, type RuntimeHostTarget } from '../../src/services/runtimeHosts';
import type { CatalogEntriesParams, SetRuntimeCatalogParams } from '../../src/shared/lspProtocol';
import { CatalogStore } from '../../src/lsp/catalogs';
import { catalogEntries } from '../../src/lsp/handlers/customMethods';
import type { LoadRuntimeArgs } from '../../src/flags/loadRuntime';
import type { Ctx } from '../../src/context';
import { startSshd, type Sshd } from '../support/sshd';
import { waitFor } from '../support/wait';

const ROOT = join(__dirname, '..', '..');
const FIXTURES = join(ROOT, 'test', 'fixtures');

interface Pick {
  label: string;
  description?: string;
}
/** What the fake window was asked, and how the test answers quick picks. */
const asked: { placeHolder: string; items: Pick[] }[] = [];
const messages: string[] = [];
/** The button the test presses on the load notification. */
let infoAnswer: string | undefined;
let answer: (placeHolder: string, items: Pick[]) => Pick | undefined = () => undefined;

const fakeVscode = {
  ProgressLocation: { Notification: 15 },
  ThemeIcon: class {
    constructor(readonly id: string) {}
  },
  window: {
    showQuickPick: async (items: Pick[], o: { placeHolder: string }) => {
      asked.push({ placeHolder: o.placeHolder, items });
      return answer(o.placeHolder, items);
    },
    showInputBox: async () => undefined,
    withProgress: async (_o: unknown, task: (p: unknown, t: unknown) => Promise<unknown>) =>
      task({ report() {} }, { onCancellationRequested: () => ({ dispose() {} }), isCancellationRequested: false }),
    showInformationMessage: async (m: string, ...buttons: string[]) => {
      messages.push(m);
      return buttons.find((b) => b === infoAnswer);
    },
    showErrorMessage: async (m: string) => {
      messages.push(m);
      return undefined;
    },
  },
};

describe('an installed vLLM on an SSH host: its flags for the editor, its source searched', function () {
  this.timeout(60_000);
  let d: Sshd;
  let root: string;
  let host: SshHost;
  let session: HostSession;
  let python: string;
  let vllmDir: string;
  let restoreResolve: (() => void) | undefined;
  let loadRuntimeFlags: typeof import('../../src/flags/loadRuntime').loadRuntimeFlags;
  const sent: SetRuntimeCatalogParams[] = [];
  const staticAsked: CatalogEntriesParams[] = [];
  const reports: { name: string; markdown: string }[] = [];
  let targets: RuntimeHostTarget[] = [];
  // The language server's own answer to catalogEntries: no server_args.py, the bundled vLLM catalog.
  const store = new CatalogStore({});

  const ctx = {
    config: { text: () => '' },
    hosts: { connected: () => targets },
    flags: {
      catalogEntries: async (p: CatalogEntriesParams) => {
        staticAsked.push(p);
        return catalogEntries(store, p);
      },
      sendRuntimeCatalog: async (p: SetRuntimeCatalogParams) => {
        sent.push(p);
      },
    },
    reports: {
      open: async (_owner: string, name: string, markdown: string) => {
        reports.push({ name, markdown });
      },
    },
    executeCommand: async () => undefined,
    extension: {
      asAbsolutePath: (p: string) => join(ROOT, p),
      get globalStorageUri() {
        return { fsPath: join(root, 'storage') };
      },
    },
  } as unknown as Ctx;

  before(async function () {
    this.timeout(120_000);
    const M = Module as unknown as { _resolveFilename: (r: string, ...rest: unknown[]) => string };
    const orig = M._resolveFilename;
    M._resolveFilename = function (request: string, ...rest: unknown[]) {
      return request === 'vscode' ? 'vscode-fake' : orig.call(this, request, ...rest);
    };
    restoreResolve = () => {
      M._resolveFilename = orig;
      delete require.cache['vscode-fake'];
    };
    require.cache['vscode-fake'] = { id: 'vscode-fake', filename: 'vscode-fake', loaded: true, exports: fakeVscode } as unknown as NodeJS.Module;
    ({ loadRuntimeFlags } = await import('../../src/flags/loadRuntime'));
    await store.loadVllmBundled();

    python = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8', timeout: 10_000 }).trim();
    d = await startSshd();
    root = mkdtempSync(join(tmpdir(), 'id-remote-vllm-'));
    // One site-packages with the fake vLLM and the fake SGLang, and source for the search presets.
    const sp = join(root, 'site-packages');
    cpSync(join(FIXTURES, 'fake-vllm-runtime', 'vllm'), join(sp, 'vllm'), { recursive: true });
    cpSync(join(FIXTURES, 'fake-sglang', 'sglang'), join(sp, 'sglang'), { recursive: true });
    vllmDir = join(sp, 'vllm');
    mkdirSync(join(vllmDir, 'config'));
    writeFileSync(join(vllmDir, 'config', 'cache.py'), 'class CacheConfig:\n    cache_dtype: str = "auto"\n    mamba_backend: str = "triton"\n');
    writeFileSync(join(vllmDir, 'platforms.py'), 'attention_backend = None  # not a declaration\n');
    const env = {
      PATH: `${join(FIXTURES, 'fake-install', 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      PYTHONPATH: sp,
      FAKE_PYTHON: python,
      PYTHONDONTWRITEBYTECODE: '1',
      HOME: join(root, 'home'),
      FAKE_VLLM_PLUGIN_BACKEND: 'FAKE_PLUGIN_ATTN',
    };
    const target = resolveSshTarget({ host: '127.0.0.1', user: d.user, port: d.port }, { configFile: '/dev/null', home: join(root, 'home') });
    host = await connectSsh(target, {}, { knownHostsFiles: [d.writeKnownHosts()], identityFiles: [d.clientKey], agentSocket: null });
    session = new HostSession(host, 'gpu-box', {
      env,
      home: join(root, 'home'),
      roots: { envsDirs: [join(root, 'no-envs')], envDirs: [], projectDirs: [] },
      torch: 'no',
      cuobjdump: 'never',
    });
    const report = await session.discover();
    const target1: RuntimeHostTarget = {
      id: 'ssh:gpu-box',
      label: 'gpu-box',
      host,
      env,
      interpreters: runtimeInterpreters(report),
      ruleContext: (py) => ruleContextFromReport(report, py),
    };
    // The same host as a target whose discovery listed nothing: the command asks the interpreter itself.
    const bare: RuntimeHostTarget = { ...target1, id: 'ssh:bare', label: 'bare', interpreters: [] };
    targets = [target1, bare];
  });

  after(async () => {
    restoreResolve?.();
    await session?.dispose();
    await host?.close();
    await d?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  beforeEach(() => {
    asked.length = 0;
    sent.length = 0;
    staticAsked.length = 0;
    messages.length = 0;
    reports.length = 0;
    infoAnswer = undefined;
  });

  it("lists the interpreter with both engines, asks whose flags, and sends vLLM's own parser as a vLLM catalog with the host's GPU", async () => {
    const it = targets[0].interpreters.find((i) => i.vllmVersion);
    assert.ok(it, JSON.stringify(targets[0].interpreters));
    assert.equal(it.vllmVersion, '0.11.0');
    assert.equal(it.sglangVersion, '0.0.0-fake');
    answer = (placeHolder, items) =>
      placeHolder.startsWith('Which Python') ? items.find((i) => i.description === 'sglang 0.0.0-fake · vllm 0.11.0') : items.find((i) => i.label === 'vLLM');
    infoAnswer = 'Show Differences';
    const loaded = await loadRuntimeFlags(ctx, { hostId: 'ssh:gpu-box' });
    assert.deepEqual(
      asked.map((a) => a.placeHolder),
      ['Which Python on gpu-box has the SGLang or vLLM to read flags from?', `${it.path} has both SGLang and vLLM: read whose flags?`],
    );
    assert.equal(loaded?.engine, 'vllm');
    // Compared with the bundled facts of its release, not with a server_args.py.
    assert.deepEqual(staticAsked, [{ bundledVllm: { version: '0.11.0' } }]);
    const attentionDiff = loaded?.byFlag.get('--attention-backend') ?? [];
    assert.deepEqual(
      attentionDiff.map((x) => x.kind),
      ['runtime-only'],
    );
    assert.match(attentionDiff[0].message, /not declared in bundled catalog of vLLM 0\.11\.0/);
    assert.equal(sent.length, 1);
    const p = sent[0];
    assert.equal(p.engine, 'vllm');
    assert.equal(p.version, '0.11.0');
    assert.equal(p.hostLabel, `gpu-box · ${it.path}`);
    assert.equal(p.computeCapability, 12, "the host's GPU (the fake nvidia-smi's RTX PRO 6000)");
    const catalog = catalogFromJson(p.catalog!)!;
    const attention = catalog.entries.find((e) => e.flag === '--attention-backend');
    assert.ok(attention?.choices?.includes('FAKE_PLUGIN_ATTN'), 'the plugin backend, known only to the installed parser');
    assert.ok(catalog.entries.some((e) => e.flag === '--tensor-parallel-size' && e.aliases.includes('-tp')));
    assert.match(messages.join('\n'), /loaded \d+ flags from vLLM 0\.11\.0 on gpu-box; 1 only at run time.*vLLM commands are now checked against it/s);
    await waitFor('the differences report', () => reports.length > 0 || undefined, 5_000);
    assert.equal(reports[0].name, 'vllm-flag-differences.md');
    const report = reports[0].markdown.replace(/\\(.)/g, '$1');
    assert.match(report, /^# Flags of the installed vLLM vs bundled catalog of vLLM 0\.11\.0/);
    assert.match(report, /Read by: vLLM's own parser/);
    assert.match(report, /\*\*runtime-only\*\* `--attention-backend`/);
    // The catalog sent is the parser's own, not merged with the bundled facts.
    assert.ok(store.vllmBundledFor('0.11.0')!.loaded.index.byOption.has('--enforce-eager'));
    assert.ok(!catalog.entries.some((e) => e.flag === '--enforce-eager'), 'no bundled-only flag was added');
  });

  it('asks an interpreter discovery did not list which engines it has, and reads SGLang when told to', async () => {
    answer = (_placeHolder, items) => items.find((i) => i.label === 'SGLang');
    const both = await loadRuntimeFlags(ctx, { hostId: 'ssh:bare', python });
    assert.deepEqual(
      asked.map((a) => a.placeHolder),
      [`${python} has both SGLang and vLLM: read whose flags?`],
    );
    assert.equal(both?.engine, 'sglang');
    assert.equal(sent[0].engine, 'sglang');
    assert.equal(sent[0].version, '0.0.0-fake');
    assert.deepEqual(staticAsked, [{ staticOnly: true }], "SGLang's is merged with server_args.py");
    // Named by the caller (the Reload button): no question.
    asked.length = 0;
    const again = await loadRuntimeFlags(ctx, { hostId: 'ssh:bare', python, engine: 'vllm' } satisfies LoadRuntimeArgs);
    assert.equal(again?.engine, 'vllm');
    assert.deepEqual(asked, []);
    // An interpreter with neither: the error says so and nothing is sent.
    sent.length = 0;
    const none = await loadRuntimeFlags(ctx, { hostId: 'ssh:bare', python: join(root, 'no-such-python') });
    assert.equal(none, undefined);
    assert.deepEqual(sent, []);
    assert.match(messages.at(-1) ?? '', /could not read SGLang's flags with .*no-such-python/);
  });

  it('searches the vLLM package beside SGLang, each within its own flag declarations for the preset', async () => {
    const dirs = session.sourceDirs();
    assert.deepEqual(
      dirs.map((x) => x.engine),
      ['sglang', 'vllm'],
    );
    assert.equal(sourceName(dirs), 'SGLang and vLLM');
    const all = await session.search({ pattern: 'backend', fixedStrings: true });
    assert.equal(all.error, undefined);
    const inVllm = (path: string): boolean => path.startsWith(`${vllmDir}/`);
    const vllmFiles = all.groups
      .groups()
      .filter((g) => inVllm(g.path))
      .map((g) => g.relative)
      .sort();
    assert.deepEqual(vllmFiles, ['config/cache.py', 'engine/arg_utils.py', 'platforms.py']);
    const preset = BACKEND_OPTION_PRESETS.find((x) => x.id === 'flag-declarations')!;
    const declared = await session.search({ pattern: preset.pattern, fixedStrings: preset.fixedStrings, within: preset.within! });
    const files = declared.groups
      .groups()
      .map((g) => `${inVllm(g.path) ? 'vllm' : 'sglang'}:${g.relative}`)
      .sort();
    assert.ok(files.includes('vllm:engine/arg_utils.py'), files.join());
    assert.ok(files.includes('sglang:srt/server_args.py'), files.join());
    assert.ok(!files.some((f) => f.startsWith('vllm:platforms') || f.startsWith('vllm:entrypoints/openai/api_server')), files.join());
  });
});
