/**
 * The agent tools' contract without a server: every schema (input and output) well formed and the
 * same in package.json, the guards on hostile input, redaction, output caps, time limits, consent,
 * and the results of the tools that need no server checked against their output schemas.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { AGENT_TOOLS, vscodeToolName } from '../../src/agent/names';
import { checkLaunchText } from '../../src/cli/check/toolService';
import { validate } from '../../src/core/rules/schema';
import { capData, checkHost, checkPath, checkPattern, checkUrl, redactText, redactValue, resolveServer } from '../../src/core/tools/guards';
import { runDefinition, runTool, TOOLS, ToolError, type ToolContext, type ToolDefinition } from '../../src/core/tools';

const ROOT = join(__dirname, '..', '..');
const ajv = new Ajv({ strict: false, allErrors: true });

function ctx(over: Partial<ToolContext> = {}): ToolContext {
  return {
    signal: new AbortController().signal,
    timeLimitMs: 20_000,
    maxOutputChars: 64 * 1024,
    servers: [{ name: 'box', url: 'http://127.0.0.1:1', apiKey: 'sk-secret-value-0123456789' }],
    hosts: {
      known: () => ['local'],
      open: () => Promise.reject(new Error('no hosts in unit tests')),
    },
    allowChanges: false,
    services: { checkLaunch: checkLaunchText },
    ...over,
  };
}

function fits(tool: ToolDefinition, data: unknown): void {
  assert.deepEqual(validate(tool.outputSchema, data), [], `${tool.name}: the small validator`);
  assert.ok(ajv.validate(tool.outputSchema, data), `${tool.name}: ajv: ${ajv.errorsText()}`);
}

describe('agent tools', () => {
  describe('schemas', () => {
    it('VS Code registers exactly the core tools, and package.json contributes each with its schema and description', () => {
      assert.deepEqual(
        AGENT_TOOLS,
        TOOLS.map((t) => ({ name: t.name, title: t.title, touchesHost: t.touchesHost, changesServer: t.changesServer })),
      );
      const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
        contributes: { languageModelTools: { name: string; modelDescription: string; inputSchema: unknown; displayName: string }[] };
      };
      const contributed = manifest.contributes.languageModelTools;
      assert.deepEqual(
        contributed.map((t) => t.name),
        TOOLS.map((t) => vscodeToolName(t.name)),
      );
      for (const t of TOOLS) {
        const c = contributed.find((x) => x.name === vscodeToolName(t.name))!;
        assert.deepEqual(c.inputSchema, JSON.parse(JSON.stringify(t.inputSchema)), `${t.name}'s inputSchema in package.json is stale`);
        assert.equal(c.modelDescription, t.description);
        assert.equal(c.displayName, t.title);
      }
    });

    for (const t of TOOLS) {
      it(`${t.name}: closed object input, an output schema that compiles and allows the cut note`, () => {
        assert.equal(t.inputSchema.type, 'object');
        assert.equal(t.inputSchema.additionalProperties, false);
        assert.equal(t.outputSchema.type, 'object');
        assert.ok(ajv.compile(t.inputSchema));
        assert.ok(ajv.compile(t.outputSchema));
        const props = t.outputSchema.properties as Record<string, unknown>;
        assert.ok(props.truncated && props.note, 'truncated and note are allowed');
        assert.ok(t.description.length > 60 && t.title.length > 5);
        assert.ok(t.changesServer ? t.touchesHost : true, 'a tool that changes a server touches its host');
      });
    }

    it('the input schema rejects what it should, with the path in the message', async () => {
      const r = await runTool('probe', { server: 'box', maxTokens: 0, extra: true }, ctx());
      assert.ok(!r.ok);
      assert.equal(r.error.code, 'invalid-input');
      assert.match(r.error.message, /\/maxTokens: must be >= 1/);
      assert.match(r.error.message, /\/extra: unknown property/);
      const missing = await runTool('search_source', { host: 'local' }, ctx());
      assert.ok(!missing.ok);
      assert.match(missing.error.message, /missing required property "pattern"/);
      const many = await runTool('search_source', { host: 'local', pattern: 'x', paths: Array(9).fill('/tmp') }, ctx());
      assert.ok(!many.ok);
      assert.match(many.error.message, /at most 8 item/);
    });
  });

  describe('guards', () => {
    it('only http and https URLs, without credentials', () => {
      assert.equal(checkUrl('http://gpu-box:30000/v1/'), 'http://gpu-box:30000');
      for (const bad of ['file:///etc/passwd', 'ftp://x', 'javascript:alert(1)', 'gopher://x:70', 'http://user:pw@x', 'not a url', 'http://x\u0000y'])
        assert.throws(() => checkUrl(bad), ToolError, bad);
    });

    it('hosts that are not options or shell syntax', () => {
      assert.equal(checkHost('local'), 'local');
      assert.equal(checkHost('me@gpu-box:2222'), 'me@gpu-box:2222');
      for (const bad of ['-oProxyCommand=x', ' -F/tmp/cfg', 'a;b', 'x$(id)', 'a b', 'a\nb', 'x`id`', 'a|b'])
        assert.throws(
          () => checkHost(bad),
          (e: unknown) => e instanceof ToolError && e.code === 'invalid-input',
          bad,
        );
    });

    it('patterns and paths on one line, without NUL; paths absolute', () => {
      assert.equal(checkPattern('--pre=sh'), '--pre=sh', 'a pattern that looks like an option is still data');
      assert.throws(() => checkPattern('a\u0000b'), /control character/);
      assert.throws(() => checkPattern('a\nb'), /one line/);
      assert.throws(() => checkPath('relative/dir'), /absolute/);
      assert.throws(() => checkPath('--pre=sh'), /absolute/);
      assert.equal(checkPath('/usr/lib/python3/dist-packages/sglang'), '/usr/lib/python3/dist-packages/sglang');
    });

    it('servers by name carry their key; a URL of a registered server gets its key too; unknown names are refused', () => {
      assert.equal(resolveServer(ctx(), 'box').apiKey, 'sk-secret-value-0123456789');
      assert.equal(resolveServer(ctx(), 'http://127.0.0.1:1/').apiKey, 'sk-secret-value-0123456789');
      assert.equal(resolveServer(ctx(), 'http://other:1').apiKey, undefined);
      assert.throws(() => resolveServer(ctx(), 'nope'), /No known server is called "nope" \(known: box\)/);
    });

    it('redacts keys, tokens and secret-looking values', () => {
      const text = [
        'Authorization: Bearer abcdefghijklmnop',
        'python -m sglang.launch_server --api-key hunter2hunter2 --port 30000',
        'HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz OTHER=1',
        "api_key='s3cr3t'",
        'key sk-proj-ABCDEFGHIJKLMNOPQRSTUV',
        'known my-own-key-1234',
      ].join('\n');
      const out = redactText(text, ['my-own-key-1234']);
      for (const secret of ['abcdefghijklmnop', 'hunter2hunter2', 'hf_abcdef', 's3cr3t', 'sk-proj-', 'my-own-key-1234'])
        assert.ok(!out.includes(secret), `${secret} in ${out}`);
      assert.match(out, /--port 30000/);
      const plain = 'maxTokens: must be >= 1; --max-tokens 256; MAX_NEW_TOKENS=256; completion tokens: 12';
      assert.equal(redactText(plain), plain, 'words about tokens are not secrets');
      assert.match(out, /OTHER=1/);
      const v = redactValue({ env: { HF_TOKEN: 'x1', CUDA_VISIBLE_DEVICES: '0' }, apiKey: 'k', maxTokens: '5', list: ['--token abc'] });
      assert.deepEqual(v, { env: { HF_TOKEN: '(redacted)', CUDA_VISIBLE_DEVICES: '0' }, apiKey: '(redacted)', maxTokens: '5', list: ['--token (redacted)'] });
    });

    it('cuts a large result to the limit, keeps its shape and says so', () => {
      const tool = TOOLS.find((t) => t.name === 'search_source')!;
      const data = {
        host: 'local',
        tool: 'rg',
        limited: false,
        matches: Array.from({ length: 3000 }, (_, i) => ({ path: `/f${i}`, line: i, text: 'x'.repeat(300) })),
      };
      const cut = capData(data, 20_000);
      assert.ok(JSON.stringify(cut).length <= 20_000);
      assert.equal(cut.truncated, true);
      assert.match(String(cut.note), /cut/);
      fits(tool, cut);
    });
  });

  describe('runTool', () => {
    const slow: ToolDefinition = {
      name: 'slow',
      title: 'A slow test tool',
      description: 'waits',
      inputSchema: { type: 'object', additionalProperties: false },
      outputSchema: { type: 'object' },
      touchesHost: false,
      changesServer: false,
      run: () => new Promise(() => undefined),
    };

    it('stops a call at the time limit even when the tool ignores the signal', async () => {
      const r = await runDefinition(slow, {}, ctx({ timeLimitMs: 50 }));
      assert.ok(!r.ok);
      assert.equal(r.error.code, 'timeout');
    });

    it('ends a cancelled call at once', async () => {
      const c = new AbortController();
      setTimeout(() => c.abort(), 20);
      const r = await runDefinition(slow, {}, ctx({ signal: c.signal }));
      assert.ok(!r.ok);
      assert.equal(r.error.code, 'cancelled');
    });

    it('redacts a known key from results and errors', async () => {
      const echo: ToolDefinition = {
        ...slow,
        run: () => Promise.resolve({ data: { said: 'key is sk-secret-value-0123456789' }, text: 'sk-secret-value-0123456789' }),
      };
      const r = await runDefinition(echo, {}, ctx());
      assert.ok(r.ok);
      assert.ok(!JSON.stringify(r).includes('sk-secret-value'));
      const failing: ToolDefinition = { ...slow, run: () => Promise.reject(new Error('auth failed for sk-secret-value-0123456789')) };
      const e = await runDefinition(failing, {}, ctx());
      assert.ok(!e.ok);
      assert.equal(e.error.code, 'failed');
      assert.ok(!e.error.message.includes('sk-secret-value'));
    });

    it('refuses the tools that change a server unless changes are allowed, before touching anything', async () => {
      let opened = 0;
      const hosts = { known: () => ['local'], open: () => (opened++, Promise.reject(new Error('x'))) };
      for (const name of ['apply_fix', 'sweep']) {
        const input =
          name === 'apply_fix'
            ? { launch: '/srv/run.sh', restart: { supervise: 's' }, changes: [{ flag: '--x', value: 'y' }] }
            : { launch: '/srv/run.sh', restart: { supervise: 's' }, vary: [{ flag: '--x', values: ['y'] }] };
        const r = await runTool(name, input, ctx({ hosts }));
        assert.ok(!r.ok);
        assert.equal(r.error.code, 'refused');
      }
      assert.equal(opened, 0);
      const bad = await runTool(
        'apply_fix',
        { launch: '/srv/run.sh', restart: { supervise: 's', systemd: 'u' }, changes: [{ flag: '--x', value: 'a;b' }] },
        ctx({ allowChanges: true, hosts }),
      );
      assert.ok(!bad.ok);
      assert.match(bad.error.message, /\/restart: must have at most 1 property/);
      assert.match(bad.error.message, /\/changes\/0\/value/);
      assert.equal(opened, 0);
    });
  });

  describe('results against their output schemas', () => {
    const tool = (name: string) => TOOLS.find((t) => t.name === name)!;

    it('flags: one flag, a family, and a flag the release does not have', async () => {
      const one = await runTool('flags', { name: 'moe-runner-backend', release: '0.5.9' }, ctx());
      assert.ok(one.ok, !one.ok ? one.error.message : '');
      fits(tool('flags'), one.data);
      assert.ok(((one.data.flags as { choices?: string[] }[])[0].choices ?? []).includes('flashinfer_cutlass'));
      const fam = await runTool('flags', { family: 'attention' }, ctx());
      assert.ok(fam.ok);
      fits(tool('flags'), fam.data);
      const missing = await runTool('flags', { name: '--fp4-gemm-backend', release: '0.4.6' }, ctx());
      assert.ok(missing.ok);
      fits(tool('flags'), missing.data);
      assert.equal((missing.data.missing as { kind: string }).kind, 'added-later');
      const unknown = await runTool('flags', { name: 'x', release: '0.0.1' }, ctx());
      assert.ok(!unknown.ok);
      assert.match(unknown.error.message, /No bundled release/);
    });

    it("judge_answer: the seed's '!!!!' with its NaN stop, a healthy answer, and saved responses line by line", async () => {
      const nan = await runTool('judge_answer', { text: '!'.repeat(40), finishReason: 'stop', matchedStop: 'NaN happened' }, ctx());
      assert.ok(nan.ok, !nan.ok ? nan.error.message : '');
      fits(tool('judge_answer'), nan.data);
      const [one] = nan.data.answers as { verdict: string; reasons: { code: string; offset: number }[] }[];
      assert.equal(one.verdict, 'nan');
      assert.ok(one.reasons.some((r) => r.code === 'nan-marker'));
      assert.ok(one.reasons.some((r) => r.code === 'token0-run' && r.offset === 0));
      assert.match(nan.text, /^answer 1: nan — /);
      // The answer is data: control characters are kept and judged, not refused.
      const salad = await runTool('judge_answer', { text: `Sure.${'\u0001\u0002'.repeat(4)}` }, ctx());
      assert.ok(salad.ok, !salad.ok ? salad.error.message : '');
      assert.equal((salad.data.answers as { verdict: string }[])[0].verdict, 'degenerate');
      const healthy = await runTool('judge_answer', { text: 'Paris is the capital of France. It sits on the Seine.', finishReason: 'stop' }, ctx());
      assert.ok(healthy.ok);
      assert.deepEqual(healthy.data.answers, [{ verdict: 'ok', reasons: [] }]);
      const saved = [
        JSON.stringify({
          id: 'c1',
          choices: [
            { message: { content: 'Fine.' }, finish_reason: 'stop' },
            { message: { content: '!!!!!!!!' }, finish_reason: 'stop', matched_stop: 'NaN happened' },
          ],
        }),
        '',
        '{"id": "cut"',
      ].join('\n');
      const lines = await runTool('judge_answer', { lines: saved }, ctx());
      assert.ok(lines.ok, !lines.ok ? lines.error.message : '');
      fits(tool('judge_answer'), lines.data);
      assert.deepEqual(
        (lines.data.answers as { id?: string; choice?: number; verdict?: string; error?: string }[]).map((a) => [a.id, a.choice, a.verdict ?? 'error']),
        [
          ['c1', 0, 'ok'],
          ['c1', 1, 'nan'],
          [undefined, undefined, 'error'],
        ],
      );
      assert.match(lines.text, /^c1 choice 0: ok\nc1 choice 1: nan — /);
      for (const bad of [{}, { text: 'a', lines: '{}' }, { lines: '{}', prompt: 'p' }]) {
        const r = await runTool('judge_answer', bad, ctx());
        assert.ok(!r.ok, JSON.stringify(bad));
        assert.equal(r.error.code, 'invalid-input');
      }
    });

    it('check_launch: the incident launch on an RTX PRO 6000', async () => {
      const r = await runTool(
        'check_launch',
        {
          text: '#!/bin/sh\npython -m sglang.launch_server --model-path nvidia/Qwen3.5-397B-A17B-NVFP4 --quantization modelopt_fp4 --fp4-gemm-runner-backend flashinfer_cutlass --tp 4\n',
          gpu: 'rtx-pro-6000',
          version: '0.5.9',
        },
        ctx(),
      );
      assert.ok(r.ok, !r.ok ? r.error.message : '');
      fits(tool('check_launch'), r.data);
      assert.equal(r.data.commands, 1);
      assert.ok((r.data.findings as unknown[]).length > 0, r.text);
      // No host here: the known issue names the GPU the agent gave.
      const known = (r.data.findings as { code: string; message: string }[]).filter((f) => f.code === 'known-bad');
      assert.ok(known.length > 0, r.text);
      for (const f of known) assert.match(f.message, /Matches the GPU given \(RTX PRO 6000 Blackwell\): GPU compute capability 12\.0/);
      const bad = await runTool('check_launch', { text: 'x', fileName: '../../etc/passwd' }, ctx());
      assert.ok(!bad.ok);
      assert.equal(bad.error.code, 'invalid-input');
    });

    it('diagnose from stated facts and a launch text alone', async () => {
      const r = await runTool(
        'diagnose',
        {
          launch: 'python -m sglang.launch_server --model-path nvidia/Qwen3-30B-A3B-NVFP4 --quantization modelopt_fp4 --fp4-gemm-backend flashinfer_cutlass\n',
          gpu: '12.0',
          symptom: 'nan',
        },
        ctx(),
      );
      assert.ok(r.ok, !r.ok ? r.error.message : '');
      fits(tool('diagnose'), r.data);
      assert.ok((r.data.findings as unknown[]).length > 0);
      const none = await runTool('diagnose', {}, ctx());
      assert.ok(!none.ok);
      assert.match(none.error.message, /Give some evidence/);
      const gpu = await runTool('diagnose', { gpu: 'toaster' }, ctx());
      assert.ok(!gpu.ok);
      assert.match(gpu.error.message, /Unknown GPU "toaster"/);
    });

    it('diagnose with a host opens it through ctx.hosts, and never a host that looks like an option or shell syntax', async () => {
      const opened: string[] = [];
      const hosts = { known: () => ['local'], open: (spec: string) => (opened.push(spec), Promise.reject(new Error('unreachable in unit tests'))) };
      for (const bad of ['-oProxyCommand=touch /tmp/x', 'gpu;id', 'x$(id)']) {
        const r = await runTool('diagnose', { host: bad }, ctx({ hosts }));
        assert.ok(!r.ok);
        assert.equal(r.error.code, 'invalid-input', bad);
      }
      assert.deepEqual(opened, []);
      const r = await runTool('diagnose', { host: ' gpu-box ', gpu: '12.0' }, ctx({ hosts }));
      assert.ok(!r.ok);
      assert.match(r.error.message, /unreachable in unit tests/, 'a host that cannot be read fails the call rather than being left out');
      assert.deepEqual(opened, ['gpu-box']);
    });
  });
});
