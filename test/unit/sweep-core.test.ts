import assert from 'node:assert/strict';
import { combinations, MAX_COMBINATIONS, sweepMarkdown, tellingLines } from '../../src/core/fix/sweep';

describe('sweep core: combinations, log lines, the Markdown matrix', () => {
  it('every combination of the axes, in axis order', () => {
    assert.deepEqual(
      combinations([
        { flag: '--a', values: ['1', '2'] },
        { flag: '--b', values: ['x', 'y', 'z'] },
      ]).map((c) => `${c['--a']}${c['--b']}`),
      ['1x', '1y', '1z', '2x', '2y', '2z'],
    );
    assert.ok(MAX_COMBINATIONS >= 16);
  });

  it('the log lines that say why a start failed, not the start-up banner', () => {
    const log = [
      "[2026-12-01 19:13:15] server_args=ServerArgs(model_path='m', device='cuda', nnodes=1)",
      '[2026-12-01 19:13:15 TP0] Capture cuda graph begin. This can take up to several minutes.',
      '[2026-12-01 19:13:16 TP0] Load weight end. type=Qwen3MoeForCausalLM',
      '[2026-12-01 19:13:17 TP0] Scheduler hit an exception: Traceback (most recent call last):',
      'RuntimeError: CUDA error: no kernel image is available for execution on the device',
      '[2026-12-01 19:13:18 TP0] Detected errors during sampling! NaN in the logits.',
      '[2026-12-01 19:13:18] INFO:     127.0.0.1:40114 - "POST /generate HTTP/1.1" 200 OK',
    ].join('\n');
    assert.deepEqual(tellingLines(log), [
      '[2026-12-01 19:13:17 TP0] Scheduler hit an exception: Traceback (most recent call last):',
      'RuntimeError: CUDA error: no kernel image is available for execution on the device',
      '[2026-12-01 19:13:18 TP0] Detected errors during sampling! NaN in the logits.',
    ]);
  });

  it('the Markdown matrix keeps foreign text inert and says whether the launch was restored', () => {
    const md = sweepMarkdown('run|x.sh', [{ flag: '--b', values: ['a|b'] }], {
      rows: [
        { flags: { '--b': 'a|b' }, started: false, verdict: 'error', reasons: [], ttftMs: null, tokensPerSecond: null, error: '[x](command:evil) *bold*' },
      ],
      complete: false,
      restored: false,
      restoreError: 'disk full',
    });
    assert.ok(!/\[x\]\(command/.test(md), md);
    assert.match(md, /NOT restored: disk full/);
    assert.match(md, /stopped before every combination ran/);
    const table = md.split('\n').filter((l) => l.startsWith('|'));
    const cells = (l: string): number => l.replace(/\\\|/g, '').split('|').length;
    assert.equal(table.length, 3, 'head, rule, one row');
    assert.equal(cells(table[2]), cells(table[0]), 'the pipe in a value did not split a cell');
  });
});
