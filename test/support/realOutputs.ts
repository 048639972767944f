/**
 * What the detector's unit tests ask of the real outputs (test/corpus/real): one output of the tune
 * split by id, its verdict, and one reason of that verdict.
 */
import assert from 'node:assert/strict';
import { detect } from '../../src/core/detect';
import type { Reason, ReasonCode, Verdict } from '../../src/core/detect';
import { loadRealCases, type RealCase } from '../corpus/real/realCase';

let byId: Map<string, RealCase> | undefined;

/** A real output from the tune split (the validation split is never used to write tests). */
export function real(id: string): RealCase {
  byId ??= new Map(loadRealCases().map((c) => [c.id, c]));
  const c = byId.get(id);
  assert.ok(c, `no real output ${id}`);
  assert.equal(c.split, 'tune', `${id} is not in the tune split`);
  return c;
}

/** The detector's verdict on a real output, with the finish the thread shows. */
export function judge(c: RealCase): Verdict {
  return detect(c.text, { finishReason: c.finish_reason ?? null, matchedStop: c.matched_stop ?? null });
}

/** The verdict's reason of this code; fails naming the reasons there are when it has none. */
export function reason(v: Verdict, code: ReasonCode): Reason {
  const r = v.reasons.find((x) => x.code === code);
  assert.ok(r, `expected ${code}, got ${v.reasons.map((x) => `${x.code}/${x.kind}`).join(', ') || 'nothing'}`);
  return r;
}
