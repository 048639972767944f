/**
 * The detector on real outputs (test/corpus/real/outputs.jsonl): answers people pasted into
 * public threads, each with its source link, label and shape. Thresholds were chosen on the
 * `tune` split only; `validation` is scored, never tuned on. The floors below are what the
 * detector reaches today, so a change that loses ground fails here; the issue's goal (recall
 * 0.90 on validation) is printed beside them.
 */
import assert from 'node:assert/strict';
import { createDetector, detect } from '../../src/core/detect';
import type { DetectorOptions, FinishInfo, Verdict } from '../../src/core/detect';
import { loadRealCases, type RealCase } from '../corpus/real/realCase';
import { score } from '../corpus/score';

function finishOf(c: RealCase): FinishInfo {
  return { finishReason: c.finish_reason ?? null, matchedStop: c.matched_stop ?? null };
}

/** What a probe would know besides the text: the prompt, where the thread shows it. */
function optionsOf(c: RealCase): DetectorOptions {
  return c.prompt === undefined ? {} : { prompt: c.prompt };
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

/**
 * Floors per split (recall) and false-positive ceilings, at the measured figures where they miss
 * their goal: a change may not make them worse. The goals are printed beside them.
 *
 * Validation's false positives rose with the healthy outputs each corpus round added: 2/205, then
 * 3/213 and 3/222 (rounds of 2026-12-06), 4/235, 4/251, 5/260, 5/276, 5/288, 5/295 and 6/309
 * (rounds of 2026-12-07), above the goal of 1%. Its ceiling is that figure, and tuning may not
 * look at which outputs those are. Tune's 2/373 are within the goal: one base-model continuation
 * that says its first two sentences twice, pasted twice. The last rounds lowered both recalls
 * (their broken outputs are missed more often than the corpus's), hence the lower floors.
 */
const FLOOR = { tune: 0.715, validation: 0.61 } as const;
const MAX_FPR = { tune: 0.01, validation: 0.02 } as const;
const GOAL_RECALL = 0.9;
const GOAL_FPR = 0.01;

describe('detector on real outputs from public threads', function () {
  this.timeout(60_000);
  const cases = loadRealCases();
  const verdicts = new Map<string, Verdict>();
  before(() => {
    for (const c of cases) verdicts.set(c.id, detect(c.text, finishOf(c), undefined, optionsOf(c)));
  });

  it('holds real outputs with a source thread, a label and a shape, and keeps each thread on one side', () => {
    assert.ok(cases.length >= 400, `${cases.length} outputs`);
    const ids = new Set<string>();
    const sideOf = new Map<string, string>();
    for (const c of cases) {
      assert.ok(!ids.has(c.id), `duplicate id ${c.id}`);
      ids.add(c.id);
      assert.match(c.source, /^https:\/\/github\.com\/[^/]+\/[^/]+\/(issues|pull|discussions)\/\d+/, c.id);
      assert.ok(['nan', 'degenerate', 'healthy'].includes(c.label), c.id);
      assert.ok(c.shape.length > 0 && c.text.trim().length >= 8, c.id);
      const thread = c.source.replace(/#.*$/, '');
      const side = sideOf.get(thread);
      assert.ok(side === undefined || side === c.split, `thread ${thread} is on both sides`);
      sideOf.set(thread, c.split);
    }
    for (const split of ['tune', 'validation'] as const) {
      const healthy = cases.filter((c) => c.split === split && c.label === 'healthy').length;
      const broken = cases.filter((c) => c.split === split && c.label !== 'healthy' && !c.scope).length;
      assert.ok(healthy >= 60 && broken >= 100, `${split}: ${healthy} healthy, ${broken} broken`);
    }
    const hard = new Set(cases.filter((c) => c.label === 'healthy').map((c) => c.shape));
    for (const shape of [
      'healthy-table',
      'healthy-list',
      'healthy-code',
      'healthy-non-english',
      'healthy-reasoning',
      'healthy-base-continuation',
      'healthy-short',
    ]) {
      assert.ok(hard.has(shape), `no healthy ${shape}`);
    }
  });

  for (const split of ['tune', 'validation'] as const) {
    it(`${split} split: recall at or above ${FLOOR[split]}, false positives at most ${MAX_FPR[split]}`, () => {
      const scored = cases.filter((c) => c.split === split && !c.scope);
      const flagged = (c: RealCase): boolean => verdicts.get(c.id)!.kind !== 'ok';
      const { recall, fpr, tp, fn, fp, tn } = score(scored.map((c) => ({ broken: c.label !== 'healthy', flagged: flagged(c) })));
      const missedShapes = new Map<string, number>();
      for (const c of scored) if (c.label !== 'healthy' && !flagged(c)) missedShapes.set(c.shape, (missedShapes.get(c.shape) ?? 0) + 1);
      const falseAlarms = scored
        .filter((c) => c.label === 'healthy' && flagged(c))
        .map(
          (c) =>
            `${c.id} ${c.shape}: ${verdicts
              .get(c.id)!
              .reasons.map((r) => r.code)
              .join(',')}`,
        );
      console.log(
        `      ${split}: recall ${pct(recall)} (${tp}/${tp + fn}; goal ${pct(GOAL_RECALL)}), false positives ${pct(fpr)} (${fp}/${fp + tn}; goal at most ${pct(GOAL_FPR)})`,
      );
      // What the panel shows: a suspect is marked on the answer even where the verdict stays ok.
      const marked = (c: RealCase): boolean => verdicts.get(c.id)!.reasons.length > 0;
      const withSuspects = score(scored.map((c) => ({ broken: c.label !== 'healthy', flagged: marked(c) })));
      console.log(
        `      ${split}, suspects counted: broken ${withSuspects.tp}/${withSuspects.tp + withSuspects.fn} marked, healthy ${withSuspects.fp}/${withSuspects.fp + withSuspects.tn} marked`,
      );
      if (split === 'tune') {
        console.log(
          `      missed shapes: ${[...missedShapes]
            .sort((a, b) => b[1] - a[1])
            .map(([s, n]) => `${s} ${n}`)
            .join(', ')}`,
        );
      }
      for (const f of falseAlarms) console.log(`      false alarm ${f}`);
      assert.ok(fpr <= MAX_FPR[split], `false-positive rate ${pct(fpr)} above the ceiling ${pct(MAX_FPR[split])}`);
      assert.ok(recall >= FLOOR[split], `recall ${pct(recall)} below the floor ${pct(FLOOR[split])}`);
    });
  }

  it('gives NaN floods of token 0 the nan kind, however short', () => {
    // The other NaN outputs (a token-id walk, say) show nothing in the text that says NaN.
    const floods = cases.filter((x) => x.label === 'nan' && x.shape === 'token0-flood');
    assert.ok(floods.length >= 2);
    for (const c of floods) {
      const v = verdicts.get(c.id)!;
      if (v.kind !== 'ok') assert.equal(v.kind, 'nan', `${c.id}: ${v.reasons.map((r) => r.code).join(',')}`);
    }
  });

  it('reaches the same verdict and reasons streamed in token-sized pieces as in one piece', () => {
    const mismatches: string[] = [];
    for (const c of cases) {
      const d = createDetector(optionsOf(c));
      for (let i = 0, n = 1; i < c.text.length; i += n, n = 1 + ((i * 7) % 9)) d.push({ text: c.text.slice(i, i + n) });
      const streamed = d.finish(finishOf(c));
      const whole = verdicts.get(c.id)!;
      const key = (v: Verdict): string => `${v.kind}:${v.reasons.map((r) => `${r.code}/${r.kind}`).join(',')}`;
      if (key(streamed) !== key(whole)) mismatches.push(`${c.id}: streamed ${key(streamed)}, whole ${key(whole)}`);
    }
    assert.deepEqual(mismatches.slice(0, 5), []);
  });

  it('never lets a suspect alone change the verdict', () => {
    for (const c of cases) {
      const v = verdicts.get(c.id)!;
      if (v.reasons.length && v.reasons.every((r) => r.kind === 'suspect')) {
        assert.equal(v.kind, 'ok', c.id);
        assert.equal(v.onset, null, c.id);
      }
    }
  });
});
