/**
 * The contributed language-model tools inside real VS Code (code-server 4.100.3). Agent mode needs
 * a signed-in chat model, which a test cannot have; so a test-only extension
 * (test/fixtures/tool-caller-extension, packaged here into a temp folder, never part of our .vsix)
 * calls vscode.lm.tools and vscode.lm.invokeTool outside any chat, as another extension or an
 * agent host does, and writes what came back to a file. It walks the demo's incident: probe → NaN,
 * diagnose → the FP4 GEMM rule for SM 12.0 first, flags → the fix flag with its choices,
 * apply_fix → VS Code asks and the user says no, diagnose on the GPU host over a real sshd →
 * VS Code asks, the user says yes, and the host's GPU puts the FP4 rule first. The same walk by an
 * MCP client (the SDK's own) over the CLI the .vsix installed: the bin path as packaged.
 *
 * What VS Code 1.100 does with a tool's confirmation outside chat (what this test holds): it
 * still calls prepareInvocation, shows confirmationMessages as a modal dialog (the title as its
 * message, the markdown as plain text below), runs the tool on Yes and rejects invokeTool with
 * "Canceled" on Cancel. chat.tools.autoApprove does not apply there.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Browser, type Page } from 'playwright-core';
import { repoRoot, startCodeServer, type RunningCodeServer } from '../../scripts/lib/codeServer';
import { AGENT_TOOLS, vscodeToolName } from '../../src/agent/names';
import { startSimulator } from '../../src/sim/server';
import { startSshd, type Sshd } from '../support/sshd';
import { waitFor } from '../support/wait';
import { closeCodeServer, openWorkbench, resultsDir, runCommand, screenshotIfFailed } from './ui';

const FP4_RULE = 'sglang-fp4-gemm-cutlass-sm120-zero-output';

interface Call {
  name: string;
  input: Record<string, unknown>;
}
type Answer = { ok: true; parts: string[] } | { ok: false; name?: string; message: string };
interface Response {
  listed: { name: string; tags: string[]; schema: boolean }[];
  calls: Answer[];
}
interface Finding {
  id: string;
  confidence: string;
  fix: { flags?: Record<string, unknown> };
  evidence: { stance: string; text: string }[];
}

/** The structured result: the tool's second text part. */
function data<T>(a: Answer | undefined): T {
  assert.ok(a?.ok, `the call failed: ${JSON.stringify(a)}`);
  assert.equal(a.parts.length, 2, 'a text for the model and the JSON result');
  return JSON.parse(a.parts[1]) as T;
}

describe('e2e: the language-model tools through vscode.lm in code-server (no chat, no model)', function () {
  this.timeout(300_000);
  const scratch: string[] = [];
  let sim: { url: string; close(): Promise<void> };
  let sshd: Sshd;
  let workspace: string;
  let launchScript: string;
  let launchText: string;
  let codeServer: RunningCodeServer;
  let browser: Browser;
  let page: Page;
  let round = 0;

  const temp = (prefix: string): string => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    scratch.push(dir);
    return dir;
  };

  const dialog = () => page.locator('.monaco-dialog-box');

  /** Asks the tool caller to make these calls; `answer` deals with the dialog they raise (none expected without it). */
  async function invoke(calls: Call[], answer?: () => Promise<void>): Promise<Response> {
    const id = ++round;
    writeFileSync(join(workspace, '.tool-caller', 'request.json'), JSON.stringify({ id, calls }));
    await runCommand(page, 'Tool Caller: Run Requested Tool Calls');
    if (answer) await answer();
    const file = join(workspace, '.tool-caller', `response-${id}.json`);
    return waitFor(
      `the tool caller's answer ${id}`,
      async () => {
        if (!answer && (await dialog().isVisible())) throw new Error(`VS Code asked unexpectedly: ${await dialog().innerText()}`);
        return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Response) : undefined;
      },
      180_000,
      250,
    );
  }

  async function press(button: 'Yes' | 'Cancel'): Promise<void> {
    await dialog()
      .locator('.dialog-buttons .monaco-button', { hasText: new RegExp(`^${button}$`) })
      .click();
    await dialog().waitFor({ state: 'hidden', timeout: 10_000 });
  }
  /** The dialog the next call raises (shown after the command started). */
  async function expectDialog(): Promise<string> {
    await dialog().waitFor({ state: 'visible', timeout: 60_000 });
    return dialog().innerText();
  }

  before(async () => {
    mkdirSync(resultsDir, { recursive: true });
    sim = await startSimulator({ port: 0, scenario: join(repoRoot, 'test/fixtures/scenarios/nan.json') });
    workspace = temp('id-e2e-agent-ws-');
    mkdirSync(join(workspace, '.tool-caller'));
    // The incident's launch script, which apply_fix would edit.
    launchScript = join(workspace, 'run.sh');
    launchText = [
      '#!/bin/sh',
      'exec python3 -m sglang.launch_server --model-path nvidia/Qwen3.5-397B-A17B-NVFP4 --quantization modelopt_fp4 \\',
      '  --moe-runner-backend flashinfer_cutlass --fp4-gemm-backend flashinfer_cutlass',
      '',
    ].join('\n');
    writeFileSync(launchScript, launchText, { mode: 0o755 });
    // The GPU box: a real sshd on 127.0.0.1 whose sessions see the stub nvidia-smi (an SM 12.0
    // card), reached by an ssh config alias, its key already trusted.
    sshd = await startSshd({ gpuStub: true });
    const sshConfig = join(workspace, '.ssh-config');
    writeFileSync(sshConfig, sshd.sshConfigEntry('gpu-box'));
    const knownHosts = sshd.writeKnownHosts(join(workspace, '.known_hosts'));
    // The tool caller, packaged as any extension is (vsce), outside the repository.
    const caller = temp('id-e2e-tool-caller-');
    cpSync(join(repoRoot, 'test/fixtures/tool-caller-extension'), caller, { recursive: true });
    const vsix = join(caller, 'tool-caller.vsix');
    const pack = spawnSync(
      join(repoRoot, 'node_modules/.bin/vsce'),
      ['package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', vsix],
      { cwd: caller, encoding: 'utf8', timeout: 120_000 },
    );
    assert.equal(pack.status, 0, `vsce package: ${pack.stderr || pack.stdout}`);
    codeServer = await startCodeServer({
      workspace,
      extraVsix: [vsix],
      settings: {
        'inferenceDoctor.health.intervalSeconds': 0,
        'inferenceDoctor.servers': [{ name: 'incident', url: sim.url }],
        'inferenceDoctor.ssh.configFile': sshConfig,
        'inferenceDoctor.ssh.knownHostsFile': knownHosts,
      },
    });
    ({ browser, page } = await openWorkbench(codeServer.url, { width: 1400, height: 900 }));
    // The extensions are scanned once our view container shows: the palette lists their commands from then on.
    await page.locator('.activitybar a.action-label[aria-label^="Inference Doctor"]').waitFor({ timeout: 60_000 });
  });

  afterEach(async function () {
    await screenshotIfFailed(this.currentTest, page, 'e2e-agent-failed');
  });

  after(async () => {
    await browser?.close();
    await closeCodeServer(codeServer, 'code-server-agent.log');
    await sim?.close();
    await sshd?.close();
    for (const d of scratch) rmSync(d, { recursive: true, force: true });
  });

  /** The first fix step of the top finding as apply_fix changes: what an agent would try. */
  function firstFix(f: Finding): { flag: string; value: string }[] {
    return Object.entries(f.fix.flags ?? {}).map(([flag, value]) => ({ flag, value: String(value) }));
  }

  it('walks the incident: probe says NaN, diagnose puts the FP4 rule first, flags gives its fix flag with the choices, apply_fix is asked and cancelled', async () => {
    const r = await invoke([
      { name: vscodeToolName('probe'), input: { server: 'incident' } },
      { name: vscodeToolName('diagnose'), input: { server: 'incident', gpu: 'rtx-pro-6000' } },
    ]);
    assert.deepEqual(r.listed.map((t) => t.name).sort(), AGENT_TOOLS.map((t) => vscodeToolName(t.name)).sort());
    assert.ok(r.listed.every((t) => t.schema && t.tags.includes('inference-doctor')));
    assert.equal(data<{ verdict: string }>(r.calls[0]).verdict, 'nan');
    const findings = data<{ findings: Finding[] }>(r.calls[1]).findings;
    assert.equal(findings[0]?.id, FP4_RULE, JSON.stringify(findings.map((f) => f.id)));
    assert.equal(findings[0].confidence, 'match');
    const fix = firstFix(findings[0]);
    assert.deepEqual(fix, [{ flag: '--fp4-gemm-backend', value: 'flashinfer_cudnn' }]);

    const flags = await invoke([{ name: vscodeToolName('flags'), input: { name: fix[0].flag, release: '0.5.9' } }]);
    const flag = data<{ flags: { flag: string; choices?: string[] }[] }>(flags.calls[0]).flags[0];
    assert.equal(flag?.flag, fix[0].flag);
    assert.ok(flag.choices?.includes(fix[0].value) && flag.choices.includes('flashinfer_cutlass'), JSON.stringify(flag.choices));

    let asked = '';
    const applied = await invoke(
      [{ name: vscodeToolName('apply_fix'), input: { launch: launchScript, restart: { supervise: 'sglang' }, changes: fix } }],
      async () => {
        asked = await expectDialog();
        await page.screenshot({ path: join(resultsDir, 'e2e-agent-confirm-apply-fix.png') });
        await press('Cancel');
      },
    );
    assert.match(asked, /Apply a fix to a server and re-probe\?/);
    assert.match(asked, /changes a server/);
    assert.match(asked, /restarts it \(supervise sglang\).*Changes: --fp4-gemm-backend flashinfer_cudnn/s);
    assert.doesNotMatch(asked, /&quot;|&amp;|\\/, 'the plain-text dialog reads as words, without markup');
    const call = applied.calls[0];
    assert.ok(!call.ok, JSON.stringify(call));
    assert.match(call.message, /Canceled/);
    assert.equal(readFileSync(launchScript, 'utf8'), launchText);
    assert.equal(await dialog().isVisible(), false, 'no dialog is left open');
  });

  it('diagnose on the GPU host: VS Code asks first; on Yes the host’s SM 12.0 GPU puts the FP4 rule first', async () => {
    let asked = '';
    const before = sshd.log().length;
    const r = await invoke([{ name: vscodeToolName('diagnose'), input: { server: 'incident', host: 'gpu-box' } }], async () => {
      asked = await expectDialog();
      assert.doesNotMatch(sshd.log().slice(before), /Accepted publickey/, 'nothing reached the host before the user said yes');
      await press('Yes');
    });
    assert.match(asked, /Diagnose a deployment\?/);
    assert.match(asked, /discovery commands on gpu-box to read/);
    assert.doesNotMatch(asked, /&quot;|&amp;|\\/, 'the plain-text dialog reads as words, without markup');
    const findings = data<{ findings: Finding[] }>(r.calls[0]).findings;
    assert.equal(findings[0]?.id, FP4_RULE, JSON.stringify(findings.map((f) => f.id)));
    assert.equal(findings[0].confidence, 'match');
    assert.ok(
      findings[0].evidence.some((e) => e.stance === 'for' && /12\.0|RTX PRO 6000/.test(e.text)),
      JSON.stringify(findings[0].evidence),
    );
    assert.match(sshd.log().slice(before), /Accepted publickey/);
  });

  it('an MCP client walks the incident with the CLI the .vsix installed (dist/cli.js as packaged, no node_modules)', async () => {
    const installed = readdirSync(codeServer.extensionsDir).find((d) => d.startsWith('inference-doctor.inference-doctor-'));
    assert.ok(installed, readdirSync(codeServer.extensionsDir).join(', '));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(codeServer.extensionsDir, installed, 'dist', 'cli.js'), 'mcp', '--server', `incident=${sim.url}`],
      cwd: tmpdir(),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'inference-doctor-e2e', version: '1.0.0' });
    await client.connect(transport);
    try {
      const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
      const structured = async <T>(name: string, args: Record<string, unknown>): Promise<T> => {
        const r = await call(name, args);
        assert.ok(!r.isError, `${name}: ${JSON.stringify(r.content)}`);
        return r.structuredContent as T;
      };
      assert.equal((await client.listTools()).tools.length, AGENT_TOOLS.length);
      assert.equal((await structured<{ verdict: string }>('probe', { server: 'incident' })).verdict, 'nan');
      const { findings } = await structured<{ findings: Finding[] }>('diagnose', { server: 'incident', gpu: 'rtx-pro-6000' });
      assert.equal(findings[0]?.id, FP4_RULE);
      const fix = firstFix(findings[0]);
      const { flags } = await structured<{ flags: { flag: string; choices?: string[] }[] }>('flags', { name: fix[0].flag });
      assert.ok(flags[0]?.choices?.includes(fix[0].value), JSON.stringify(flags[0]));
      const refused = await call('apply_fix', { launch: launchScript, restart: { supervise: 'sglang' }, changes: fix });
      assert.equal(refused.isError, true);
      assert.match(JSON.stringify(refused.content), /refused: .*--allow-changes/);
      assert.equal(readFileSync(launchScript, 'utf8'), launchText);
    } finally {
      await client.close();
    }
  });
});
