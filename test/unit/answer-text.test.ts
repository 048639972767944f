/** Answers a user already has, judged in place: one answer (a selection) or JSON Lines of saved ones. */
import assert from 'node:assert/strict';
import { checkAnswer, checkAnswerLines, looksLikeJsonLines, summariseCheck } from '../../src/core/detect/answerText';

const PROSE = 'The scheduler batches requests by length. Short prompts wait less, and long ones share the prefill.';

describe('checking answers in an editor', () => {
  it('one answer: each reason marked from where it starts to the end of its line, the base offset added', () => {
    const answer = `Sure.\n${'!'.repeat(40)}\nmore`;
    const check = checkAnswer(answer, 100);
    assert.deepEqual([check.answers, check.nan, check.ok], [1, 1, 0]);
    const nan = check.marks.find((m) => m.kind === 'nan');
    assert.ok(nan, JSON.stringify(check.marks));
    assert.equal(nan.start, 100 + 6, 'the flood starts after "Sure.\\n"');
    assert.equal(nan.end, 100 + 6 + 40, 'to the end of its line');
    assert.match(nan.message, /token 0|!/);
  });

  it('a healthy answer gets no mark; a suspect alone is marked as one, the answer still ok', () => {
    assert.deepEqual(checkAnswer(PROSE), { answers: 1, ok: 1, degenerate: 0, nan: 0, unreadable: 0, marks: [] });
    const check = checkAnswer(`${PROSE} The model' s answer came back, and the queue drained again after that.`);
    assert.equal(check.ok, 1);
    assert.deepEqual(
      check.marks.map((m) => [m.kind, m.code]),
      [['suspect', 'detok-spacing']],
    );
  });

  it('a mark at the very end of an answer covers its last character', () => {
    const check = checkAnswer('Hi');
    for (const m of check.marks) assert.ok(m.end > m.start && m.end <= 2, JSON.stringify(m));
  });

  it("JSON Lines: each line's answers judged on that line, with the record's id and choice; unreadable lines said", () => {
    const chat = {
      id: 'chatcmpl-x',
      choices: [
        { index: 0, message: { content: PROSE }, finish_reason: 'stop' },
        { index: 1, message: { content: '!!!!!!!!' }, finish_reason: 'stop', matched_stop: 'NaN happened' },
      ],
    };
    const lines = [JSON.stringify({ id: 'a', text: PROSE, finish_reason: 'stop' }), JSON.stringify(chat), '', '{"id": "b", "text": '];
    const text = lines.join('\n');
    const check = checkAnswerLines(text);
    assert.deepEqual([check.answers, check.ok, check.nan, check.degenerate, check.unreadable], [3, 2, 1, 0, 1]);
    const second = text.indexOf('{"id":"chatcmpl-x"');
    const nan = check.marks.find((m) => m.kind === 'nan');
    assert.ok(nan);
    assert.equal(nan.start, second);
    assert.equal(nan.end, second + lines[1].length);
    assert.match(nan.message, /^chatcmpl-x choice 1 NaN: /);
    const bad = check.marks.find((m) => m.kind === 'unreadable');
    assert.ok(bad);
    assert.equal(text.slice(bad.start, bad.end), lines[3]);
    assert.match(bad.message, /not valid JSON/);
    assert.equal(summariseCheck(check), '3 answers: 1 NaN, 2 ok; 1 line not read.');
  });

  it('tells JSON Lines from an answer by its lines', () => {
    assert.equal(looksLikeJsonLines('{"id":1,"text":"x"}\n\n[{"text":"y","meta_info":{}}]\n'), true);
    assert.equal(looksLikeJsonLines(`{ is how a dict starts\n${PROSE}`), false);
    assert.equal(looksLikeJsonLines('  \n'), false);
  });

  it('says when nothing was read', () => {
    assert.equal(summariseCheck(checkAnswerLines('\n\n')), 'No answer read.');
    assert.equal(summariseCheck(checkAnswer(PROSE)), '1 answer: 1 ok.');
  });
});
