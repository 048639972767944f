import { strict as assert } from 'node:assert';
import {
  archOf,
  compareVersions,
  compatibility,
  minCudaFor,
  parseComputeCap,
  parseNvccVersion,
  parseNvidiaSmiBanner,
  parseNvidiaSmiQuery,
  targetRunsOn,
} from '../../src/core/gpu/gpus';
import { parseTargetName } from '../../src/core/gpu/fatbin';

const RTX_PRO_6000 = { major: 12, minor: 0 };

describe('gpu facts', () => {
  it('parses compute capabilities in the shapes tools print', () => {
    assert.deepEqual(parseComputeCap('12.0'), RTX_PRO_6000);
    assert.deepEqual(parseComputeCap(' 8.6 '), { major: 8, minor: 6 });
    assert.deepEqual(parseComputeCap('(12, 0)'), RTX_PRO_6000);
    assert.deepEqual(parseComputeCap([9, 0]), { major: 9, minor: 0 });
    assert.deepEqual(parseComputeCap('sm_120'), RTX_PRO_6000);
    assert.deepEqual(parseComputeCap('103'), { major: 10, minor: 3 });
    for (const bad of ['', 'N/A', '[N/A]', 'twelve', '12.0.1', '-1.0', null, undefined]) assert.equal(parseComputeCap(bad), undefined, String(bad));
  });

  it('archOf', () => {
    assert.equal(archOf(RTX_PRO_6000), 'sm_120');
    assert.equal(archOf('12.0'), 'sm_120');
    assert.equal(archOf('8.9'), 'sm_89');
    assert.equal(archOf('10.3'), 'sm_103');
    assert.equal(archOf('garbage'), '');
  });

  it('parses nvidia-smi query rows: several GPUs, missing fields, garbage', () => {
    const text = [
      'NVIDIA RTX PRO 6000 Blackwell Workstation Edition, 12.0, 575.57.08, 97887',
      'NVIDIA H100 80GB HBM3, 9.0, 575.57.08, 81559',
      'NVIDIA A100-SXM4-40GB, [N/A], 535.104.05, [N/A]',
      'Tesla, Inc. Fancy Board, 8.0, 535.1, 40960',
      "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
      'Failed to initialize NVML: Driver/library version mismatch, because reasons',
      '\u0000\u0001 junk ,,,',
      '',
    ].join('\n');
    const r = parseNvidiaSmiQuery(text);
    assert.equal(r.gpus.length, 4);
    assert.deepEqual(r.gpus[0], {
      index: 0,
      name: 'NVIDIA RTX PRO 6000 Blackwell Workstation Edition',
      computeCap: RTX_PRO_6000,
      driverVersion: '575.57.08',
      memoryMiB: 97887,
    });
    assert.deepEqual(r.gpus[1].computeCap, { major: 9, minor: 0 });
    assert.deepEqual(r.gpus[2], { index: 2, name: 'NVIDIA A100-SXM4-40GB', driverVersion: '535.104.05' });
    assert.equal(r.gpus[3].name, 'Tesla, Inc. Fancy Board');
    assert.equal(r.skipped.length, 3);
    assert.deepEqual(parseNvidiaSmiQuery('No devices were found\n'), { gpus: [], skipped: ['No devices were found'] });
    assert.deepEqual(parseNvidiaSmiQuery('').gpus, []);
  });

  it('parses CUDA versions from the nvidia-smi banner and nvcc', () => {
    const banner = '| NVIDIA-SMI 575.57.08              Driver Version: 575.57.08      CUDA Version: 12.9     |';
    assert.deepEqual(parseNvidiaSmiBanner(banner), { driverVersion: '575.57.08', cudaVersion: '12.9' });
    assert.deepEqual(parseNvidiaSmiBanner('nothing'), {});
    assert.equal(parseNvccVersion('nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 12.8, V12.8.93\n'), '12.8');
    assert.equal(parseNvccVersion('Build cuda_13.0 V13.0.88'), '13.0');
    assert.equal(parseNvccVersion('bash: nvcc: command not found'), undefined);
  });

  it('compares versions numerically', () => {
    assert.ok(compareVersions('12.4', '12.8') < 0);
    assert.ok(compareVersions('12.10', '12.8') > 0);
    assert.equal(compareVersions('12.8', '12.8.0'), 0);
    assert.equal(minCudaFor(RTX_PRO_6000), '12.8');
    assert.equal(minCudaFor({ major: 10, minor: 0 }), '12.8');
    assert.equal(minCudaFor({ major: 9, minor: 0 }), undefined);
  });
});

describe('compatibility matrix', () => {
  const runs = (t: string, cc: string): boolean => targetRunsOn(parseTargetName(t)!, parseComputeCap(cc)!);

  it('sm_120 GPU against common targets', () => {
    const expect: [string, boolean][] = [
      ['sm_80', false],
      ['sm_90a', false],
      ['sm_100a', false],
      ['sm_120', true],
      ['sm_120a', true],
      ['sm_120f', true],
      ['sm_121', false],
      ['compute_90', true],
      ['compute_80', true],
      ['compute_120', true],
      ['compute_121', false],
      ['compute_100a', false],
      ['compute_120a', true],
    ];
    for (const [t, want] of expect) assert.equal(runs(t, '12.0'), want, `${t} on 12.0`);
  });

  it('minor-version and arch-specific rules', () => {
    assert.equal(runs('sm_80', '8.6'), true);
    assert.equal(runs('sm_86', '8.0'), false);
    assert.equal(runs('sm_90a', '9.0'), true);
    assert.equal(runs('sm_100a', '10.3'), false);
    assert.equal(runs('sm_100f', '10.3'), true);
    assert.equal(runs('sm_120', '12.1'), true);
    assert.equal(runs('sm_120a', '12.1'), false);
    assert.equal(runs('sm_90', '10.0'), false);
  });

  it('library verdicts and messages', () => {
    const gpu = RTX_PRO_6000;
    const none = compatibility(['sm_80', 'sm_90a', 'sm_100a'], gpu, 'sgl-kernel');
    assert.equal(none.level, 'none');
    assert.match(none.message, /^sgl-kernel has no sm_120 code: FP4 GEMM will fail or fall back/);
    const jit = compatibility(['sm_80', 'sm_90a', 'compute_90'], gpu, 'sgl-kernel');
    assert.deepEqual([jit.level, jit.jit], ['ptx-jit', ['compute_90']]);
    assert.match(jit.message, /no sm_120 SASS, only PTX \(compute_90\)/);
    const ok = compatibility(['sm_100a', 'sm_120', 'compute_120'], gpu, 'sgl-kernel');
    assert.deepEqual([ok.level, ok.native, ok.jit], ['native', ['sm_120'], ['compute_120']]);
    assert.equal(compatibility([], gpu, 'x.so').level, 'no-device-code');
    assert.equal(compatibility(['compute_90'], { major: 8, minor: 0 }).level, 'none');
    assert.equal(compatibility(['sm_90a', 'compute_90'], { major: 9, minor: 0 }).level, 'native');
  });
});
