/**
 * Accuracy of the degenerate-output detector on the labelled corpus (test/corpus/corpus.jsonl,
 * built by test/corpus/build-corpus.ts from real files plus seeded degenerate cases), beside
 * Whisper's compression-ratio rule (zlib ratio > 2.4 on the whole text) on the same cases.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDetector, detectRecord, parseJsonLenient, tokensFromLogprobs } from '../../src/core/detect';
import type { DetectRecordResult, FinishInfo, VerdictKind } from '../../src/core/detect';
import type { CorpusCase } from '../corpus/corpusCase';
import { score, whisperFlags } from '../corpus/score';

const CORPUS = join(__dirname, '..', 'corpus', 'corpus.jsonl');

function loadCorpus(): CorpusCase[] {
  return readFileSync(CORPUS, 'utf8')
    .split('\n')
    .filter((l) => l.trim().length > 0)
    .map((l) => parseJsonLenient(l) as CorpusCase);
}

function isOk(r: DetectRecordResult): r is Extract<DetectRecordResult, { verdict: VerdictKind }> {
  return 'verdict' in r;
}

const pct = (x: number): string => `${(100 * x).toFixed(2)}%`;

describe('detector accuracy on the labelled corpus', function () {
  this.timeout(120_000);
  const cases = loadCorpus();
  const results = new Map<string, DetectRecordResult>();
  before(() => {
    for (const c of cases) results.set(c.id, detectRecord(c));
  });

  it('has at least 800 cases, healthy ones from real files and every degenerate shape', () => {
    assert.ok(cases.length >= 800, `corpus has ${cases.length} cases`);
    const healthy = cases.filter((c) => c.label === 'ok');
    assert.ok(healthy.length >= 400, `${healthy.length} healthy cases`);
    const fromFiles = healthy.filter((c) => typeof c.source === 'string' && c.source.includes(':/'));
    assert.ok(fromFiles.length >= healthy.length * 0.95, 'healthy cases name the real file they come from');
    const shapes = new Set(cases.map((c) => c.shape.replace(/-(words|cjk|fixed|line|structural|sentence|paragraph|other|ids|logprobs)$/, '')));
    for (const s of [
      'token0-run',
      'nan-marker',
      'nan-logprob',
      'char-flood',
      'short-loop',
      'long-loop',
      'token-salad',
      'empty',
      'length-repetition',
      'tool-calls-missing',
    ]) {
      assert.ok(shapes.has(s), `corpus lacks shape ${s}`);
    }
  });

  it('parses every record without an error object', () => {
    const errors = [...results].filter(([, r]) => !isOk(r));
    assert.deepEqual(errors.slice(0, 5), []);
  });

  it("reaches recall >= 0.99 and false-positive rate <= 0.01, and beats Whisper's 2.4 rule on both", () => {
    const ours = score(
      cases.map((c) => {
        const r = results.get(c.id)!;
        return { broken: c.label !== 'ok', flagged: isOk(r) && r.verdict !== 'ok' };
      }),
    );
    const whisper = score(cases.map((c) => ({ broken: c.label !== 'ok', flagged: whisperFlags(c.text) })));
    const missed = cases.filter((c) => c.label !== 'ok' && (results.get(c.id) as { verdict?: string }).verdict === 'ok');
    const falseAlarms = cases.filter((c) => c.label === 'ok' && (results.get(c.id) as { verdict?: string }).verdict !== 'ok');
    console.log(`      detector: recall ${pct(ours.recall)} (${ours.tp}/${ours.tp + ours.fn}), FPR ${pct(ours.fpr)} (${ours.fp}/${ours.fp + ours.tn})`);
    console.log(
      `      whisper compression > 2.4: recall ${pct(whisper.recall)} (${whisper.tp}/${whisper.tp + whisper.fn}), FPR ${pct(whisper.fpr)} (${whisper.fp}/${whisper.fp + whisper.tn})`,
    );
    for (const c of missed) console.log(`      missed ${c.id} ${c.shape}`);
    for (const c of falseAlarms)
      console.log(`      false alarm ${c.id} ${c.source ?? c.shape}: ${(results.get(c.id) as { reasons: string[] }).reasons.join(',')}`);
    assert.ok(ours.recall >= 0.99, `recall ${pct(ours.recall)}`);
    assert.ok(ours.fpr <= 0.01, `false-positive rate ${pct(ours.fpr)}`);
    assert.ok(ours.recall > whisper.recall, "recall beats Whisper's rule");
    assert.ok(ours.fpr < whisper.fpr, "false-positive rate beats Whisper's rule");
  });

  it('gives the NaN shapes the nan kind and the others degenerate', () => {
    let right = 0;
    let total = 0;
    const wrong: string[] = [];
    for (const c of cases) {
      if (c.label === 'ok') continue;
      const r = results.get(c.id)!;
      if (!isOk(r) || r.verdict === 'ok') continue;
      total++;
      if (r.verdict === c.label) right++;
      else wrong.push(`${c.id} ${c.shape}: ${r.verdict}`);
    }
    console.log(`      kind agreement on flagged cases: ${pct(right / total)} (${right}/${total})`);
    assert.ok(right / total >= 0.98, `kind agreement ${pct(right / total)}; e.g. ${wrong.slice(0, 5).join('; ')}`);
  });

  it('gives the same verdict kind streamed in random small deltas as in one piece', () => {
    let seed = 12345;
    const rand = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 4294967296;
    };
    const mismatches: string[] = [];
    for (const c of cases) {
      const tokens = tokensFromLogprobs(c.logprobs);
      if (typeof tokens === 'string') continue;
      const opts = c.token0_text ? { token0Text: c.token0_text } : {};
      const finish: FinishInfo = { finishReason: c.finish_reason ?? null, matchedStop: c.matched_stop ?? null };
      if (Array.isArray(c.tool_calls)) finish.toolCallCount = c.tool_calls.length;
      const d = createDetector(opts);
      let i = 0;
      while (i < c.text.length) {
        const n = 1 + Math.floor(rand() * 12);
        d.push({ text: c.text.slice(i, i + n) });
        i += n;
      }
      if (tokens.length) d.push({ tokens });
      const streamed = d.finish(finish).kind;
      const oneShot = (results.get(c.id) as { verdict?: string }).verdict;
      if (streamed !== oneShot) mismatches.push(`${c.id}: streamed ${streamed}, one-shot ${oneShot}`);
    }
    assert.deepEqual(mismatches.slice(0, 10), []);
  });
});
