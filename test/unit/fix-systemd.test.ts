/**
 * The systemd drop-in plan: the drop-in carries exactly the changed command, the unit itself is
 * never written, undo removes or restores the drop-in, and every file write passes its content as
 * data. The drop-in is checked by running the real `sh` argv it plans into a temp directory.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planSystemdChange, unitName, writeFileArgv, SystemdPlanError } from '../../src/core/fix/systemd';
import { findLaunchCommands, type LaunchCommand } from '../../src/core/launch';

const UNIT = readFileSync(join(__dirname, '..', 'fixtures', 'launch', 'sglang.service'), 'utf8');
const FIX = [
  { flag: '--moe-runner-backend', value: 'flashinfer_cutlass' },
  { flag: '--fp4-gemm-backend', aliases: ['--fp4-gemm-runner-backend'], value: 'flashinfer_cudnn' },
];

function values(cmd: LaunchCommand, name: string): string[] | undefined {
  let hit: string[] | undefined;
  for (const a of cmd.args) if (a.kind === 'flag' && a.name === name) hit = (a.values ?? []).map((v) => v.value);
  return hit;
}

describe('systemd drop-in plan', () => {
  it('clears ExecStart and sets the whole edited command; the rest of the unit stays out of it', () => {
    const plan = planSystemdChange('sglang', UNIT, [{ flag: '--tp', value: '4' }]);
    assert.equal(plan.unit, 'sglang.service');
    assert.equal(plan.dropInPath, '/etc/systemd/system/sglang.service.d/inference-doctor.conf');
    assert.match(plan.dropIn, /^\[Service\]\nExecStart=\nExecStart=/m);
    assert.doesNotMatch(plan.dropIn, /WantedBy|Description/);
    const [cmd] = findLaunchCommands(plan.dropIn, 'systemd');
    assert.deepEqual(values(cmd, '--tp'), ['4']);
    assert.deepEqual(values(cmd, '--model-path'), values(findLaunchCommands(UNIT, 'systemd')[0], '--model-path'), 'other flags carried over');
    assert.deepEqual(plan.apply.slice(-2), [
      ['systemctl', 'daemon-reload'],
      ['systemctl', 'restart', 'sglang.service'],
    ]);
    assert.deepEqual(plan.restore[0], ['rm', '-f', plan.dropInPath]);
  });

  it('reads the effective command from systemctl cat (an earlier drop-in wins) and can put that drop-in back', () => {
    const first = planSystemdChange('sglang.service', UNIT, FIX);
    const cat = `# /etc/systemd/system/sglang.service\n${UNIT}\n# ${first.dropInPath}\n${first.dropIn}`;
    const second = planSystemdChange('sglang.service', cat, [{ flag: '--tp', value: '8' }], { previousDropIn: first.dropIn });
    const [cmd] = findLaunchCommands(second.dropIn, 'systemd');
    assert.deepEqual(values(cmd, '--tp'), ['8']);
    assert.deepEqual(values(cmd, '--moe-runner-backend'), ['flashinfer_cutlass'], 'the first change is kept');
    assert.deepEqual(second.restore[0], writeFileArgv(first.dropInPath, first.dropIn));
  });

  it('writes files atomically with the content as data: quotes, $() and newlines land verbatim', () => {
    const dir = mkdtempSync(join(tmpdir(), 'id-dropin-'));
    try {
      const hostile = `ExecStart=/bin/x '$(touch ${dir}/pwned)' "\`id\`" $HOME\n; rm -rf /\n`;
      const target = join(dir, 'a.conf');
      const r = spawnSync(writeFileArgv(target, hostile)[0], writeFileArgv(target, hostile).slice(1), { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(readFileSync(target, 'utf8'), hostile);
      assert.throws(() => readFileSync(join(dir, 'pwned')), 'nothing in the content ran');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses unit names that are paths or options, and units without an SGLang ExecStart', () => {
    for (const bad of ['../x', '-x', 'a/b', 'x y', '']) assert.throws(() => unitName(bad), SystemdPlanError, bad);
    assert.equal(unitName('sglang@0'), 'sglang@0.service');
    assert.throws(() => planSystemdChange('web', '[Service]\nExecStart=/usr/bin/nginx\n', FIX), /No SGLang or vLLM launch command/);
  });
});
