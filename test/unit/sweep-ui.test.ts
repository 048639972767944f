/**
 * The sweep UI's parts that need no VS Code: the page-message validator, what a row's "Apply"
 * proposes (through the launch parser), and which flags the sweep offers (known issues first).
 */
import assert from 'node:assert/strict';
import type { FlagEntry } from '../../src/core/flags/types';
import { applyTextEdits } from '../../src/core/launch/edit';
import { MAX_COMBINATIONS, type SweepAxis } from '../../src/core/fix/sweep';
import { isSweepWebviewMessage, SWEEP_MESSAGE_TYPES } from '../../src/shared/sweepProtocol';
import {
  axisViews,
  knownIssueSuggestions,
  launchCommandOf,
  preselectedValues,
  proposedLaunchEdits,
  rowChanges,
  sweepFlagOptions,
  type DiagnosticLike,
} from '../../src/fix/sweepPlan';

const SCRIPT = [
  '#!/bin/sh',
  '# the incident',
  'exec python3 -m sglang.launch_server \\',
  '  --model-path nvidia/Qwen3.5-397B-A17B-NVFP4 \\',
  '  --fp4-gemm-runner-backend flashinfer_cutlass --tp 2 # old spelling',
  '',
].join('\n');

const AXES: SweepAxis[] = [
  { flag: '--fp4-gemm-backend', aliases: ['--fp4-gemm-runner-backend'], values: ['flashinfer_cutlass', 'flashinfer_cudnn'] },
  { flag: '--moe-runner-backend', values: ['triton', 'flashinfer_cutlass'] },
];

function entry(flag: string, choices: string[] | undefined, extra: Partial<FlagEntry> = {}): FlagEntry {
  return {
    flag,
    aliases: [],
    negations: [],
    field: flag.slice(2).replace(/-/g, '_'),
    source: 'dataclass',
    line: 1,
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    ...(choices ? { choices } : {}),
    ...extra,
  };
}

describe('sweep webview messages', () => {
  it('accepts each message type with its fields', () => {
    const good = [
      { type: 'ready' },
      { type: 'cancel' },
      { type: 'applyRow', index: 0 },
      { type: 'applyRow', index: MAX_COMBINATIONS - 1 },
      { type: 'openReport', kind: 'md' },
    ];
    for (const m of good) assert.ok(isSweepWebviewMessage(m), JSON.stringify(m));
    assert.deepEqual([...new Set(good.map((m) => m.type))].sort(), [...SWEEP_MESSAGE_TYPES].sort());
  });

  it('refuses anything malformed (the page is untrusted)', () => {
    const bad: unknown[] = [
      null,
      undefined,
      'cancel',
      42,
      [],
      [{ type: 'cancel' }],
      {},
      { type: 'run' },
      { type: 'CANCEL' },
      { type: 'applyRow' },
      { type: 'applyRow', index: -1 },
      { type: 'applyRow', index: 1.5 },
      { type: 'applyRow', index: MAX_COMBINATIONS },
      { type: 'applyRow', index: '0' },
      { type: 'applyRow', index: Number.NaN },
      { type: 'applyRow', index: Infinity },
      { type: 'openReport' },
      { type: 'openReport', kind: 'html' },
      { type: 'openReport', kind: '../../etc/passwd' },
      { type: { toString: () => 'cancel' } },
    ];
    for (const m of bad) assert.equal(isSweepWebviewMessage(m), false, String(JSON.stringify(m)));
  });
});

describe("a sweep row's proposed edit", () => {
  it('changes only the values the row differs in, under the spelling the file uses', () => {
    const row = { flags: { '--fp4-gemm-backend': 'flashinfer_cudnn', '--moe-runner-backend': 'flashinfer_cutlass' } };
    const changes = rowChanges(AXES, row);
    assert.deepEqual(changes, [
      { flag: '--fp4-gemm-backend', aliases: ['--fp4-gemm-runner-backend'], value: 'flashinfer_cudnn' },
      { flag: '--moe-runner-backend', value: 'flashinfer_cutlass' },
    ]);
    const next = applyTextEdits(SCRIPT, proposedLaunchEdits(SCRIPT, 'shellscript', changes));
    assert.equal(
      next,
      SCRIPT.replace(
        '--fp4-gemm-runner-backend flashinfer_cutlass --tp 2',
        '--fp4-gemm-runner-backend flashinfer_cudnn --tp 2 --moe-runner-backend flashinfer_cutlass',
      ),
    );
  });

  it('proposes nothing when the file already launches with the row', () => {
    const row = { flags: { '--fp4-gemm-backend': 'flashinfer_cutlass' } };
    assert.deepEqual(proposedLaunchEdits(SCRIPT, 'shellscript', rowChanges(AXES.slice(0, 1), row)), []);
  });

  it('quotes a value the shell would split, and writes list items in a YAML command', () => {
    const odd = { flags: { '--fp4-gemm-backend': 'a b;$(rm -rf ~)' } };
    const next = applyTextEdits(SCRIPT, proposedLaunchEdits(SCRIPT, 'shellscript', rowChanges(AXES.slice(0, 1), odd)));
    const cmd = launchCommandOf(next, 'shellscript');
    assert.ok(cmd);
    const arg = cmd.args.find((a) => a.name === '--fp4-gemm-runner-backend');
    assert.deepEqual(
      arg?.values?.map((v) => v.value),
      ['a b;$(rm -rf ~)'],
    );

    const yaml = [
      'services:',
      '  sglang:',
      '    command:',
      '      - python3',
      '      - -m',
      '      - sglang.launch_server',
      '      - --model-path',
      '      - m',
      '      - --fp4-gemm-backend',
      '      - flashinfer_cutlass',
      '',
    ].join('\n');
    const edited = applyTextEdits(
      yaml,
      proposedLaunchEdits(yaml, 'yaml', rowChanges(AXES, { flags: { '--fp4-gemm-backend': 'flashinfer_cudnn', '--moe-runner-backend': 'triton' } })),
    );
    assert.equal(edited, yaml.replace('- flashinfer_cutlass\n', '- flashinfer_cudnn\n      - --moe-runner-backend\n      - triton\n'));
  });

  it('says so when the file no longer holds a launch command', () => {
    assert.throws(
      () => proposedLaunchEdits('#!/bin/sh\necho hi\n', 'shellscript', rowChanges(AXES, { flags: { '--moe-runner-backend': 'triton' } })),
      /No SGLang or vLLM launch command/,
    );
  });

  it("heads the matrix with each axis's value before the sweep", () => {
    assert.deepEqual(axisViews(AXES, launchCommandOf(SCRIPT, 'shellscript')), [
      { flag: '--fp4-gemm-backend', values: ['flashinfer_cutlass', 'flashinfer_cudnn'], current: 'flashinfer_cutlass' },
      { flag: '--moe-runner-backend', values: ['triton', 'flashinfer_cutlass'] },
    ]);
  });
});

describe('flags the sweep offers', () => {
  const knownBad = (data: unknown, code: DiagnosticLike['code'] = { value: 'known-bad' }): DiagnosticLike => ({ source: 'inference-doctor', code, data });
  const fixData = {
    fixes: [
      {
        title: 'Apply fix: Use the cuDNN FP4 GEMM',
        edits: [],
        summary: 'Use the cuDNN FP4 GEMM',
        changes: [
          { flag: '--fp4-gemm-backend', aliases: ['--fp4-gemm-runner-backend'], value: 'flashinfer_cudnn' },
          { flag: '--disable-cuda-graph', value: true },
        ],
      },
      { title: 'Apply fix: Marlin', edits: [], summary: 'Use Marlin', changes: [{ flag: '--fp4-gemm-backend', value: 'marlin' }] },
    ],
  };

  it("reads the flags known issues' fixes set, and nothing from other diagnostics or malformed data", () => {
    const s = knownIssueSuggestions([
      knownBad(fixData),
      knownBad(fixData, 'known-bad'),
      { source: 'inference-doctor', code: 'unknown-flag', data: { fixes: [{ title: 'x', changes: [{ flag: '--tp', value: '1' }] }] } },
      { source: 'someone-else', code: 'known-bad', data: { fixes: [{ title: 'x', changes: [{ flag: '--evil', value: '1' }] }] } },
      knownBad(null),
      knownBad({ fixes: 'no' }),
      knownBad({ fixes: [null, { title: 1 }, { title: 't', changes: [{ flag: 3, value: 'x' }, { flag: '--ok' }] }] }),
    ]);
    assert.deepEqual(s, [
      {
        flag: '--fp4-gemm-backend',
        aliases: ['--fp4-gemm-runner-backend'],
        values: ['flashinfer_cudnn', 'marlin'],
        why: ['Use the cuDNN FP4 GEMM', 'Use Marlin'],
      },
    ]);
  });

  it('puts suggested flags first with the current value and the catalog choices, then backend flags by name', () => {
    const entries = [
      entry('--tp-size', undefined, { aliases: ['--tp'] }),
      entry('--moe-runner-backend', ['auto', 'triton', 'flashinfer_cutlass']),
      entry('--attention-backend', ['flashinfer', 'triton', 'trtllm_mha']),
      entry('--fp4-gemm-backend', ['auto', 'flashinfer_cutlass', 'flashinfer_cudnn', 'marlin'], { aliases: ['--fp4-gemm-runner-backend'] }),
      entry('--log-level', ['info', 'debug']),
      entry('--enable-x', undefined),
      entry('--old-backend', ['a', 'b'], { deprecated: true }),
    ];
    const options = sweepFlagOptions(entries, knownIssueSuggestions([knownBad(fixData)]), launchCommandOf(SCRIPT, 'shellscript'));
    assert.deepEqual(
      options.map((o) => o.flag),
      ['--fp4-gemm-backend', '--attention-backend', '--moe-runner-backend'],
    );
    const [fp4] = options;
    assert.equal(fp4.current, 'flashinfer_cutlass', 'read under the old spelling the file uses');
    assert.deepEqual(fp4.choices, ['auto', 'flashinfer_cutlass', 'flashinfer_cudnn', 'marlin']);
    assert.deepEqual(preselectedValues(fp4), ['flashinfer_cutlass', 'flashinfer_cudnn', 'marlin'], 'the baseline and the fixes');
    assert.equal(options[1].current, undefined);
    assert.deepEqual(preselectedValues(options[1]), []);
  });

  it('offers a suggested flag the catalog does not know, with the values the fixes and the file name', () => {
    const options = sweepFlagOptions([], knownIssueSuggestions([knownBad(fixData)]), launchCommandOf(SCRIPT, 'shellscript'));
    assert.equal(options.length, 1);
    assert.deepEqual(options[0].choices, ['flashinfer_cudnn', 'marlin', 'flashinfer_cutlass']);
  });
});
