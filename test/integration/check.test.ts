/**
 * `inference-doctor check` through the built CLI (dist/cli.js), on the launch files of
 * test/fixtures/check: exit status, positions, release notes, the GPU rule, each format, the
 * SARIF log against the official SARIF 2.1.0 schema, GitHub escaping, many files at once.
 */
import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { buildBundles, type CliRun, runCli } from './helpers';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const parseAny = (text: string): any => JSON.parse(text);

const ROOT = join(__dirname, '..', '..');
const FIX = 'test/fixtures/check';
/** The official SARIF 2.1.0 schema (final, rtm.5), as Microsoft's SARIF SDK ships it. */
const SARIF_SCHEMA = join(ROOT, 'node_modules', '@microsoft', 'jest-sarif', 'lib', 'schemas', 'sarif-2.1.0-rtm.5.json');

type Run = CliRun;

function check(args: string[], cwd = ROOT, timeoutMs = 30_000): Promise<Run> {
  return runCli(['check', ...args], { cwd, timeoutMs });
}

const MANY = ['Dockerfile', 'README.md', 'deployment.yaml', 'launch.py', 'llm.service'].map((f) => `${FIX}/many/${f}`);

describe('inference-doctor check (dist/cli.js)', function () {
  this.timeout(60_000);
  let tmp: string;

  before(function () {
    this.timeout(120_000);
    buildBundles('cli');
    tmp = mkdtempSync(join(tmpdir(), 'idoc-check-'));
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('a clean launch file exits 0 with a summary and nothing else', async () => {
    const r = await check([`${FIX}/clean/serve.sh`]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(r.stdout, '1 file, 1 launch command: no problems\n');
    assert.equal(r.stderr, '');
  });

  it('a typo in a choice and an unknown flag: exit 1, each at its line and column', async () => {
    const r = await check([`${FIX}/typos/serve.sh`]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 3, r.stdout);
    assert.match(
      lines[0],
      /^test\/fixtures\/check\/typos\/serve\.sh:4:20: error: "fp8_e5m3" is not a valid choice for --kv-cache-dtype: choose from fp8_e5m2, .*\[invalid-choice\]$/,
    );
    assert.match(
      lines[1],
      /^test\/fixtures\/check\/typos\/serve\.sh:5:3: error: Unknown flag --speculative-magic \(catalog: bundled catalog of SGLang [\d.]+\)\. \[unknown-flag\]$/,
    );
    assert.equal(lines[2], '1 file, 1 launch command: 2 errors, 0 warnings, 0 info');
  });

  it('json: the same findings with ranges, severities, codes and the quick fixes by title', async () => {
    const r = await check([`${FIX}/typos/serve.sh`, '--format', 'json']);
    assert.equal(r.code, 1);
    const out = parseAny(r.stdout);
    assert.equal(out.files.length, 1);
    const [file] = out.files;
    assert.equal(file.path, `${FIX}/typos/serve.sh`);
    assert.equal(file.release.source, 'default');
    assert.match(file.release.detail, /newest bundled release/);
    assert.deepEqual(
      file.findings.map((f: { line: number; column: number; endLine: number; endColumn: number; severity: string; code: string }) => [
        f.line,
        f.column,
        f.endLine,
        f.endColumn,
        f.severity,
        f.code,
      ]),
      [
        [4, 20, 4, 28, 'error', 'invalid-choice'],
        [5, 3, 5, 22, 'error', 'unknown-flag'],
      ],
    );
    assert.equal(file.findings[0].fixes[0], 'Replace with fp8_e5m2', 'the closest choice first');
    assert.deepEqual(out.summary, { files: 1, unreadable: 0, commands: 1, errors: 2, warnings: 0, info: 0 });
  });

  it('a requirements.txt pin beside the file: the release note names the release and the pin', async () => {
    const r = await check([`${FIX}/pinned/serve.sh`]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /^test\/fixtures\/check\/pinned\/serve\.sh:3:70: error: --enable-dp-lm-head does not exist in SGLang 0\.4\.6 \(added in 0\.4\.7\)\. \(sglang\[all\]==0\.4\.6 in requirements\.txt line 2\) \[unknown-flag\]$/m,
    );
    const json = parseAny((await check([`${FIX}/pinned/serve.sh`, '--format', 'json'])).stdout);
    assert.deepEqual(json.files[0].release, { version: '0.4.6', source: 'requirements', detail: 'sglang[all]==0.4.6 in requirements.txt line 2' });
    // --version judges against the release named instead: 0.5.18 has the flag.
    const later = await check([`${FIX}/pinned/serve.sh`, '--version', '0.5.18', '--format', 'json']);
    assert.equal(later.code, 0, later.stdout);
    assert.equal(parseAny(later.stdout).files[0].release.source, 'setting');
    assert.equal(parseAny(later.stdout).files[0].release.version, '0.5.18');
  });

  it("the seed's systemd unit: --fp4-gemm-runner-backend before the setting existed names the release and the flag that added it; after, the rename", async () => {
    const unit = 'test/fixtures/launch/sglang.service';
    const old = await check([unit, '--version', '0.5.6']);
    assert.match(
      old.stdout,
      /sglang\.service:13:45: error: --fp4-gemm-runner-backend does not exist in SGLang 0\.5\.6: SGLang 0\.5\.8 added this setting, as --fp4-gemm-backend\. .*\[unknown-flag\]$/m,
    );
    const now = parseAny((await check([unit, '--version', '0.5.18', '--format', 'json'])).stdout);
    const renamed = now.files[0].findings.find((f: { code: string }) => f.code === 'renamed-flag');
    assert.ok(renamed, JSON.stringify(now.files[0].findings));
    assert.deepEqual(renamed.fixes, ['Rename to --fp4-gemm-backend']);
  });

  it('an image tag in the file sets its release', async () => {
    const r = await check([`${FIX}/compose/compose.yaml`]);
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /compose\.yaml:8:7: error: --prefill-max-requests does not exist in SGLang 0\.5\.6 \(added in 0\.5\.7\)\. \(image tag lmsysorg\/sglang:v0\.5\.6-cu129 in compose\.yaml line 4\)/,
    );
  });

  it('--gpu rtx-pro-6000 on an NVFP4 launch with --fp4-gemm-backend flashinfer_cutlass: the known-bad rule matches the GPU', async () => {
    const file = `${FIX}/nvfp4/serve.sh`;
    const sm120 = await check([file, '--gpu', 'rtx-pro-6000', '--format', 'json']);
    assert.equal(sm120.code, 1, sm120.stdout + sm120.stderr);
    const bad = parseAny(sm120.stdout).files[0].findings.filter((f: { code: string }) => f.code === 'known-bad');
    assert.equal(bad.length, 1, sm120.stdout);
    assert.equal(bad[0].line, 5);
    assert.equal(bad[0].column, 3);
    assert.equal(bad[0].severity, 'warning');
    assert.match(bad[0].message, /^Known issue: NVFP4 dense GEMM on SM 12\.x/);
    // The CLI has no host: the message names the GPU the command line gave.
    assert.match(bad[0].message, /Matches the GPU given with --gpu \(RTX PRO 6000 Blackwell\): GPU compute capability 12\.0/);
    assert.doesNotMatch(bad[0].message, /selected host/);
    assert.ok(
      bad[0].fixes.some((t: string) => /--fp4-gemm-backend|Marlin/i.test(t)),
      bad[0].fixes.join('; '),
    );
    // The same GPU as a number; another GPU generation is not affected; no GPU: the rule only might apply.
    // (the message then names no GPU model, only the capability)
    assert.equal((await check([file, '--gpu', '12.0', '--format', 'json'])).stdout, sm120.stdout.replace('--gpu (RTX PRO 6000 Blackwell):', '--gpu:'));
    const hopper = await check([file, '--gpu', 'h100']);
    assert.equal(hopper.code, 0, hopper.stdout);
    const unknown = await check([file]);
    assert.match(unknown.stdout, /Only if: applies to SM 12\.x GPUs.*the GPU is unknown/);
  });

  it('sarif: valid against the SARIF 2.1.0 schema, one rule per code, results with relative uris and 1-based regions', async () => {
    const r = await check([...MANY, `${FIX}/typos/serve.sh`, '--format', 'sarif']);
    assert.equal(r.code, 1, r.stderr);
    const log = parseAny(r.stdout);
    const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
    addFormats(ajv);
    const validate = ajv.compile(parseAny(readFileSync(SARIF_SCHEMA, 'utf8')));
    assert.ok(validate(log as object), JSON.stringify(validate.errors, null, 2));
    // The validator does reject a damaged log.
    const broken = structuredClone(log);
    broken.runs[0].results[0].level = 'info';
    assert.equal(validate(broken as object), false);

    assert.equal(log.version, '2.1.0');
    assert.match(log.$schema, /sarif-2\.1\.0/);
    assert.equal(log.runs.length, 1);
    const [run] = log.runs;
    assert.equal(run.tool.driver.name, 'inference-doctor');
    assert.match(run.tool.driver.informationUri, /^https:\/\//);
    const ids = run.tool.driver.rules.map((x: { id: string }) => x.id);
    assert.equal(new Set(ids).size, ids.length, 'one rule per code');
    for (const rule of run.tool.driver.rules) assert.ok(rule.shortDescription.text.length > 0, rule.id);
    const json = parseAny((await check([...MANY, `${FIX}/typos/serve.sh`, '--format', 'json'])).stdout);
    const findings = json.files.flatMap((f: { path: string; findings: object[] }) => f.findings.map((x) => ({ ...x, path: f.path })));
    assert.equal(run.results.length, findings.length);
    const levels: Record<string, string> = { error: 'error', warning: 'warning', info: 'note' };
    for (const [i, res] of run.results.entries()) {
      const f = findings[i];
      assert.equal(res.ruleId, f.code);
      assert.equal(ids[res.ruleIndex], f.code);
      assert.equal(res.level, levels[f.severity]);
      assert.equal(res.message.text, f.message);
      const loc = res.locations[0].physicalLocation;
      assert.equal(loc.artifactLocation.uri, f.path);
      assert.equal(loc.artifactLocation.uriBaseId, '%SRCROOT%');
      assert.deepEqual(loc.region, { startLine: f.line, startColumn: f.column, endLine: f.endLine, endColumn: f.endColumn });
    }
    const typo = run.results.find(
      (x: { ruleId: string; locations: { physicalLocation: { artifactLocation: { uri: string } } }[] }) =>
        x.ruleId === 'invalid-choice' && x.locations[0].physicalLocation.artifactLocation.uri.endsWith('typos/serve.sh'),
    );
    assert.deepEqual(typo.locations[0].physicalLocation.region, { startLine: 4, startColumn: 20, endLine: 4, endColumn: 28 });
    assert.equal(run.originalUriBaseIds['%SRCROOT%'].uri, `file://${ROOT}/`);
  });

  it('github: workflow commands; a message with a comma, colon and newline and a file name with both are escaped', async () => {
    const r = await check([`${FIX}/rules/serve.sh`, '--format', 'github']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const [line, summary] = r.stdout.trimEnd().split('\n');
    assert.equal(
      line,
      '::warning file=test/fixtures/check/rules/serve.sh,line=3,col=71,endLine=3,endColumn=93,title=inference-doctor known-bad::' +
        'Known issue: FCFS on our cluster, part 2: stalls%0Aunder load (100%25 busy) ⟨U+202E⟩gnimoc. Symptom: Requests wait, then time out Fix: Use the lpm policy.',
    );
    assert.equal(summary, '1 file, 1 launch command: 0 errors, 1 warning, 0 info');
    assert.doesNotMatch(r.stdout, /\u202e/, 'the right-to-left override is shown, never sent');

    const dir = join(tmp, 'odd');
    mkdirSync(dir, { recursive: true });
    const odd = join(dir, 'a,b:c%.sh');
    writeFileSync(odd, 'python3 -m sglang.launch_server --model-path m --no-such-flag\n');
    const gh = await check([odd, '--format', 'github'], dir);
    assert.equal(gh.code, 1, gh.stderr);
    assert.match(
      gh.stdout,
      /^::error file=a%2Cb%3Ac%25\.sh,line=1,col=48,endLine=1,endColumn=62,title=inference-doctor unknown-flag::Unknown flag --no-such-flag /m,
    );
  });

  it('text and json keep a hostile rule title on one line, its controls visible', async () => {
    const r = await check([`${FIX}/rules/serve.sh`]);
    assert.equal(r.stdout.trimEnd().split('\n').length, 2, r.stdout);
    assert.match(r.stdout, /stalls under load \(100% busy\) ⟨U\+202E⟩gnimoc\. .*\[known-bad\]$/m);
    const json = await check([`${FIX}/rules/serve.sh`, '--format', 'json']);
    const f = parseAny(json.stdout).files[0].findings[0];
    assert.equal(f.code, 'known-bad');
    assert.match(f.message, /stalls\nunder load/);
    assert.equal(f.href, 'https://example.invalid/wiki/fcfs');
    // A file name with a control: exact in JSON (as an escape), visible in text.
    const name = join(tmp, 'x\u202egnp.sh');
    writeFileSync(name, 'python3 -m sglang.launch_server --model-path m --no-such-flag\n');
    const j = await check([name, '--format', 'json'], tmp);
    assert.ok(j.stdout.includes('\\u202e'), j.stdout);
    assert.ok(!j.stdout.includes('\u202e'));
    assert.equal(parseAny(j.stdout).files[0].path, 'x\u202egnp.sh');
    const t = await check([name], tmp);
    assert.match(t.stdout, /^x⟨U\+202E⟩gnp\.sh:1:48: error: Unknown flag --no-such-flag/m);
  });

  it('many files at once, every syntax: each file, in the order given, one summary', async () => {
    const files = [...MANY, `${FIX}/compose/compose.yaml`, `${FIX}/clean/serve.sh`];
    const r = await check([...files, '--format', 'json']);
    assert.equal(r.code, 1, r.stderr);
    const out = parseAny(r.stdout);
    assert.deepEqual(
      out.files.map((f: { path: string }) => f.path),
      files,
    );
    const codes = Object.fromEntries(
      out.files.map((f: { path: string; findings: { code: string }[] }) => [f.path.split('/').pop(), f.findings.map((x) => x.code)]),
    );
    assert.deepEqual(codes, {
      Dockerfile: ['invalid-choice'],
      'README.md': ['invalid-choice'],
      'deployment.yaml': [],
      'launch.py': ['deprecated-flag'],
      'llm.service': ['duplicate-flag'],
      'compose.yaml': ['unknown-flag'],
      'serve.sh': [],
    });
    assert.ok(
      out.files.every((f: { commands: number }) => f.commands === 1),
      'one launch command found in each',
    );
    assert.deepEqual(out.summary, { files: 7, unreadable: 0, commands: 7, errors: 2, warnings: 3, info: 0 });
    const text = await check(files);
    assert.match(text.stdout, /^7 files, 7 launch commands: 2 errors, 3 warnings, 0 info$/m);
  });

  it('a missing file among others: the others are checked, it is named on stderr, exit 66', async () => {
    const r = await check([`${FIX}/typos/serve.sh`, join(tmp, 'no-such.sh'), `${FIX}/clean/serve.sh`]);
    assert.equal(r.code, 66, r.stdout + r.stderr);
    assert.match(r.stderr, /^Cannot read .*no-such\.sh: ENOENT/m);
    assert.match(r.stdout, /typos\/serve\.sh:5:3: error: Unknown flag/);
    assert.match(r.stdout, /^3 files, 1 unreadable, 2 launch commands/m);
    const dir = await check([FIX]);
    assert.equal(dir.code, 66, 'a directory is no launch file');
    assert.match(dir.stderr, /it is a directory/);
  });

  it('--catalog: a server_args.py instead of the bundled catalog; a missing one exits 66', async () => {
    const r = await check([`${FIX}/typos/serve.sh`, '--catalog', 'test/fixtures/server_args/choices_lists_2025.py', '--format', 'json']);
    assert.equal(r.code, 1, r.stderr);
    const [file] = parseAny(r.stdout).files;
    assert.equal(file.release.source, 'catalog');
    assert.match(file.findings[1].message, /catalog: test\/fixtures\/server_args\/choices_lists_2025\.py/);
    const missing = await check([`${FIX}/typos/serve.sh`, '--catalog', join(tmp, 'nope', 'server_args.py')]);
    assert.equal(missing.code, 66);
    assert.match(missing.stderr, /^Cannot read .*nope/m);
  });

  it('bad usage exits 64 with the usage', async () => {
    for (const args of [
      [],
      [`${FIX}/clean/serve.sh`, '--format', 'xml'],
      [`${FIX}/clean/serve.sh`, '--gpu', 'abacus'],
      [`${FIX}/clean/serve.sh`, '--gpu'],
      [`${FIX}/clean/serve.sh`, '--version', 'soon'],
      [`${FIX}/clean/serve.sh`, '--version', '0.1.0'],
      ['-'],
    ]) {
      const r = await check(args);
      assert.equal(r.code, 64, `${args.join(' ')}: ${r.stderr}`);
      assert.equal((r.stderr.match(/^Usage:/gm) ?? []).length, 1, args.join(' '));
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    }
  });
});
