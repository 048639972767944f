/**
 * The sweep panel's controller (SweepSession, no VS Code) over real processes: a launch script run
 * by the supervisor starts the simulator through the tests' stand-in `python` (NaN unless the FP4
 * GEMM backend is flashinfer_cudnn; `--attention-backend crash` fails at start). The session posts
 * what the page shows, writes the CLI's reports next to the script, and restores the script byte
 * for byte — after a full sweep and after Cancel.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/lib/codeServer';
import { ScriptTarget, localSupervised, waitUntilReady } from '../../src/core/fix/loop';
import { Supervisor } from '../../src/core/fix/supervisor';
import type { SweepAxis, SweepReport } from '../../src/core/fix/sweep';
import { LocalHost } from '../../src/core/hosts/local';
import { applyTextEdits } from '../../src/core/launch/edit';
import { runQuickProbe } from '../../src/core/probe/quick';
import { axisViews, launchCommandOf, proposedLaunchEdits } from '../../src/fix/sweepPlan';
import { SweepSession } from '../../src/fix/sweepSession';
import type { HostToSweepWebview } from '../../src/shared/sweepProtocol';
import { writeFakePython } from '../support/fakeSglang';
import { buildBundles } from './helpers';

const AXES: SweepAxis[] = [
  { flag: '--fp4-gemm-backend', aliases: ['--fp4-gemm-runner-backend'], values: ['flashinfer_cutlass', 'flashinfer_cudnn'] },
  { flag: '--attention-backend', values: ['flashinfer', 'crash'] },
];

describe('sweep panel controller (supervisor + simulator)', function () {
  this.timeout(180_000);
  let work: string;
  let script: string;
  let original: string;
  let supervisor: Supervisor;
  let server: { baseUrl: string };
  const probe = (s: { baseUrl: string }) => runQuickProbe(s, { maxTokens: 48, timeoutMs: 20_000 });

  before(async () => {
    buildBundles('sim');
    work = mkdtempSync(join(tmpdir(), 'id-sweepui-'));
    const port = await freePort();
    server = { baseUrl: `http://127.0.0.1:${port}` };
    const python = writeFakePython(work, port);
    script = join(work, 'run.sh');
    // Odd spacing, a comment and no trailing newline: restored means byte for byte.
    original = `#!/bin/sh\n# the incident's launch\nexec ${python} -m sglang.launch_server \\\n  --model-path  nvidia/Qwen3.5-397B-A17B-NVFP4 \\\n  --fp4-gemm-backend flashinfer_cutlass   --tp 2 # keep`;
    writeFileSync(script, original, { mode: 0o755 });
    supervisor = new Supervisor(join(work, 'state'));
    await supervisor.start('sglang', ['sh', script]);
    assert.ok((await waitUntilReady(server, 30_000, 200)) !== undefined, 'the incident server came up');
  });

  after(async () => {
    await supervisor?.stop('sglang', { timeoutMs: 3000 });
    if (work) rmSync(work, { recursive: true, force: true });
  });

  function session(posted: HostToSweepWebview[], onPost?: (m: HostToSweepWebview, s: SweepSession) => void): SweepSession {
    const s: SweepSession = new SweepSession({
      target: new ScriptTarget(new LocalHost(), script, localSupervised(supervisor, 'sglang')),
      axes: AXES,
      setup: {
        launchLabel: 'run.sh',
        targetLabel: 'run.sh under supervise sglang',
        serverLabel: 'local',
        axes: axisViews(AXES, launchCommandOf(original, 'shellscript')),
        total: 4,
      },
      server,
      launchPath: script,
      restart: { supervise: 'sglang' },
      readyTimeoutMs: 20_000,
      pollMs: 200,
      probe,
      post: (m) => {
        posted.push(m);
        onPost?.(m, s);
      },
    });
    return s;
  }

  const reportFiles = () => readdirSync(work).filter((f) => f.startsWith('run.sh.sweep-'));

  it('runs every combination live, records failed starts, writes the reports, restores the script, and proposes the healthy row as an edit', async () => {
    const posted: HostToSweepWebview[] = [];
    const s = session(posted);
    const running = s.run();
    assert.ok('refused' in s.rowToApply(0), 'nothing to apply while the sweep runs');
    const end = await running;
    assert.equal(end.complete, true);
    assert.equal(end.cancelled, false);
    assert.equal(end.restored, true);
    assert.equal(readFileSync(script, 'utf8'), original, 'the launch script is back byte for byte');

    const rows = posted.filter((m): m is Extract<HostToSweepWebview, { type: 'row' }> => m.type === 'row');
    assert.deepEqual(
      rows.map((r) => r.index),
      [0, 1, 2, 3],
      'each row posted as it came',
    );
    assert.deepEqual(
      rows.map((r) => [r.row.flags['--fp4-gemm-backend'], r.row.flags['--attention-backend'], r.row.started, r.row.verdict]),
      [
        ['flashinfer_cutlass', 'flashinfer', true, 'nan'],
        ['flashinfer_cutlass', 'crash', false, 'error'],
        ['flashinfer_cudnn', 'flashinfer', true, 'ok'],
        ['flashinfer_cudnn', 'crash', false, 'error'],
      ],
    );
    assert.ok(
      rows[1].row.logLines?.some((l) => /no kernel image/.test(l)),
      'a failed start keeps the log line that says why',
    );
    assert.ok(posted.some((m) => m.type === 'progress' && /restoring the original launch/.test(m.message)));
    assert.equal(posted.at(-1)?.type, 'finished');

    // The reports: the CLI's JSON shape and the Markdown matrix, next to the script.
    assert.ok(end.reports);
    assert.deepEqual(
      reportFiles()
        .map((f) => f.replace(/.*\./, ''))
        .sort(),
      ['json', 'md'],
    );
    const json = JSON.parse(readFileSync(end.reports.json, 'utf8')) as SweepReport;
    assert.deepEqual(Object.keys(json), ['launch', 'restart', 'server', 'rows', 'complete', 'restored']);
    assert.equal(json.launch, script);
    assert.deepEqual(json.restart, { supervise: 'sglang' });
    assert.equal(json.rows.length, 4);
    assert.match(readFileSync(end.reports.md, 'utf8'), /\| `flashinfer_cudnn` \| `flashinfer` \| yes \| ok \|/);

    // Only the healthy row applies; its edit goes through the launch parser.
    assert.deepEqual(s.rowToApply(0), { refused: 'Only a healthy row can be applied.' });
    const ok = s.rowToApply(2);
    assert.ok('changes' in ok);
    const proposed = applyTextEdits(original, proposedLaunchEdits(original, 'shellscript', ok.changes));
    assert.equal(proposed, original.replace('flashinfer_cutlass   --tp 2 # keep', 'flashinfer_cudnn   --tp 2 --attention-backend flashinfer # keep'));
    assert.deepEqual(s.snapshot().rows.length, 4);
    for (const f of reportFiles()) rmSync(join(work, f));
  });

  it('Cancel stops after the combination under way; the script is restored byte for byte and the original launch runs again', async () => {
    const posted: HostToSweepWebview[] = [];
    const s = session(posted, (m, self) => {
      if (m.type === 'row' && m.index === 0) self.cancel();
    });
    const end = await s.run();
    assert.equal(end.cancelled, true);
    assert.equal(end.complete, false);
    assert.equal(end.restored, true);
    assert.ok(posted.some((m) => m.type === 'cancelling'));
    assert.ok(s.snapshot().rows.length < 4, 'it stopped early');
    assert.equal(readFileSync(script, 'utf8'), original, 'the launch script is back byte for byte');
    const json = JSON.parse(readFileSync(end.reports?.json ?? '', 'utf8')) as SweepReport;
    assert.equal(json.complete, false);
    assert.equal(json.restored, true);
    assert.ok((await waitUntilReady(server, 30_000, 200)) !== undefined, 'the original launch runs again');
    assert.equal((await probe(server)).summary.verdict, 'nan', 'and it is the incident again');
  });
});
