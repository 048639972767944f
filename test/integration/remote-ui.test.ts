/**
 * Smoke test of the remote feature's VS Code layer against a small fake `vscode` module:
 * registration, the Hosts tree (ssh config aliases, added hosts, This machine), connecting This
 * machine, a search driven through the QuickPick into the Search tree, the read-only remote file
 * system, and the environment report document. It connects This machine for real (discovery runs
 * on the test machine), hence the integration tier. UI behaviour in a real editor is the e2e tier's job.
 */
/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/require-await, @typescript-eslint/no-unsafe-return -- a stand-in for the vscode module: loose types and promise-returning stubs on purpose */
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSshd, type Sshd } from '../support/sshd';
import { startFakeLaunchServer } from '../support/fakeLaunchServer';
import { freePort } from '../../scripts/lib/codeServer';
import { serverKey } from '../../src/core/remote/session';
import type { RuntimeHosts as RuntimeHostsType } from '../../src/services/runtimeHosts';

type Listener<T> = (e: T) => void;
class EventEmitter<T> {
  private ls: Listener<T>[] = [];
  event = (l: Listener<T>) => {
    this.ls.push(l);
    return {
      dispose: () => {
        this.ls = this.ls.filter((x) => x !== l);
      },
    };
  };
  fire(e: T): void {
    for (const l of [...this.ls]) l(e);
  }
  dispose(): void {
    this.ls = [];
  }
}
class Uri {
  constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
  ) {}
  static parse(s: string): Uri {
    const m = /^([a-z][\w+.-]*):(?:\/\/([^/]*))?(.*)$/i.exec(s)!;
    return new Uri(m[1], m[2] ?? '', decodeURIComponent(m[3]));
  }
  static from(c: { scheme: string; authority?: string; path?: string }): Uri {
    return new Uri(c.scheme, c.authority ?? '', c.path ?? '');
  }
  static file(p: string): Uri {
    return new Uri('file', '', p);
  }
  static joinPath(u: Uri, ...parts: string[]): Uri {
    return new Uri(u.scheme, u.authority, [u.path, ...parts].join('/'));
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return `${this.scheme}://${this.authority}${this.path}`;
  }
}
class FileSystemError extends Error {
  constructor(
    readonly code: string,
    m?: string,
  ) {
    super(m ?? code);
  }
  static NoPermissions(u?: unknown) {
    return new FileSystemError('NoPermissions', String(u));
  }
  static FileNotFound(u?: unknown) {
    return new FileSystemError('FileNotFound', String(u));
  }
  static Unavailable(m?: unknown) {
    return new FileSystemError('Unavailable', String(m));
  }
}
class TreeItem {
  [k: string]: unknown;
  constructor(
    public label: unknown,
    public collapsibleState = 0,
  ) {}
}

const commands = new Map<string, (...a: unknown[]) => unknown>();
const trees = new Map<string, { provider: any; view: any }>();
const fsProviders = new Map<string, { provider: any; options: any }>();
const contentProviders = new Map<string, any>();
const opened: any[] = [];
/** Built-in commands the extension ran (vscode.open and the like), with their arguments. */
const builtIn: { id: string; args: unknown[] }[] = [];
const messages: string[] = [];
const config: Record<string, unknown> = {};
let quickPickScript: ((qp: any) => void) | undefined;
const modals: { message: string; detail?: string; items: string[] }[] = [];
let warningAnswer: (message: string, items: string[]) => string | undefined = () => undefined;

const fake = {
  EventEmitter,
  Uri,
  FileSystemError,
  TreeItem,
  TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
  ThemeIcon: class {
    constructor(
      readonly id: string,
      readonly color?: unknown,
    ) {}
  },
  ThemeColor: class {
    constructor(readonly id: string) {}
  },
  MarkdownString: class {
    constructor(readonly value: string) {}
  },
  Range: class {
    constructor(
      readonly a: number,
      readonly b: number,
      readonly c: number,
      readonly d: number,
    ) {}
  },
  Disposable: class {
    constructor(readonly f: () => void) {}
    dispose() {
      this.f();
    }
  },
  TabInputText: class {
    constructor(readonly uri: Uri) {}
  },
  FileType: { Unknown: 0, File: 1, Directory: 2, SymbolicLink: 64 },
  FilePermission: { Readonly: 1 },
  ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
  window: {
    createTreeView: (id: string, o: { treeDataProvider: unknown }) => {
      const view = {
        description: undefined,
        message: undefined,
        visible: true,
        selection: [] as unknown[],
        dispose() {},
        onDidChangeVisibility: new EventEmitter().event,
      };
      trees.set(id, { provider: o.treeDataProvider, view });
      return view;
    },
    createOutputChannel: () => ({ info() {}, warn() {}, error() {}, appendLine() {}, dispose() {} }),
    showInformationMessage: async (m: string) => {
      messages.push(m);
      return undefined;
    },
    showWarningMessage: async (m: string, ...rest: any[]) => {
      messages.push(m);
      const items = rest.filter((x) => typeof x === 'string');
      if (rest[0]?.modal) modals.push({ message: m, detail: rest[0].detail, items });
      return warningAnswer(m, items);
    },
    showErrorMessage: async (m: string, ...rest: any[]) => {
      messages.push(m);
      if (rest[0]?.modal) modals.push({ message: m, detail: rest[0].detail, items: [] });
      return undefined;
    },
    withProgress: async (_o: unknown, task: (p: unknown, t: unknown) => Promise<unknown>) =>
      task({ report() {} }, { onCancellationRequested: () => ({ dispose() {} }), isCancellationRequested: false }),
    showQuickPick: async () => undefined,
    showInputBox: async () => undefined,
    createQuickPick: () => {
      const accept = new EventEmitter<void>();
      const hide = new EventEmitter<void>();
      const change = new EventEmitter<string>();
      const btn = new EventEmitter<unknown>();
      const qp: any = {
        value: '',
        items: [],
        selectedItems: [],
        buttons: [],
        title: '',
        placeholder: '',
        onDidAccept: accept.event,
        onDidHide: hide.event,
        onDidChangeValue: change.event,
        onDidTriggerButton: btn.event,
        fireAccept: () => accept.fire(),
        fireChange: () => change.fire(qp.value),
        fireButton: (b: unknown) => btn.fire(b),
        show: () => setTimeout(() => quickPickScript?.(qp), 0),
        hide: () => hide.fire(),
        dispose() {},
      };
      return qp;
    },
    showTextDocument: async (d: unknown) => {
      opened.push(d);
      return {};
    },
    tabGroups: { all: [], onDidChangeTabs: new EventEmitter().event },
  },
  workspace: {
    getConfiguration: (section?: string) => ({ get: (k: string, d?: unknown) => config[`${section}.${k}`] ?? d }),
    onDidChangeConfiguration: new EventEmitter().event,
    onDidCloseTextDocument: new EventEmitter().event,
    textDocuments: [],
    fs: { createDirectory: async () => undefined },
    registerFileSystemProvider: (scheme: string, provider: unknown, options: unknown) => {
      fsProviders.set(scheme, { provider, options });
      return { dispose() {} };
    },
    registerTextDocumentContentProvider: (scheme: string, p: unknown) => {
      contentProviders.set(scheme, p);
      return { dispose() {} };
    },
    openTextDocument: async (uri: Uri) => ({ uri, languageId: 'plaintext' }),
  },
  languages: { setTextDocumentLanguage: async (d: any, l: string) => ({ ...d, languageId: l }) },
  commands: {
    registerCommand: (id: string, f: (...a: unknown[]) => unknown) => {
      commands.set(id, f);
      return { dispose() {} };
    },
    executeCommand: async (id: string, ...a: unknown[]) => {
      if (!commands.has(id)) builtIn.push({ id, args: a });
      return commands.get(id)?.(...a);
    },
  },
};

describe('remote feature in a fake VS Code', function () {
  this.timeout(60_000);
  let root: string;
  const subs: { dispose(): unknown }[] = [];
  const state = new Map<string, unknown>();
  const added: any[] = [];
  let restoreResolve: (() => void) | undefined;
  let d: Sshd;
  let runtimeHosts: RuntimeHostsType;

  before(async () => {
    const M = Module as unknown as { _resolveFilename: (r: string, ...rest: unknown[]) => string };
    const orig = M._resolveFilename;
    M._resolveFilename = function (request: string, ...rest: unknown[]) {
      return request === 'vscode' ? 'vscode-fake' : orig.call(this, request, ...rest);
    };
    restoreResolve = () => {
      M._resolveFilename = orig;
      delete require.cache['vscode-fake'];
    };
    require.cache['vscode-fake'] = { id: 'vscode-fake', filename: 'vscode-fake', loaded: true, exports: fake } as unknown as NodeJS.Module;
    root = mkdtempSync(join(tmpdir(), 'id-remote-ui-'));
    d = await startSshd();
    writeFileSync(join(root, 'known_hosts'), '');
    config['inferenceDoctor.ssh.knownHostsFile'] = join(root, 'known_hosts');
    writeFileSync(
      join(root, 'ssh_config'),
      ['Host gpu1', '  HostName 10.0.0.1', '  User root', 'Host *.lab', '  User x', d.sshConfigEntry('testbox')].join('\n'),
    );
    config['inferenceDoctor.ssh.configFile'] = join(root, 'ssh_config');
    mkdirSync(join(root, 'src', 'srt'), { recursive: true });
    writeFileSync(join(root, 'src', 'srt', 'server_args.py'), 'attention_backend = "auto"\nsampling_backend = None\n');
    const { register } = await import('../../src/remote/register');
    const { Ctx } = await import('../../src/context');
    const { RuntimeHosts } = await import('../../src/services/runtimeHosts');
    const store = {
      onDidChange: new EventEmitter<void>().event,
      get: (id: string) => added.find((s) => s.id === id),
      add: async (s: any) => {
        const v = { ...s, id: `srv-${added.length}` };
        added.push(v);
        return v;
      },
      update: async () => undefined,
      target: async () => ({ baseUrl: 'x' }),
      list: () => added,
    };
    const context = {
      subscriptions: subs,
      globalState: {
        get: (k: string, d?: unknown) => state.get(k) ?? d,
        update: async (k: string, v: unknown) => {
          state.set(k, v);
        },
      },
      secrets: { get: async () => undefined, store: async () => undefined, delete: async () => undefined },
      globalStorageUri: Uri.file(join(root, 'storage')),
    };
    const servers = { store, health: { refresh: async () => undefined }, pick: async () => undefined, fromArg: () => undefined };
    const flags = { catalogEntries: async () => undefined };
    runtimeHosts = new RuntimeHosts();
    register(new Ctx(context as any, () => ({ servers, flags, hosts: runtimeHosts, reports: { open: async () => undefined } }) as any));
  });

  after(async () => {
    await commands.get('inferenceDoctor.disconnectHost')?.({ kind: 'host', hostId: 'local' });
    for (const s of subs) s.dispose();
    await commands.get('inferenceDoctor.disconnectHost')?.({ kind: 'host', hostId: 'config:testbox' });
    restoreResolve?.();
    await d?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('registers the views, read-only providers and every command', () => {
    assert.deepEqual([...trees.keys()].sort(), ['inferenceDoctor.hosts', 'inferenceDoctor.search']);
    assert.deepEqual(fsProviders.get('inference-doctor-remote')?.options, { isReadonly: true, isCaseSensitive: true });
    assert.ok(contentProviders.has('inference-doctor-gen') && contentProviders.has('inference-doctor-log'));
    for (const c of [
      'addHost',
      'refreshHosts',
      'connectHost',
      'disconnectHost',
      'removeHost',
      'searchSglangSource',
      'cancelSearch',
      'clearSearch',
      'showEnvironmentReport',
      'forwardRemoteServer',
      'openLaunchFile',
      'compareServerInfoWithLaunchFile',
      'followServerLog',
    ]) {
      assert.ok(commands.has(`inferenceDoctor.${c}`), c);
    }
  });

  it('lists This machine, concrete ssh config aliases and hand-added hosts', async () => {
    state.set('inferenceDoctor.remote.manualHosts', ['root@10.1.1.1:2222']);
    const p = trees.get('inferenceDoctor.hosts')!.provider;
    const nodes = await p.getChildren(undefined);
    const items = await Promise.all(nodes.map((n: unknown) => p.getTreeItem(n)));
    assert.deepEqual(
      items.map((i: any) => [i.label, i.contextValue]),
      [
        ['This machine', 'host.disconnected'],
        ['gpu1', 'host.disconnected'],
        ['testbox', 'host.disconnected'],
        ['root@10.1.1.1:2222', 'host.disconnected.manual'],
      ],
    );
  });

  it('connects This machine and shows Environment, Running servers and Search rows', async () => {
    await commands.get('inferenceDoctor.connectHost')!({ kind: 'host', hostId: 'local' });
    const p = trees.get('inferenceDoctor.hosts')!.provider;
    const host = (await p.getChildren(undefined))[0];
    assert.equal((await p.getTreeItem(host)).contextValue, 'host.connected');
    const rows = await p.getChildren(host);
    const labels = await Promise.all(rows.map(async (r: unknown) => (await p.getTreeItem(r)).label));
    assert.deepEqual(labels, ['Environment', 'Running servers', 'Search SGLang source…']);
    // The search row redraws as the host connects: its command carries no arguments and reads the
    // clicked row from the view's selection.
    const searchRow = await p.getTreeItem(rows[2]);
    assert.deepEqual(searchRow.command, { command: 'inferenceDoctor.searchClickedHost', title: 'Search SGLang Source on Host' });
    assert.ok(commands.has('inferenceDoctor.searchClickedHost'));
  });

  it('searches through the QuickPick, groups results in the Search view, and opens them read-only', async () => {
    quickPickScript = (qp) => {
      qp.value = 'attention_backend';
      qp.fireChange();
      // Toggle regex on and off again through the title buttons.
      qp.fireButton(qp.buttons[0]);
      assert.match(qp.title, /regex on/);
      qp.fireButton(qp.buttons[0]);
      qp.selectedItems = [qp.items[0]];
      qp.fireAccept();
    };
    await commands.get('inferenceDoctor.searchSglangSource')!({ kind: 'host', hostId: 'local', paths: [join(root, 'src')] });
    const s = trees.get('inferenceDoctor.search')!;
    const files = await s.provider.getChildren(undefined);
    assert.equal(files.length, 1);
    const fileItem = await s.provider.getTreeItem(files[0]);
    assert.equal(fileItem.label, 'server_args.py');
    assert.match(String(s.view.description), /^1 in 1 files/);
    const [match] = await s.provider.getChildren(files[0]);
    const item = await s.provider.getTreeItem(match);
    assert.deepEqual(item.label.highlights, [[0, 17]]);
    // The row's command carries no arguments (they would be gone once the streaming results
    // redraw the row); it opens the clicked row, read from the view's selection.
    assert.equal(item.command.command, 'inferenceDoctor.openClickedSearchMatch');
    assert.equal(item.command.arguments, undefined);
    s.view.selection = [match];
    builtIn.length = 0;
    await commands.get(item.command.command)!();
    assert.equal(builtIn.length, 1);
    assert.equal(builtIn[0].id, 'vscode.open');
    const uri = builtIn[0].args[0] as Uri;
    assert.equal((builtIn[0].args[1] as { selection: { a: number } }).selection.a, 0, 'at the match line (the first)');
    assert.equal(uri.scheme, 'inference-doctor-remote');
    assert.equal(uri.path, join(root, 'src', 'srt', 'server_args.py'));
    const fsp = fsProviders.get('inference-doctor-remote')!.provider;
    const text = Buffer.from(await fsp.readFile(uri)).toString();
    assert.match(text, /^attention_backend = "auto"/);
    assert.equal((await fsp.stat(uri)).type, 1);
    assert.throws(
      () => fsp.writeFile(uri, new Uint8Array()),
      (e: any) => e.code === 'NoPermissions',
    );
    await assert.rejects(fsp.readFile(Uri.parse(`inference-doctor-remote://local${join(root, 'missing.py')}`)), (e: any) => e.code === 'FileNotFound');
    await assert.rejects(
      fsp.readFile(Uri.parse('inference-doctor-remote://config_3agpu1/etc/hosts')),
      (e: any) => e.code === 'Unavailable' && /gpu1 is not connected/.test(e.message),
    );
  });

  it('opens the environment report as a generated read-only document', async () => {
    const before = opened.length;
    await commands.get('inferenceDoctor.showEnvironmentReport')!({ kind: 'host', hostId: 'local' });
    const doc = opened[before];
    assert.equal(doc.uri.scheme, 'inference-doctor-gen');
    const text = await contentProviders.get('inference-doctor-gen').provideTextDocumentContent(doc.uri);
    assert.match(text, /^Inference Doctor environment report: This machine/);
  });

  it("tells Diagnose Server about a host's running server: the cached report, its command line, its log tail and a forward", async () => {
    const fake = await startFakeLaunchServer({
      simJs: join(__dirname, '..', '..', 'dist', 'sim.js'),
      scenario: join(__dirname, '..', 'fixtures', 'scenarios', 'e2e.json'),
      port: await freePort(),
      flags: ['--model-path', 'nvidia/Some-Model-NVFP4', '--fp4-gemm-backend', 'flashinfer_cutlass'],
    });
    try {
      await commands.get('inferenceDoctor.refreshHosts')!({ kind: 'host', hostId: 'local' });
      const local = runtimeHosts.connected().find((h) => h.local);
      const report = local?.report?.();
      assert.ok(local && report, 'This machine is connected with its discovery report');
      const server = report.servers.find((s) => s.port === fake.port);
      assert.ok(server, 'discovery found the server');
      const ev = await local.serverEvidence!({ key: serverKey(server) });
      assert.equal(ev?.port, fake.port);
      assert.equal(ev?.report, report);
      assert.match(ev?.launch?.text ?? '', /--fp4-gemm-backend'? '?flashinfer_cutlass/, 'its command line (no launch script started it)');
      assert.match(ev?.log?.text ?? '', /launch_server \(test stand-in\)/);
      assert.match(ev?.baseUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(await local.serverEvidence!({ key: 'port:1' }), undefined, 'no such server');
      assert.equal(await local.serverEvidence!({ serverId: 'not-a-forward' }), undefined, 'no such forward');
    } finally {
      await fake.stop();
    }
  });

  it('shows a vLLM server on This machine with its engine, model, flags and backend environment, and its evidence for Diagnose', async () => {
    const fake = await startFakeLaunchServer({
      simJs: join(__dirname, '..', '..', 'dist', 'sim.js'),
      scenario: join(__dirname, '..', 'fixtures', 'scenarios', 'e2e.json'),
      port: await freePort(),
      engine: 'vllm',
      flags: ['--model', '/models/Qwen3-30B-A3B-NVFP4', '--kv-cache-dtype', 'fp8'],
      env: { VLLM_ATTENTION_BACKEND: 'FLASHINFER', VLLM_API_KEY: 'sk-not-shown' },
    });
    try {
      await commands.get('inferenceDoctor.refreshHosts')!({ kind: 'host', hostId: 'local' });
      const report = runtimeHosts
        .connected()
        .find((h) => h.local)
        ?.report?.();
      const server = report?.servers.find((s) => s.port === fake.port);
      assert.ok(server, 'discovery found the vLLM server');
      assert.deepEqual([server.engine, server.kind, server.pid, server.modelPath], ['vllm', 'vllm_api_server', fake.pid, '/models/Qwen3-30B-A3B-NVFP4']);
      assert.equal(server.env?.VLLM_ATTENTION_BACKEND, 'FLASHINFER', 'read from /proc/PID/environ');
      assert.ok(!('VLLM_API_KEY' in (server.env ?? {})), 'a secret is never kept');

      const p = trees.get('inferenceDoctor.hosts')!.provider;
      const host = (await p.getChildren(undefined))[0];
      const section = (await p.getChildren(host)).find((n: any) => n.section === 'servers');
      const rows = await p.getChildren(section);
      const items = await Promise.all(rows.map((r: unknown) => p.getTreeItem(r)));
      const item = items.find((i: any) => i.label === `pid ${fake.pid} :${fake.port}`);
      assert.ok(item, JSON.stringify(items.map((i: any) => i.label)));
      assert.equal(item.description, 'vLLM · Qwen3-30B-A3B-NVFP4');
      // The tooltip is escaped markdown, one paragraph per line.
      const tip = (item.tooltip as { value: string }).value.replace(/\\(.)/g, '$1').split('\n\n');
      assert.deepEqual(tip.slice(0, 3), [
        `vllm api_server on 0.0.0.0:${fake.port}`,
        'Model: /models/Qwen3-30B-A3B-NVFP4',
        `Flags: --port ${fake.port} --model /models/Qwen3-30B-A3B-NVFP4 --kv-cache-dtype fp8`,
      ]);
      assert.ok(tip.includes('Environment: VLLM_ATTENTION_BACKEND=FLASHINFER'), tip.join('|'));

      const ev = await runtimeHosts.connected().find((h) => h.local)!.serverEvidence!({ key: serverKey(server) });
      assert.match(ev?.launch?.text ?? '', /'-m' 'vllm\.entrypoints\.openai\.api_server' '--port' '\d+' '--model' '\/models\/Qwen3-30B-A3B-NVFP4'/);
      assert.match(ev?.log?.text ?? '', /test stand-in/);
    } finally {
      await fake.stop();
    }
  });

  it('asks about an unknown host key in a modal with its SHA256 fingerprint; Cancel rejects', async () => {
    const p = trees.get('inferenceDoctor.hosts')!.provider;
    warningAnswer = () => undefined; // Cancel
    await commands.get('inferenceDoctor.connectHost')!({ kind: 'host', hostId: 'config:testbox' });
    const ask = modals.at(-1)!;
    assert.match(ask.message, /authenticity of testbox \(127\.0\.0\.1:\d+\) can't be established/);
    assert.match(ask.detail!, /^ssh-ed25519 key fingerprint:\nSHA256:[A-Za-z0-9+/]{43}\n/);
    assert.deepEqual(ask.items, ['Trust Once', 'Trust and Remember']);
    const host = (await p.getChildren(undefined)).find((n: any) => n.hostId === 'config:testbox');
    assert.equal((await p.getTreeItem(host)).contextValue, 'host.error');
    const [err] = await p.getChildren(host);
    assert.equal(err.kind, 'error');
    assert.match(err.message, /can't be established/);
  });

  it('trusts and remembers a key in the trust store, then refuses a changed key with both fingerprints and the fix', async () => {
    warningAnswer = (_m, items) => (items.includes('Trust and Remember') ? 'Trust and Remember' : undefined);
    await commands.get('inferenceDoctor.connectHost')!({ kind: 'host', hostId: 'config:testbox' });
    const p = trees.get('inferenceDoctor.hosts')!.provider;
    const host = () => p.getChildren(undefined).then((ns: any[]) => ns.find((n) => n.hostId === 'config:testbox'));
    assert.equal((await p.getTreeItem(await host())).contextValue, 'host.connected');
    const remembered = modals.length;
    await commands.get('inferenceDoctor.disconnectHost')!(await host());
    await commands.get('inferenceDoctor.connectHost')!(await host());
    assert.equal(modals.length, remembered, 'no second question for a remembered key');
    assert.equal(readFileSync(join(root, 'known_hosts'), 'utf8'), '', "the user's known_hosts is not written");
    assert.match(
      readFileSync(join(root, 'storage', 'known_hosts'), 'utf8'),
      /^\|1\|\S+ ssh-ed25519 /,
      'remembered (hashed) in the trust store under globalStorageUri',
    );
    await commands.get('inferenceDoctor.disconnectHost')!(await host());
    await d.restartWithNewHostKey();
    await commands.get('inferenceDoctor.connectHost')!(await host());
    const refused = modals.at(-1)!;
    assert.match(refused.message, /^Refused to connect to testbox/);
    assert.match(refused.detail!, /CHANGED\. Expected SHA256:\S+ .*offered ssh-ed25519 SHA256:\S+/s);
    assert.match(refused.detail!, /ssh-keygen -R/);
    assert.equal((await p.getTreeItem(await host())).contextValue, 'host.error');
  });
});
