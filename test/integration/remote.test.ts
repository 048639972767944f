/**
 * The remote feature's service layer (HostSession) end to end over a real loopback sshd:
 * connect → discover a fake SGLang install (stub nvidia-smi/ps/ss/systemctl on PATH) → search
 * with grouped streaming results → forward a port to the simulator and read /server_info → compare
 * with a launch file → follow a growing log with tail -F and classify a NaN line. Also: the
 * connection killed mid-search keeps partial results, and the next search reconnects.
 */
import { strict as assert } from 'node:assert';
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, chmodSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectSsh, SshHost } from '../../src/core/hosts/ssh';
import { resolveSshTarget } from '../../src/core/hosts/sshConfig';
import { HostError } from '../../src/core/hosts/types';
import { BACKEND_OPTION_PRESETS } from '../../src/core/hosts/search';
import { HostSession, serverKey } from '../../src/core/remote/session';
import { formatEnvReport } from '../../src/core/discovery';
import { NOT_SET } from '../../src/core/remote/compare';
import { ruleContextFromReport } from '../../src/core/remote/ruleContext';
import { loadDumpScript, readRuntimeCatalog } from '../../src/core/flags/runtime';
import { catalogFieldResolver } from '../../src/remote/catalogFields';
import { StdioLspClient } from '../../src/lsp/stdioClient';
import type { CatalogEntriesResult, CatalogStatus } from '../../src/shared/lspProtocol';
import type { LogAlert } from '../../src/core/remote/logWatch';
import { startSimulator, type RunningSimulator } from '../../src/sim/server';
import { startSshd, type Sshd } from '../support/sshd';
import { waitFor } from '../support/wait';

const FIXTURES = join(__dirname, '..', 'fixtures');

describe('remote service layer over a real sshd', function () {
  this.timeout(60_000);
  let d: Sshd;
  let root: string;
  let host: SshHost;
  let session: HostSession;
  let sim: RunningSimulator;
  let python: string;
  let sp: string;

  before(async function () {
    this.timeout(120_000);
    python = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8', timeout: 10_000 }).trim();
    d = await startSshd();
    root = mkdtempSync(join(tmpdir(), 'id-remote-'));
    cpSync(join(FIXTURES, 'fake-install'), join(root, 'fake'), { recursive: true });
    sp = join(root, 'fake', 'site-packages');
    const elf = (n: string): string => join(FIXTURES, 'elf', n);
    copyFileSync(elf('sm90a_sm100a.so'), join(sp, 'sgl_kernel', 'common_ops.abi3.so'));
    copyFileSync(elf('no_fatbin.so'), join(sp, 'sgl_kernel', 'cpu_ops.so'));
    mkdirSync(join(sp, 'flashinfer', 'data'), { recursive: true }); // git keeps no empty folders
    copyFileSync(elf('sm100a_sm120_ptx120.so'), join(sp, 'flashinfer', 'data', 'libflashinfer_kernels.so'));
    for (const f of readdirSync(join(root, 'fake', 'bin'))) chmodSync(join(root, 'fake', 'bin', f), 0o755);
    // Source files to search in the fake sglang package.
    mkdirSync(join(sp, 'sglang', 'srt', 'layers'), { recursive: true });
    writeFileSync(
      join(sp, 'sglang', 'srt', 'server_args.py'),
      [
        'ATTENTION_BACKEND_CHOICES = ["triton", "flashinfer", "fa3"]',
        'class ServerArgs:',
        '    attention_backend: str = None',
        '    fp4_gemm_runner_backend: str = "auto"',
        '    sampling_backend: str = None',
        '',
      ].join('\n'),
    );
    for (let i = 0; i < 40; i++) {
      writeFileSync(
        join(sp, 'sglang', 'srt', 'layers', `mod_${i}.py`),
        Array.from({ length: 25 }, (_, j) => `x_${j} = server_args.moe_runner_backend  # ${i}`).join('\n'),
      );
    }
    const knownHosts = d.writeKnownHosts();
    const target = resolveSshTarget({ host: '127.0.0.1', user: d.user, port: d.port }, { configFile: '/dev/null', home: join(root, 'home') });
    host = await connectSsh(target, {}, { knownHostsFiles: [knownHosts], identityFiles: [d.clientKey], agentSocket: null });
    session = new HostSession(host, `ssh:${d.user}@127.0.0.1:${d.port}`, {
      env: {
        PATH: `${join(root, 'fake', 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
        PYTHONPATH: sp,
        FAKE_PYTHON: python,
        PYTHONDONTWRITEBYTECODE: '1',
        HOME: join(root, 'home'),
      },
      home: join(root, 'home'),
      roots: { envsDirs: [join(root, 'no-envs')], envDirs: [], projectDirs: [] },
      torch: 'auto',
      cuobjdump: 'never',
    });
    sim = await startSimulator({
      port: 0,
      scenario: {
        seed: 1,
        models: { healthy: 'healthy' },
        serverArgs: { attention_backend: 'flashinfer', fp4_gemm_runner_backend: 'flashinfer_cutlass', tp_size: 1 },
      },
    });
  });

  after(async () => {
    await session?.dispose();
    await host?.close();
    await sim?.close();
    await d?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('discovers the fake install over SSH: versions, GPU, sm_120 warning, servers', async () => {
    const report = await session.discover();
    assert.equal(report.gpus[0]?.computeCap?.major, 12);
    const it = report.interpreters.find((i) => i.probe?.packages.sglang.found);
    assert.ok(it, JSON.stringify(report.interpreters.map((i) => [i.path, i.error])));
    assert.equal(it.probe!.packages.sglang.version, '0.5.2');
    assert.equal(it.probe!.packages.sgl_kernel.version, '0.3.9.post2');
    assert.ok(
      report.warnings.some((w) => /sgl-kernel has no sm_120 code/.test(w.message)),
      JSON.stringify(report.warnings),
    );
    assert.deepEqual(session.sourceDirs(), [
      { engine: 'sglang', path: join(sp, 'sglang') },
      { engine: 'vllm', path: join(sp, 'vllm') },
    ]);
    assert.deepEqual(report.servers.map(serverKey).sort(), ['pid:4242', 'unit:sglang-b.service']);
  });

  it('discovers a vLLM host over SSH: its servers by engine, its kernels judged for sm_120, collect_env with the CUDA Archs caveat', async () => {
    const fake = join(root, 'fake-vllm');
    cpSync(join(FIXTURES, 'fake-vllm'), fake, { recursive: true });
    for (const f of readdirSync(join(fake, 'bin'))) chmodSync(join(fake, 'bin', f), 0o755);
    copyFileSync(join(FIXTURES, 'elf', 'sm90a_sm100a.so'), join(fake, 'site-packages', 'vllm', '_C.abi3.so'));
    copyFileSync(join(FIXTURES, 'elf', 'relfatbin_sm86.so'), join(fake, 'site-packages', 'vllm', '_moe_C.abi3.so'));
    const vllmSession = new HostSession(host, 'vllm-host', {
      env: {
        PATH: `${join(fake, 'bin')}:${join(root, 'fake', 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
        PYTHONPATH: join(fake, 'site-packages'),
        FAKE_PYTHON: python,
        FAKE_VLLM_SCRIPT: join(fake, 'bin', 'vllm'),
        PYTHONDONTWRITEBYTECODE: '1',
        HOME: join(root, 'home'),
        TORCH_CUDA_ARCH_LIST: '12.0',
      },
      home: join(root, 'home'),
      roots: { envsDirs: [join(root, 'no-envs')], envDirs: [], projectDirs: [] },
      torch: 'no',
      cuobjdump: 'never',
    });
    try {
      const report = await vllmSession.discover({ checkEnv: true });
      assert.deepEqual(
        report.servers.map((s) => [serverKey(s), s.engine, s.kind, s.port, s.modelPath]),
        [
          ['pid:5100', 'vllm', 'vllm_serve', 8100, '/models/Qwen3-30B-A3B-NVFP4'],
          ['pid:5200', 'vllm', 'vllm_api_server', 8000, '/models/small'],
          ['unit:vllm-embed.service', 'vllm', 'vllm_serve', 8200, '/models/embed'],
        ],
      );
      const it = report.interpreters.find((i) => i.probe?.packages.vllm.found)!;
      assert.deepEqual(
        it.verdicts.filter((v) => v.package === 'vLLM').map((v) => [v.gpuArch, v.level]),
        [['sm_120', 'none']],
      );
      assert.match(it.collectEnv?.output ?? '', /CUDA Archs: 12\.0; ROCm: Disabled/);
      assert.match(
        formatEnvReport(report),
        /note: collect_env's "CUDA Archs" is the TORCH_CUDA_ARCH_LIST variable of the shell that ran it, not what vLLM was compiled for/,
      );
      // The unit's launch file is found for the vLLM server as for SGLang's.
      const unit = report.servers.find((s) => s.unit)!;
      assert.deepEqual(await vllmSession.launchSource(unit), { kind: 'unit-file', path: '/etc/systemd/system/vllm-embed.service', unit: 'vllm-embed.service' });
      await assert.rejects(vllmSession.compareWithLaunch(unit, 'http://127.0.0.1:9'), /is vLLM: the comparison reads SGLang's \/server_info fields/);
    } finally {
      await vllmSession.dispose();
    }
  });

  it("reads the runtime flag catalog over SSH and gives the language server the host's GPU and package versions", async () => {
    const report = session.report ?? (await session.discover());
    const script = await loadDumpScript(join(__dirname, '..', '..', 'python', 'dump_engine_args.py'));
    // The interpreter on the host imports the fake SGLang whose plugin grows a choice list.
    const rt = await readRuntimeCatalog(session.host, python, {
      script,
      env: { PYTHONPATH: join(FIXTURES, 'fake-sglang'), PYTHONDONTWRITEBYTECODE: '1' },
      timeoutMs: 60_000,
    });
    assert.equal(rt.source, 'dump');
    assert.equal(rt.hostId, session.host.id);
    const attention = rt.catalog.entries.find((e) => e.flag === '--attention-backend');
    assert.ok(attention?.choices?.includes('fake_plugin_attn'), 'choices added by the plugin at run time');
    assert.ok(rt.catalog.entries.some((e) => e.flag === '--fake-plugin-mode'));
    const rules = ruleContextFromReport(report);
    assert.equal(rules.computeCapability, 12);
    assert.equal(rules.packageVersions.sglang, '0.5.2');
    assert.equal(rules.packageVersions['sgl-kernel'], '0.3.9.post2');
  });

  it('streams search results grouped by file, bounded', async () => {
    const preset = BACKEND_OPTION_PRESETS.find((p) => p.id === 'backend')!;
    let progressCalls = 0;
    const run = await session.search({
      pattern: preset.pattern,
      fixedStrings: preset.fixedStrings,
      onProgress: () => {
        progressCalls++;
      },
    });
    assert.equal(run.error, undefined);
    assert.equal(run.groups.matchCount, 3 + 40 * 25);
    assert.equal(run.groups.fileCount, 41);
    assert.ok(progressCalls >= 1);
    const sa = run.groups.group(join(sp, 'sglang', 'srt', 'server_args.py'))!;
    assert.equal(sa.relative, 'srt/server_args.py');
    assert.deepEqual(
      sa.matches.map((m) => m.line),
      [3, 4, 5],
    );
    const capped = await session.search({ pattern: 'moe_runner_backend', fixedStrings: true, maxResults: 100 });
    assert.equal(capped.groups.matchCount, 100);
    assert.equal(capped.groups.limited, true);
    assert.match(capped.groups.describe(), /\(stopped at 100\)$/);
    const word = await session.search({ pattern: 'ATTENTION_BACKEND_CHOICES', fixedStrings: true, caseSensitive: false, wordRegexp: true });
    assert.equal(word.groups.matchCount, 1);
  });

  it('finds the systemd launch file of a unit', async () => {
    const unit = session.report!.servers.find((s) => s.unit === 'sglang-b.service')!;
    // The stub systemctl (on the session's PATH) prints the unit with its file header.
    const src = await session.launchSource(unit);
    assert.deepEqual(src, { kind: 'unit-file', path: '/etc/systemd/system/sglang-b.service', unit: 'sglang-b.service' });
  });

  it('finds the launch script and log file of a process from /proc', async () => {
    const script = join(root, 'run server.sh');
    const log = join(root, 'proc.log');
    writeFileSync(script, `#!/bin/bash\n# python -m sglang.launch_server --port 30000\nsleep 30 >> '${log}' 2>&1\n`);
    const child = spawn('bash', [script], { cwd: root, stdio: 'ignore', detached: true });
    try {
      const pid = await waitFor('the sleep child', () => {
        try {
          return Number(execFileSync('pgrep', ['-P', String(child.pid), 'sleep'], { encoding: 'utf8' }).trim()) || undefined;
        } catch {
          return undefined;
        }
      });
      const server = {
        engine: 'sglang' as const,
        kind: 'launch_server' as const,
        argv: ['python3', '-m', 'sglang.launch_server'],
        port: 30000,
        portIsDefault: true,
        host: '127.0.0.1',
        source: 'process' as const,
        pid,
      };
      assert.deepEqual(await session.launchSource(server), { kind: 'script', path: script });
      assert.deepEqual(await session.logSourceFor(server), { kind: 'file', path: log });
      const text = await session.readLaunchText({ kind: 'script', path: script });
      assert.equal(text.hint, 'shellscript');
      // A process with no script parent falls back to its command line.
      const orphan = await session.launchSource({ ...server, pid: 1 });
      assert.equal(orphan?.kind, 'command-line');
    } finally {
      process.kill(-child.pid!, 'SIGKILL');
    }
  });

  it('forwards a port to the simulator, reads /server_info, and compares it with a launch file', async () => {
    const server = { ...session.report!.servers.find((s) => s.pid === 4242)!, port: sim.port, host: '0.0.0.0' };
    const key = serverKey(server);
    const fwd = await session.forward(key, sim.port, server.host);
    assert.equal(session.forward(key, sim.port) instanceof Promise, true);
    assert.equal(await session.forward(key, sim.port), fwd, 'one forward per server');
    const unitFile = join(root, 'sglang.service');
    writeFileSync(
      unitFile,
      [
        '[Service]',
        `ExecStart=${python} -m sglang.launch_server --model-path healthy --port ${sim.port} \\`,
        '    --attention-backend triton --fp4-gemm-backend auto --tp 1',
        '',
      ].join('\n'),
    );
    const launch = await session.readLaunchText({ kind: 'unit-file', path: unitFile, unit: 'sglang.service' });
    assert.equal(launch.hint, 'systemd');
    const r = await session.compareWithLaunch(server, `http://127.0.0.1:${fwd.localPort}`, { launch });
    assert.equal(r.info.attention_backend, 'flashinfer');
    const row = (f: string) => r.comparison.rows.find((x) => x.field === f)!;
    assert.equal(row('fp4_gemm_runner_backend').status, 'auto-resolved');
    assert.equal(row('fp4_gemm_runner_backend').server, 'flashinfer_cutlass');
    assert.equal(row('attention_backend').status, 'different');
    assert.equal(row('tp_size').status, 'same');
    assert.equal(r.comparison.launchDoc.kv_cache_dtype, NOT_SET);
    assert.deepEqual(Object.keys(r.comparison.launchDoc), Object.keys(r.comparison.serverDoc));
    await session.closeForward(key);
    assert.equal(session.forwardFor(key), undefined);
  });

  it("compares by the language server's catalog: a renamed flag lands on its /server_info field", async function () {
    this.timeout(60_000);
    // The real language server (dist/server.js, built by scripts/test.mjs) over stdio, its
    // workspace holding our own server_args.py whose --moe-kernel sets moe_runner_backend (a
    // rename the built-in table does not know), then the diff through sshd and the simulator.
    const ws = mkdtempSync(join(tmpdir(), 'id-remote-ws-'));
    mkdirSync(join(ws, 'sglang', 'srt'), { recursive: true });
    copyFileSync(join(FIXTURES, 'server_args', 'renamed_fields.py'), join(ws, 'sglang', 'srt', 'server_args.py'));
    const lsp = new StdioLspClient({ serverPath: join(__dirname, '..', '..', 'dist', 'server.js') });
    try {
      await lsp.initialize(ws);
      const deadline = Date.now() + 20_000;
      while ((await lsp.request<CatalogStatus>('inferenceDoctor/catalogStatus', null)).active?.kind !== 'workspace') {
        if (Date.now() > deadline) throw new Error(`no workspace catalog; stderr: ${lsp.stderr.slice(-500)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const fields = await catalogFieldResolver(() => lsp.request<CatalogEntriesResult>('inferenceDoctor/catalogEntries', {}));
      assert.ok(fields.resolver, fields.note);
      assert.match(fields.source, /^workspace catalog .*server_args\.py/);

      const server = { ...session.report!.servers.find((x) => x.pid === 4242)!, port: sim.port, host: '0.0.0.0' };
      const key = serverKey(server);
      const fwd = await session.forward(key, sim.port, server.host);
      const launch = {
        text: `${python} -m sglang.launch_server --model-path healthy --port ${sim.port} --moe-kernel triton --fp4-gemm-backend auto\n`,
        hint: 'shellscript' as const,
        source: { kind: 'command-line' as const, text: '' },
      };
      const withCatalog = await session.compareWithLaunch(server, `http://127.0.0.1:${fwd.localPort}`, { launch, fields: fields.resolver });
      const row = (rows: typeof withCatalog.comparison.rows, f: string) => rows.find((x) => x.field === f);
      const moe = row(withCatalog.comparison.rows, 'moe_runner_backend');
      assert.deepEqual(
        { flag: moe?.flag, launch: moe?.launch, server: moe?.server },
        { flag: '--moe-kernel', launch: 'triton', server: withCatalog.info.moe_runner_backend },
      );
      assert.notEqual(moe?.status, 'default');
      assert.equal(row(withCatalog.comparison.rows, 'moe_kernel'), undefined);
      assert.equal(row(withCatalog.comparison.rows, 'fp4_gemm_runner_backend')?.status, 'auto-resolved');
      // Control: without the catalog the renamed flag is a field the server never reports.
      const table = await session.compareWithLaunch(server, `http://127.0.0.1:${fwd.localPort}`, { launch });
      assert.equal(row(table.comparison.rows, 'moe_kernel')?.status, 'not-reported');
      assert.equal(row(table.comparison.rows, 'moe_runner_backend')?.status, 'default');
      await session.closeForward(key);
    } finally {
      await lsp.close();
      rmSync(ws, { recursive: true, force: true });
    }
  });

  it('follows a growing log with tail -F and notifies once per burst on NaN lines', async () => {
    const log = join(root, 'server.log');
    writeFileSync(log, Array.from({ length: 300 }, (_, i) => `[2026-11-29 10:00:00] Decode batch ${i}`).join('\n') + '\n');
    const alerts: [LogAlert, boolean][] = [];
    const f = session.followLog({ kind: 'file', path: log }, { maxLines: 250, quietMs: 60_000, onAlert: (a, n) => alerts.push([a, n]) });
    try {
      await waitFor('the last 200 lines', () => f.buffer.lineCount >= 200);
      assert.equal(f.buffer.snapshot()[0], '[2026-11-29 10:00:00] Decode batch 100');
      appendFileSync(log, 'ok line\n[2026-11-29 10:00:01 TP0] Detected errors during sampling! NaN in the logits.\n');
      await waitFor('the first alert', () => alerts.length >= 1);
      appendFileSync(log, 'logits NaN again\n');
      await waitFor('the second alert', () => alerts.length >= 2);
      assert.deepEqual(
        alerts.map(([a, n]) => [a.kind, n]),
        [
          ['sampling-error', true],
          ['nan', false],
        ],
      );
      assert.equal(alerts[0][0].lineNumber, 202);
      for (let i = 0; i < 100; i++) appendFileSync(log, `line ${i}\n`);
      await waitFor('bounded buffer', () => f.buffer.lineCount >= 303);
      assert.equal(f.buffer.size, 250);
    } finally {
      f.stop();
    }
    const end = await f.done;
    assert.equal(end.reason, 'stopped');
  });

  it('follows a vLLM log: its backend choices picked out silently, its Corrupted count notified as NaN', async () => {
    const log = join(root, 'vllm.log');
    writeFileSync(log, '(APIServer pid=812) INFO 03-02 09:11:50 [api_server.py:1839] vLLM API server version 0.11.0\n');
    const alerts: [LogAlert, boolean][] = [];
    const f = session.followLog({ kind: 'file', path: log }, { quietMs: 60_000, onAlert: (a, n) => alerts.push([a, n]) });
    const stats = (n: number): string =>
      `(APIServer pid=812) INFO 03-02 09:14:5${n} [loggers.py:123] Engine 000: Avg prompt throughput: 40.2 tokens/s, Avg generation throughput: 96.0 tokens/s, Running: 2 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.9%, Prefix cache hit rate: 0.0%, Corrupted: ${n} reqs\n`;
    try {
      await waitFor('the first line', () => f.buffer.lineCount >= 1);
      appendFileSync(
        log,
        "(EngineCore_DP0 pid=901) INFO 03-02 09:12:01 [cuda.py:351] Using FLASHINFER attention backend out of potential backends: ['FLASHINFER', 'TRITON_ATTN']\n" +
          "(EngineCore_DP0 pid=901) INFO 03-02 09:12:03 [nvfp4.py:88] Using 'FLASHINFER_CUTLASS' NvFp4 MoE backend out of potential backends: ['FLASHINFER_CUTLASS', 'MARLIN']\n" +
          stats(0) +
          stats(2),
      );
      await waitFor('three alerts', () => alerts.length >= 3);
      assert.deepEqual(
        alerts.map(([a, n]) => [a.kind, a.level, n, a.lineNumber]),
        [
          ['backend-selected', 'info', false, 2],
          ['backend-selected', 'info', false, 3],
          ['nan', 'problem', true, 5],
        ],
      );
      assert.equal(alerts[1][0].title, 'vLLM chose FLASHINFER_CUTLASS for MoE');
    } finally {
      f.stop();
    }
    assert.equal((await f.done).reason, 'stopped');
  });

  it('keeps partial results with a clear error when the connection dies mid-search, then reconnects', async () => {
    const dir = join(sp, 'sglang');
    const fifo = join(root, 'blocking.fifo');
    execFileSync('mkfifo', [fifo]);
    let seen = 0;
    const p = session.search({
      pattern: 'moe_runner_backend',
      fixedStrings: true,
      tool: 'grep',
      paths: [dir, fifo],
      onProgress: (g) => {
        seen = g.matchCount;
      },
    });
    // grep streams the package, then blocks reading the FIFO: kill the connection then. (grep
    // block-buffers a pipe, so its last few KB may never leave it before the kill.)
    await waitFor('results before the kill', () => seen >= 500, 20_000);
    await new Promise((r) => setTimeout(r, 300));
    const seenAtKill = seen;
    const before = host.connections;
    assert.ok(d.killSessions() >= 1);
    const run = await Promise.race([p, new Promise<never>((_, rej) => setTimeout(() => rej(new Error('search did not end after the kill')), 15_000))]);
    assert.ok(run.error instanceof HostError, String(run.error));
    assert.equal(run.error.kind, 'disconnected');
    assert.match(run.error.message, /partial output was kept|was lost|reset/i);
    assert.equal(run.cancelled, false);
    assert.ok(run.groups.matchCount >= seenAtKill && run.groups.matchCount <= 1000, `kept ${run.groups.matchCount}, seen ${seenAtKill}`);
    const again = await session.search({ pattern: 'moe_runner_backend', fixedStrings: true, paths: [dir] });
    assert.equal(again.error, undefined);
    assert.equal(again.groups.matchCount, 1000);
    assert.ok(host.connections > before, 'reconnected');
  });

  it('cancels a search at once', async () => {
    const fifo = join(root, 'blocking2.fifo');
    execFileSync('mkfifo', [fifo]);
    const ac = new AbortController();
    const p = session.search({ pattern: 'x', fixedStrings: true, tool: 'grep', paths: [fifo], signal: ac.signal });
    setTimeout(() => ac.abort('cancelled'), 300);
    const t0 = Date.now();
    const run = await p;
    assert.equal(run.cancelled, true);
    assert.ok(Date.now() - t0 < 5000);
  });
});
