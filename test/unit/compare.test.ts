import { strict as assert } from 'node:assert';
import { alignAnswers, firstDifference, tokenAt, tokenStarts, topKJaccard } from '../../src/core/compare/align';
import { sideBySide, visibleLine } from '../../src/core/compare/format';
import { COMPARE_PROMPTS, promptSet } from '../../src/core/compare/prompts';
import { judgeAnswer, readAnswer, type Greedy } from '../../src/core/compare/request';
import { comparePair } from '../../src/core/compare/run';
import type { Alignment, PromptComparison, SideReport, TokenLogprob } from '../../src/core/compare/types';
import { earlyNeeded, judgeRun, THRESHOLDS } from '../../src/core/compare/verdict';
import { parsePyJson } from '../../src/core/pyjson';
import { planAnswer, type SimToken } from '../../src/sim/answers';
import { topAlternatives, withDrift } from '../../src/sim/drift';

/** Tokens from texts, logprobs and optional top-K texts (each alternative 1 nat behind unless given). */
function toks(texts: string[], logprobs: (number | null)[] = [], tops: (string[] | undefined)[] = []): TokenLogprob[] {
  return texts.map((text, i) => {
    const logprob = logprobs[i] === undefined ? -0.1 : logprobs[i];
    const top = (tops[i] ?? []).map((t, j) => ({ text: t, logprob: j === 0 ? logprob : (logprob ?? 0) - j }));
    return { text, logprob, top };
  });
}

const side = (text: string, tokens: TokenLogprob[] | null) => ({ text, tokens });

describe('compare: alignment', () => {
  it('firstDifference: equal, prefix, middle, and never inside a surrogate pair', () => {
    assert.equal(firstDifference('abc', 'abc'), null);
    assert.equal(firstDifference('abc', 'abcd'), 3);
    assert.equal(firstDifference('abXd', 'abYd'), 2);
    assert.equal(firstDifference('a😀', 'a😃'), 1); // same high surrogate, low ones differ: point at the character
  });

  it('tokenAt finds the token holding a character, and the count at the end', () => {
    const starts = tokenStarts([{ text: 'He' }, { text: 'llo' }, { text: '' }, { text: ' you' }]);
    assert.deepEqual(starts, [0, 2, 5, 5, 9]);
    assert.equal(tokenAt(starts, 0), 0);
    assert.equal(tokenAt(starts, 4), 1);
    assert.equal(tokenAt(starts, 5), 3); // the empty token holds nothing
    assert.equal(tokenAt(starts, 9), 4);
  });

  it('identical tokens: identical, full agreement, zero distance', () => {
    const t = toks(
      ['Hello', ',', ' world'],
      [-0.1, -0.2, -0.3],
      [
        ['Hello', 'Hi'],
        [',', '!'],
        [' world', ' there'],
      ],
    );
    const al = alignAnswers(side('', t), side('', t));
    assert.equal(al.mode, 'tokens');
    assert.equal(al.identical, true);
    assert.equal(al.divergence, null);
    assert.equal(al.agreement, 1);
    assert.equal(al.compared, 3);
    assert.equal(al.logprobMeanAbs, 0);
    assert.equal(al.topKOverlap, 1);
  });

  it('same tokenizer, one token differs: index, agreement over the common length, metrics before the split', () => {
    const a = toks(['The', ' cat', ' sat', ' down'], [-0.1, -0.5, -0.2, -0.1]);
    const b = toks(['The', ' cat', ' ran', ' down'], [-0.2, -0.25, -0.9, -0.1]);
    const al = alignAnswers(side('', a), side('', b));
    assert.equal(al.mode, 'tokens');
    assert.deepEqual(al.divergence, { char: 8, tokenA: 2, tokenB: 2, nearTie: null });
    assert.equal(al.agreement, 3 / 4);
    assert.equal(al.compared, 2);
    assert.ok(Math.abs((al.logprobMeanAbs ?? 0) - (0.1 + 0.25) / 2) < 1e-12);
    assert.ok(Math.abs((al.logprobMax ?? 0) - 0.25) < 1e-12);
  });

  it('one answer a prefix of the other: the split is where the shorter one ends', () => {
    const al = alignAnswers(side('', toks(['a', 'b'])), side('', toks(['a', 'b', 'c'])));
    assert.deepEqual(al.divergence, { char: 2, tokenA: 2, tokenB: 2, nearTie: null });
    assert.equal(al.agreement, 1);
  });

  it('different tokenizations of the same text: identical, compared by spans', () => {
    const a = toks([' hel', 'lo', ' world'], [-0.1, -0.1, -0.4]);
    const b = toks([' hello', ' world'], [-0.2, -0.3]);
    const al = alignAnswers(side('', a), side('', b));
    assert.equal(al.mode, 'spans');
    assert.equal(al.identical, true);
    assert.equal(al.compared, 1); // only " world" has the same span on both sides
    assert.ok(Math.abs((al.logprobMeanAbs ?? 0) - 0.1) < 1e-12);
    assert.equal(al.agreement, 1 / 2);
  });

  it('different tokenizations that diverge: the first differing character mapped to each side’s token', () => {
    const a = toks([' hel', 'lo', ' world', ' again']);
    const b = toks([' hello', ' world', ' there']);
    const al = alignAnswers(side('', a), side('', b));
    assert.equal(al.mode, 'spans');
    assert.equal(al.divergence?.char, 13); // " hello world " is shared, then "a" / "t"
    assert.equal(al.divergence?.tokenA, 3);
    assert.equal(al.divergence?.tokenB, 2);
    assert.equal(al.compared, 1);
  });

  it('a tokenizer that splits where the other does not, before the texts differ, is not taken for a split', () => {
    const a = toks(['ab', 'c', 'd']);
    const b = toks(['a', 'bc', 'x']);
    const al = alignAnswers(side('', a), side('', b));
    assert.equal(al.mode, 'spans');
    assert.equal(al.divergence?.char, 3);
    assert.equal(al.divergence?.tokenA, 2);
    assert.equal(al.divergence?.tokenB, 2);
  });

  it('near tie: the other side’s token close behind in the top-K; far behind is no tie; no lists: unknown', () => {
    const mk = (gap: number): TokenLogprob[] => [
      {
        text: ' big',
        logprob: -0.6,
        top: [
          { text: ' big', logprob: -0.6 },
          { text: ' large', logprob: -0.6 - gap },
        ],
      },
    ];
    const b: TokenLogprob[] = [{ text: ' large', logprob: -0.7, top: [] }];
    assert.equal(alignAnswers(side('', mk(0.2)), side('', b)).divergence?.nearTie, true);
    assert.equal(alignAnswers(side('', mk(2)), side('', b)).divergence?.nearTie, false);
    assert.equal(alignAnswers(side('', toks([' big'])), side('', toks([' large']))).divergence?.nearTie, null);
  });

  it('top-K Jaccard on known sets', () => {
    const t = (xs: string[]) => xs.map((text) => ({ text }));
    assert.equal(topKJaccard(t(['a', 'b', 'c']), t(['b', 'c', 'd'])), 0.5);
    assert.equal(topKJaccard(t(['a']), t(['a'])), 1);
    assert.equal(topKJaccard(t([]), t(['a'])), null);
    // A text listed twice counts once on its side, as in a set.
    assert.equal(topKJaccard(t(['a', 'a', 'b']), t(['b', 'c'])), 1 / 3);
    assert.equal(topKJaccard(t(['x', 'y']), t(['y', 'x', 'y'])), 1);
    const a = toks(
      ['x', 'y'],
      [-0.1, -0.1],
      [
        ['x', 'p', 'q'],
        ['y', 'r'],
      ],
    );
    const b = toks(
      ['x', 'y'],
      [-0.1, -0.1],
      [
        ['x', 'p', 'z'],
        ['y', 's'],
      ],
    );
    assert.ok(Math.abs((alignAnswers(side('', a), side('', b)).topKOverlap ?? 0) - (0.5 + 1 / 3) / 2) < 1e-12);
  });

  it('NaN, ±Infinity and null logprobs are counted apart and left out of the distance', () => {
    const a = toks(['a', 'b', 'c', 'd', 'e'], [-0.1, NaN, -Infinity, null, -0.2]);
    const b = toks(['a', 'b', 'c', 'd', 'e'], [-0.3, -0.1, Infinity, -0.1, NaN]);
    const al = alignAnswers(side('', a), side('', b));
    assert.deepEqual(al.nonFiniteA, { nan: 1, posInf: 0, negInf: 1, missing: 1 });
    assert.deepEqual(al.nonFiniteB, { nan: 1, posInf: 1, negInf: 0, missing: 0 });
    assert.equal(al.logprobPairs, 1);
    assert.ok(Math.abs((al.logprobMeanAbs ?? 0) - 0.2) < 1e-12);
  });

  it('a side without logprobs: the texts alone, split by character', () => {
    const al = alignAnswers(side('Hello there', null), side('Hello world', toks(['Hello', ' world'], [NaN, -1])));
    assert.equal(al.mode, 'text');
    assert.equal(al.divergence?.char, 6);
    assert.equal(al.divergence?.tokenA, null);
    assert.equal(al.agreement, null);
    assert.equal(al.nonFiniteB.nan, 1);
  });

  it('readAnswer takes a body with bare NaN literals (parsed leniently) without crashing', () => {
    const body =
      '{"choices":[{"index":0,"message":{"role":"assistant","content":"!!!!"},"finish_reason":"stop","matched_stop":"NaN happened",' +
      '"logprobs":{"content":[{"token":"!","logprob":NaN,"top_logprobs":[{"token":"!","logprob":NaN},{"token":"?","logprob":-Infinity}]},' +
      '{"token":"!","logprob":NaN,"top_logprobs":[]},{"token":"!!","logprob":null}]}}]}';
    assert.throws(() => JSON.parse(body));
    const answer = readAnswer(parsePyJson(body), 1);
    assert.ok(!('kind' in answer));
    assert.equal(answer.tokens?.length, 3);
    assert.ok(Number.isNaN(answer.tokens?.[0].logprob));
    assert.equal(answer.tokens?.[0].top[1].logprob, -Infinity);
    assert.equal(answer.tokens?.[2].logprob, null);
    assert.equal(judgeAnswer(answer, 'hi').kind, 'nan');
  });

  it('readAnswer reports an error object and a body without choices', () => {
    assert.equal((readAnswer({ error: { message: 'boom' } }, 0) as { kind: string }).kind, 'server');
    assert.equal((readAnswer({ data: [] }, 0) as { kind: string }).kind, 'protocol');
  });
});

const okSide = (extra: Partial<SideReport> = {}): SideReport => ({
  text: 'x',
  tokens: 50,
  finishReason: 'stop',
  verdict: 'ok',
  reasons: [],
  durationMs: 1,
  ...extra,
});

const zero = { nan: 0, posInf: 0, negInf: 0, missing: 0 };

/** A row whose answers part at `split` (null: identical), with mean |Δ| `delta` over 40 shared tokens. */
function row(i: number, split: number | null, delta = 0.01, extra: Partial<Alignment> = {}, sides: Partial<PromptComparison> = {}): PromptComparison {
  const pairs = split ?? 40;
  const alignment: Alignment = {
    mode: 'tokens',
    identical: split === null,
    divergence: split === null ? null : { char: split * 4, tokenA: split, tokenB: split, nearTie: false },
    tokensA: 50,
    tokensB: 50,
    common: 50,
    agreement: split === null ? 1 : split / 50,
    compared: pairs,
    logprobPairs: pairs,
    logprobSumAbs: delta * pairs,
    logprobMeanAbs: pairs ? delta : null,
    logprobMax: pairs ? delta * 2 : null,
    topKOverlap: 1,
    topKPositions: pairs,
    nonFiniteA: { ...zero },
    nonFiniteB: { ...zero },
    ...extra,
  };
  return { index: i, prompt: `p${i}`, a: okSide(), b: okSide(), alignment, ...sides };
}

describe('compare: verdict thresholds', () => {
  it('every prompt the same text: identical', () => {
    const v = judgeRun([row(0, null), row(1, null)]);
    assert.equal(v.verdict, 'identical');
    assert.equal(v.numbers.identical, 2);
  });

  it('late splits with close logprobs: drift', () => {
    const v = judgeRun([row(0, 40), row(1, null), row(2, 25)]);
    assert.equal(v.verdict, 'drift');
    assert.equal(v.numbers.firstDivergenceToken, 25);
    assert.equal(v.numbers.early, 0);
  });

  it('a split at earlyTokens is late, one token before is early', () => {
    const rows = (at: number) => [row(0, at, 0.01), row(1, null), row(2, null)];
    assert.equal(judgeRun(rows(THRESHOLDS.earlyTokens)).verdict, 'drift');
    assert.equal(judgeRun(rows(THRESHOLDS.earlyTokens - 1)).verdict, 'broken');
  });

  it('early splits: broken from earlyShare of the prompts (one is enough below four prompts)', () => {
    assert.equal(earlyNeeded(3), 1);
    assert.equal(earlyNeeded(10), 3);
    const ten = (early: number) => Array.from({ length: 10 }, (_, i) => (i < early ? row(i, 3, 0.01, { logprobPairs: 3 }) : row(i, null)));
    assert.equal(judgeRun(ten(2)).verdict, 'drift');
    assert.equal(judgeRun(ten(3)).verdict, 'broken');
  });

  it('an early split at a near tie does not count as early', () => {
    const tie = row(0, 2, 0.01, { divergence: { char: 8, tokenA: 2, tokenB: 2, nearTie: true } });
    const v = judgeRun([tie, row(1, null)]);
    assert.equal(v.verdict, 'drift');
    assert.equal(v.numbers.earlyNearTie, 1);
  });

  it('far logprobs are broken from farNats; between closeNats and farNats drift with a note', () => {
    assert.equal(judgeRun([row(0, null, THRESHOLDS.farNats)]).verdict, 'broken');
    const mid = judgeRun([row(0, null, 0.3), row(1, 30, 0.3)]);
    assert.equal(mid.verdict, 'drift');
    assert.ok(mid.reasons.some((r) => /more than kernel drift/.test(r)));
  });

  it('far logprobs over fewer than minPairs tokens say nothing', () => {
    assert.equal(judgeRun([row(0, null, 2, { logprobPairs: THRESHOLDS.minPairs - 1, topKPositions: 0, topKOverlap: null })]).verdict, 'identical');
  });

  it('low top-K overlap is broken', () => {
    assert.equal(judgeRun([row(0, null, 0.01, { topKOverlap: 0.3 })]).verdict, 'broken');
  });

  it('NaN logprobs on B, or a detector verdict of nan on B, are broken even when the text agrees', () => {
    const nan = judgeRun([row(0, null, 0.01, { nonFiniteB: { ...zero, nan: 3 } })]);
    assert.equal(nan.verdict, 'broken');
    assert.match(nan.reasons[0], /3 NaN/);
    const bad = judgeRun([row(0, null, 0.01, {}, { b: okSide({ verdict: 'nan', reasons: ['token0-run'] }) })]);
    assert.equal(bad.verdict, 'broken');
    assert.match(bad.reasons[0], /token0-run/);
  });

  it('a prompt without both answers makes the run an error, unless B is broken anyway', () => {
    const failed: PromptComparison = {
      index: 1,
      prompt: 'p',
      a: okSide(),
      b: okSide({ error: { kind: 'unreachable', message: 'Cannot reach' } }),
      alignment: null,
    };
    const v = judgeRun([row(0, null), failed]);
    assert.equal(v.verdict, 'error');
    assert.equal(v.numbers.failed, 1);
    assert.ok(v.reasons.some((r) => /Cannot reach/.test(r)));
    assert.equal(judgeRun([row(0, null, 0.01, { nonFiniteB: { ...zero, nan: 1 } }), failed]).verdict, 'broken');
    assert.equal(judgeRun([]).verdict, 'error');
  });
});

describe('compare: which side the detector judges', () => {
  const answer = (texts: string[]): Greedy => ({
    ok: true,
    answer: { content: texts.join(''), tokens: toks(texts), finishReason: 'length', matchedStop: null, durationMs: 1 },
  });
  const healthy = ['Sure', ',', ' here', ' are', ' the', ' numbers', ':', ' 1', ',', ' 2', ',', ' 3', '.'];

  it('a broken reference is named as such: an early split makes A judged too', () => {
    const row = comparePair(0, 'Count to three.', answer(Array<string>(40).fill('!')), answer(healthy));
    assert.equal(row.a.verdict, 'nan');
    assert.equal(row.b.verdict, 'ok');
    const v = judgeRun([row]);
    assert.equal(v.verdict, 'broken');
    assert.ok(v.reasons.some((r) => /A's \(the reference's\)/.test(r)));
  });

  it('a late split with a healthy B leaves A unjudged', () => {
    const longer = [...healthy, ' Counting', ' upward', ' gives', ' every', ' number', ' exactly', ' once', '.'];
    const row = comparePair(0, 'Count to three.', answer(longer), answer([...longer.slice(0, 18), ' it', '.']));
    assert.equal(row.b.verdict, 'ok');
    assert.equal(row.a.verdict, null);
  });
});

describe('compare: prompts and output', () => {
  it('promptSet takes the first N and comes round with variants, every prompt different', () => {
    assert.deepEqual(promptSet(3), COMPARE_PROMPTS.slice(0, 3));
    const many = promptSet(100);
    assert.equal(many.length, 100);
    assert.equal(new Set(many).size, 100);
    assert.ok(many[COMPARE_PROMPTS.length].startsWith(COMPARE_PROMPTS[0]));
  });

  it('sideBySide keeps both columns aligned and shows controls', () => {
    const lines = sideBySide('a\u202eb\nc'.repeat(30), 'short', ['A', 'B'], 20, 4);
    assert.equal(lines.length, 2 + 4);
    for (const l of lines.slice(2)) assert.equal([...l.split(' │')[0]].length, 20, l);
    assert.ok(lines.join('\n').includes('⟨U+202E⟩'));
    assert.ok(lines[lines.length - 1].includes('…'));
    assert.equal(visibleLine('x\ty\r\nz'), 'x→y↵z');
  });
});

describe('simulator: drift modes and top-K alternatives', () => {
  const healthy = (prompt: string) => [...planAnswer({ behaviour: { behaviour: 'healthy' }, prompt, maxTokens: 128, seed: 7 }).content];

  it('the healthy model is deterministic for a prompt', () => {
    assert.deepEqual(healthy('Count from 1 to 20.'), healthy('Count from 1 to 20.'));
  });

  it('alternatives: K of them, chosen first, descending, distinct, within the probability mass', () => {
    for (const t of healthy('Explain what a KV cache is.').slice(0, 40)) {
      const top = topAlternatives(t, 20);
      assert.equal(top.length, 20);
      assert.equal(top[0].token, t.text);
      assert.equal(new Set(top.map((x) => x.token)).size, 20);
      for (let i = 1; i < top.length; i++) assert.ok(top[i].logprob < top[i - 1].logprob);
      assert.ok(top.reduce((s, x) => s + Math.exp(x.logprob), 0) <= 1 + 1e-9);
    }
    const nan: SimToken = { text: '!', id: 0, logprob: NaN };
    assert.ok(topAlternatives(nan, 3).every((x) => Number.isNaN(x.logprob)));
    assert.deepEqual(topAlternatives(nan, 0), []);
  });

  it('perturb: same text up to the late flip, logprobs within the amount', () => {
    const prompt = 'Explain what a KV cache is.';
    const base = planAnswer({ behaviour: { behaviour: 'healthy' }, prompt, maxTokens: 128, seed: 7 });
    const before = [...base.content];
    const behaviour = { behaviour: 'healthy' as const, drift: { mode: 'perturb' as const, from: 0, amount: 0.03, textFrom: 40 } };
    const after = [...withDrift(base, behaviour, prompt, 7, 128).content];
    const flip = after.findIndex((t, i) => t.text !== before[i].text);
    assert.ok(flip >= 40 && flip < 56, `flip at ${flip}`);
    for (let i = 0; i < flip; i++) assert.ok(Math.abs(after[i].logprob - before[i].logprob) <= 0.03 + 1e-12);
  });

  it('diverge: other text from token K, far logprobs before it', () => {
    const prompt = 'Count from 1 to 20.';
    const base = planAnswer({ behaviour: { behaviour: 'healthy' }, prompt, maxTokens: 64, seed: 7 });
    const before = [...base.content];
    const plan = withDrift(base, { behaviour: 'healthy', drift: { mode: 'diverge', from: 2 } }, prompt, 7, 64);
    const after = [...plan.content];
    assert.deepEqual(
      after.slice(0, 2).map((t) => t.text),
      before.slice(0, 2).map((t) => t.text),
    );
    assert.notEqual(after[2].text, before[2].text);
    assert.ok(after.length <= 64);
    for (let i = 0; i < 2; i++) assert.ok(Math.abs(after[i].logprob - before[i].logprob) >= 0.6);
  });
});
