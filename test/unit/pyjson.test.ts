import { strict as assert } from 'node:assert';
import { parsePyJson, stringifyPyJson, tryParsePyJson } from '../../src/core/pyjson';

describe('pyjson', () => {
  it('parses plain JSON on the fast path', () => {
    assert.deepEqual(parsePyJson('{"a":[1,2,{"b":null}],"c":"x"}'), { a: [1, 2, { b: null }], c: 'x' });
  });

  it('turns bare NaN / Infinity / -Infinity into JS numbers', () => {
    const v = parsePyJson('{"lp":[NaN, -Infinity, Infinity, -0.5],"x":NaN}') as { lp: number[]; x: number };
    assert.ok(Number.isNaN(v.lp[0]));
    assert.equal(v.lp[1], -Infinity);
    assert.equal(v.lp[2], Infinity);
    assert.equal(v.lp[3], -0.5);
    assert.ok(Number.isNaN(v.x));
  });

  it('handles top-level literals and literals without spaces', () => {
    assert.ok(Number.isNaN(parsePyJson('NaN')));
    assert.equal(parsePyJson('-Infinity'), -Infinity);
    assert.deepEqual(parsePyJson('[Infinity,-Infinity]'), [Infinity, -Infinity]);
  });

  it('leaves strings that contain the words untouched', () => {
    const v = parsePyJson('{"matched":"NaN happened","t":"Infinity and -Infinity \\" NaN","lp":NaN}') as Record<string, unknown>;
    assert.equal(v.matched, 'NaN happened');
    assert.equal(v.t, 'Infinity and -Infinity " NaN');
    assert.ok(Number.isNaN(v.lp));
  });

  it('keeps escaped backslashes before quotes straight', () => {
    const v = parsePyJson('{"a":"c:\\\\","b":NaN,"c":"\\\\\\"NaN"}') as Record<string, unknown>;
    assert.equal(v.a, 'c:\\');
    assert.ok(Number.isNaN(v.b));
    assert.equal(v.c, '\\"NaN');
  });

  it('does not mistake a string equal to the sentinel text for a literal', () => {
    const v = parsePyJson('{"a":"\\u0001pyjson:nan","b":NaN}') as Record<string, unknown>;
    assert.equal(v.a, '\u0001pyjson:nan');
    assert.ok(Number.isNaN(v.b));
  });

  it('throws SyntaxError for text that is not JSON, and tryParsePyJson never throws', () => {
    assert.throws(() => parsePyJson('{"a":'), SyntaxError);
    assert.throws(() => parsePyJson('{"a":NaN'), SyntaxError);
    assert.throws(() => parsePyJson('nan'), SyntaxError);
    for (const bad of ['', '<html>', 'NaNa', '{"a": Infinit}', '"unterminated', '-', 'N']) {
      const r = tryParsePyJson(bad);
      assert.equal(r.ok, false, bad);
    }
    assert.deepEqual(tryParsePyJson('[1]'), { ok: true, value: [1] });
  });

  it('round-trips through stringifyPyJson with bare literals in the text', () => {
    const text = stringifyPyJson({ a: NaN, b: [Infinity, -Infinity, 1], s: 'NaN' });
    assert.equal(text, '{"a":NaN,"b":[Infinity,-Infinity,1],"s":"NaN"}');
    const back = parsePyJson(text) as { a: number; b: number[]; s: string };
    assert.ok(Number.isNaN(back.a));
    assert.deepEqual(back.b, [Infinity, -Infinity, 1]);
    assert.equal(back.s, 'NaN');
    assert.equal(stringifyPyJson({ a: 1 }), '{"a":1}');
  });
});
