/**
 * The extension's language-model tools (src/agent) as VS Code would drive them, with a stand-in for
 * the `vscode` module: register() with lm.registerTool, prepareInvocation's confirmations, invoke()
 * running the bundled CLI against the simulator, cancellation through the token. The e2e tier
 * (test/e2e/agent-tools.test.ts) invokes the same tools in real VS Code through vscode.lm; this
 * file reaches what it cannot (cancellation, every confirmation's text) without starting it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildBundles, scenarioPath, SimPool } from './helpers';
import { installFakeVscode } from '../support/fakeVscode';

const ROOT = resolve(__dirname, '..', '..');
const API_KEY = 'sk-agent-tools-test-0123456789';

class MarkdownString {
  constructor(readonly value: string) {}
}
class LanguageModelTextPart {
  constructor(readonly value: string) {}
}
class LanguageModelToolResult {
  constructor(readonly content: LanguageModelTextPart[]) {}
}
interface Registered {
  prepareInvocation(
    o: { input: Record<string, unknown> },
    token: unknown,
  ): Promise<{ invocationMessage?: string; confirmationMessages?: { title: string; message: MarkdownString } }>;
  invoke(o: { input: Record<string, unknown> }, token: FakeToken): Promise<LanguageModelToolResult>;
}
class FakeToken {
  isCancellationRequested = false;
  private listeners: (() => void)[] = [];
  onCancellationRequested = (l: () => void) => (this.listeners.push(l), { dispose: () => undefined });
  cancel(): void {
    this.isCancellationRequested = true;
    for (const l of this.listeners) l();
  }
}

const registered = new Map<string, Registered>();
const fakeVscode = {
  lm: { registerTool: (name: string, tool: Registered) => (registered.set(name, tool), { dispose: () => registered.delete(name) }) },
  MarkdownString,
  LanguageModelTextPart,
  LanguageModelToolResult,
};

describe('VS Code language-model tools (src/agent) over the bundled CLI', function () {
  this.timeout(120_000);
  const pool = new SimPool();
  let url: string;
  const logs: string[] = [];
  let uninstallFakeVscode: (() => void) | undefined;

  before(async () => {
    buildBundles('cli');
    url = (await pool.start(scenarioPath('nan'), API_KEY)).url;
    uninstallFakeVscode = installFakeVscode(fakeVscode, 'agent_tools');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { register } = require('../../src/agent/register') as typeof import('../../src/agent/register');
    const servers = [{ id: 's1', label: 'SM120 box', baseUrl: url }];
    const ctx = {
      extension: { extensionPath: ROOT },
      config: { text: () => undefined },
      log: { info: (m: string) => logs.push(m), warn: (m: string) => logs.push(m) },
      pushCleanup: () => undefined,
      servers: { store: { list: () => servers, target: () => Promise.resolve({ baseUrl: url, apiKey: API_KEY }) } },
    };
    register(ctx as unknown as Parameters<typeof register>[0]);
  });

  after(async () => {
    // A cached src/ui/lazy.ts would keep this file's fake vscode for the test files after it.
    uninstallFakeVscode?.();
    await pool.closeAll();
  });

  const tool = (name: string): Registered => {
    const t = registered.get(`inferenceDoctor_${name}`);
    assert.ok(t, `${name} is registered`);
    return t;
  };

  it('registers every tool package.json contributes', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      contributes: { languageModelTools: { name: string }[] };
    };
    assert.deepEqual([...registered.keys()].sort(), manifest.contributes.languageModelTools.map((t) => t.name).sort());
  });

  it('asks before touching a host (diagnose only when given one), before calling a server the user did not register, and before changing a server', async () => {
    const none = await tool('probe').prepareInvocation({ input: { server: 'SM120 box' } }, new FakeToken());
    assert.equal(none.confirmationMessages, undefined, 'a registered server needs no confirmation');
    const other = await tool('probe').prepareInvocation({ input: { server: 'http://10.0.0.9:30000' } }, new FakeToken());
    assert.match(other.confirmationMessages?.title ?? '', /not in the Servers view/);
    const search = await tool('search_source').prepareInvocation({ input: { host: 'gpu-box', pattern: '`x`**', paths: ['/opt'] } }, new FakeToken());
    assert.match(search.confirmationMessages?.message.value ?? '', /on `gpu-box`: /);
    assert.match(search.confirmationMessages?.message.value ?? '', /`` `x`\*\* ``/, 'agent text is shown in a code span');
    const plain = await tool('diagnose').prepareInvocation({ input: { server: 'SM120 box', gpu: '12.0' } }, new FakeToken());
    assert.equal(plain.confirmationMessages, undefined, 'diagnose from a registered server and facts reaches no host');
    const onHost = await tool('diagnose').prepareInvocation({ input: { server: 'http://10.0.0.9:30000', host: 'gpu-box' } }, new FakeToken());
    assert.equal(onHost.confirmationMessages?.title, 'Diagnose a deployment?');
    assert.match(onHost.confirmationMessages?.message.value ?? '', /discovery commands on `gpu-box` /);
    assert.match(onHost.confirmationMessages?.message.value ?? '', /`http:\/\/10\.0\.0\.9:30000` is not a registered server/);
    const fix = await tool('apply_fix').prepareInvocation(
      { input: { launch: '/srv/run.sh', restart: { supervise: 'sglang' }, changes: [{ flag: '--fp4-gemm-backend', value: 'flashinfer_cudnn' }] } },
      new FakeToken(),
    );
    assert.match(fix.confirmationMessages?.message.value ?? '', /changes a server/);
    // In words, not JSON: outside chat VS Code shows this as plain text, where quotes become &quot;.
    assert.match(fix.confirmationMessages?.message.value ?? '', /restarts it \(`supervise sglang`\).*Changes: `--fp4-gemm-backend flashinfer_cudnn`/s);
    assert.doesNotMatch(fix.confirmationMessages?.message.value ?? '', /"/);
  });

  it('probe by the server’s label: NaN, as text parts an agent reads, without the key', async () => {
    const r = await tool('probe').invoke({ input: { server: 'SM120 box', prompt: 'Say hello.' } }, new FakeToken());
    assert.equal(r.content.length, 2);
    assert.match(r.content[0].value, /NAN|NaN/);
    const data = JSON.parse(r.content[1].value) as { verdict: string };
    assert.equal(data.verdict, 'nan');
    assert.ok(!JSON.stringify(r).includes(API_KEY));
  });

  it('diagnose through the extension: the FP4 GEMM finding first', async () => {
    const r = await tool('diagnose').invoke({ input: { server: 'SM120 box', gpu: 'rtx-pro-6000' } }, new FakeToken());
    const data = JSON.parse(r.content[1].value) as { findings: { id: string }[] };
    assert.equal(data.findings[0]?.id, 'sglang-fp4-gemm-cutlass-sm120-zero-output');
  });

  it('hostile input comes back as an error the model reads', async () => {
    await assert.rejects(tool('probe').invoke({ input: { server: 'file:///etc/passwd' } }, new FakeToken()), /invalid-input: Only http/);
    await assert.rejects(tool('search_source').invoke({ input: { host: '-oProxyCommand=x', pattern: 'x', paths: ['/tmp'] } }, new FakeToken()), /ssh option/);
  });

  it('a cancelled call ends', async () => {
    const token = new FakeToken();
    const run = tool('probe').invoke({ input: { server: 'SM120 box' } }, token);
    setTimeout(() => token.cancel(), 50);
    await assert.rejects(run, /cancelled/);
  });
});
