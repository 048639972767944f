/* eslint-disable @typescript-eslint/no-unsafe-return -- raw JSON shapes are asserted field by field */
import { strict as assert } from 'node:assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMMANDS } from '../../src/cli/main';
import type { RunningSimulator } from '../../src/sim/server';
import { buildBundles, type CliRun, runCli, scenarioPath, SimPool } from './helpers';

/** Test-only: parsed JSON whose shape the assertions check. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const parseAny = (text: string): any => JSON.parse(text);

const ROOT = join(__dirname, '..', '..');

type Run = CliRun;

function cli(args: string[], input?: string, timeoutMs = 20_000): Promise<Run> {
  return runCli(args, { ...(input !== undefined ? { input } : {}), timeoutMs, env: { ...process.env, INFERENCE_DOCTOR_API_KEY: '' } });
}

describe('inference-doctor CLI (dist/cli.js)', function () {
  this.timeout(60_000);
  const pool = new SimPool();
  let all: RunningSimulator;
  let nan: RunningSimulator;
  let keyed: RunningSimulator;

  before(async function () {
    this.timeout(120_000);
    buildBundles('cli,sim');
    all = await pool.start(scenarioPath('all'));
    nan = await pool.start(scenarioPath('nan'));
    keyed = await pool.start(scenarioPath('healthy'), 'k3y');
  });
  after(() => pool.closeAll());

  it('probe: healthy answer, exit 0, model taken from /v1/models', async () => {
    const r = await cli(['probe', all.url, '--prompt', 'Count from 1 to 20', '--max-tokens', '300']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /19, 20/);
    assert.match(r.stdout, /verdict: OK/);
    assert.match(r.stdout, /model healthy/);
  });

  it('probe: degenerate exits 1', async () => {
    const r = await cli(['probe', all.url, '--model', 'sentence-loop', '--max-tokens', '200']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /verdict: DEGENERATE/);
  });

  it('probe: nan exits 2 (no --model: first model of the NaN server)', async () => {
    const r = await cli(['probe', nan.url]);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stdout, /verdict: NAN/);
    assert.match(r.stdout, /matched_stop "NaN happened"/);
  });

  it('probe: server error exits 3 with the message on stderr', async () => {
    const r = await cli(['probe', all.url, '--model', 'http-503', '--no-stream']);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /error \(http\).*503/);
  });

  it('probe: unreachable exits 3', async () => {
    const r = await cli(['probe', 'http://127.0.0.1:9', '--model', 'x', '--timeout', '2']);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /Cannot reach/);
  });

  it('probe: hang with --timeout exits 3', async () => {
    const r = await cli(['probe', all.url, '--model', 'hang', '--timeout', '0.3']);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /timeout/);
  });

  it('probe: API key from --api-key; missing key exits 3 with advice', async () => {
    const missing = await cli(['probe', keyed.url]);
    assert.equal(missing.code, 3);
    assert.match(missing.stderr, /API key/);
    const ok = await cli(['probe', keyed.url, '--api-key', 'k3y', '--prompt', 'hello']);
    assert.equal(ok.code, 0, ok.stderr);
  });

  it('probe --json prints one JSON document with the result', async () => {
    for (const endpoint of ['chat', 'completions', 'generate']) {
      const r = await cli(['probe', nan.url, '--json', '--endpoint', endpoint, '--logprobs']);
      assert.equal(r.code, 2);
      const doc = JSON.parse(r.stdout);
      assert.equal(doc.endpoint, endpoint);
      assert.equal(doc.exitCode, 2);
      assert.equal(doc.result.verdict.kind, 'nan');
      assert.equal(doc.result.matchedStop, 'NaN happened');
    }
  });

  it('probe: bad usage exits 64', async () => {
    assert.equal((await cli(['probe'])).code, 64);
    assert.equal((await cli(['probe', all.url, '--endpoint', 'grpc'])).code, 64);
    assert.equal((await cli(['probe', all.url, '--max-tokens', 'lots'])).code, 64);
    assert.equal((await cli(['probe', all.url, '--frobnicate'])).code, 64);
  });

  it('host options with a missing value are a usage error (exit 64), not a crash', async () => {
    const r = await cli(['env', 'local', '--identity']);
    assert.equal(r.code, 64);
    assert.match(r.stderr, /--identity needs a FILE argument/);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  });

  it('--help, no command and unknown commands', async () => {
    const help = await cli(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /probe/);
    assert.match(help.stdout, /detect/);
    assert.equal((await cli([])).code, 64);
    const unknown = await cli(['frobnicate']);
    assert.equal(unknown.code, 64);
    assert.match(unknown.stderr, /Unknown command: frobnicate/);
    const probeHelp = await cli(['probe', '--help']);
    assert.equal(probeHelp.code, 0);
    assert.match(probeHelp.stdout, /--max-tokens/);
  });

  it('detect FILE.jsonl: one line out per record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'idoc-cli-'));
    const file = join(dir, 'answers.jsonl');
    writeFileSync(
      file,
      [
        '{"id":"a","text":"Paris is the capital of France. It sits on the Seine.","finish_reason":"stop"}',
        `{"id":"b","text":"${'!'.repeat(64)}","finish_reason":"length"}`,
        '{"id":"c","text":"!!!!","finish_reason":"stop","matched_stop":"NaN happened","logprobs":[NaN,-Infinity]}',
        '',
        'this is not json',
      ].join('\n'),
    );
    const r = await cli(['detect', file]);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => parseAny(l));
    assert.equal(lines.length, 4);
    assert.deepEqual(lines[0], { id: 'a', verdict: 'ok', reasons: [] });
    assert.equal(lines[1].verdict, 'nan');
    assert.equal(lines[2].verdict, 'nan');
    assert.ok(lines[2].reasons.includes('nan-marker'));
    assert.equal(lines[3].id, null);
    assert.ok(lines[3].error);
  });

  it('flags: a split package read from server_args.py, the sglang package or the srt directory, each flag with its file', async () => {
    const pkg = join(ROOT, 'test', 'fixtures', 'server_args', 'split_layout', 'sglang');
    const outs: { counts: { flags: number }; entries: { flag: string; file?: string; line: number }[] }[] = [];
    for (const p of [join(pkg, 'srt', 'server_args.py'), pkg, join(pkg, 'srt')]) {
      const r = await cli(['flags', p, '--json']);
      assert.equal(r.code, 0, r.stderr);
      outs.push(JSON.parse(r.stdout) as (typeof outs)[number]);
    }
    assert.equal(outs[0].counts.flags, 14);
    for (const o of outs.slice(1)) assert.deepEqual(o.entries, outs[0].entries);
    const fp4 = outs[0].entries.find((e) => e.flag === '--fp4-gemm-backend')!;
    assert.equal(fp4.file, 'sglang/srt/arg_groups/fields/kernel.py');
    const text = await cli(['flags', pkg, '--family', 'gemm']);
    assert.equal(text.code, 0);
    assert.match(text.stdout, /--fp4-gemm-backend {2}\[arg_groups\/fields\/kernel\.py:\d+\]/);
    assert.match(text.stdout, /flags \(era dataclass, \d+ files\)/);
    const none = await cli(['flags', join(ROOT, 'test', 'fixtures')]);
    assert.equal(none.code, 66, 'a directory without server_args.py');
  });

  it('flags without PATH: the bundled catalog of a release, the nearest older one for a post release, and the list', async () => {
    const newest = await cli(['flags', '--json']);
    assert.equal(newest.code, 0, newest.stderr);
    const n = JSON.parse(newest.stdout) as {
      path: null;
      release: { version: string; exact: boolean };
      entries: { flag: string; choices?: string[] }[];
      counts: { flags: number };
    };
    assert.equal(n.path, null);
    assert.match(n.release.version, /^0\.5\.\d+$/);
    assert.ok(n.counts.flags > 400);
    assert.ok(n.entries.find((e) => e.flag === '--attention-backend')?.choices?.includes('flashinfer'));
    const old = await cli(['flags', '--release', '0.4.6.post2', '--json']);
    const o = JSON.parse(old.stdout) as { release: { version: string; exact: boolean; asked: string }; entries: { flag: string }[] };
    assert.deepEqual(o.release, { version: '0.4.6', date: o.release['date' as keyof typeof o.release], exact: false, asked: '0.4.6.post2' });
    assert.ok(!o.entries.some((e) => e.flag === '--moe-runner-backend'), '0.4.6 had no --moe-runner-backend');
    assert.ok(o.entries.some((e) => e.flag === '--enable-ep-moe'));
    const text = await cli(['flags', '--release', '0.5.2', '--family', 'moe']);
    assert.match(text.stdout, /^bundled catalog of SGLang 0\.5\.2: \d+ flags/);
    assert.match(text.stdout, /--moe-runner-backend {2}\[since 0\.5\.1\]/);
    const list = JSON.parse((await cli(['flags', '--release', 'list', '--json'])).stdout) as { releases: { version: string }[] };
    assert.ok(list.releases.length >= 10);
    assert.equal(list.releases[0].version, '0.3.0');
  });

  it('flags --python: the runtime catalog of an installed vLLM, from its own parser', async () => {
    const env = { ...process.env, PYTHONPATH: join(ROOT, 'test', 'fixtures', 'fake-vllm-runtime'), FAKE_VLLM_PLUGIN_BACKEND: 'FAKE_PLUGIN_ATTN' };
    const json = await runCli(['flags', '--python', 'python3', '--engine', 'vllm', '--json'], { env, timeoutMs: 40_000 });
    assert.equal(json.code, 0, json.stderr);
    const out = JSON.parse(json.stdout) as { runtime: { engine: string; version: string; source: string }; entries: { flag: string; choices?: string[] }[] };
    assert.deepEqual([out.runtime.engine, out.runtime.version, out.runtime.source], ['vllm', '0.11.0', 'dump']);
    assert.deepEqual(out.entries.find((e) => e.flag === '--attention-backend')?.choices, ['FLASH_ATTN', 'FLASHINFER', 'TRITON_ATTN', 'FAKE_PLUGIN_ATTN']);
    const text = await runCli(['flags', '--python', 'python3', '--engine', 'vllm', '--family', 'kv-cache'], { env, timeoutMs: 40_000 });
    assert.match(
      text.stdout,
      /^runtime catalog of vLLM 0\.11\.0 in python3 \(read from its parser\): 2 flags\n\nkv-cache \(2\)\n {2}--kv-cache-dtype {2}\[CacheConfig\]/,
    );
    // Prefix caching lives with the KV cache in vLLM's grouping.
    assert.match(text.stdout, /\n {2}--enable-prefix-caching {2}\[CacheConfig\]/);
    // No vLLM in that interpreter: exit 3 with the reason; --engine alone is a usage error.
    const none = await runCli(['flags', '--python', 'python3', '--engine', 'vllm'], {
      env: { ...process.env, PYTHONPATH: join(ROOT, 'test', 'fixtures', 'diagnose') },
      timeoutMs: 40_000,
    });
    assert.equal(none.code, 3);
    assert.match(none.stderr, /vllm is not importable by this interpreter/);
    assert.equal((await cli(['flags', '--engine', 'vllm'])).code, 64);
    assert.equal((await cli(['flags', '--engine', 'tgi', '--python', 'python3'])).code, 64);
  });

  it('detect: responses saved as servers send them, one line out per choice', async () => {
    const chat = {
      id: 'chatcmpl-7',
      object: 'chat.completion',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'Paris is the capital of France.' }, finish_reason: 'stop', matched_stop: null },
        { index: 1, message: { role: 'assistant', content: '!!!!!!!!' }, finish_reason: 'stop', matched_stop: 'NaN happened' },
      ],
    };
    const native = { text: '!!!!', meta_info: { id: 'gen-1', finish_reason: { type: 'stop', matched: 'NaN happened' } } };
    const r = await cli(['detect', '-'], `${JSON.stringify(chat)}\n${JSON.stringify(native)}\n`);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => parseAny(l));
    assert.deepEqual(
      lines.map((l) => [l.id, l.choice, l.verdict]),
      [
        ['chatcmpl-7', 0, 'ok'],
        ['chatcmpl-7', 1, 'nan'],
        ['gen-1', undefined, 'nan'],
      ],
    );
  });

  it('detect ANSWER.txt: a plain-text answer is judged whole, with a note that it was not JSON Lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'idoc-cli-'));
    const loop = join(dir, 'loop.txt');
    const sentence = 'I am not sure what you mean by that, but I will try to answer it.';
    writeFileSync(loop, `${sentence}\n`.repeat(12));
    const looped = await cli(['detect', loop]);
    assert.equal(looped.code, 0, looped.stderr);
    const [one, ...more] = looped.stdout.trim().split('\n');
    assert.deepEqual(more, [], 'one answer, not one per line');
    const verdict = parseAny(one);
    assert.equal(verdict.id, null);
    assert.equal(verdict.verdict, 'degenerate');
    assert.match(looped.stderr, /loop\.txt: not JSON Lines .* judged as one plain-text answer/);

    const healthy = await cli(['detect', '-'], 'Paris is the capital of France.\n\nIt sits on the Seine, and about two million people live there.\n');
    assert.equal(healthy.code, 0, healthy.stderr);
    assert.deepEqual(JSON.parse(healthy.stdout), { id: null, verdict: 'ok', reasons: [] });
  });

  it('detect - reads standard input', async () => {
    const r = await cli(['detect', '-'], '{"id":7,"text":"Hello! How can I help you today?","finish_reason":"stop"}\n');
    assert.equal(r.code, 0);
    assert.deepEqual(JSON.parse(r.stdout), { id: 7, verdict: 'ok', reasons: [] });
  });

  it('every subcommand: a usage error exits 64, a missing input 66, --help prints one usage and exits 0', async () => {
    // None of these may exit 1 or 2: a CI gate reads those as "degenerate" and "NaN".
    const usage: string[][] = [
      ['probe'],
      ['probe', all.url, '--bogus'],
      ['detect'],
      ['detect', '--bogus', 'x.jsonl'],
      ['flags', '--release'],
      ['flags', 'x.py', '--release', '0.5.6'],
      ['flags', '--release', '0.1.0'],
      ['flags', '--bogus', 'x.py'],
      ['flags', 'x.py', '--family', 'nope'],
      ['search'],
      ['search', 'local'],
      ['search', 'local', 'x'],
      ['search', 'local', 'x', '--path', '/tmp', '--bogus'],
      ['env'],
      ['env', 'local', '--bogus'],
      ['env', 'local', '--python'],
    ];
    for (const args of usage) {
      const r = await cli(args);
      assert.equal(r.code, 64, `${args.join(' ')}: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /\n\s+at /, `${args.join(' ')}: no stack trace`);
    }
    for (const args of [
      ['detect', '/nonexistent/file.jsonl'],
      ['flags', '/nonexistent/server_args.py'],
    ]) {
      assert.equal((await cli(args)).code, 66, args.join(' '));
    }
    for (const name of ['probe', 'detect', 'flags', 'search', 'env']) {
      const help = await cli([name, '--help']);
      assert.equal(help.code, 0, name);
      assert.equal((help.stdout.match(/^Usage:/gim) ?? []).length, 1, `${name} --help: one usage\n${help.stdout}`);
    }
  });

  describe('every command in COMMANDS, by the same rules', () => {
    it('the command list of --help is COMMANDS', async () => {
      const help = await cli(['--help']);
      const listed = [...help.stdout.matchAll(/^ {2}(\S+) {2,}/gm)].map((m) => m[1]);
      assert.deepEqual(
        listed,
        COMMANDS.map((c) => c.name),
      );
    });

    for (const command of COMMANDS) {
      it(`${command.name}: an unknown option exits 64 with the option named and one usage`, async () => {
        const r = await cli([command.name, '--no-such-option']);
        assert.equal(r.code, 64, `${command.name}: ${r.stdout}${r.stderr}`);
        assert.match(r.stderr, /--no-such-option/);
        assert.equal((`${r.stdout}${r.stderr}`.match(/^Usage:/gm) ?? []).length, 1, `${command.name}: one usage\n${r.stderr}`);
        assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
      });

      it(`${command.name}: --help and -h print its one usage on stdout and exit 0`, async () => {
        for (const flag of ['--help', '-h']) {
          const r = await cli([command.name, flag]);
          assert.equal(r.code, 0, `${command.name} ${flag}`);
          assert.equal((r.stdout.match(/^Usage:/gm) ?? []).length, 1, `${command.name} ${flag}\n${r.stdout}`);
          assert.ok(r.stdout.startsWith(`Usage: inference-doctor ${command.name}`), r.stdout);
        }
      });

      if (command.inputFile) {
        it(`${command.name}: an input file that cannot be read exits 66`, async () => {
          const r = await cli([command.name, join(tmpdir(), 'idoc-no-such-dir', 'input')]);
          assert.equal(r.code, 66, `${command.name}: ${r.stderr}`);
          assert.match(r.stderr, /Cannot read .*idoc-no-such-dir/);
        });
      }
    }
  });

  it('detect: missing file and missing argument', async () => {
    const missing = await cli(['detect', '/nonexistent/file.jsonl']);
    assert.equal(missing.code, 66);
    assert.match(missing.stderr, /Cannot read/);
    assert.equal((await cli(['detect'])).code, 64);
  });
});
