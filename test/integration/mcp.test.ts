/**
 * `inference-doctor mcp` driven by the MCP SDK's own client over stdio, as a coding agent's client
 * would: the tool list with both schemas, probe and diagnose against the incident's NaN server
 * (the simulator), refusals (changes without --allow-changes, hostile input), and every tool's
 * structured result from a real run checked against its output schema — apply_fix and sweep on
 * the simulator in launch mode under `supervise`, with --allow-changes.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import Ajv from 'ajv';
import { freePort } from '../../scripts/lib/codeServer';
import { runToolInCli } from '../../src/agent/runner';
import { waitUntilReady } from '../../src/core/fix/loop';
import { startSshd, type Sshd } from '../support/sshd';
import { buildBundles, scenarioPath, SimPool } from './helpers';

const ROOT = resolve(__dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const SIM = join(ROOT, 'dist', 'sim.js');
const API_KEY = 'sk-test-incident-0123456789abcdef';

interface Session {
  client: Client;
  stderr: () => string;
  close(): Promise<void>;
}

async function connect(args: string[], env: Record<string, string> = {}): Promise<Session> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', ...args],
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client({ name: 'inference-doctor-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => err, close: () => client.close() };
}

function text(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

describe('inference-doctor mcp (the SDK client over stdio)', function () {
  this.timeout(240_000);
  const pool = new SimPool();
  const ajv = new Ajv({ strict: false, allErrors: true });
  let nanUrl: string;
  let plain: Session;
  let tools: Tool[];
  const outputs = new Map<string, unknown>();

  /** A call that must succeed; its structured result is checked against the listed output schema. */
  async function call(s: Session, name: string, args: Record<string, unknown>, timeout = 120_000): Promise<Record<string, unknown>> {
    const r = (await s.client.callTool({ name, arguments: args }, undefined, { timeout })) as CallToolResult;
    assert.ok(!r.isError, `${name} failed: ${text(r)}\n${s.stderr()}`);
    const data = r.structuredContent as Record<string, unknown>;
    const schema = tools.find((t) => t.name === name)?.outputSchema;
    assert.ok(schema, `${name} lists an output schema`);
    const valid = ajv.validate(schema, data);
    assert.ok(valid, `${name}'s result fits its output schema: ${ajv.errorsText()}`);
    assert.ok(text(r).length > 0, `${name} also answers in text`);
    outputs.set(name, data);
    return data;
  }

  async function refused(s: Session, name: string, args: Record<string, unknown>): Promise<string> {
    const r = (await s.client.callTool({ name, arguments: args })) as CallToolResult;
    assert.equal(r.isError, true, `${name} should refuse ${JSON.stringify(args)}: ${text(r)}`);
    return text(r);
  }

  before(async () => {
    buildBundles('cli,sim', 200_000);
    nanUrl = (await pool.start(scenarioPath('nan'), API_KEY)).url;
    plain = await connect(['--server', `incident=${nanUrl}`], { INFERENCE_DOCTOR_API_KEY: API_KEY });
    tools = (await plain.client.listTools()).tools;
  });

  after(async () => {
    await plain?.close();
    await pool.closeAll();
  });

  it('lists every tool with an input and an output schema', () => {
    const names = tools.map((t) => t.name).sort();
    assert.deepEqual(names, [
      'apply_fix',
      'check_launch',
      'compare',
      'diagnose',
      'environment',
      'eval',
      'flags',
      'judge_answer',
      'probe',
      'search_source',
      'server_info',
      'sweep',
    ]);
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object', t.name);
      assert.equal(t.outputSchema?.type, 'object', t.name);
      assert.ok((t.description ?? '').length > 40, `${t.name} says what it does`);
      assert.ok(ajv.compile(t.inputSchema) && ajv.compile(t.outputSchema), `${t.name}'s schemas compile`);
    }
    assert.equal(tools.find((t) => t.name === 'apply_fix')?.annotations?.destructiveHint, true);
    assert.equal(tools.find((t) => t.name === 'probe')?.annotations?.readOnlyHint, true);
    assert.match(plain.client.getInstructions() ?? '', /Known servers: incident \(http:\/\/127\.0\.0\.1:\d+\)\.\nHosts: local/);
  });

  it('probe: the incident server by name answers NaN, with reasons, onset and finish info; the key never shows', async () => {
    const r = (await plain.client.callTool({ name: 'probe', arguments: { server: 'incident', prompt: 'Say hello.' } })) as CallToolResult;
    assert.ok(!r.isError, text(r));
    assert.ok(!JSON.stringify(r).includes(API_KEY), 'the API key is not in the result');
    const data = await call(plain, 'probe', { server: nanUrl });
    assert.equal(data.verdict, 'nan');
    assert.equal(data.mode, 'quick');
    const items = data.items as { verdict: string; reasons: { code: string }[]; onset: number | null; matchedStop: unknown }[];
    assert.equal(items.length, 3);
    assert.ok(items.some((i) => i.verdict === 'nan' && i.reasons.some((x) => /nan|token0/.test(x.code)) && i.onset !== null));
    assert.ok(items.some((i) => i.matchedStop === 'NaN happened'));
  });

  it('diagnose: the FP4 GEMM backend comes first for the incident server on an RTX PRO 6000', async () => {
    const data = await call(plain, 'diagnose', { server: 'incident', gpu: 'rtx-pro-6000' });
    const findings = data.findings as { id: string; confidence: string; fix: { flags: Record<string, unknown> } }[];
    assert.equal(findings[0]?.id, 'sglang-fp4-gemm-cutlass-sm120-zero-output', JSON.stringify(findings.map((f) => f.id)));
    assert.equal(findings[0].confidence, 'match');
    assert.deepEqual(findings[0].fix.flags, { '--fp4-gemm-backend': 'flashinfer_cudnn' });
  });

  it('eval: a model that answers fluently but wrong fails the accuracy floors; the right one passes', async () => {
    const sim = await pool.start(scenarioPath('accuracy'));
    const wrong = await call(plain, 'eval', { server: sim.url, model: 'Qwen/Qwen3-8B-kv-fp8-no-scale', n: 30, concurrency: 8 });
    assert.equal(wrong.status, 'completed');
    assert.equal(wrong.pass, false, JSON.stringify(wrong.reasons));
    const right = await call(plain, 'eval', { server: sim.url, model: 'Qwen/Qwen3-8B', n: 30, concurrency: 8 });
    assert.equal(right.pass, true, JSON.stringify(right.reasons));
    assert.equal(right.accuracy, 1);
  });

  it('compare: a diverging server is broken against the reference, a drifting one is not', async () => {
    const sim = await pool.start(scenarioPath('drift'));
    const broken = await call(plain, 'compare', { reference: sim.url, suspect: sim.url, modelReference: 'reference', modelSuspect: 'diverging', prompts: 4 });
    assert.equal(broken.verdict, 'broken', JSON.stringify(broken.reasons));
    const drift = await call(plain, 'compare', { reference: sim.url, suspect: sim.url, modelReference: 'reference', modelSuspect: 'drifting', prompts: 4 });
    assert.notEqual(drift.verdict, 'broken', JSON.stringify(drift.reasons));
  });

  it('refuses apply_fix and sweep without --allow-changes, and says how to allow them', async () => {
    const args = { launch: '/srv/run.sh', restart: { supervise: 'sglang' } };
    const fix = await refused(plain, 'apply_fix', { ...args, changes: [{ flag: '--fp4-gemm-backend', value: 'flashinfer_cudnn' }] });
    assert.match(fix, /^refused: .*--allow-changes/s);
    const sweep = await refused(plain, 'sweep', { ...args, vary: [{ flag: '--fp4-gemm-backend', values: ['marlin'] }] });
    assert.match(sweep, /^refused:/);
  });

  it('refuses hostile input with a clear error', async () => {
    assert.match(await refused(plain, 'probe', { server: 'file:///etc/passwd' }), /invalid-input: Only http:\/\/ and https:\/\/ URLs/);
    assert.match(await refused(plain, 'server_info', { server: 'javascript:alert(1)' }), /Only http:\/\/ and https:\/\//);
    assert.match(await refused(plain, 'probe', { server: 'nowhere' }), /No known server is called "nowhere" \(known: incident\)/);
    assert.match(await refused(plain, 'probe', { server: nanUrl, prompt: 'hi\u0000there' }), /control character/);
    assert.match(await refused(plain, 'search_source', { host: 'local', pattern: 'a\u0000b', paths: ['/tmp'] }), /The pattern holds a control character/);
    assert.match(await refused(plain, 'search_source', { host: 'local', pattern: 'x', paths: ['--pre=sh'] }), /must be absolute/);
    assert.match(await refused(plain, 'search_source', { host: '-oProxyCommand=x', pattern: 'x', paths: ['/tmp'] }), /looks like an ssh option/);
    assert.match(await refused(plain, 'environment', { host: 'a;touch /tmp/x' }), /invalid-input: Bad host name/);
    assert.match(await refused(plain, 'flags', { name: '--x; rm -rf /' }), /invalid-input: Invalid input for flags:\n\/name: .* does not match/);
    assert.match(await refused(plain, 'probe', { server: nanUrl, extra: 1 }), /\/extra: unknown property "extra"/);
    assert.match(await refused(plain, 'probe', { server: nanUrl, prompt: 'x'.repeat(9000) }), /must not be longer than 8000/);
    assert.match(await refused(plain, 'no_such_tool', {}), /unknown-tool/);
  });

  it('flags, check_launch, judge_answer, server_info, search_source and environment answer within their schemas', async () => {
    const flags = await call(plain, 'flags', { name: 'fp4_gemm_backend', release: '0.5.9' });
    const fp4 = (flags.flags as { flag: string; choices?: string[] }[])[0];
    assert.equal(fp4?.flag, '--fp4-gemm-backend');
    assert.ok(fp4.choices?.includes('flashinfer_cudnn'), 'the choice the incident is fixed with');
    const family = await call(plain, 'flags', { family: 'moe', limit: 2 });
    assert.equal((family.flags as unknown[]).length, 2);
    assert.equal(family.truncated, true);
    const check = await call(plain, 'check_launch', {
      text: 'python -m sglang.launch_server --model-path nvidia/Qwen3-30B-A3B-NVFP4 --quantization modelopt_fp4 --fp4-gemm-backend flashinfer_cutlass --kv-cache-dtype fp8_e5m3\n',
      gpu: 'rtx-pro-6000',
    });
    const codes = (check.findings as { code: string }[]).map((f) => f.code);
    assert.ok(codes.includes('invalid-choice'), codes.join(','));
    // An answer the agent already has, judged with no server: the seed's NaN flood.
    const judged = await call(plain, 'judge_answer', { text: '!'.repeat(32), matchedStop: 'NaN happened' });
    assert.equal((judged.answers as { verdict: string }[])[0].verdict, 'nan');
    const info = await call(plain, 'server_info', { server: 'incident' });
    assert.equal((info.backends as Record<string, string>).fp4_gemm_runner_backend, 'flashinfer_cutlass');
    const search = await call(plain, 'search_source', {
      host: 'local',
      pattern: 'NaN happened',
      fixedStrings: true,
      paths: [join(ROOT, 'src', 'sim')],
      maxResults: 3,
    });
    assert.ok((search.matches as unknown[]).length >= 1);
    const env = await call(plain, 'environment', { host: 'local' }, 180_000);
    assert.equal(env.host, 'local');
  });

  describe('diagnose with a GPU host over SSH (a real sshd on 127.0.0.1, reached by its ssh config alias)', () => {
    let sshd: Sshd;
    let dir: string;
    let sshConfig: string;
    let knownHosts: string;
    let withHost: Session;

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'id-mcp-ssh-'));
      // The host's GPU: the stub nvidia-smi (an SM 12.0 card) first on every session's PATH.
      sshd = await startSshd({ gpuStub: true });
      sshConfig = join(dir, 'ssh_config');
      writeFileSync(sshConfig, sshd.sshConfigEntry('gpu-box'));
      knownHosts = sshd.writeKnownHosts(join(dir, 'known_hosts'));
      withHost = await connect(['--server', `incident=${nanUrl}`, '--ssh-config', sshConfig, '--known-hosts', knownHosts], {
        INFERENCE_DOCTOR_API_KEY: API_KEY,
        SSH_AUTH_SOCK: '',
      });
    });

    after(async () => {
      await withHost?.close();
      await sshd?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    type Finding = { id: string; confidence: string; evidence: { stance: string; text: string }[] };

    it('takes the GPU from the host: the FP4 GEMM rule first for the incident server, with no gpu given', async () => {
      assert.match(withHost.client.getInstructions() ?? '', /Hosts: local, gpu-box/);
      const data = await call(withHost, 'diagnose', { server: 'incident', host: 'gpu-box' }, 180_000);
      const findings = data.findings as Finding[];
      assert.equal(findings[0]?.id, 'sglang-fp4-gemm-cutlass-sm120-zero-output', JSON.stringify(findings.map((f) => f.id)));
      assert.equal(findings[0].confidence, 'match');
      assert.ok(
        findings[0].evidence.some((e) => e.stance === 'for' && /12\.0|RTX PRO 6000/.test(e.text)),
        JSON.stringify(findings[0].evidence),
      );
      assert.match(sshd.log(), /Accepted publickey/);
      assert.ok(!JSON.stringify(data).includes(API_KEY));
      // The server alone does not say which GPU it runs on.
      const alone = await call(withHost, 'diagnose', { server: 'incident' });
      assert.notDeepEqual((alone.findings as Finding[]).map((f) => [f.id, f.confidence]).slice(0, 1), [['sglang-fp4-gemm-cutlass-sm120-zero-output', 'match']]);
    });

    it('the VS Code path reads the same host through its ssh settings', async () => {
      const r = await runToolInCli(
        'diagnose',
        { input: { server: 'incident box', host: 'gpu-box', probe: false }, servers: [{ name: 'incident box', url: nanUrl, apiKey: API_KEY }] },
        { cliPath: CLI, allowChanges: false, signal: new AbortController().signal, sshConfigFile: sshConfig, knownHostsFile: knownHosts },
      );
      assert.ok(r.ok, JSON.stringify(r));
      assert.ok(ajv.validate(tools.find((t) => t.name === 'diagnose')!.outputSchema!, r.data), ajv.errorsText());
      assert.ok((r.data.findings as Finding[]).some((f) => f.id === 'sglang-fp4-gemm-cutlass-sm120-zero-output'));
    });

    it('refuses a host whose key is not known, before authenticating, and hostile hosts before any connection', async () => {
      const empty = join(dir, 'empty_known_hosts');
      writeFileSync(empty, '');
      const strange = await connect(['--ssh-config', sshConfig, '--known-hosts', empty], { SSH_AUTH_SOCK: '' });
      try {
        const before = sshd.log().length;
        const r = (await strange.client.callTool({ name: 'diagnose', arguments: { host: 'gpu-box', gpu: 'rtx-pro-6000' } })) as CallToolResult;
        assert.equal(r.isError, true, text(r));
        assert.match(text(r), /^refused: .*never trust a new host key/s);
        assert.doesNotMatch(sshd.log().slice(before), /Accepted publickey/);
        assert.match(await refused(strange, 'diagnose', { host: '-oProxyCommand=touch /tmp/x' }), /looks like an ssh option/);
        assert.match(await refused(strange, 'diagnose', { host: 'gpu-box;id' }), /invalid-input: Bad host name/);
      } finally {
        await strange.close();
      }
    });
  });

  describe("the VS Code tools' path (src/agent/runner.ts: inference-doctor tool in a child, as the extension forks it)", () => {
    const opts = (over: Partial<Parameters<typeof runToolInCli>[2]> = {}) => ({
      cliPath: CLI,
      allowChanges: false,
      signal: new AbortController().signal,
      ...over,
    });

    it('probes a Servers-view server by name with its key from stdin, and the key never comes back', async () => {
      const r = await runToolInCli(
        'probe',
        { input: { server: 'incident box', prompt: 'Say hello.' }, servers: [{ name: 'incident box', url: nanUrl, apiKey: API_KEY }] },
        opts(),
      );
      assert.ok(r.ok, JSON.stringify(r));
      assert.equal(r.data.verdict, 'nan');
      assert.ok(ajv.validate(tools.find((t) => t.name === 'probe')!.outputSchema!, r.data), ajv.errorsText());
      assert.ok(!JSON.stringify(r).includes(API_KEY));
      const noKey = await runToolInCli('probe', { input: { server: nanUrl, prompt: 'Say hello.' }, servers: [] }, opts());
      assert.ok(!noKey.ok, 'a URL that is not a known server gets no key, and this server wants one');
      assert.match(noKey.error.message, /Could not list the models/);
    });

    it('refuses apply_fix unless the confirmation gave --allow-changes, and hostile input either way', async () => {
      const input = { launch: '/srv/run.sh', restart: { supervise: 'sglang' }, changes: [{ flag: '--fp4-gemm-backend', value: 'marlin' }] };
      const r = await runToolInCli('apply_fix', { input, servers: [] }, opts());
      assert.ok(!r.ok);
      assert.equal(r.error.code, 'refused');
      const hostile = await runToolInCli(
        'search_source',
        { input: { host: '-oProxyCommand=x', pattern: 'x', paths: ['/tmp'] }, servers: [] },
        opts({ allowChanges: true }),
      );
      assert.ok(!hostile.ok);
      assert.equal(hostile.error.code, 'invalid-input');
    });

    it('cancellation ends the child at once', async () => {
      const c = new AbortController();
      const started = Date.now();
      const run = runToolInCli('probe', { input: { server: nanUrl }, servers: [{ name: 'x', url: nanUrl, apiKey: API_KEY }] }, opts({ signal: c.signal }));
      setTimeout(() => c.abort(), 50);
      await assert.rejects(run, /cancelled/);
      assert.ok(Date.now() - started < 10_000);
    });
  });

  describe('with --allow-changes (the simulator in launch mode under supervise)', () => {
    let work: string;
    let state: string;
    let script: string;
    let original: string;
    let changes: Session;
    const cli = (args: string[]) =>
      spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, INFERENCE_DOCTOR_STATE_DIR: state } });

    before(async () => {
      work = mkdtempSync(join(tmpdir(), 'id-mcp-'));
      state = join(work, 'state');
      const port = await freePort();
      assert.equal(spawnSync(process.execPath, [SIM, 'wrapper', join(work, 'bin')], { encoding: 'utf8' }).status, 0);
      script = join(work, 'run.sh');
      original = [
        '#!/bin/sh',
        `exec ${join(work, 'bin', 'python3')} -m sglang.launch_server \\`,
        '  --model-path nvidia/Qwen3.5-397B-A17B-NVFP4 --quantization modelopt_fp4 \\',
        `  --sim-gpu rtx-pro-6000 --sim-start-seconds 0.2 --sim-tokens-per-second 0 --port ${port} \\`,
        '  --moe-runner-backend flashinfer_cutlass --fp4-gemm-backend flashinfer_cutlass',
        '',
      ].join('\n');
      writeFileSync(script, original, { mode: 0o755 });
      assert.equal(cli(['supervise', 'start', 'sglang', '--', 'sh', script]).status, 0);
      assert.ok((await waitUntilReady({ baseUrl: `http://127.0.0.1:${port}` }, 30_000, 200)) !== undefined, 'the incident server came up');
      changes = await connect(['--allow-changes'], { INFERENCE_DOCTOR_STATE_DIR: state });
    });

    after(async () => {
      await changes?.close();
      if (state) cli(['supervise', 'stop', 'sglang', '--timeout', '2']);
      if (work) rmSync(work, { recursive: true, force: true });
    });

    it('sweep tries each value and puts the script back byte for byte', async () => {
      const data = await call(
        changes,
        'sweep',
        { launch: script, restart: { supervise: 'sglang' }, vary: [{ flag: 'fp4_gemm_backend', values: ['flashinfer_cutlass', 'flashinfer_cudnn'] }] },
        200_000,
      );
      const rows = data.rows as { flags: Record<string, string>; verdict: string }[];
      assert.deepEqual(
        rows.map((r) => [r.flags['--fp4-gemm-backend'], r.verdict]),
        [
          ['flashinfer_cutlass', 'nan'],
          ['flashinfer_cudnn', 'ok'],
        ],
      );
      assert.equal(data.restored, true);
      assert.equal(readFileSync(script, 'utf8'), original);
    });

    it('apply_fix changes the FP4 GEMM backend, restarts and probes: NaN → healthy', async () => {
      const data = await call(
        changes,
        'apply_fix',
        { launch: script, restart: { supervise: 'sglang' }, changes: [{ flag: '--fp4-gemm-backend', value: 'flashinfer_cudnn' }] },
        200_000,
      );
      assert.equal(data.before, 'nan');
      assert.equal(data.outcome, 'healthy');
      assert.equal(data.restored, false);
      assert.match(readFileSync(script, 'utf8'), /--fp4-gemm-backend flashinfer_cudnn/);
    });

    it('every tool produced a result that fits its schema', () => {
      assert.deepEqual([...outputs.keys()].sort(), tools.map((t) => t.name).sort());
    });
  });
});
