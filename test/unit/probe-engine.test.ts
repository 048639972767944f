import { strict as assert } from 'node:assert';
import { vllmHasRepetitionDetection } from '../../src/core/probe/engine';
import { serverWatchText } from '../../src/core/probe/serverText';
import { corruptedDuring, withCounterVerdict } from '../../src/core/probe/watch';
import { OK_VERDICT } from '../../src/core/detect/types';

describe('probe: what the server says about itself', () => {
  it('asks for repetition detection from vLLM 0.17 on, pre-releases and local builds of 0.17 included', () => {
    for (const v of ['0.17.0', '0.17.1', '0.17.0rc1', '0.17.0.dev12+g1234abc', '0.18.0+cu130', '1.0.0']) assert.equal(vllmHasRepetitionDetection(v), true, v);
    for (const v of ['0.16.0', '0.16.1.dev3+gabc', '0.6.3.post1', 'main', '', undefined]) assert.equal(vllmHasRepetitionDetection(v), false, String(v));
  });

  it('the counter makes NaN only when it rose, keeps the reasons already there, and is added once', () => {
    const watch = { engine: 'vllm' as const, repetitionDetection: true, corruptedRequests: { before: 2, after: 2 } };
    assert.equal(corruptedDuring(watch), 0);
    assert.equal(withCounterVerdict(OK_VERDICT, watch, 10), OK_VERDICT);
    const rose = { ...watch, corruptedRequests: { before: 2, after: 5 } };
    const v = withCounterVerdict(OK_VERDICT, rose, 10);
    assert.equal(v.kind, 'nan');
    assert.equal(v.onset, 10);
    assert.deepEqual(
      v.reasons.map((r) => [r.code, r.kind]),
      [['nan-counter', 'nan']],
    );
    assert.equal(withCounterVerdict(v, rose, 10), v, 'not added twice');
    assert.equal(withCounterVerdict(OK_VERDICT, undefined, 10), OK_VERDICT);
  });

  it('says in one line what was seen', () => {
    assert.equal(serverWatchText(undefined), '–');
    assert.equal(serverWatchText({ engine: 'sglang', repetitionDetection: false }), 'SGLang');
    assert.equal(serverWatchText({ engine: 'unknown', repetitionDetection: false }), 'engine unknown');
    const readBack = JSON.parse('{"engine":"__proto__","version":7,"repetitionDetection":false,"cacheConfig":{"cache_dtype":{}}}') as Parameters<
      typeof serverWatchText
    >[0];
    assert.equal(serverWatchText(readBack), 'engine unknown', 'a damaged history entry reads as unknown');
    assert.equal(
      serverWatchText({ engine: 'vllm', version: '0.15.1', maxModelLen: 8192, repetitionDetection: false, cacheConfig: { cache_dtype: 'fp8' } }),
      'vLLM 0.15.1 · max_model_len 8192 · no NaN counter (VLLM_COMPUTE_NANS_IN_LOGITS unset) · KV cache fp8',
    );
  });
});
