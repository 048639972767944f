import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCatalog, type FlagEntry } from '../../src/core/flags';
import { findLaunchCommands } from '../../src/core/launch/index';
import {
  compareLaunchWithServerInfo,
  comparisonJson,
  fieldOfFlag,
  fieldResolverFromCatalog,
  NOT_SET,
  NOT_REPORTED,
  summariseComparison,
  type CatalogFieldEntry,
} from '../../src/core/remote/compare';
import { catalogFieldResolver } from '../../src/remote/catalogFields';
import type { CatalogEntriesResult } from '../../src/shared/lspProtocol';
import { BurstNotifier, LogBuffer, classifyLogLine, followArgv, type LogAlert } from '../../src/core/remote/logWatch';
import { SearchResultGroups, relativeTo } from '../../src/core/remote/searchGroups';
import { decodeHostAuthority, encodeHostAuthority, remoteUriString } from '../../src/core/remote/uris';
import { forwardTargetHost, launchHintForPath, HostSession, serverKey, sourceDirs, sourceName } from '../../src/core/remote/session';
import type { EnvReport } from '../../src/core/discovery/index';
import { interpreterFor, ruleContextFromReport } from '../../src/core/remote/ruleContext';

describe('remote: log classification', () => {
  it('classifies the trouble lines from the field', () => {
    const cases: [string, string | undefined][] = [
      ['[2026-01-02 10:00:00 TP0] Detected errors during sampling! NaN in the logits.', 'sampling-error'],
      ['RuntimeError: CUDA error: an illegal memory access was encountered', 'illegal-memory-access'],
      ['RuntimeError: CUDA error: no kernel image is available for execution on the device', 'cuda-error'],
      ['[TensorRT-LLM][ERROR] No valid tactics available for fp4 gemm', 'no-valid-tactics'],
      ['ValueError: Unsupported architecture sm_120', 'unsupported-arch'],
      ['finish_reason matched_stop="NaN happened"', 'nan'],
      ['logits contain NaN', 'nan'],
      ['[2026-01-02 10:00:00] Decode batch. #running-req: 1, #token: 100, gen throughput (token/s): 50.1', undefined],
      ['server_args=ServerArgs(model_path=..., enable_nan_detection=False)', undefined],
      ['NaNa and banana and financial nan', undefined],
      ['', undefined],
    ];
    for (const [line, kind] of cases) assert.equal(classifyLogLine(line)?.kind, kind, line);
  });

  it("picks out vLLM's NaN count and its backend choices, and notifies only for trouble", () => {
    const stats = (n: number): string =>
      `(APIServer pid=812) INFO 03-02 09:14:55 [loggers.py:123] Engine 000: Avg prompt throughput: 40.2 tokens/s, Avg generation throughput: 96.0 tokens/s, Running: 2 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.9%, Prefix cache hit rate: 0.0%, Corrupted: ${n} reqs`;
    const cases: [string, string | undefined, string | undefined, string | undefined][] = [
      [stats(3), 'nan', 'problem', 'Requests with NaN logits (vLLM counted corrupted requests)'],
      [stats(0), undefined, undefined, undefined],
      [
        "(EngineCore_DP0 pid=901) INFO 03-02 09:12:01 [cuda.py:351] Using FLASHINFER attention backend out of potential backends: ['FLASHINFER', 'TRITON_ATTN']",
        'backend-selected',
        'info',
        'vLLM chose FLASHINFER for attention',
      ],
      [
        "INFO 03-02 09:12:03 [nvfp4.py:88] Using 'FLASHINFER_CUTLASS' NvFp4 MoE backend out of potential backends: ['FLASHINFER_CUTLASS', 'MARLIN']",
        'backend-selected',
        'info',
        'vLLM chose FLASHINFER_CUTLASS for MoE',
      ],
      ['INFO 01-20 11:02:33 [cuda.py:240] Using AttentionBackendEnum.TRITON_ATTN backend.', 'backend-selected', 'info', 'vLLM chose TRITON_ATTN for attention'],
      ['INFO 05-05 10:00:00 selector.py:135] Using Flash Attention backend.', 'backend-selected', 'info', 'vLLM chose FLASH_ATTN for attention'],
      [
        'INFO 03-02 09:12:04 [kernels.py:20] Selected CutlassFP8ScaledMMLinearKernel for Fp8LinearMethod',
        'backend-selected',
        'info',
        'vLLM chose CutlassFP8ScaledMMLinearKernel for the linear layers of Fp8LinearMethod',
      ],
      ['(EngineCore_DP0 pid=901) RuntimeError: CUDA error: no kernel image is available for execution on the device', 'cuda-error', 'problem', 'CUDA error'],
    ];
    for (const [line, kind, level, title] of cases) {
      const c = classifyLogLine(line);
      assert.deepEqual([c?.kind, c?.level, c?.title], [kind, level, title], line);
    }
  });

  it('keeps only the last N lines across arbitrary chunking', () => {
    const b = new LogBuffer(3);
    const done = [...b.push('one\ntw'), ...b.push('o\r\nthree\nfour\nfi'), ...b.push('ve\n')];
    assert.deepEqual(
      done.map((l) => [l.text, l.lineNumber]),
      [
        ['one', 1],
        ['two', 2],
        ['three', 3],
        ['four', 4],
        ['five', 5],
      ],
    );
    assert.deepEqual(b.snapshot(), ['three', 'four', 'five']);
    assert.equal(b.dropped, 2);
    assert.match(b.text(), /^… 2 earlier lines not kept \(showing the last 3\) …\nthree\nfour\nfive$/);
    b.push('partial');
    assert.ok(b.text().endsWith('\npartial'));
    assert.deepEqual(
      b.flush().map((l) => l.text),
      ['partial'],
    );
  });

  it('stays bounded for 100k lines and keeps progress-bar rewrites short', () => {
    const b = new LogBuffer(5000);
    for (let i = 0; i < 100; i++) b.push(Array.from({ length: 1000 }, (_, j) => `line ${i * 1000 + j}`).join('\n') + '\n');
    assert.equal(b.size, 5000);
    assert.equal(b.lineCount, 100_000);
    assert.equal(b.snapshot()[4999], 'line 99999');
    const p = new LogBuffer(10);
    p.push('10%\r50%\r100%\n');
    assert.deepEqual(p.snapshot(), ['100%']);
  });

  it('notifies once per burst', () => {
    let t = 0;
    const n = new BurstNotifier(1000, () => t);
    const a = (kind: LogAlert['kind']): LogAlert => ({ kind, level: 'problem', title: kind, line: kind, lineNumber: 1 });
    assert.equal(n.offer(a('nan')), true);
    t = 500;
    assert.equal(n.offer(a('cuda-error')), false);
    t = 1400;
    assert.equal(n.offer(a('nan')), false); // 900 ms after the previous alert: same burst
    assert.deepEqual(n.burst?.count, 3);
    assert.deepEqual(n.burst?.kinds.sort(), ['cuda-error', 'nan']);
    t = 2500;
    assert.equal(n.offer(a('nan')), true);
    assert.equal(n.burst?.count, 1);
  });

  it('builds follow commands without option injection', () => {
    assert.deepEqual(followArgv({ kind: 'journal', unit: 'sglang.service' }), [
      'journalctl',
      '-u',
      'sglang.service',
      '-f',
      '-n',
      '200',
      '--no-pager',
      '-o',
      'short-iso',
    ]);
    assert.deepEqual(followArgv({ kind: 'file', path: '/var/log/-x.log' }, 50), ['tail', '-n', '50', '-F', '--', '/var/log/-x.log']);
    assert.throws(() => followArgv({ kind: 'journal', unit: '--foo; rm' }));
    assert.throws(() => followArgv({ kind: 'file', path: 'relative.log' }));
  });
});

describe('remote: launch file vs /server_info', () => {
  const unit = [
    '[Service]',
    'Environment=SGLANG_ENABLE_JIT_DEEPGEMM=0',
    'ExecStart=/opt/venv/bin/python -m sglang.launch_server --model-path /models/q --tp 2 \\',
    '  --fp4-gemm-backend auto --attention-backend triton --mem-fraction-static 0.8 --disable-cuda-graph --api-key sk-secret --port 30001',
  ].join('\n');
  const info: Record<string, unknown> = {
    model_path: '/models/q',
    tp_size: 2,
    fp4_gemm_runner_backend: 'flashinfer_cutlass',
    attention_backend: 'flashinfer',
    mem_fraction_static: 0.8,
    disable_cuda_graph: true,
    api_key: '***',
    port: 30001,
    kv_cache_dtype: 'auto',
    dtype: 'bfloat16',
    internal_states: [{ attention_backend: 'flashinfer', last_gen_throughput: NaN }],
  };

  it('maps flags to fields', () => {
    assert.equal(fieldOfFlag('--tp'), 'tp_size');
    assert.equal(fieldOfFlag('--model'), 'model_path');
    assert.equal(fieldOfFlag('--fp4-gemm-backend'), 'fp4_gemm_runner_backend');
    assert.equal(fieldOfFlag('--attention-backend'), 'attention_backend');
    assert.equal(fieldOfFlag('-x'), undefined);
  });

  it('shows what auto became, what differs, and defaults, keyed by field', () => {
    const [cmd] = findLaunchCommands(unit, 'systemd');
    assert.ok(cmd);
    const c = compareLaunchWithServerInfo(cmd, info);
    const row = (f: string) => c.rows.find((r) => r.field === f);
    assert.equal(row('fp4_gemm_runner_backend')?.status, 'auto-resolved');
    assert.equal(row('attention_backend')?.status, 'different');
    assert.equal(row('tp_size')?.status, 'same');
    assert.equal(row('tp_size')?.launch, 2);
    assert.equal(row('mem_fraction_static')?.status, 'same');
    assert.equal(row('disable_cuda_graph')?.status, 'same');
    assert.equal(row('api_key')?.launch, '***');
    assert.equal(row('dtype')?.status, 'default');
    assert.deepEqual(Object.keys(c.launchDoc), Object.keys(c.serverDoc));
    assert.equal(c.launchDoc.dtype, NOT_SET);
    assert.equal(c.serverDoc['internal_states[0].attention_backend'], 'flashinfer');
    assert.ok(!JSON.stringify(c.launchDoc).includes('sk-secret'));
    assert.match(summariseComparison(c), /1 differ, 1 auto resolved/);
    assert.match(comparisonJson({ x: NaN }), /"x": "NaN"/);
  });

  it('marks flags the server does not report', () => {
    const [cmd] = findLaunchCommands('python -m sglang.launch_server --model-path m --brand-new-flag 3', 'shellscript');
    const c = compareLaunchWithServerInfo(cmd, { model_path: 'm' });
    assert.equal(c.serverDoc.brand_new_flag, NOT_REPORTED);
    assert.equal(c.rows.find((r) => r.field === 'brand_new_flag')?.status, 'not-reported');
  });

  it('picks the launch command for the port', () => {
    const text = 'python -m sglang.launch_server --model-path a --port 30000\npython -m sglang.launch_server --model-path b --port 30001\n';
    const cmds = findLaunchCommands(text, 'shellscript');
    const pick = HostSession.pickLaunchCommand(cmds, 30001);
    assert.equal(pick?.args.find((a) => a.name === '--model-path')?.values?.[0].value, 'b');
  });
});

describe('remote: flag fields from the catalog', () => {
  // Own fixture: cli_name renames (one the built-in table knows, one it does not), aliases, a
  // BooleanOptionalAction negation and a store_false flag with another dest. Runs under argparse too.
  let entries: FlagEntry[];
  before(async () => {
    const src = readFileSync(join(__dirname, '..', 'fixtures', 'server_args', 'renamed_fields.py'), 'utf8');
    entries = (await buildCatalog(src, { keepTree: false })).entries;
  });

  it('maps each flag, alias and --no- negation to the catalog field; unknown flags fall back to the table', () => {
    const r = fieldResolverFromCatalog(entries);
    const cases: [string, string | undefined][] = [
      ['--fp4-gemm-backend', 'fp4_gemm_runner_backend'], // cli_name differs from the field
      ['--moe-kernel', 'moe_runner_backend'], // a rename the table does not know
      ['--tensor-parallel-size', 'tp_size'],
      ['--tp', 'tp_size'],
      ['--model', 'model_path'],
      ['--model-path', 'model_path'],
      ['--enable-overlap-schedule', 'enable_overlap_schedule'],
      ['--no-enable-overlap-schedule', 'enable_overlap_schedule'],
      ['--disable-radix-cache', 'enable_radix_cache'],
      ['--speculative-algo', 'speculative_algorithm'], // not in this catalog: the table
      ['--brand-new-flag', 'brand_new_flag'],
      ['-x', undefined],
    ];
    for (const [flag, field] of cases) assert.equal(r.fieldOf(flag), field, flag);
    assert.equal(fieldOfFlag('--moe-kernel'), 'moe_kernel', 'without the catalog the rename is missed');
    assert.equal(r.bareValueOf?.('--no-enable-overlap-schedule'), false);
    assert.equal(r.bareValueOf?.('--disable-radix-cache'), false);
    assert.equal(r.bareValueOf?.('--enable-overlap-schedule'), undefined);
  });

  it('compares renamed, negated and store_false flags by their fields (the table alone gets them wrong)', () => {
    const [cmd] = findLaunchCommands(
      'python -m sglang.launch_server --model /m --moe-kernel triton --fp4-gemm-backend auto ' + '--no-enable-overlap-schedule --disable-radix-cache --tp 2',
      'shellscript',
    );
    const info = {
      model_path: '/m',
      moe_runner_backend: 'triton',
      fp4_gemm_runner_backend: 'flashinfer_cutlass',
      enable_overlap_schedule: false,
      enable_radix_cache: false,
      tp_size: 2,
    };
    const c = compareLaunchWithServerInfo(cmd, info, fieldResolverFromCatalog(entries));
    const rows = Object.fromEntries(c.rows.map((r) => [r.field, [r.flag, r.launch, r.status]]));
    assert.deepEqual(rows, {
      enable_overlap_schedule: ['--no-enable-overlap-schedule', false, 'same'],
      enable_radix_cache: ['--disable-radix-cache', false, 'same'],
      fp4_gemm_runner_backend: ['--fp4-gemm-backend', 'auto', 'auto-resolved'],
      model_path: ['--model', '/m', 'same'],
      moe_runner_backend: ['--moe-kernel', 'triton', 'same'],
      tp_size: ['--tp', 2, 'same'],
    });
    const table = compareLaunchWithServerInfo(cmd, info);
    const status = (f: string) => table.rows.find((r) => r.field === f)?.status;
    assert.equal(status('moe_kernel'), 'not-reported');
    assert.equal(status('no_enable_overlap_schedule'), 'not-reported');
    assert.equal(status('moe_runner_backend'), 'default');
  });

  it('tolerates malformed entries (catalog JSON from the wire) and keeps the first definition', () => {
    const junk = [
      null,
      { flag: '--a', field: '' },
      { flag: 7, aliases: 'x', negations: null, field: 'f' },
      { flag: '--dup', aliases: [], negations: [], field: 'first' },
      { flag: '--dup', aliases: [], negations: [], field: 'second' },
    ] as unknown as CatalogFieldEntry[];
    const r = fieldResolverFromCatalog(junk);
    assert.equal(r.fieldOf('--dup'), 'first');
    assert.equal(r.fieldOf('--a'), 'a');
  });

  it("the extension side uses the language server's active catalog, else the table (never throws, bounded wait)", async () => {
    const result = (partial: Partial<CatalogEntriesResult>): CatalogEntriesResult => ({
      generation: 1,
      source: null,
      entries: [],
      choiceLists: [],
      ...partial,
    });
    const withCatalog = await catalogFieldResolver(() =>
      Promise.resolve(
        result({
          source: { kind: 'runtime', label: 'gpu-box · python3', version: '0.5.3', era: 'dataclass', flags: entries.length, errors: [] },
          entries,
        }),
      ),
    );
    assert.equal(withCatalog.source, 'runtime catalog gpu-box · python3 0.5.3');
    assert.equal(withCatalog.resolver?.fieldOf('--moe-kernel'), 'moe_runner_backend');
    const none = await catalogFieldResolver(() => Promise.resolve(result({})));
    assert.deepEqual([none.resolver, none.source, none.note], [undefined, 'built-in table', 'no flag catalog is loaded']);
    assert.equal((await catalogFieldResolver(() => Promise.resolve(undefined))).resolver, undefined);
    const failed = await catalogFieldResolver(() => Promise.reject(new Error('server crashed')));
    assert.match(failed.note ?? '', /server crashed/);
    const t0 = Date.now();
    const slow = await catalogFieldResolver(() => new Promise(() => undefined), 50);
    assert.ok(Date.now() - t0 < 2000);
    assert.match(slow.note ?? '', /did not answer within 50 ms/);
  });
});

describe('remote: search result groups', () => {
  it('groups by file in arrival order, reports changes, and stops at the cap', () => {
    const g = new SearchResultGroups(['/site/sglang'], 3);
    assert.equal(g.add({ path: '/site/sglang/srt/server_args.py', line: 10, text: 'a' }), true);
    g.add({ path: '/site/sglang/lang/x.py', line: 1, text: 'b' });
    assert.deepEqual(
      g.take().map((x) => x.relative),
      ['srt/server_args.py', 'lang/x.py'],
    );
    g.add({ path: '/site/sglang/srt/server_args.py', line: 20, text: 'c' });
    assert.deepEqual(
      g.take().map((x) => x.relative),
      ['srt/server_args.py'],
    );
    assert.equal(g.add({ path: '/other', line: 1, text: 'd' }), false);
    assert.equal(g.limited, true);
    assert.equal(g.describe(), '3 results in 2 files (stopped at 3)');
    assert.equal(g.group('/site/sglang/srt/server_args.py')?.matches.length, 2);
    assert.equal(relativeTo(['/a', '/a/b/'], '/a/b/c.py'), 'c.py');
    assert.equal(relativeTo(['/a'], '/ab/c.py'), '/ab/c.py');
  });
});

describe('remote: URIs and small helpers', () => {
  it('encodes host ids reversibly into a lower-case-safe authority', () => {
    for (const id of ['local', 'config:GPU-box', 'ssh:root@10.0.0.1:2222', 'ssh:ü@[::1]:22', 'a_b']) {
      const a = encodeHostAuthority(id);
      assert.match(a, /^[a-z0-9._-]+$/);
      assert.equal(decodeHostAuthority(a), id);
    }
    assert.equal(remoteUriString('local', '/opt/x y/server_args.py'), 'inference-doctor-remote://local/opt/x%20y/server_args.py');
    assert.throws(() => remoteUriString('local', 'rel'));
  });

  it('picks forward targets, launch hints, server keys and package dirs', () => {
    assert.equal(forwardTargetHost('0.0.0.0'), '127.0.0.1');
    assert.equal(forwardTargetHost('[::1]'), '::1');
    assert.equal(forwardTargetHost('10.1.2.3'), '10.1.2.3');
    assert.equal(launchHintForPath('/etc/systemd/system/sglang.service'), 'systemd');
    assert.equal(launchHintForPath('/srv/compose.yaml'), 'yaml');
    assert.equal(launchHintForPath('/srv/run.sh'), 'shellscript');
    assert.equal(
      serverKey({ engine: 'sglang', kind: 'serve', argv: [], port: 1, portIsDefault: false, host: 'h', source: 'systemd', unit: 'u.service' }),
      'unit:u.service',
    );
    const report = {
      interpreters: [
        { path: '/a', sources: [], libraries: [], verdicts: [], probe: { packages: { sglang: { found: true, path: '/s1' } } } },
        { path: '/b', sources: [], libraries: [], verdicts: [], probe: { packages: { sglang: { found: true, path: '/s1' } } } },
        { path: '/c', sources: [], libraries: [], verdicts: [], probe: { packages: { sglang: { found: false }, vllm: { found: true, path: '/v1' } } } },
        {
          path: '/d',
          sources: [],
          libraries: [],
          verdicts: [],
          probe: { packages: { sglang: { found: true, path: '/s2' }, vllm: { found: true, path: '/v1' } } },
        },
      ],
    } as unknown as EnvReport;
    // SGLang's first, then vLLM's, each once.
    assert.deepEqual(sourceDirs(report), [
      { engine: 'sglang', path: '/s1' },
      { engine: 'sglang', path: '/s2' },
      { engine: 'vllm', path: '/v1' },
    ]);
    assert.equal(sourceName(sourceDirs(report)), 'SGLang and vLLM');
    assert.equal(sourceName([{ engine: 'vllm', path: '/v1' }]), 'vLLM');
    assert.equal(sourceName([]), 'SGLang');
  });
});

describe('remote: what the known-bad rules learn about a host', () => {
  const pkg = (version?: string) => (version ? { found: true, version, path: '/x' } : { found: false });
  const interp = (path: string, versions: Record<string, string | undefined>) => ({
    path,
    sources: ['PATH'],
    libraries: [],
    verdicts: [],
    probe: {
      python: { version: '3.11.7', executable: path, prefix: '/p' },
      caches: {},
      errors: [],
      packages: {
        sglang: pkg(versions.sglang),
        sgl_kernel: pkg(versions.sgl_kernel),
        flashinfer: pkg(versions.flashinfer),
        torch: pkg(versions.torch),
        triton: pkg(undefined),
        transformers: pkg(undefined),
        vllm: pkg(undefined),
      },
    },
  });
  const report = (gpus: { major: number; minor: number }[], interpreters: ReturnType<typeof interp>[]): EnvReport => ({
    host: 'gpu-box',
    generatedAt: '2026-11-29T00:00:00Z',
    servers: [],
    listening: [],
    warnings: [],
    notes: [],
    gpus: gpus.map((c, index) => ({ index, name: 'GPU', computeCap: c })),
    interpreters: interpreters,
  });

  it('one architecture: its compute capability; package versions of the interpreter with SGLang, in both spellings', () => {
    const r = report(
      [
        { major: 12, minor: 0 },
        { major: 12, minor: 0 },
      ],
      [interp('/usr/bin/python3', {}), interp('/opt/venv/bin/python', { sglang: '0.5.2', sgl_kernel: '0.3.9.post2', flashinfer: '0.6.1' })],
    );
    const ctx = ruleContextFromReport(r);
    assert.equal(ctx.computeCapability, 12);
    assert.equal(ctx.gpuNote, undefined);
    assert.deepEqual(ctx.packageVersions, { sglang: '0.5.2', sgl_kernel: '0.3.9.post2', 'sgl-kernel': '0.3.9.post2', flashinfer: '0.6.1' });
    assert.equal(interpreterFor(r)?.path, '/opt/venv/bin/python');
  });

  it('the chosen interpreter wins; an interpreter discovery never saw gives no versions', () => {
    const r = report(
      [{ major: 8, minor: 9 }],
      [interp('/a/python', { sglang: '0.4.0', flashinfer: '0.2.0' }), interp('/b/python', { sglang: '0.5.9', flashinfer: '0.6.17' })],
    );
    assert.equal(ruleContextFromReport(r, '/b/python').packageVersions.flashinfer, '0.6.17');
    assert.equal(ruleContextFromReport(r, '/a/python').packageVersions.flashinfer, '0.2.0');
    assert.deepEqual(ruleContextFromReport(r, '/elsewhere/python').packageVersions, {});
    assert.equal(ruleContextFromReport(r).computeCapability, 8.9);
  });

  it('mixed architectures or no GPU: no compute capability, and a note that says why', () => {
    const mixed = ruleContextFromReport(
      report(
        [
          { major: 9, minor: 0 },
          { major: 12, minor: 0 },
        ],
        [],
      ),
    );
    assert.equal(mixed.computeCapability, undefined);
    assert.match(mixed.gpuNote ?? '', /9\.0, 12\.0.*CUDA_VISIBLE_DEVICES/);
    const none = ruleContextFromReport(report([], []));
    assert.equal(none.computeCapability, undefined);
    assert.match(none.gpuNote ?? '', /no GPU/);
  });
});
