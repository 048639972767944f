import { strict as assert } from 'node:assert';
import { LocalHost } from '../../src/core/hosts/local';
import { execFileSync, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { HostLike } from '../../src/core/gpu/hostLike';
import {
  discoverEnv,
  findInterpreters,
  formatEnvReport,
  parseProbeOutput,
  parsePs,
  parseServerCommandLine,
  parseSglangCommandLine,
  parseSs,
  parseSystemctlCat,
  parseUnitList,
  PROBE_MARKER,
  serverEnvOf,
  type EnvReport,
} from '../../src/core/discovery';
import { COLLECT_ENV_CUDA_ARCHS_NOTE, mergeSameInterpreters, type InterpreterReport } from '../../src/core/discovery/report';
import { runEnvOnHost } from '../../src/cli/commands/env';
import { DEFAULT_LIBRARY_MAX_BYTES, DEFAULT_MAX_READ_BYTES } from '../../src/core/gpu/fatbin';
import { countingHost } from './sparseElf';

const FIXTURES = join(__dirname, '..', 'fixtures');

/** A tiny local host for these tests only: spawn without a shell, fs for files. */
class TestHost implements HostLike {
  readonly label = 'test host';
  constructor(private readonly baseEnv: Record<string, string> = {}) {}
  exec(argv: string[], opts: Parameters<HostLike['exec']>[1] = {}): ReturnType<HostLike['exec']> {
    return new Promise((resolve, reject) => {
      const env = { ...process.env, ...this.baseEnv, ...(opts.env ?? {}) };
      const child = spawn(argv[0], argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 20000);
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
      });
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      child.on('error', (e) => {
        clearTimeout(timer);
        reject(Object.assign(new Error(`Program ${argv[0]} was not found: ${e.message}`), { kind: 'not-found' }));
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr, truncated: false });
      });
    });
  }
  async readFile(path: string, opts?: { maxBytes?: number }): Promise<Uint8Array> {
    const h = await fs.open(path, 'r');
    try {
      const size = (await h.stat()).size;
      const n = Math.min(size, opts?.maxBytes ?? size);
      const buf = Buffer.alloc(n);
      await h.read(buf, 0, n, 0);
      return new Uint8Array(buf);
    } finally {
      await h.close();
    }
  }
  async readDir(path: string): ReturnType<HostLike['readDir']> {
    const es = await fs.readdir(path, { withFileTypes: true });
    return es.map((e) => ({ name: e.name, type: e.isSymbolicLink() ? 'symlink' : e.isDirectory() ? 'dir' : e.isFile() ? 'file' : 'other' }));
  }
  async stat(path: string): ReturnType<HostLike['stat']> {
    const s = await fs.stat(path);
    return { type: s.isDirectory() ? 'dir' : s.isFile() ? 'file' : 'other', size: s.size, mtimeMs: s.mtimeMs };
  }
}

/** A host where no tool exists and no file can be read. */
const emptyHost: HostLike = {
  exec: (argv) => Promise.reject(Object.assign(new Error(`Program "${argv[0]}" was not found`), { kind: 'not-found' })),
  readFile: () => Promise.reject(new Error('no such file')),
  readDir: () => Promise.reject(new Error('no such directory')),
  stat: () => Promise.reject(new Error('no such file')),
};

function realPython(): string | undefined {
  try {
    return execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8', timeout: 10000 }).trim() || undefined;
  } catch {
    return undefined;
  }
}

describe('discovery parsers', () => {
  it('ps rows and SGLang command lines', () => {
    const rows = parsePs('    PID COMMAND\n   12 /usr/bin/python3 -m sglang.launch_server --port=31000 --model /m\n 77 bash\n');
    assert.deepEqual(
      rows.map((r) => r.pid),
      [12, 77],
    );
    const a = parseSglangCommandLine(rows[0].args)!;
    assert.deepEqual(
      [a.kind, a.port, a.portIsDefault, a.host, a.modelPath, a.interpreter],
      ['launch_server', 31000, false, '127.0.0.1', '/m', '/usr/bin/python3'],
    );
    const b = parseSglangCommandLine('/venv/bin/python3 /venv/bin/sglang serve --model-path Qwen/Qwen3-8B')!;
    assert.deepEqual([b.kind, b.port, b.portIsDefault, b.interpreter], ['serve', 30000, true, '/venv/bin/python3']);
    const c = parseSglangCommandLine('/venv/bin/sglang serve --port 9 --host ::')!;
    assert.deepEqual([c.script, c.interpreter, c.host], ['/venv/bin/sglang', undefined, '::']);
    const d = parseSglangCommandLine(`/bin/bash -lc 'source /opt/venv/bin/activate && exec python -m sglang.launch_server --port 30001'`)!;
    assert.deepEqual([d.port, d.interpreter], [30001, '/opt/venv/bin/python']);
    assert.equal(parseSglangCommandLine('python -m sglang.bench_serving --port 1'), undefined);
    assert.equal(parseSglangCommandLine('grep sglang.launch_server'), undefined);
    assert.equal(parseSglangCommandLine('python -m sglang.launch_server --port 99999')!.port, 30000);
  });

  it('vLLM command lines: vllm serve, the OpenAI server module, units and wrappers', () => {
    const a = parseServerCommandLine('/srv/vllm/.venv/bin/vllm serve /models/Qwen3-30B-A3B-NVFP4 --port 8100 -tp 2 --kv-cache-dtype fp8')!;
    assert.deepEqual(
      [a.engine, a.kind, a.port, a.portIsDefault, a.host, a.modelPath, a.script, a.interpreter],
      ['vllm', 'vllm_serve', 8100, false, '0.0.0.0', '/models/Qwen3-30B-A3B-NVFP4', '/srv/vllm/.venv/bin/vllm', undefined],
    );
    const b = parseServerCommandLine('python3 -m vllm.entrypoints.openai.api_server --model=meta-llama/Llama-3.1-8B-Instruct --host 127.0.0.1')!;
    assert.deepEqual(
      [b.engine, b.kind, b.port, b.portIsDefault, b.host, b.modelPath, b.interpreter],
      ['vllm', 'vllm_api_server', 8000, true, '127.0.0.1', 'meta-llama/Llama-3.1-8B-Instruct', 'python3'],
    );
    // The image's entrypoint (`vllm serve`) with its arguments naming the model by flag.
    const c = parseServerCommandLine('/usr/bin/python3 /usr/local/bin/vllm serve --model /m --port=9000')!;
    assert.deepEqual([c.kind, c.modelPath, c.port, c.interpreter], ['vllm_serve', '/m', 9000, '/usr/bin/python3']);
    const d = parseServerCommandLine(`/bin/bash -lc 'source /opt/vllm/bin/activate && exec python -m vllm.entrypoints.openai.api_server --model /m'`)!;
    assert.deepEqual([d.engine, d.interpreter], ['vllm', '/opt/vllm/bin/python']);
    assert.equal(parseServerCommandLine('/venv/bin/vllm bench serve --port 1'), undefined);
    assert.equal(parseServerCommandLine('VLLM::EngineCore'), undefined);
    assert.equal(parseServerCommandLine('python -m vllm.entrypoints.openai.run_batch -i x'), undefined);
    // SGLang's parser keeps to SGLang.
    assert.equal(parseSglangCommandLine('vllm serve /m'), undefined);
    assert.equal(parseServerCommandLine('python -m sglang.launch_server --model-path /m')!.engine, 'sglang');
  });

  it('keeps the backend-choosing variables of a process environment, never secrets', () => {
    const environ = [
      'PATH=/usr/bin',
      'VLLM_ATTENTION_BACKEND=FLASHINFER',
      'VLLM_API_KEY=sk-1',
      'HF_TOKEN=hf_x',
      'CUDA_VISIBLE_DEVICES=0,1',
      'SGLANG_ENABLE_JIT_DEEPGEMM=0',
      'VLLM_ATTENTION_BACKEND=late',
      '',
    ].join('\0');
    assert.deepEqual(serverEnvOf(environ), { VLLM_ATTENTION_BACKEND: 'FLASHINFER', CUDA_VISIBLE_DEVICES: '0,1', SGLANG_ENABLE_JIT_DEEPGEMM: '0' });
  });

  it('ss -ltnp', () => {
    const s = parseSs(
      [
        'State  Recv-Q Send-Q Local Address:Port Peer Address:Port Process',
        'LISTEN 0 2048 0.0.0.0:30000 0.0.0.0:* users:(("python3",pid=4242,fd=27),("python3",pid=4243,fd=27))',
        'LISTEN 0 128 [::]:22 [::]:*',
        'ESTAB 0 0 10.0.0.1:22 10.0.0.2:5555',
        'garbage',
      ].join('\n'),
    );
    assert.deepEqual(s, [
      { address: '0.0.0.0', port: 30000, pids: [4242, 4243], processes: ['python3'] },
      { address: '[::]', port: 22, pids: [], processes: [] },
    ]);
  });

  it('systemctl list-units and cat', () => {
    assert.deepEqual(parseUnitList('● a.service loaded failed failed A\nb@1.service loaded active running B\n  x.socket loaded\n'), [
      'a.service',
      'b@1.service',
    ]);
    const units = parseSystemctlCat(
      [
        '# /etc/systemd/system/sg.service',
        '[Service]',
        'ExecStartPre=/bin/true',
        'ExecStart=-/opt/v/bin/python -m sglang.launch_server \\',
        '   --port 30002',
        '',
        '# /etc/systemd/system/sg.service.d/override.conf',
        '[Service]',
        'ExecStart=',
        'ExecStart=/usr/bin/python3 -m sglang.launch_server --port 30003',
      ].join('\n'),
    );
    assert.deepEqual(
      units.map((u) => [u.unit, u.execStart]),
      [
        ['sg.service', '/opt/v/bin/python -m sglang.launch_server  --port 30002'],
        ['sg.service', '/usr/bin/python3 -m sglang.launch_server --port 30003'],
      ],
    );
  });

  it('probe output validation never trusts the JSON', () => {
    assert.throws(() => parseProbeOutput('Traceback ...'), /printed no report/);
    assert.throws(() => parseProbeOutput(`${PROBE_MARKER}{not json`), /invalid JSON/);
    assert.throws(() => parseProbeOutput(`${PROBE_MARKER}[1,2]`), /unexpected shape/);
    const p = parseProbeOutput(
      `noise\n${PROBE_MARKER}${JSON.stringify({
        python: { version: '3.12.1', executable: '/x', prefix: '/' },
        packages: {
          sglang: { found: true, version: 7, path: '/s' },
          sgl_kernel: { found: true, libraries: [{ path: '/a.so', size: 'big' }, 5] },
          torch: { found: true, imported: true, cuda_version: null, devices: [{ capability: [12, 0], name: 'G' }, { capability: 'x' }] },
        },
        caches: {
          triton: { path: '/t', exists: 1 },
          flashinfer: { path: '/c', exists: true, truncated: true, libraries: [{ path: '/c/op.so', size: 9 }, { path: `/${'x'.repeat(5000)}.so` }, 'op.so'] },
          ['__proto__']: { path: '/evil', exists: true },
        },
        errors: ['e', 3],
      })}\n`,
    );
    assert.equal(p.packages.sglang.version, undefined);
    assert.deepEqual(p.packages.sgl_kernel.libraries, [{ path: '/a.so', size: null }]);
    assert.equal(p.packages.torch.cudaVersion, null);
    assert.deepEqual(p.packages.torch.devices, [{ index: 0, name: 'G', capability: [12, 0] }]);
    assert.equal(p.packages.vllm.found, false);
    assert.deepEqual(p.caches, {
      triton: { path: '/t', exists: false },
      flashinfer: { path: '/c', exists: true, truncated: true, libraries: [{ path: '/c/op.so', size: 9 }] },
    });
    assert.equal(Object.getPrototypeOf(p.caches), Object.prototype);
    assert.deepEqual(p.errors, ['e']);
  });
});

describe('one entry per interpreter', () => {
  const at = (path: string, real: string, prefix: string, sources: string[]): InterpreterReport => ({
    path,
    sources,
    libraries: [],
    verdicts: [],
    probe: { python: { version: '3.12.3', executable: path, real, prefix }, packages: {} as never, caches: {}, errors: [] },
  });

  it('merges paths with the same resolved executable and prefix, keeping the first and every name it was found under', () => {
    const merged = mergeSameInterpreters([
      at('/usr/bin/python3', '/usr/bin/python3.12', '/usr', ['server pid 7', 'PATH']),
      at('/bin/python3', '/usr/bin/python3.12', '/usr', ['PATH']),
      at('/opt/venv/bin/python3', '/usr/bin/python3.12', '/opt/venv', ['environment']),
      at('/opt/venv/bin/python', '/usr/bin/python3.12', '/opt/venv', ['PATH']),
      at('/usr/bin/python2', '/usr/bin/python2.7', '/usr', ['PATH']),
      { path: '/broken/python', sources: ['configured'], libraries: [], verdicts: [], error: 'could not start' },
    ]);
    assert.deepEqual(
      merged.map((i) => [i.path, i.sources, i.alsoAt ?? []]),
      [
        ['/usr/bin/python3', ['server pid 7', 'PATH'], ['/bin/python3']],
        // A venv links to the base interpreter but has its own prefix (its own packages): apart.
        ['/opt/venv/bin/python3', ['environment', 'PATH'], ['/opt/venv/bin/python']],
        ['/usr/bin/python2', ['PATH'], []],
        ['/broken/python', ['configured'], []],
      ],
    );
  });
});

describe('discovery on a fake host', function () {
  this.timeout(60000);
  let root: string;
  let python: string | undefined;
  let host: TestHost;
  let env: Record<string, string>;
  let roots: { envsDirs: string[]; envDirs: string[]; projectDirs: string[] };
  let jitCache: string;

  before(async () => {
    python = realPython();
    root = await fs.mkdtemp(join(tmpdir(), 'idoc-discovery-'));
    await fs.cp(join(FIXTURES, 'fake-install'), join(root, 'fake'), { recursive: true });
    const sp = join(root, 'fake', 'site-packages');
    const elf = (n: string): string => join(FIXTURES, 'elf', n);
    await fs.copyFile(elf('sm90a_sm100a.so'), join(sp, 'sgl_kernel', 'common_ops.abi3.so'));
    await fs.copyFile(elf('no_fatbin.so'), join(sp, 'sgl_kernel', 'cpu_ops.so'));
    // git keeps no empty folders: make flashinfer/data here rather than rely on the checkout.
    await fs.mkdir(join(sp, 'flashinfer', 'data'), { recursive: true });
    await fs.copyFile(elf('sm100a_sm120_ptx120.so'), join(sp, 'flashinfer', 'data', 'libflashinfer_kernels.so'));
    await fs.copyFile(elf('sm90a_sm100a.so'), join(sp, 'vllm', '_C.abi3.so')); // a vLLM wheel without Blackwell workstation code
    // FlashInfer's JIT cache under the test HOME, laid out as <version>/<arch>/cached_ops/<op>/<op>.so.
    jitCache = join(root, 'home', '.cache', 'flashinfer');
    await fs.mkdir(join(jitCache, '0.4.1', '120', 'cached_ops', 'norm'), { recursive: true });
    await fs.copyFile(elf('sm100a_sm120_ptx120.so'), join(jitCache, '0.4.1', '120', 'cached_ops', 'norm', 'norm.so'));
    for (const f of await fs.readdir(join(root, 'fake', 'bin'))) await fs.chmod(join(root, 'fake', 'bin', f), 0o755);
    // A conda env and a project venv whose interpreter is the real python3 (symlinked).
    await fs.mkdir(join(root, 'opt', 'conda', 'envs', 'sglang', 'bin'), { recursive: true });
    await fs.mkdir(join(root, 'workspace', 'proj', '.venv', 'bin'), { recursive: true });
    await fs.mkdir(join(root, 'workspace', 'empty'), { recursive: true });
    if (python) {
      await fs.symlink(python, join(root, 'opt', 'conda', 'envs', 'sglang', 'bin', 'python3'));
      await fs.symlink(python, join(root, 'workspace', 'proj', '.venv', 'bin', 'python'));
      // Real environments: pyvenv.cfg gives each its own sys.prefix, so each is its own interpreter
      // (a bare symlink to python3 is the same interpreter under another name, and is merged).
      for (const dir of [join(root, 'opt', 'conda', 'envs', 'sglang'), join(root, 'workspace', 'proj', '.venv')]) {
        await fs.writeFile(join(dir, 'pyvenv.cfg'), `home = ${dirname(python)}\ninclude-system-site-packages = false\n`);
      }
    }
    env = {
      PATH: `${join(root, 'fake', 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      PYTHONPATH: sp,
      FAKE_PYTHON: python ?? '/nonexistent/python3',
      PYTHONDONTWRITEBYTECODE: '1',
      HOME: join(root, 'home'),
    };
    host = new TestHost(env);
    roots = { envsDirs: [join(root, 'opt', 'conda', 'envs')], envDirs: [join(root, 'no-such-env')], projectDirs: [join(root, 'workspace')] };
  });

  after(async () => {
    if (root) await fs.rm(root, { recursive: true, force: true });
  });

  it('finds interpreters via which, conda envs and project venvs (readDir, no globs)', async function () {
    if (!python) this.skip();
    const r = await findInterpreters(host, { configured: ['/custom/python'], roots, run: { env } });
    assert.deepEqual(
      r.candidates.map((c) => [c.path, c.sources]),
      [
        ['/custom/python', ['configured']],
        [python, ['PATH']],
        [join(root, 'opt', 'conda', 'envs', 'sglang', 'bin', 'python3'), ['conda env']],
        [join(root, 'workspace', 'proj', '.venv', 'bin', 'python'), ['project venv']],
      ],
    );
  });

  let report: EnvReport;
  it('reports that sgl-kernel lacks sm_120 on the RTX PRO 6000', async function () {
    if (!python) this.skip();
    report = await discoverEnv(host, { env, roots, home: join(root, 'home'), torch: 'auto', cuobjdump: 'never', now: () => new Date(0) });

    assert.equal(report.gpus.length, 1);
    assert.equal(report.gpus[0].name, 'NVIDIA RTX PRO 6000 Blackwell Workstation Edition');
    assert.deepEqual(report.gpus[0].computeCap, { major: 12, minor: 0 });
    assert.equal(report.driverCudaVersion, '12.9');

    const proc = report.servers.find((s) => s.source === 'process')!;
    assert.deepEqual(
      [proc.pid, proc.port, proc.host, proc.modelPath, proc.interpreter, proc.listening],
      [4242, 30000, '0.0.0.0', '/models/Qwen3.5-397B-A17B-NVFP4', python, [30000]],
    );
    const unit = report.servers.find((s) => s.source === 'systemd')!;
    assert.deepEqual([unit.unit, unit.port, unit.modelPath, unit.interpreter], ['sglang-b.service', 30001, '/models/small', '/opt/venv/bin/python']);
    assert.ok(
      report.notes.some((n) => n === 'systemd sglang-b.service runs /opt/venv/bin/python, which does not exist on this host'),
      report.notes.join('\n'),
    );

    const main = report.interpreters.find((i) => i.path === python)!;
    assert.deepEqual(main.sources, ['server pid 4242', 'PATH']);
    const pk = main.probe!.packages;
    assert.equal(pk.sglang.version, '0.5.2');
    assert.equal(pk.sgl_kernel.version, '0.3.9.post2');
    assert.equal(pk.flashinfer.version, '0.4.1');
    assert.equal(pk.torch.version, '2.7.1+cu126');
    assert.equal(pk.torch.cudaVersion, '12.6');
    assert.equal(pk.vllm.version, '0.10.1.1');
    assert.deepEqual(main.probe!.caches.flashinfer, {
      path: jitCache,
      exists: true,
      libraries: [
        { path: join(jitCache, '0.4.1', '120', 'cached_ops', 'norm', 'norm.so'), size: (await fs.stat(join(FIXTURES, 'elf', 'sm100a_sm120_ptx120.so'))).size },
      ],
    });

    const libs = Object.fromEntries(main.libraries.map((l) => [l.path.slice(l.path.lastIndexOf('/') + 1), [l.sass, l.ptx, l.hasFatbin]]));
    assert.deepEqual(libs, {
      'common_ops.abi3.so': [['sm_90a', 'sm_100a'], [], true],
      'cpu_ops.so': [[], [], false],
      'libflashinfer_kernels.so': [['sm_100a', 'sm_120'], ['compute_120'], true],
      '_C.abi3.so': [['sm_90a', 'sm_100a'], [], true],
      'norm.so': [['sm_100a', 'sm_120'], ['compute_120'], true],
    });
    assert.deepEqual(
      main.libraries.map((l) => l.package),
      ['sgl_kernel', 'sgl_kernel', 'flashinfer', 'vllm', 'flashinfer_jit'],
    );
    // The stand-in torch is built for sm_80/86/90 without PTX: no sm_120 code either.
    assert.deepEqual(
      main.verdicts.map((v) => [v.package, v.level]),
      [
        ['sgl-kernel', 'none'],
        ['flashinfer', 'native'],
        ['FlashInfer JIT cache', 'native'],
        ['vLLM', 'none'],
        ['torch', 'none'],
      ],
    );
    assert.equal(main.verdicts[2].message, 'FlashInfer JIT cache has sm_120 code (1 cached kernel)');

    const missing = report.warnings.filter((w) => w.code === 'arch-missing' && w.interpreter === python);
    assert.deepEqual(
      missing.map((w) => [w.library, w.severity]),
      [
        ['sgl-kernel', 'error'],
        ['vLLM', 'error'],
        ['torch', 'error'],
      ],
      JSON.stringify(report.warnings, null, 1),
    );
    assert.match(
      missing.find((w) => w.library === 'sgl-kernel')!.message,
      /^sgl-kernel has no sm_120 code: FP4 GEMM will fail or fall back .*built for sm_90a, sm_100a.* in .*\(used by the server on port 30000\)/,
    );
    assert.match(
      missing.find((w) => w.library === 'vLLM')!.message,
      /^vLLM has no sm_120 code: its compiled ops .*"no kernel image is available.*\(built for sm_90a, sm_100a\) — in .*\(used by the server on port 30000\)/,
    );
    assert.ok(!report.warnings.some((w) => w.library === 'FlashInfer JIT cache'), 'a cache built for this GPU is fine');
    assert.ok(report.warnings.some((w) => w.code === 'cuda-too-old' && /CUDA 12\.6; sm_120 needs CUDA ≥ 12\.8/.test(w.message)));
    assert.ok(report.warnings.some((w) => w.code === 'torch-no-cuda' && w.severity === 'warning'));
    assert.equal(report.warnings[0].severity, 'error');
    assert.equal(report.interpreters.length, 3);
  });

  it('renders the report as text', function () {
    if (!report) this.skip();
    const text = formatEnvReport(report);
    for (const s of [
      '[0] NVIDIA RTX PRO 6000 Blackwell Workstation Edition: sm_120 (compute 12.0), 97887 MiB',
      'driver supports CUDA 12.9',
      'pid 4242: launch_server on 0.0.0.0:30000, listening on 30000',
      'systemd sglang-b.service: launch_server on 127.0.0.1:30001',
      'sgl-kernel   0.3.9.post2',
      'common_ops.abi3.so: sm_90a sm_100a',
      'cpu_ops.so: no CUDA code',
      'data/libflashinfer_kernels.so: sm_100a sm_120 | PTX compute_120',
      `          JIT cache ${jitCache}\n              0.4.1/120/cached_ops/norm/norm.so: sm_100a sm_120 | PTX compute_120\n`,
      'vllm         0.10.1.1  ',
      '          _C.abi3.so: sm_90a sm_100a\n',
      '→ FlashInfer JIT cache has sm_120 code (1 cached kernel)',
      'ERROR sgl-kernel has no sm_120 code: FP4 GEMM will fail or fall back',
      'ERROR vLLM has no sm_120 code: its compiled ops',
    ])
      assert.ok(text.includes(s), `missing ${JSON.stringify(s)} in\n${text}`);
  });

  it('warns once when the FlashInfer JIT cache holds kernels built for another GPU, and bounds what it reads', async function () {
    if (!python) this.skip();
    // A second arch directory, as left by a cache copied from a Hopper machine.
    const other = join(jitCache, '0.4.1', '90a');
    await fs.mkdir(join(other, 'cached_ops', 'sampling'), { recursive: true });
    await fs.copyFile(join(FIXTURES, 'elf', 'sm90a_sm100a.so'), join(other, 'cached_ops', 'sampling', 'sampling.so'));
    try {
      const r = await discoverEnv(host, { env, roots, home: join(root, 'home'), torch: 'no', cuobjdump: 'never', now: () => new Date(0) });
      const main = r.interpreters.find((i) => i.path === python)!;
      const v = main.verdicts.find((x) => x.package === 'FlashInfer JIT cache')!;
      assert.equal(v.level, 'none');
      assert.equal(
        v.message,
        `FlashInfer JIT cache has no sm_120 code in 1 of 2 cached kernels (0.4.1/90a/cached_ops/sampling/sampling.so; built for sm_90a, sm_100a): they were built for other GPUs, e.g. a cache copied from another machine; clear ${jitCache} and FlashInfer rebuilds them for this GPU`,
      );
      // Every interpreter here sees the same cache (one user, one HOME): one finding, not three.
      assert.ok(r.interpreters.filter((i) => i.verdicts.some((x) => x.package === 'FlashInfer JIT cache' && x.level === 'none')).length > 1);
      const jit = r.warnings.filter((w) => w.library === 'FlashInfer JIT cache');
      assert.deepEqual(
        jit.map((w) => [w.code, w.severity]),
        [['arch-missing', 'warning']],
      );
      assert.match(jit[0].message, / — FlashInfer in \S+python\S*/);
      const text = formatEnvReport(r);
      for (const s of [
        `          JIT cache ${jitCache}\n              0.4.1/120/cached_ops/norm/norm.so: sm_100a sm_120 | PTX compute_120\n              0.4.1/90a/cached_ops/sampling/sampling.so: sm_90a sm_100a\n`,
        '→ FlashInfer JIT cache has no sm_120 code in 1 of 2 cached kernels',
        'WARN  FlashInfer JIT cache has no sm_120 code in 1 of 2 cached kernels',
      ])
        assert.ok(text.includes(s), `missing ${JSON.stringify(s)} in\n${text}`);

      // maxLibrariesPerPackage bounds the cache like a package: only the first file is read.
      const one = await discoverEnv(host, { env, roots, home: join(root, 'home'), torch: 'no', cuobjdump: 'never', maxLibrariesPerPackage: 1 });
      const m1 = one.interpreters.find((i) => i.path === python)!;
      assert.deepEqual(
        m1.libraries.filter((l) => l.package === 'flashinfer_jit').map((l) => l.path),
        [join(jitCache, '0.4.1', '120', 'cached_ops', 'norm', 'norm.so')],
      );
      assert.ok(formatEnvReport(one).includes(`JIT cache ${jitCache} (read only the first 1 .so files)`));
    } finally {
      await fs.rm(other, { recursive: true, force: true });
    }
  });

  it('reads a symlinked library larger than 256 MB completely, with at most 2 MB of ranged reads', async function () {
    if (!python) this.skip();
    // A real small ELF with a fatbin at its start, made 300 MB by a hole (sparse: no disk cost),
    // kept outside the package and linked in, as conda and spack install libraries.
    const store = join(root, 'store');
    await fs.mkdir(store, { recursive: true });
    const real = join(store, 'libbig_ops.so.1');
    await fs.copyFile(join(FIXTURES, 'elf', 'family_sm100f_sm120a.so'), real);
    await fs.truncate(real, 300 * 1024 * 1024);
    const link = join(root, 'fake', 'site-packages', 'vllm', '_big_ops.abi3.so');
    await fs.symlink(real, link);
    try {
      assert.ok((await fs.stat(link)).size > DEFAULT_LIBRARY_MAX_BYTES);
      const { host: counted, counts } = countingHost(new LocalHost());
      const r = await discoverEnv(counted, { env, roots, home: join(root, 'home'), torch: 'no', cuobjdump: 'never', now: () => new Date(0) });
      const main = r.interpreters.find((i) => i.path === python)!;
      const big = main.libraries.find((l) => l.path === link)!;
      assert.deepEqual(
        [big.package, big.source, big.size, big.sass, big.ptx, big.complete, big.issues, big.error],
        ['vllm', 'builtin', 300 * 1024 * 1024, ['sm_100f', 'sm_120a'], ['compute_120f'], true, [], undefined],
      );
      assert.ok(!r.warnings.some((w) => w.message.includes(link)), JSON.stringify(r.warnings.filter((w) => w.message.includes(link))));
      assert.match(formatEnvReport(r), /\n {10}_big_ops\.abi3\.so: sm_100f sm_120a \| PTX compute_120f\n/);
      const c = counts.get(link)!;
      assert.equal(c.wholeReads, 0, 'not read from its start with readFile');
      assert.ok(c.bytes > 0 && c.bytes <= DEFAULT_MAX_READ_BYTES, `${c.bytes} bytes read`);
      // Every library of the report is read by ranges, none whole.
      for (const [path, n] of counts) if (/\.so$/.test(path)) assert.equal(n.wholeReads, 0, path);
    } finally {
      await fs.rm(link, { force: true });
      await fs.rm(store, { recursive: true, force: true });
    }
  });

  it('runs python -m sglang.check_env only when asked, where SGLang has it, bounded by a timeout', async function () {
    if (!python) this.skip();
    const base = { env, roots, home: join(root, 'home'), torch: 'no' as const, cuobjdump: 'never' as const };
    const plain = await discoverEnv(host, base);
    assert.ok(
      plain.interpreters.every((i) => i.checkEnv === undefined),
      'not run unless asked',
    );

    const asked = await discoverEnv(host, { ...base, checkEnv: true });
    const ran = asked.interpreters.filter((i) => i.checkEnv);
    assert.equal(ran.length, 2, 'at most two interpreters');
    assert.equal(ran[0].checkEnv!.code, 0);
    assert.match(ran[0].checkEnv!.output, /^Python: 3\.\d+/);
    assert.match(ran[0].checkEnv!.output, /GPU 0 Compute Capability: 12\.0/);
    assert.doesNotMatch(ran[0].checkEnv!.output, /\u001b/, 'terminal colours removed');
    const text = formatEnvReport(asked);
    assert.ok(text.includes('      python -m sglang.check_env\n          Python: 3.'), text);

    // A hung check_env (a broken driver) is killed at the timeout; the report still comes.
    const slow = await discoverEnv(new LocalHost(), { ...base, env: { ...env, FAKE_CHECK_ENV_SLEEP: '5' }, checkEnv: true, checkEnvTimeoutMs: 400 });
    const cut = slow.interpreters.find((i) => i.checkEnv)!.checkEnv!;
    assert.equal(cut.code, null);
    assert.match(cut.error ?? '', /did not finish within 400 ms/);
    assert.match(formatEnvReport(slow), /python -m sglang\.check_env \(.*did not finish within 400 ms\)/);

    // An SGLang without the module: nothing is run, nothing reported.
    const file = join(root, 'fake', 'site-packages', 'sglang', 'check_env.py');
    await fs.rename(file, `${file}.off`);
    try {
      const old = await discoverEnv(host, { ...base, checkEnv: true });
      assert.ok(old.interpreters.every((i) => i.checkEnv === undefined));
    } finally {
      await fs.rename(`${file}.off`, file);
    }
  });

  it('env command prints text or JSON and exits 1 on error findings', async function () {
    if (!python) this.skip();
    // The command cannot set roots: it runs with the default roots, the stubbed PATH and a fake HOME.
    let out = '';
    const code = await runEnvOnHost(['--json', '--no-torch'], host, {
      out: (s) => {
        out += s;
      },
    });
    const parsed = JSON.parse(out) as EnvReport;
    assert.equal(code, 1);
    assert.equal(parsed.gpus[0].computeCap?.major, 12);
    assert.ok(parsed.warnings.some((w) => /sgl-kernel has no sm_120 code/.test(w.message)));
    // The command runs SGLang's check_env by default; --no-check-env skips it.
    assert.ok(parsed.interpreters.some((i) => /GPU 0 Compute Capability: 12\.0/.test(i.checkEnv?.output ?? '')));
    let skipped = '';
    await runEnvOnHost(['--json', '--no-torch', '--no-check-env'], host, {
      out: (s) => {
        skipped += s;
      },
    });
    assert.ok((JSON.parse(skipped) as EnvReport).interpreters.every((i) => i.checkEnv === undefined));
    let err = '';
    assert.equal(
      await runEnvOnHost(['--bogus'], host, {
        err: (s) => {
          err += s;
        },
      }),
      64,
    );
    assert.match(err, /Unknown option "--bogus"/);
    let help = '';
    assert.equal(
      await runEnvOnHost(['--help'], host, {
        out: (s) => {
          help += s;
        },
      }),
      0,
    );
    assert.match(help, /Usage: inference-doctor env/);
  });

  it('a host without any tools gives a report with notes, not an exception', async () => {
    const r = await discoverEnv(emptyHost, { home: '/nonexistent', now: () => new Date(0) });
    assert.deepEqual([r.gpus, r.servers, r.interpreters], [[], [], []]);
    assert.ok(r.notes.some((n) => /nvidia-smi is not installed/.test(n)));
    assert.ok(r.notes.some((n) => /systemctl is not available/.test(n)));
    assert.deepEqual(
      r.warnings.map((w) => w.code),
      ['no-gpu'],
    );
    assert.match(formatEnvReport(r), /GPUs\n {2}none found/);
  });
});

describe('discovery on a fake vLLM host', function () {
  this.timeout(60000);
  let root: string;
  let python: string | undefined;
  let host: TestHost;
  let env: Record<string, string>;
  let script: string;
  const noRoots = { envsDirs: [], envDirs: [], projectDirs: [] };

  before(async () => {
    python = realPython();
    root = await fs.mkdtemp(join(tmpdir(), 'idoc-vllm-discovery-'));
    await fs.cp(join(FIXTURES, 'fake-vllm'), join(root, 'fake'), { recursive: true });
    const pkg = join(root, 'fake', 'site-packages', 'vllm');
    await fs.copyFile(join(FIXTURES, 'elf', 'sm90a_sm100a.so'), join(pkg, '_C.abi3.so'));
    await fs.copyFile(join(FIXTURES, 'elf', 'relfatbin_sm86.so'), join(pkg, '_moe_C.abi3.so'));
    for (const f of await fs.readdir(join(root, 'fake', 'bin'))) await fs.chmod(join(root, 'fake', 'bin', f), 0o755);
    // The console script the `vllm serve` process runs (ps shows it after its interpreter).
    script = join(root, 'venv', 'bin', 'vllm');
    await fs.mkdir(dirname(script), { recursive: true });
    await fs.writeFile(script, `#!${python ?? '/nonexistent/python3'}\nimport sys\n`, { mode: 0o755 });
    env = {
      PATH: `${join(root, 'fake', 'bin')}:${join(FIXTURES, 'fake-install', 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      PYTHONPATH: join(root, 'fake', 'site-packages'),
      FAKE_PYTHON: python ?? '/nonexistent/python3',
      FAKE_VLLM_SCRIPT: script,
      PYTHONDONTWRITEBYTECODE: '1',
      HOME: join(root, 'home'),
      // What the shell that runs collect_env says, whatever vLLM was compiled for.
      TORCH_CUDA_ARCH_LIST: '12.0',
    };
    host = new TestHost(env);
  });

  after(async () => {
    if (root) await fs.rm(root, { recursive: true, force: true });
  });

  it('finds vLLM servers (process and unit), reads its kernels for the GPU and runs collect_env with the CUDA Archs caveat', async function () {
    if (!python) this.skip();
    const report = await discoverEnv(host, { env, roots: noRoots, home: join(root, 'home'), torch: 'no', cuobjdump: 'never', checkEnv: true });

    assert.deepEqual(
      report.servers.map((s) => [s.engine, s.kind, s.source, s.pid ?? s.unit, s.port, s.host, s.modelPath, s.interpreter, s.listening]),
      [
        ['vllm', 'vllm_serve', 'process', 5100, 8100, '0.0.0.0', '/models/Qwen3-30B-A3B-NVFP4', python, [8100]],
        ['vllm', 'vllm_api_server', 'process', 5200, 8000, '127.0.0.1', '/models/small', python, [8000]],
        ['vllm', 'vllm_serve', 'systemd', 'vllm-embed.service', 8200, '0.0.0.0', '/models/embed', undefined, undefined],
      ],
      'the engine-core child and the shell are not servers',
    );

    const it = report.interpreters.find((i) => i.path === python)!;
    assert.equal(it.probe!.packages.vllm.version, '0.11.0');
    assert.deepEqual(
      it.libraries.map((l) => [l.path.slice(l.path.lastIndexOf('/') + 1), l.package, l.sass, l.ptx]),
      [
        ['_C.abi3.so', 'vllm', ['sm_90a', 'sm_100a'], []],
        ['_moe_C.abi3.so', 'vllm', ['sm_86'], []],
      ],
    );
    const verdict = it.verdicts.find((v) => v.package === 'vLLM')!;
    assert.deepEqual([verdict.gpuArch, verdict.level], ['sm_120', 'none']);
    assert.match(verdict.message, /^vLLM has no sm_120 code: its compiled ops .* \(built for sm_86, sm_90a, sm_100a\)$/);
    assert.ok(
      report.warnings.some(
        (w) => w.code === 'arch-missing' && w.library === 'vLLM' && w.severity === 'error' && /used by the server on port 8100/.test(w.message),
      ),
    );

    // collect_env says 12.0 (the shell's TORCH_CUDA_ARCH_LIST) while the libraries have no sm_120 code.
    assert.equal(it.collectEnv!.code, 0, it.collectEnv!.output);
    assert.match(it.collectEnv!.output, /CUDA Archs: 12\.0; ROCm: Disabled/);
    assert.equal(it.checkEnv, undefined, 'no SGLang here');
    const text = formatEnvReport(report);
    for (const s of [
      'SGLang and vLLM servers',
      'pid 5100: vllm serve on 0.0.0.0:8100, listening on 8100',
      'pid 5200: vllm api_server on 127.0.0.1:8000 (default port), listening on 8000',
      'systemd vllm-embed.service: vllm serve on 0.0.0.0:8200',
      '      model /models/Qwen3-30B-A3B-NVFP4',
      '          _moe_C.abi3.so: sm_86\n',
      '      python -m vllm.collect_env\n          Collecting environment information...',
      `          note: ${COLLECT_ENV_CUDA_ARCHS_NOTE}`,
    ])
      assert.ok(text.includes(s), `${s}\n---\n${text}`);
  });
});
