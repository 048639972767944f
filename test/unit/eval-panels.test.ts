/**
 * What the Accuracy Smoke Test and reference check panels rest on outside VS Code: the page
 * message checks of both protocols, the live tally by difficulty, the eval settings as a run takes
 * them, and the accuracy test history kept beside the probe history.
 */
import { strict as assert } from 'node:assert';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evalSettings } from '../../src/core/eval/asProbe';
import { EvalHistoryStore, MAX_NAMED_ANSWERS } from '../../src/core/eval/history';
import { generateProblems } from '../../src/core/eval/problems';
import { summarise } from '../../src/core/eval/report';
import type { EvalRun, ProblemResult } from '../../src/core/eval/run';
import { HistoryStore } from '../../src/core/history';
import { COMPARE_MESSAGE_TYPES, isCompareWebviewMessage } from '../../src/shared/compareProtocol';
import { addToTally, emptyTally, EVAL_MESSAGE_TYPES, isEvalWebviewMessage } from '../../src/shared/evalProtocol';

function results(n: number, wrongEvery: number): ProblemResult[] {
  return generateProblems('mixed', n, 3).map((problem, i) => {
    const wrong = i % wrongEvery === 0;
    return {
      problem,
      outcome: wrong ? 'wrong' : 'correct',
      given: wrong ? problem.answer + 1 : problem.answer,
      source: 'answer-line',
      verdict: 'ok',
      reasons: [],
      answerTail: `Answer: ${wrong ? problem.answer + 1 : problem.answer}`,
      durationMs: 10,
      ttftMs: 5,
    };
  });
}

function run(rs: ProblemResult[]): EvalRun {
  const counts = { correct: 0, wrong: 0, invalid: 0, errors: 0 };
  for (const r of rs)
    if (r.outcome === 'error') counts.errors++;
    else counts[r.outcome]++;
  return {
    url: 'http://127.0.0.1:1',
    suite: 'mixed',
    seed: 3,
    n: rs.length,
    model: 'm',
    status: 'completed',
    results: rs,
    counts,
    startedAt: '',
    durationMs: 5,
  };
}

describe('eval and compare panel protocols', () => {
  it('accept each page message of their own, with nothing else in it', () => {
    for (const type of EVAL_MESSAGE_TYPES) assert.ok(isEvalWebviewMessage({ type }), type);
    for (const type of COMPARE_MESSAGE_TYPES) assert.ok(isCompareWebviewMessage({ type }), type);
    assert.deepEqual([...COMPARE_MESSAGE_TYPES].sort(), ['diagnose', 'ready', 'runAgain', 'stop']);
    const refused: unknown[] = [
      null,
      'stop',
      [],
      {},
      { type: 'stop', extra: 1 },
      { type: 'saveBaseline', path: '/etc/passwd' },
      { type: 'toString' },
      { type: '__proto__' },
      { type: 'openSource', url: 'https://github.com/x/y' },
    ];
    for (const m of refused) {
      assert.equal(isEvalWebviewMessage(m), false, JSON.stringify(m));
      assert.equal(isCompareWebviewMessage(m), false, JSON.stringify(m));
    }
    assert.equal(isCompareWebviewMessage({ type: 'saveBaseline' }), false, 'an eval message is not a compare one');
  });

  it('the tally counts graded answers per difficulty and leaves failed requests out', () => {
    const rs = results(12, 3);
    const errored: ProblemResult = { ...rs[0], outcome: 'error', given: null, source: 'none' };
    const tally = emptyTally();
    for (const r of [...rs, errored]) addToTally(tally, r);
    for (const d of ['easy', 'medium', 'hard'] as const) {
      const mine = rs.filter((r) => r.problem.difficulty === d);
      assert.deepEqual(tally[d], { graded: mine.length, correct: mine.filter((r) => r.outcome === 'correct').length });
    }
    assert.equal(tally.easy.graded + tally.medium.graded + tally.hard.graded, 12);
  });

  it('evalSettings keeps what a run can take: a known suite, n and concurrency in range', () => {
    assert.deepEqual(evalSettings({ suite: 'word', problems: 40.7, concurrency: 4 }), { suite: 'word', n: 40, concurrency: 4 });
    assert.deepEqual(evalSettings({ suite: 'gsm8k', problems: 0, concurrency: 10_000 }), { suite: 'mixed', n: 1, concurrency: 256 });
    assert.deepEqual(evalSettings({ suite: 'arithmetic', problems: 1e9, concurrency: Number.NaN }), { suite: 'arithmetic', n: 5000, concurrency: 1 });
  });
});

describe('EvalHistoryStore', () => {
  let root: string;
  beforeEach(async () => {
    root = await fs.mkdtemp(join(tmpdir(), 'eval-history-test-'));
  });
  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  it('keeps runs beside the probe history, summarised, with the named answers bounded', async () => {
    const report = summarise(run(results(300, 2)));
    assert.ok(report.wrongAnswers.length > MAX_NAMED_ANSWERS);
    const store = new EvalHistoryStore(root);
    const stored = await store.add({ serverId: 's1', serverLabel: 'gpu-box', startedAt: 1_700_000_000_000, report, baselineLabel: 'b.json' });
    const [summary] = await store.list();
    assert.deepEqual(summary, {
      id: stored.id,
      serverLabel: 'gpu-box',
      startedAt: 1_700_000_000_000,
      suite: 'mixed',
      n: 300,
      model: 'm',
      accuracy: report.accuracy,
      pass: false,
      status: 'completed',
    });
    const back = await new EvalHistoryStore(root).get(stored.id);
    assert.equal(back?.report.wrongAnswers.length, MAX_NAMED_ANSWERS);
    assert.deepEqual(back?.report.counts, report.counts, 'the counts keep every answer');
    assert.equal(back?.baselineLabel, 'b.json');
    assert.deepEqual(await new HistoryStore(root).list(), [], 'the probe history does not see accuracy tests');
    assert.deepEqual((await fs.readdir(root)).sort(), ['eval-history', 'probe-history'], 'each kind in its own folder');
  });

  it('skips and reports a file that is not an accuracy test, and prunes to maxEntries', async () => {
    const reported: string[] = [];
    const store = new EvalHistoryStore(root, { maxEntries: 2, onCorrupt: (file) => reported.push(file) });
    const report = summarise(run(results(9, 1000)));
    for (const t of [1, 2, 3]) await store.add({ serverId: 's', serverLabel: 'x', startedAt: 1_700_000_000_000 + t, report });
    assert.deepEqual(
      (await store.list()).map((s) => s.startedAt),
      [1_700_000_000_003, 1_700_000_000_002],
    );
    const bad = join(store.dir, '1700000000009-bad.json');
    await fs.writeFile(bad, JSON.stringify({ id: 'bad', serverId: 's', serverLabel: 'x', startedAt: 1, report: { suite: 'mixed' } }));
    assert.equal((await store.list()).length, 2);
    assert.deepEqual(reported, [bad]);
    assert.equal((await store.list())[0].pass, true);
  });
});
