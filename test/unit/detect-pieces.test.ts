/**
 * The piece rules (src/core/detect/pieces.ts: glued words, symbol salad) and the listed run
 * (src/core/detect/listrun.ts: one word over and over between commas), each on real outputs
 * from the tune split of test/corpus/real (by id) and on text written here for the edges, with
 * healthy counterparts that must stay ok.
 */
import assert from 'node:assert/strict';
import { createDetector, detect } from '../../src/core/detect';
import type { Verdict } from '../../src/core/detect';
import { LISTRUN, PIECES } from '../../src/core/detect/limits';
import { judge, real, reason } from '../support/realOutputs';

function ok(text: string): void {
  const v = detect(text, { finishReason: 'stop' });
  assert.equal(v.kind, 'ok', `${JSON.stringify(text.slice(0, 60))}: ${v.reasons.map((r) => `${r.code}/${r.kind}: ${r.message}`).join('; ')}`);
}

/** The verdict streamed in pieces of `size` units. */
function streamed(text: string, size: number): Verdict {
  const d = createDetector();
  for (let i = 0; i < text.length; i += size) d.push({ text: text.slice(i, i + size) });
  return d.finish({ finishReason: 'stop' });
}

describe('detector piece rules on real outputs', () => {
  describe('glued words (detok-spacing)', () => {
    it('flags a story whose detokenizer dropped every space (sentencepiece decoded piece by piece)', () => {
      const c = real('rc152988d04');
      const v = judge(c);
      assert.equal(v.kind, 'degenerate');
      const r = reason(v, 'detok-spacing');
      // "Onceuponatime" is short enough to be a word; the first run longer than words are comes after it.
      assert.equal(r.offset, c.text.indexOf('therewas'));
      assert.match(r.message, /Latin letters run together/);
      assert.match(r.message, /"therewasamagical/);
    });

    it('flags one glued sentence joined to the word before by its comma ("Dear[Name],Ihopethisemail…")', () => {
      const c = real('rde73914004');
      const r = reason(judge(c), 'detok-spacing');
      assert.equal(r.kind, 'degenerate');
      assert.equal(r.offset, c.text.indexOf('Ihope'));
    });

    it('reads "C#" in glued prose as a name, not as code that would exempt the piece', () => {
      const c = real('rfad9ff4e39');
      const r = reason(judge(c), 'detok-spacing');
      assert.equal(r.kind, 'degenerate');
      assert.equal(r.offset, 0);
      // A glued piece with code symbols besides a language name stays exempt.
      ok('Set #definemaximumbuffersizeforthisdevice=4096 before building with C++.');
    });

    it('leaves one long compound word, an alphabet and a URL alone', () => {
      ok('Das längste Wort im Duden ist Donaudampfschifffahrtsgesellschaftskapitän.');
      ok('abcdefghijklmnopqrstuvwxyz');
      ok('See https://www.averyveryverylongdomainnamehere.example/averyveryverylongpathsegment for the docs.');
      ok('Pneumonoultramicroscopicsilicovolcanoconiosis is a lung disease.');
    });

    it('leaves camelCase and snake_case identifiers alone', () => {
      ok('Call createStreamingDetectorForAnswer and then finishStreamingDetectorWithReason, or use make_streaming_detector_for_answer.');
    });

    it(`needs ${PIECES.gluedMinLetters} glued letters: two short glued runs are not enough`, () => {
      ok('It said helloworldfoobarbaz, then stopped.');
    });
  });

  describe('symbol salad (token-salad)', () => {
    it('flags a piece of symbols and digits after a sound first line (llama.cpp, fp16 accumulation overflow)', () => {
      const c = real('r84edb8ec04');
      const v = judge(c);
      assert.equal(v.kind, 'degenerate');
      const r = reason(v, 'token-salad');
      assert.equal(r.offset, c.text.indexOf('1;@0#'));
      assert.match(r.message, /different symbols and digits with no word/);
    });

    it('flags an answer made of many short symbol pieces', () => {
      const text = '?;=2 .@1) $#*% 0) ^&? +1/2-3? #$%^ (= ) ;:??_?? 4?5;... ;-?=2 :3$1-2%*9!;=0 ~`{ ?=9!#1$%2';
      const v = detect(text, { finishReason: 'stop' });
      assert.equal(v.kind, 'degenerate');
      assert.match(reason(v, 'token-salad').message, /visible characters are pieces of symbols/);
    });

    it('reaches the same verdict streamed one unit at a time', () => {
      const c = real('r84edb8ec04');
      assert.deepEqual(streamed(c.text, 1), judge(c));
    });

    it('leaves regexes, troff escapes and calls alone: they close what they open', () => {
      ok('The names must match (^_?([a\\-z0\\-9_.]+\\-)+[a\\-z0\\-9]+$) to be run.');
      ok('Use ;/^-?\\d+\\.\\.-?\\d+(\\.\\.-?\\d+)?$/ for numeric ranges.');
      ok('The macro sets ((1u-(\\n(.fu%2u))*.13m) as the accent offset.');
    });

    it('flags a long piece of capitals, digits and symbols, whose capital runs are no words (GPT4All symbol salads)', () => {
      for (const id of ['rec6a4156e9', 'r7bb82bce9c']) {
        const c = real(id);
        const r = reason(judge(c), 'token-salad');
        assert.equal(r.kind, 'degenerate', id);
        assert.equal(r.offset, c.text.search(/\S/), id);
      }
      // The same with fewer than 16 different symbols, or shorter than 128 characters, stays ok.
      const salad = real('r7bb82bce9c').text.trim();
      ok(salad.replace(/[^A-Z0-9<>&:.,"=;+\-]/g, '').slice(0, 300));
      ok(salad.slice(0, PIECES.capitalJunkChars - 1).replace(/[()[\]{}]/g, ''));
    });

    it('leaves capitals-only regexes and data alone: an IPv4 pattern closes what it opens', () => {
      ok('Match it with /^(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])\\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9][0-9]|[0-9])$/ in the form.');
      ok("The uuencoded line is M9&5L;&\\@=V]R;&0@=&AI<R!I<R!A('1E<W0@;V8@=&AE('5U96YC;V1E(&9O and it ends there.");
    });

    it('leaves tables, arithmetic, JSON numbers and fenced code alone', () => {
      ok('| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |');
      ok('So 3*(4+5) = 27, and 27/3 = 9; (2+2)*2 = 8.');
      ok('The weights are [0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8] after normalisation.');
      ok('Run it:\n```\n#!/bin/sh\n[ -z "$1" ] && echo "usage: $0 <n>" >&2; exit $((1+2*3%4))\n```\nThat is all.');
    });
  });

  describe('listed run (word-repetition)', () => {
    it('flags one name said over and over between commas and slashes (Claude Opus listing softphone apps)', () => {
      const c = real('r4680b9ba2b');
      const v = judge(c);
      assert.equal(v.kind, 'degenerate');
      const r = reason(v, 'word-repetition');
      assert.equal(r.offset, c.text.indexOf('Odin'));
      assert.match(r.message, /"odin" comes 6 times in a row with list punctuation/);
    });

    it(`needs ${LISTRUN.copies} copies of a content word: a short chant, a list of function words and numbers stay ok`, () => {
      ok('No, no, no, no. That is not how the scheduler works, and the docs say why in the section on admission.');
      ok('It is the same for this, this, this, this, this and this, the demonstratives.');
      ok('Set the ports to 8000, 8000, 8000, 8000, 8000, 8000 for every replica.');
    });

    it('leaves an argument list or an array of one type alone: it closes right after the run', () => {
      ok('int blend(float, float, float, float, float, float, float);\nvoid fill(int, int);\n');
      ok('The shape is [batch, batch, batch, batch, batch, batch] here, one entry per stage.');
    });

    it('leaves a list of different items alone', () => {
      ok('Popular softphones include Bria, Zoiper and Linphone, and on a phone you can also use Groundwire or Acrobits.');
    });
  });
});
