/**
 * The word-, line- and marker-level signals one at a time, each on a real output from the tune
 * split of test/corpus/real (by id) and on text written here for the edges, with a healthy
 * counterpart that must stay ok.
 */
import assert from 'node:assert/strict';
import { createDetector, detect, detectRecord } from '../../src/core/detect';
import type { Verdict } from '../../src/core/detect';
import { GARBLED, LIMITS, SENTENCES } from '../../src/core/detect/limits';
import { stripMarkup } from '../../src/core/detect/markup';
import { judge, real, reason } from '../support/realOutputs';
import { loadRealCases } from '../corpus/real/realCase';

const PROSE =
  'The scheduler admits a request when its prompt fits in the free KV-cache blocks, and it keeps ' +
  'a few blocks in reserve so that running requests can grow without being preempted. ';
/** More prose where a test needs a longer healthy lead: PROSE twice would be a passage said twice. */
const MORE_PROSE =
  'When the pool runs low, the newest request gives its blocks back first and waits for its turn, ' +
  'so that the older ones can finish without starting over. ';

describe('detector signals on real outputs', () => {
  describe('answer-flood', () => {
    it('judges a one-line answer of symbols the same whether a leading newline came alone or with the rest', () => {
      // The newline before the text is not a line of it: the symbols-only rule reads one line either way.
      const symbols = `\n${'#+*=-'.repeat(6)}`;
      const whole = detect(symbols, { finishReason: 'stop' });
      assert.equal(reason(whole, 'answer-flood').offset, 1);
      for (const cut of [1, 2, 9]) {
        const d = createDetector();
        d.push({ text: symbols.slice(0, cut) });
        d.push({ text: symbols.slice(cut) });
        assert.deepEqual(d.finish({ finishReason: 'stop' }), whole, `cut at ${cut}`);
      }
      // A newline after text does make a second line: ASCII art is symbols drawn over lines.
      assert.equal(detect(`${'#+*=-'.repeat(3)}\n${'#+*=-'.repeat(3)}`, { finishReason: 'stop' }).kind, 'ok');
    });
    it('flags a whole answer of "G" (a Q4 model on a broken backend), from the first character', () => {
      const v = judge(real('r90c28fe4ac'));
      assert.equal(v.kind, 'degenerate');
      const r = reason(v, 'answer-flood');
      assert.equal(r.offset, 0);
      assert.match(r.message, /"G"/);
    });
    it('flags nine copies alone, below any run threshold', () => {
      assert.equal(real('r94c3ad3eec').text, 'GGGGGGGGG');
      reason(judge(real('r94c3ad3eec')), 'answer-flood');
    });
    it('makes a short "!" flood nan: token 0 of byte-level BPE vocabularies', () => {
      const v = judge(real('rcdf7abaa9e'));
      assert.equal(v.kind, 'nan');
      reason(v, 'token0-run');
    });
    it('flags an answer that ends in a flood of blank lines (JSON, then nine newlines)', () => {
      const c = real('rb87a78326a');
      const r = reason(judge(c), 'answer-flood');
      assert.match(r.message, /ends in 9 newlines/);
      assert.equal(c.text.slice(r.offset).trim(), '');
      assert.equal(detect(`${PROSE}\n\n`, { finishReason: 'stop' }).kind, 'ok', 'two closing newlines are fine');
    });
    it('flags an answer that is nearly all one unit of digits ("1234" again and again), streamed or whole', () => {
      const text = `Result: ${'1234'.repeat(12)}`;
      const r = reason(detect(text, { finishReason: 'stop' }), 'answer-flood');
      assert.match(r.message, /a 4-digit unit repeats over 48 of the answer's 56 characters/i);
      assert.equal(text.slice(r.offset, r.offset + 4), '1234');
      const d = createDetector();
      for (let i = 0; i < text.length; i += 3) d.push({ text: text.slice(i, i + 3) });
      assert.equal(d.finish({ finishReason: 'stop' }).kind, 'degenerate');
    });
    it('flags an answer that is nearly all one unit of letters and digits (real output: "<h4/>" 31 times), streamed or whole', () => {
      const c = real('r34ce623854');
      const r = reason(judge(c), 'answer-flood');
      assert.match(r.message, /a 5-character unit of letters and digits repeats over 155 of the answer's 155 characters/i);
      const d = createDetector();
      for (let i = 0; i < c.text.length; i += 4) d.push({ text: c.text.slice(i, i + 4) });
      assert.equal(d.finish({ finishReason: 'stop' }).kind, 'degenerate');
    });
    it('leaves units of letters and digits alone that make less of the answer: hex bytes after a sentence, sizes in a list', () => {
      for (const text of [
        `The buffer starts with sixteen zero bytes, then the header: ${'0x00 '.repeat(8)}`,
        `Tile sizes to try, in order of preference:\n${'- 4k\n'.repeat(6)}`,
      ]) {
        assert.equal(detect(text, { finishReason: 'stop' }).kind, 'ok', text);
      }
    });
    it('leaves digits that repeat inside an answer alone: a number in prose, a bit pattern in a table, a short pattern', () => {
      for (const text of [
        `${PROSE}The checksum came out as ${'1234'.repeat(10)}, which matches the manifest.`,
        '| mask | value |\n|---|---|\n| low | 0101010101010101 |\n| high | 1010101010101010 |',
        '10101010',
        '3.14159265358979323846',
      ]) {
        assert.equal(detect(text, { finishReason: 'stop' }).kind, 'ok', text);
      }
    });
    it('leaves a heading underline and a short table alone', () => {
      for (const text of ['Results\n=======\n\nAll twelve probes passed.', '| a | b |\n|---|---|\n| 1 | 2 |']) {
        assert.equal(detect(text, { finishReason: 'stop' }).kind, 'ok', text);
      }
    });
    it('does not depend on how the flood was streamed', () => {
      const text = `${'+'.repeat(40)}`;
      const d = createDetector();
      for (const ch of text) d.push({ text: ch });
      assert.deepEqual(
        d.finish({ finishReason: 'length' }).reasons.map((r) => r.code),
        detect(text, { finishReason: 'length' }).reasons.map((r) => r.code),
      );
    });
  });

  describe('special-tokens', () => {
    it('flags <unk> fillers back to back (a word-level LM answer full of <unk>)', () => {
      const c = real('rf68bc1a887');
      const r = reason(judge(c), 'special-tokens');
      assert.equal(c.text.slice(r.offset, r.offset + 5), '<unk>');
      assert.match(r.message, /in a row/);
    });
    it('flags byte tokens the detokenizer left unmerged', () => {
      const r = reason(judge(real('r33f8e297e8')), 'special-tokens');
      assert.match(r.message, /byte tokens/i);
    });
    it('flags unknown-byte markers with text between them by their share of the answer (ollama, a tokenizer that does not match)', () => {
      const c = real('r3715d9b6fd');
      const r = reason(judge(c), 'special-tokens');
      assert.equal(r.kind, 'degenerate');
      assert.ok(c.text.startsWith('[UNK_BYTE_0x', r.offset), c.text.slice(r.offset, r.offset + 20));
      assert.match(r.message, /filler or control tokens make \d+ of the answer's \d+ characters/);
    });
    it("reads Cohere's capitalised special tokens (Aya 23 in a llama.cpp app): text goes on after <EOS_TOKEN>, fillers among symbols", () => {
      const c = real('r792d0a538b');
      const v = judge(c);
      assert.equal(v.kind, 'degenerate');
      const leak = reason(v, 'template-leak');
      assert.equal(leak.kind, 'degenerate');
      assert.ok(c.text.startsWith('<EOS_TOKEN>', leak.offset), c.text.slice(leak.offset, leak.offset + 12));
      assert.match(c.text.slice(reason(v, 'special-tokens').offset), /^<(?:SEP|CLS|PAD|UNK|MASK_TOKEN|EOP_TOKEN)>/);
    });
    it("shows one reserved token in a salad (MiniCPM's <reserved_N>) as a suspect, at the token", () => {
      const c = real('r4264e535c9');
      const r = reason(judge(c), 'special-tokens');
      assert.equal(r.kind, 'suspect');
      assert.ok(c.text.startsWith('<reserved_436>', r.offset), c.text.slice(r.offset, r.offset + 14));
    });
    it('keeps a text that names a few filler tokens among its words a suspect', () => {
      const named = detect('Cohere models mark a padded position with <PAD> and a masked one with <MASK_TOKEN>; BERT calls them [PAD] and [MASK].', {
        finishReason: 'stop',
      });
      assert.equal(named.kind, 'ok');
      assert.equal(reason(named, 'special-tokens').kind, 'suspect');
      const v = detect('BERT puts [CLS] before the first sentence, [SEP] between the two sentences, and hides a word behind [MASK] in pre-training.', {
        finishReason: 'stop',
      });
      assert.equal(v.kind, 'ok');
      assert.equal(reason(v, 'special-tokens').kind, 'suspect');
    });
    it('makes one filler token a suspect only, and ignores fillers in code', () => {
      const one = detect(`${PROSE}The tokenizer maps unknown pieces to <unk> here.`, { finishReason: 'stop' });
      assert.equal(one.kind, 'ok');
      assert.equal(reason(one, 'special-tokens').kind, 'suspect');
      const code = detect('Pad with `[PAD] [PAD] [PAD] [PAD]` or:\n```\n<pad><pad><pad><pad>\n```\n', { finishReason: 'stop' });
      assert.deepEqual(code.reasons, []);
    });
  });

  describe('template-leak', () => {
    it('flags chat-template role markers inside the answer', () => {
      const c = real('r12f440ba15');
      const r = reason(judge(c), 'template-leak');
      assert.equal(c.text.slice(r.offset, r.offset + 10), '<|system|>');
    });
    it('flags text that goes on past <|im_end|>', () => {
      reason(judge(real('r1134005aad')), 'template-leak');
    });
    it('flags an invented dialogue with inline "Human:" turns', () => {
      const c = real('r61ff4298e5');
      const r = reason(judge(c), 'template-leak');
      assert.equal(r.kind, 'degenerate');
      assert.equal(c.text.slice(r.offset, r.offset + 6), 'Human:');
    });
    it('keeps an end marker at the very end, or a leading </s>, a suspect (healthy real answers)', () => {
      for (const id of ['rb2bb0fe9d9', 'r6516769f2d']) {
        const v = judge(real(id));
        assert.equal(v.kind, 'ok', id);
        assert.equal(reason(v, 'template-leak').kind, 'suspect', id);
      }
    });
    it("keeps one assistant label after the answer a suspect, and flags the model's second turn of its own", () => {
      // The model asks itself a question with no label, then answers as "Assistant:", again and again.
      const c = real('r4e2e69a53a');
      const r = reason(judge(c), 'template-leak');
      assert.equal(r.kind, 'degenerate');
      assert.equal(c.text.slice(r.offset, r.offset + 10), 'Assistant:');
      assert.match(r.message, /and again at \d+/);
      const once = `${PROSE}\n\nWhich port does it use?\n\nAssistant: Port 30000, unless --port says otherwise.`;
      const onceVerdict = detect(once, { finishReason: 'stop' });
      assert.equal(onceVerdict.kind, 'ok');
      assert.equal(reason(onceVerdict, 'template-leak').kind, 'suspect');
      const twice = `${once}\n\nAnd how many GPUs does it need?\n\nAssistant: One is enough for this model.`;
      assert.equal(reason(detect(twice, { finishReason: 'stop' }), 'template-leak').kind, 'degenerate');
      // An example dialogue the answer introduces keeps its labels.
      const example = `Here is a short example chat:\nUser: Which port does it use?\nAssistant: Port 30000.\nUser: And how many GPUs?\nAssistant: One is enough.`;
      assert.equal(detect(example, { finishReason: 'stop' }).kind, 'ok');
    });
    it('flags a new user turn on its own line, and leaves a template shown in a code block alone', () => {
      assert.equal(reason(detect(`${PROSE}\nUser: and what about the scheduler?\nAssistant: it batches.`), 'template-leak').kind, 'degenerate');
      const shown = 'The chat template wraps each turn:\n```\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n```\n';
      assert.equal(detect(shown, { finishReason: 'stop' }).kind, 'ok');
    });
    it('marks a turn that closes with an offer of help and goes on as a suspect (closing.ts), in English and Chinese', () => {
      for (const [id, offer] of [
        ['r0746fb5a6c', 'How may I assist you today?'],
        ['r4d1d3a9591', '请随时问我！'],
      ]) {
        const c = real(id);
        const r = reason(judge(c), 'template-leak');
        assert.equal(r.kind, 'suspect', id);
        assert.equal(r.offset, c.text.indexOf(offer) + offer.length, id);
      }
    });
    it('leaves an offer that ends the answer, a few options after it, and a quoted or shown offer alone', () => {
      const options =
        'Hi there! How can I help you today? 😊\n\nDo you want to:\n\n*   Chat about something?\n*   Ask a question?\n*   Get help with a task?\n*   Play a game?';
      const more =
        'The greeting sets the tone for the whole exchange. After it, the bot should wait for the user to describe the problem, ask one ' +
        'clarifying question at a time, and avoid long menus. Logs of real sessions show that users who get a short, friendly opening ' +
        'describe their issue sooner, and that they leave less often when the first answer names the next step plainly.';
      const said = `A support bot should open with How can I help you today? and then wait. ${more}`;
      assert.equal(reason(detect(said, { finishReason: 'stop' }), 'template-leak').kind, 'suspect');
      const quoted = said.replace('How can I help you today?', '"How can I help you today?"');
      const shown = `The transcript reads:\n\n\`\`\`\nHow can I help you today?\n\`\`\`\n\n${more}`;
      for (const text of ['Hello! How can I help you today?', options, quoted, shown]) {
        assert.deepEqual(detect(text, { finishReason: 'stop' }).reasons, [], text.slice(0, 50));
      }
    });
    it('reads Chinese role names as turns too ("用户：" after the answer)', () => {
      const answer = '巴黎是法国的首都，也是法国最大的城市，人口超过两百万。';
      const v = detect(`${answer}\n用户：那德国的首都呢？\n助手：柏林。`, { finishReason: 'stop' });
      assert.equal(reason(v, 'template-leak').kind, 'degenerate');
      assert.equal(reason(v, 'template-leak').offset, answer.length + 1);
      // The word inside a sentence is no turn.
      assert.equal(detect(`${answer}\n用户可以在设置里修改语言。`, { finishReason: 'stop' }).kind, 'ok');
    });
    it('leaves template markers named in sentences alone, quoted or not, and still flags one glued to the answer', () => {
      for (const text of [
        'ChatML wraps each turn in markers. A user turn starts with <|im_start|>user and ends with <|im_end|>, and the reply starts with <|im_start|>assistant.',
        'In ChatML every turn opens with "<|im_start|>" followed by the role, and closes with "<|im_end|>". The model learns to stop there.',
        'For Mistral, wrap the instruction in [INST] and [/INST] tags; the model answers after the closing tag.',
        'Gemma uses <start_of_turn>user and <start_of_turn>model to open turns and <end_of_turn> to close them.',
      ]) {
        assert.deepEqual(detect(text, { finishReason: 'stop' }).reasons, [], text);
      }
      for (const leak of [
        `${PROSE}<|im_end|>\n<|im_start|>user\nAnd the scheduler?`,
        `${PROSE} <|im_start|>assistant\nSure, here is more.`,
        `${PROSE}</s> [INST] And the scheduler? [/INST] It batches.`,
        `${PROSE}<|endoftext|><|prompter|>How did you get that?<|endoftext|><|assistant|>By dividing.`,
      ]) {
        assert.equal(reason(detect(leak, { finishReason: 'stop' }), 'template-leak').kind, 'degenerate', leak);
      }
    });
    it('knows the turn markers of Llama 4, Command R, MiniCPM and DeepSeek written with ASCII bars', () => {
      for (const leak of [
        `${PROSE}<|eot|><|header_start|>user<|header_end|>\n\nAnd the scheduler?`,
        `${PROSE}<|END_OF_TURN_TOKEN|><|START_OF_TURN_TOKEN|><|USER_TOKEN|>And the scheduler?`,
        `${PROSE.trim()}<用户>And the scheduler?<AI>It batches.`,
        `${PROSE}<|end▁of▁sentence|><|User|>And the scheduler?<|Assistant|>It batches.`,
      ]) {
        assert.equal(reason(detect(leak, { finishReason: 'stop' }), 'template-leak').kind, 'degenerate', leak);
      }
    });
    it('reads an end marker right after a finished sentence as the end of a turn, with no </s> before the next', () => {
      const runaway = `${PROSE}[INST] And the scheduler, what does it do? [/INST] It batches the requests.`;
      const r = reason(detect(runaway, { finishReason: 'length' }), 'template-leak');
      assert.equal(r.kind, 'degenerate');
      assert.equal(runaway.slice(r.offset, r.offset + 7), '[/INST]');
      // The same markers named in a sentence stay ok (see above): the end marker follows a word there.
      assert.equal(detect('Mistral marks a turn with [INST] at the start and [/INST] at the end.', { finishReason: 'stop' }).kind, 'ok');
    });
    it('flags three end markers in a row, and keeps one at the end a suspect', () => {
      const run = `${PROSE.trim()}<|endoftext|><|endoftext|>\n<|endoftext|>`;
      const r = reason(detect(run, { finishReason: 'length' }), 'special-tokens');
      assert.equal(r.kind, 'degenerate');
      assert.equal(r.offset, PROSE.trim().length);
      assert.match(r.message, /3 end-of-turn markers/);
      const two = detect(`${PROSE.trim()}<|endoftext|><|endoftext|>`, { finishReason: 'stop' });
      assert.equal(two.kind, 'ok');
      assert.equal(reason(detect(`${PROSE.trim()}<|eot_id|>`, { finishReason: 'stop' }), 'template-leak').kind, 'suspect');
    });
    it('keeps a start-of-sequence marker that opens the answer a suspect, and flags one inside it', () => {
      // A client that prints special tokens shows the tokenizer's own start mark, as the tune split's
      // healthy base continuation shows "<s>" (r7cac050409).
      for (const mark of ['<|begin_of_text|>', '<｜begin▁of▁sentence｜>', '<bos>']) {
        const opened = detect(`${mark}${PROSE}`, { finishReason: 'stop' });
        assert.equal(opened.kind, 'ok', mark);
        const r = reason(opened, 'template-leak');
        assert.equal(r.kind, 'suspect');
        assert.equal(r.offset, 0);
        assert.match(r.message, /start-of-sequence marker/);
      }
      assert.equal(reason(detect(`\n ${'<|begin_of_text|>'}${PROSE}`, { finishReason: 'stop' }), 'template-leak').offset, 2);
      const inside = detect(`${PROSE.trim()}<|begin_of_text|>${PROSE}`, { finishReason: 'stop' });
      assert.equal(reason(inside, 'template-leak').kind, 'degenerate');
      assert.equal(reason(inside, 'template-leak').offset, PROSE.trim().length);
      // A start marker that opens the answer and is followed by a turn is still a leak.
      assert.equal(detect(`<|begin_of_text|>Paris.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nThanks`).kind, 'degenerate');
    });
    it('knows the turn markers of Granite 3, Kimi K2, Seed-OSS and GLM-4 templates, and their pad tokens', () => {
      const answer = PROSE.trim();
      for (const turn of [
        '<|end_of_text|>\n<|start_of_role|>user<|end_of_role|>And Spain?',
        '<|im_end|><|im_user|>user<|im_middle|>And Spain?',
        '<seed:eos><seed:bos>user\nAnd Spain?',
        '\n<|observation|>\n{"result": 1}',
      ]) {
        const r = reason(detect(`${answer}${turn}`, { finishReason: 'stop' }), 'template-leak');
        assert.equal(r.kind, 'degenerate', turn);
        assert.equal(r.offset, answer.length + (turn.startsWith('\n') ? 1 : turn.indexOf('<', 1)), turn);
      }
      // Named in a sentence, they are prose about templates.
      assert.equal(detect('Granite wraps each role in <|start_of_role|> and <|end_of_role|> markers before the text.', { finishReason: 'stop' }).kind, 'ok');
      for (const pad of ['<|pad|>', '<|finetune_right_pad_id|>', '<|vision_pad|>']) {
        assert.equal(reason(detect(`${pad} ${answer}`, { finishReason: 'stop' }), 'special-tokens').kind, 'suspect', pad);
        assert.equal(reason(detect(`${answer}${pad.repeat(6)}`, { finishReason: 'length' }), 'special-tokens').kind, 'degenerate', pad);
      }
    });
    it("flags a code model's completion that crosses its file separator into another file, one at the very end a suspect", () => {
      // A real StarCoder2 completion: the function, then <file_sep> and a README it invents.
      const c = real('rb1938cefb1');
      const r = reason(judge(c), 'template-leak');
      assert.equal(r.kind, 'degenerate');
      assert.equal(c.text.slice(r.offset, r.offset + 10), '<file_sep>');
      const code = 'def add(a, b):\n    return a + b\n';
      for (const marker of ['<file_sep>', '<|file_sep|>']) {
        assert.equal(reason(detect(`${code}${marker}`, { finishReason: 'stop' }), 'template-leak').kind, 'suspect', marker);
        assert.equal(
          reason(detect(`${code}${marker}README.md\n# Adder\nAdds two numbers.`, { finishReason: 'stop' }), 'template-leak').kind,
          'degenerate',
          marker,
        );
      }
      assert.equal(reason(detect(`${code}<|repo_name|>adder\n<|file_sep|>adder.py\n${code}`, { finishReason: 'stop' }), 'template-leak').kind, 'degenerate');
    });
    it('flags a run of fill-in-the-middle markers (Qwen, StarCoder, DeepSeek), one alone a suspect', () => {
      for (const fim of ['<|fim_suffix|>', '<fim_middle>', '<｜fim▁hole｜>']) {
        const r = reason(detect(`Sorry, I can't assist with that.${fim.repeat(4)}Sorry.`, { finishReason: 'stop' }), 'special-tokens');
        assert.equal(r.kind, 'degenerate', fim);
        assert.equal(r.offset, "Sorry, I can't assist with that.".length, fim);
        assert.equal(reason(detect(`${PROSE.trim()}${fim}`, { finishReason: 'stop' }), 'special-tokens').kind, 'suspect', fim);
      }
    });
    it('reads "You:" as a user turn after the answer, but not in a dialogue a line ending in a colon introduced', () => {
      // The invented chat of a Telegram-bot front end (tune r50efead703): "You:" and the bot's name take turns.
      const runaway = `${PROSE.trim()}\n\nYou: How does it affect inflation?\nAva: It can raise it.\n\nYou: Is that bad?`;
      const r = reason(detect(runaway, { finishReason: 'stop' }), 'template-leak');
      assert.equal(r.kind, 'degenerate');
      assert.equal(r.offset, PROSE.trim().length + 2);
      for (const example of [
        'Sure! Here is a practice dialogue for ordering coffee:\n\nYou: Hi, can I get a latte, please?\nBarista: Of course. What size?\nYou: A medium one, thanks.',
        'Here is an example of a chat in that format:\nUser: What is the capital of France?\nAssistant: Paris.\nUser: And of Spain?\nAssistant: Madrid.',
        'Here is an example chat (in French):\nUser: Bonjour, comment ça va ?\nAssistant: Très bien, merci.',
        'Here is the same chat in **German**: \nUser: Wie geht es dir?\nAssistant: Sehr gut, danke.',
        '这是一段示例对话：\n用户：今天天气怎么样？\n助手：今天是晴天。\n用户：谢谢！',
      ]) {
        assert.equal(detect(example, { finishReason: 'stop' }).kind, 'ok', example);
      }
      // A colon inside the answer's last line does not introduce the turn after it.
      assert.equal(detect(`${PROSE.trim()} The ratio is 3:1\nUser: and then?`, { finishReason: 'stop' }).kind, 'degenerate');
      assert.equal(detect(`Note: ${PROSE.trim()}\nUser: and Spain?`, { finishReason: 'stop' }).kind, 'degenerate');
    });
    it("reads an answer that opens with a user turn as the model writing the user's part: degenerate when the prompt asked for no dialogue", () => {
      // Tune r7e48dcdd42 and r1f4c694f00: a GGUF engine with no chat template answers "Hello" and "What is 2+2?" with a new user turn.
      for (const id of ['r7e48dcdd42', 'r1f4c694f00']) {
        const c = real(id);
        assert.ok(c.prompt, id);
        const r = reason(detect(c.text, { finishReason: null }, undefined, { prompt: c.prompt }), 'template-leak');
        assert.equal(r.kind, 'degenerate', id);
        assert.equal(r.offset, 0, id);
        // Without the prompt there is no telling it from a dialogue asked for: a suspect.
        const alone = detect(c.text, { finishReason: null });
        assert.equal(alone.kind, 'ok', id);
        assert.equal(reason(alone, 'template-leak').kind, 'suspect', id);
      }
      const opening = 'Human: What is the capital of France?';
      const asked = detect(opening, { finishReason: 'stop' }, undefined, { prompt: 'Write a short dialogue between a human and an AI about geography.' });
      assert.equal(asked.kind, 'ok', 'a dialogue asked for');
      // A field named User holds a value, not a sentence; a label later in the answer is the other rules' business.
      for (const text of [
        'User: admin\nPassword: hunter2',
        '**User:** root',
        'Users: 3 active, 2 idle',
        'Human beings are curious: they ask why.',
        '```\nUser: What is this?\n```',
      ]) {
        const v = detect(text, { finishReason: 'stop' }, undefined, { prompt: 'What does the config file hold?' });
        assert.equal(v.kind, 'ok', text);
        assert.ok(!v.reasons.some((x) => x.code === 'template-leak'), text);
      }
    });
    it('leaves an indented "user" term of a definition list alone: a template role starts its line', () => {
      const text =
        'Jeder Schalter kann aus einer dieser Quellen stammen:\n\n   system\n       der Schalter wurde durch eine systemweite Konfiguration gesetzt\n\n' +
        '   user\n       der Schalter wurde durch eine benutzerspezifische Konfiguration gesetzt\n\n   env\n       der Schalter wurde durch eine Umgebungsvariable gesetzt\n';
      assert.equal(detect(text, { finishReason: 'stop' }).kind, 'ok');
    });
    it('leaves a "User:" key inside code alone (an SSH config written as an object)', () => {
      const code = "Append the host like this:\n\n```js\nconfig.append({\n  Host: 'gpu-box',\n  HostName: 'gpu-box.lan',\n  User: 'ops'\n})\n```\n";
      assert.equal(detect(code, { finishReason: 'stop' }).kind, 'ok');
    });
  });

  describe('word-repetition', () => {
    it('flags a word said over and over (TensorRT-LLM "fear fear fear")', () => {
      const c = real('r941b8e39e9');
      const r = reason(judge(c), 'word-repetition');
      assert.equal(c.text.slice(r.offset, r.offset + 4), 'fear');
    });
    it('flags two words cycling in prose', () => {
      reason(judge(real('r2395cf6e0f')), 'word-repetition');
    });
    it('leaves command-line help in a code block alone (each option beside its metavar: "--foo FOO")', () => {
      const help = [
        'Run it with --help to see the options:',
        '',
        '```',
        'usage: serve [-h] [-p PORT] [-m MODEL] [--tp TP]',
        '',
        'options:',
        '  -h, --help            show this help message and exit',
        '  -p PORT, --port PORT  port to listen on',
        '  -m MODEL, --model MODEL',
        '                        model to load',
        '  --tp TP               tensor parallel size',
        '  --dtype DTYPE         weight dtype',
        '```',
      ].join('\n');
      assert.equal(detect(help, { finishReason: 'stop' }).kind, 'ok');
      assert.equal(detect(`${PROSE}${'the the '.repeat(12)}`, { finishReason: 'stop' }).kind, 'degenerate', 'stutter in prose still counts');
    });
    it('leaves an option followed by its metavar alone, outside code blocks too ("--theme theme", "-verify_email email")', () => {
      const synopsis =
        'The tool installs icons: xdg-icon-resource install [--noupdate] [--novendor] [--theme theme] [--context context] [--mode mode] --size size icon-file, ' +
        'and openssl verify takes [-verify_depth num] [-verify_email email] [-verify_hostname hostname] [-verify_ip ip] [-verify_name name] as well.';
      assert.equal(detect(synopsis, { finishReason: 'stop' }).kind, 'ok');
    });
    it('leaves arrays of repeated values printed in a code block alone', () => {
      const text =
        'Compare the masks element by element:\n\n```python\n>>> print(a > 0)\n[ True  True  True False  True  True]\n' +
        '>>> print(b > 0)\n[ True  True  True  True  True False]\n>>> print((a > 0) == (b > 0))\n[ True  True  True False  True False]\n```\n\n' +
        'Two positions differ, so the two kernels disagree on the sign there.';
      assert.equal(detect(text, { finishReason: 'stop' }).kind, 'ok');
    });
    it('leaves repeated types in a signature and hex dumps alone', () => {
      for (const text of ['void fill(int, int, int, int);\n', '00000000: 0000 0000 ffff ffff ffff ffff 0000 0000']) {
        assert.equal(detect(text, { finishReason: 'stop' }).kind, 'ok', text);
      }
    });
  });

  describe('word-salad', () => {
    it('flags function-word salad', () => {
      reason(judge(real('ra3e3239dff')), 'word-salad');
    });
    it('reads few distinct words as a clause said again, not salad, while the repeats stay under three quarters of them', () => {
      // A real base-model continuation: one clause comes back, so a window is mostly function words.
      const v = judge(real('r423650b14c'));
      assert.equal(v.kind, 'ok', v.reasons.map((r) => r.message).join('; '));
      // The same kind of words, the clause said over and over, is a loop: still degenerate.
      const loop = 'It is what it is. He was a man of the old guard and he was a man of the old guard and he was a man of the old guard and he was a man of';
      assert.equal(detect(loop, { finishReason: 'stop' }).kind, 'degenerate');
    });
    it('reads a word spelt out letter by letter as letters, not function words (a real reasoning answer)', () => {
      const v = judge(real('r763dc1ebfc'));
      assert.equal(v.kind, 'ok', v.reasons.map((r) => r.message).join('; '));
      const spelt = 'Let me spell it: R, A, S, P, B, E, R, R, Y, and again r-a-s-p-b-e-r-r-y, then S, T, R, A, W, B, E, R, R, Y. ';
      assert.deepEqual(
        detect(spelt.repeat(2), { finishReason: 'stop' }).reasons.filter((r) => r.code === 'word-salad'),
        [],
      );
    });
    it('flags scripts switching word by word (multilingual BPE salad)', () => {
      reason(judge(real('r2e881c307a')), 'word-salad');
    });
    it('flags glued subword pieces', () => {
      reason(judge(real('rfda5a795b3')), 'word-salad');
    });
    it('leaves real healthy prose, lists and tables alone', () => {
      for (const id of ['r3b1ae84b7b', 'rf70cda8927', 'r5db44b11d9', 'rc5ceac9344', 'r6931ec7e8e']) {
        const v = judge(real(id));
        assert.equal(v.kind, 'ok', `${id}: ${v.reasons.map((r) => r.code).join(',')}`);
      }
    });
    it('leaves letters used as names between slashes alone: they are not function words ("x/a, x/b and x/c")', () => {
      const text =
        'When all of x/a, x/b and x/c have moved to z/a, z/b and z/c, it is likely that x/d added in the meantime ' +
        'would also want to move to z/d, so the rename detection takes the hint that the whole directory moved.';
      assert.equal(detect(text, { finishReason: 'stop' }).kind, 'ok');
    });
    it('leaves a code block alone whose docstring is mostly short words ("both x and y are nans, or ...")', () => {
      const text = [
        'The check compares the two results like this:',
        '',
        '```python',
        'def identical(x, y):',
        '    """True if x and y are identical: both x and y are nans, or',
        '    both x and y are infinities with the same sign, or both x and y',
        '    are zeros with the same sign, or x and y are both finite and x == y."""',
        '    if math.isnan(x) or math.isnan(y):',
        '        return math.isnan(x) and math.isnan(y)',
        '    return x == y and math.copysign(1.0, x) == math.copysign(1.0, y)',
        '```',
      ].join('\n');
      assert.equal(detect(text, { finishReason: 'stop' }).kind, 'ok');
    });
    it('leaves constants whose parts spell function words alone ("R_OK, W_OK, and X_OK")', () => {
      const text =
        'The mode is either the value F_OK, or a mask of the bitwise OR of one or more of R_OK, W_OK, and X_OK. F_OK tests for the existence of the file. ' +
        'R_OK, W_OK, and X_OK test whether the file exists and grants read, write, and execute permissions.';
      assert.equal(detect(text, { finishReason: 'stop' }).kind, 'ok');
    });
    it('leaves a comma list of camelCase names alone (an answer naming JSON Schema keywords)', () => {
      const text =
        'The validator covers the subset the rule schema uses: type, enum, const, properties, required, additionalProperties, ' +
        'propertyNames, items, minItems, minLength, minProperties, maxLength, maxItems, maxProperties, pattern, minimum, maximum, oneOf, anyOf and local references.';
      assert.equal(detect(text, { finishReason: 'stop' }).kind, 'ok');
    });
    it('leaves a bare comma list of product names alone, camelCase or not ("HubSpot, Zendesk", "MacBook, AirPods")', () => {
      for (const text of [
        'Products: Salesforce, HubSpot, Zendesk, Intercom, Freshdesk, Pipedrive, Zoho',
        'The best options are iPhone, iPad, MacBook, AirPods, iMac, HomePod and AirTag.',
      ]) {
        assert.deepEqual(detect(text, { finishReason: 'stop' }).reasons, [], text);
      }
    });
    it('leaves CJK glued to Latin letters inside a quoted string alone (a padding example)', () => {
      const text =
        'Python counts code points, not cells, so padding goes wrong for wide characters:\n\n```python\n' +
        ">>> 'コンニチハ'.rjust(11, 'X')\n'XXXXXXコンニチハ'\n```\n\n" +
        'The result takes 16 cells where 11 were expected, because each katakana character is two cells wide in a terminal.';
      assert.equal(detect(text, { finishReason: 'stop' }).kind, 'ok');
    });
    it('leaves a list of names one per line alone: few distinct words and no function words are what lists have', () => {
      const styles = ['', ' Bold', ' Italic', ' Bold Italic'];
      const families = ['Noto Sans', 'Noto Sans Condensed', 'Noto Serif', 'Noto Serif Condensed', 'Noto Sans Mono'];
      const list = families.flatMap((f) => styles.map((s) => `${f}${s}`)).join('\n');
      assert.equal(detect(`The package installs these faces:\n${list}\n`, { finishReason: 'stop' }).kind, 'ok');
      assert.equal(
        detect(`The package installs these faces: ${list.replace(/\n/g, ' ')}`, { finishReason: 'stop' }).kind,
        'degenerate',
        'the same words run together',
      );
    });
    it('leaves prose in languages with long stopword lists alone (Indonesian, Swedish): only short function words make salad', () => {
      const indonesian =
        'Dalam kasus yang tidak biasa di mana hal ini telah terjadi, mungkin perlu untuk menjalankan kembali program itu dengan pilihan yang lain ' +
        'agar basis data dibuat kembali dari awal, dan hal itu biasanya tidak akan memakan waktu yang lama karena semua data yang diperlukan masih ada di sana.';
      const swedish =
        'Om paketet inte redan finns kommer det att skapas, även om det inte vore ett fel om det redan fanns; annars kommer det att skrivas över, ' +
        'och det är inte heller något som man behöver göra något åt själv.';
      for (const text of [indonesian, swedish]) assert.equal(detect(text, { finishReason: 'stop' }).kind, 'ok', text.slice(0, 30));
      assert.match(reason(judge(real('ref6c1f2f30')), 'word-salad').message, /function-word salad/);
    });
    it('leaves Russian text with English terms alone', () => {
      const text =
        'Чтобы перезапустить сервер, остановите процесс и запустите его снова с флагом --attention-backend triton. ' +
        'Если ответы по-прежнему странные, попробуйте отключить CUDA graphs и сравнить результат с bf16 KV cache.';
      assert.equal(detect(text, { finishReason: 'stop' }).kind, 'ok');
    });
  });

  describe('mojibake', () => {
    it('flags UTF-8 read as CP1252 (Cyrillic and Greek turned into Ð and Î pairs)', () => {
      const c = real('r50ae439b3b');
      const r = reason(judge(c), 'mojibake');
      assert.match(r.message, /CP1252/);
      assert.match(c.text.slice(r.offset), /^[ÐÑ]/, 'the onset is the first misread pair');
    });
    it('flags GBK punctuation read as Latin-1', () => {
      assert.match(reason(judge(real('r16b907b3c3')), 'mojibake').message, /GBK/);
    });
    it('flags a run of CP1251 pairs, but not Ukrainian that only looks like one', () => {
      const misread = Buffer.from('Привет, как дела? Всё хорошо.', 'utf8');
      const cp1251 = new TextDecoder('windows-1251').decode(misread);
      assert.match(reason(detect(cp1251), 'mojibake').message, /CP1251/);
      assert.equal(detect('Рівне та Дніпро є великими містами України, де живуть мільйони людей.').kind, 'ok');
    });
    it("flags CJK shown in GPT-2's byte alphabet (byte-level pieces never mapped back), and leaves Turkish and Polish alone", () => {
      const c = real('r138d5756bb');
      const r = reason(judge(c), 'mojibake');
      assert.equal(r.kind, 'degenerate');
      assert.match(r.message, /GPT-2's byte alphabet/);
      assert.equal(c.text.slice(r.offset, r.offset + 3), 'ä¸Ń');
      // The alphabet built here, from its definition: 你好 (e4 bd a0 e5 a5 bd) and 世界 (e4 b8 96 e7 95 8c).
      const shown = '我们说 ä½łå¥½ 和 ä¸ĸçķĮ 两个词。';
      assert.equal(reason(detect(shown, { finishReason: 'stop' }), 'mojibake').kind, 'degenerate');
      const one = detect('这是 ä½ł 一个字。', { finishReason: 'stop' });
      assert.equal(one.kind, 'ok');
      assert.equal(reason(one, 'mojibake').kind, 'suspect');
      for (const text of ['ÇIKIŞ düğmesine basın; çıkış yapmak için Çık yazın, açık kalsın.', 'Mógł pójść do szkoły, ale ołówek został w domu.']) {
        assert.deepEqual(detect(text, { finishReason: 'stop' }).reasons, [], text);
      }
    });
    it('makes replacement characters degenerate from two, a suspect at one', () => {
      assert.equal(reason(detect('你好����！我是助手。'), 'mojibake').kind, 'degenerate');
      const one = detect(`${PROSE}\ufffd`);
      assert.equal(one.kind, 'ok');
      assert.equal(reason(one, 'mojibake').kind, 'suspect');
    });
  });

  describe('list-cycle', () => {
    it('flags a numbered list whose items come back (38 districts, with repeats)', () => {
      const c = real('rc61b484914');
      const r = reason(judge(c), 'list-cycle');
      assert.ok(r.offset > c.text.indexOf('28.'), 'the onset is the first repeated item');
    });
    it('flags a list that goes on as numbers with nothing after them (real output, 3. to 49.)', () => {
      const c = real('r6ba5ae0044');
      const r = reason(judge(c), 'list-cycle');
      assert.equal(c.text.slice(r.offset, r.offset + 2), '4.', 'the onset is the first empty item');
      assert.match(r.message, /hold nothing but their number/);
    });
    it('flags 16 empty numbered items in a row, streamed or whole, and leaves 15, or items with text between, alone', () => {
      const empty = (n: number): string => `Ten things to pack:\n1. A map\n${Array.from({ length: n }, (_, i) => `${i + 2}.`).join('\n\n')}\n`;
      assert.equal(reason(detect(empty(16), { finishReason: 'stop' }), 'list-cycle').kind, 'degenerate');
      const streamed = createDetector();
      for (const piece of empty(16).match(/[\s\S]{1,3}/g)!) streamed.push({ text: piece });
      assert.equal(streamed.finish({ finishReason: 'stop' }).kind, 'degenerate');
      assert.equal(detect(empty(15), { finishReason: 'stop' }).kind, 'ok');
      // A numbered outline whose items hold their text on the next line is not empty.
      const outline = Array.from({ length: 20 }, (_, i) => `${i + 1}.\n   Check item ${i + 1} of the list.`).join('\n');
      assert.equal(detect(outline, { finishReason: 'stop' }).kind, 'ok');
    });
    it('leaves numbered steps that differ only by their numbers alone', () => {
      const steps = Array.from({ length: 12 }, (_, i) => `${i + 1}. Run step ${i + 1} and check the log.`).join('\n');
      assert.equal(detect(steps, { finishReason: 'stop' }).kind, 'ok');
    });
    it('flags lines that come back as a cycle once their numbering is left out, numbered or bulleted', () => {
      const items = ['Paris, the capital', 'Lyon, on the Rhone', 'Marseille by the sea'];
      const numbered = `Cities of France:\n${Array.from({ length: 10 }, (_, i) => `${i + 1}. ${items[i % 3]}`).join('\n')}`;
      const r = reason(detect(numbered, { finishReason: 'stop' }), 'list-cycle');
      assert.equal(numbered.slice(r.offset, r.offset + 8), '1. Paris');
      assert.match(r.message, /same 3 lines come back 3 times/);
      const bullets = `${Array.from({ length: 6 }, (_, i) => `- ${items[i % 2]}`).join('\n')}\n`;
      assert.equal(reason(detect(bullets, { finishReason: 'stop' }), 'list-cycle').kind, 'degenerate');
    });
    it('flags a bulleted list whose items come back out of order, as a numbered one does', () => {
      const capitals = [
        'Paris, capital of France',
        'Berlin, capital of Germany',
        'Madrid, capital of Spain',
        'Rome, capital of Italy',
        'Vienna, capital of Austria',
      ];
      const again = [capitals[2], capitals[0], capitals[4], capitals[1]];
      for (const bullet of ['-', '*', '•']) {
        const list = `Capitals of Europe:\n${[...capitals, ...again].map((c) => `${bullet} ${c}`).join('\n')}\n`;
        const r = reason(detect(list, { finishReason: 'stop' }), 'list-cycle');
        assert.equal(list.slice(r.offset, r.offset + 8), `${bullet} Madrid`, bullet);
        assert.match(r.message, /4 bullet items .* repeat earlier items/);
      }
    });
    it('leaves bullets alone that repeat across lists, under numbered items, or are short values', () => {
      const capitals = ['Paris, capital of France', 'Berlin, capital of Germany', 'Madrid, capital of Spain', 'Rome, capital of Italy'];
      const bullets = capitals.map((c) => `- ${c}`).join('\n');
      // Each list has its own heading: the same bullets under two headings are two lists.
      assert.equal(detect(`Visited in 2023:\n${bullets}\n\nVisited in 2024:\n${bullets}\n`, { finishReason: 'stop' }).kind, 'ok');
      const details = capitals.map((c, i) => `${i + 1}. ${c}\n   - Open all year round\n   - Reached by train`).join('\n');
      assert.equal(detect(details, { finishReason: 'stop' }).kind, 'ok');
      const answers = ['- Yes', '- No', '- Yes', '- Yes', '- No', '- Yes', '- N/A', '- N/A', '- Yes'].join('\n');
      assert.equal(detect(`Supported:\n${answers}\n`, { finishReason: 'stop' }).kind, 'ok');
    });
    it('leaves lines that differ by their numbers, code whose words repeat, and two rounds of a cycle alone', () => {
      const log = Array.from({ length: 12 }, (_, i) => (i % 2 ? `loss: 0.${i}3` : `Epoch ${i}/10`)).join('\n');
      assert.equal(detect(log, { finishReason: 'stop' }).kind, 'ok');
      const sql = Array.from({ length: 8 }, (_, i) => `ALTER OPERATOR ${['%', '<%', '%>', '<<%'][i % 4]} (text, text)\n  SET (RESTRICT = matchingsel);`).join(
        '\n',
      );
      assert.equal(detect(sql, { finishReason: 'stop' }).kind, 'ok');
      const twice = ['Paris, the capital', 'Lyon, on the Rhone', 'Paris, the capital', 'Lyon, on the Rhone', 'Nice, in the south'].join('\n');
      assert.equal(detect(twice, { finishReason: 'stop' }).kind, 'ok');
    });
    it('flags the same numbered item four times in a row while its number counts up, after a number or a label', () => {
      const plan = (line: (n: number) => string, copies: number): string =>
        `Plan for the site:\n1. Pick a domain name.\n${Array.from({ length: copies }, (_, i) => line(i + 2)).join('\n')}`;
      for (const line of [(n: number) => `${n}. Add a search box to the page.`, (n: number) => `Step ${n}: Add a search box to the page.`]) {
        const text = plan(line, 4);
        const r = reason(detect(text, { finishReason: 'length' }), 'list-cycle');
        assert.equal(r.kind, 'degenerate');
        assert.equal(r.offset, text.indexOf(line(2)), 'the onset is the first copy');
        assert.match(r.message, /same numbered item comes 4 times/);
        assert.equal(detect(plan(line, 3), { finishReason: 'length' }).kind, 'ok', 'three copies stay ok');
      }
    });
    it('leaves short numbered items and labelled log lines that repeat alone', () => {
      for (const text of [
        'Training plan:\nDay 1: Rest\nDay 2: Rest\nDay 3: Rest\nDay 4: Rest\nDay 5: Long run',
        'Epochs:\nEpoch 1: loss 0.52\nEpoch 2: loss 0.52\nEpoch 3: loss 0.52\nEpoch 4: loss 0.52',
        'Count with me:\n1. one sheep jumps over\n2. two sheep jump over\n3. three sheep jump over\n4. four sheep jump over',
      ]) {
        assert.equal(detect(text, { finishReason: 'stop' }).kind, 'ok', text);
      }
    });
    it('leaves an emphatic "Yes, yes, yes, yes, yes!" alone: one run of the word, not items coming back', () => {
      for (const text of ['Yes, yes, yes, yes, yes! I love that idea so much.', 'Oh yes, yes, yes, yes, yes! Thank you so much!']) {
        assert.deepEqual(detect(text, { finishReason: 'stop' }).reasons, [], text);
      }
    });
  });

  describe('prompt-echo', () => {
    it('keeps a loop the prompt makes too a suspect (a base model carrying a repeated prompt on, sglang#5084)', () => {
      const c = real('r05bcccdf21');
      assert.ok(c.prompt);
      assert.equal(detect(c.text, {}).kind, 'degenerate', 'without the prompt it is a loop');
      const v = detect(c.text, {}, undefined, { prompt: c.prompt });
      assert.equal(v.kind, 'ok', JSON.stringify(v.reasons));
      const loop = reason(v, 'long-loop');
      assert.equal(loop.kind, 'suspect');
      assert.match(loop.message, /prompt repeats the same passage/);
      // Streamed, the same: the prompt is judged at finish.
      const d = createDetector({ prompt: c.prompt });
      for (let i = 0; i < c.text.length; i += 5) d.push({ text: c.text.slice(i, i + 5) });
      assert.deepEqual(d.finish({}), v);
      // A prompt that says the passage once, or not at all, leaves the loop degenerate.
      assert.equal(detect(c.text, {}, undefined, { prompt: 'Apple is red. Banana is Yellow. Apple is' }).kind, 'degenerate');
      assert.equal(detect(c.text, {}, undefined, { prompt: 'Name two fruits and their colours.' }).kind, 'degenerate');
    });
    const prompt = 'Explain in two sentences why the KV cache grows with the length of the answer.';
    it('makes one echo a suspect and an echo that comes back degenerate', () => {
      const once = detect(`${prompt}\n${PROSE}`, { finishReason: 'stop' }, undefined, { prompt });
      assert.equal(once.kind, 'ok');
      assert.equal(reason(once, 'prompt-echo').kind, 'suspect');
      const twice = detect(`${prompt}\n${PROSE}\n${prompt.toUpperCase()}\n`, { finishReason: 'stop' }, undefined, { prompt });
      assert.equal(reason(twice, 'prompt-echo').kind, 'degenerate');
    });
    it("flags an answer that is the prompt's opening, cut by the token limit (QServe returning its GSM8K question)", () => {
      const c = real('r623a2c9e11');
      const question =
        'Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. How many clips did Natalia sell altogether in April and May?';
      const v = detect(c.text, { finishReason: 'length' }, undefined, { prompt: question });
      const r = reason(v, 'prompt-echo');
      assert.equal(r.kind, 'degenerate');
      assert.equal(r.offset, 0);
      assert.match(r.message, /the model returns its input/);
      const cut = detect(c.text.slice(0, 40), { finishReason: 'length' }, undefined, { prompt: question });
      assert.match(reason(cut, 'prompt-echo').message, /whole answer is the first 40 characters of the prompt/);
      const framed = detect(c.text, { finishReason: 'length' }, undefined, { prompt: `Solve this: ${question}` });
      assert.ok(!framed.reasons.some((x) => x.code === 'prompt-echo'), 'the prompt opens with other words');
    });
    it('flags an answer that is the prompt and little else, and keeps a quoted question before an answer a suspect', () => {
      const whole = detect(`${prompt} Thanks.`, { finishReason: 'stop' }, undefined, { prompt });
      assert.equal(reason(whole, 'prompt-echo').kind, 'degenerate');
      assert.match(reason(whole, 'prompt-echo').message, /the model returns its input/);
      const short = detect('Explain in two sentences how a page table works.', { finishReason: 'stop' }, undefined, { prompt });
      assert.equal(short.kind, 'ok');
    });
    it('reads the prompt from a JSONL record', () => {
      const r = detectRecord({ id: 1, text: `${prompt} ${prompt} ${PROSE}`, finish_reason: 'stop', prompt });
      assert.ok('reasons' in r && r.reasons.includes('prompt-echo'), JSON.stringify(r));
    });
    it('ignores prompts too short to tell', () => {
      assert.equal(detect('Hi there! Hi there!', { finishReason: 'stop' }, undefined, { prompt: 'Hi there!' }).reasons.length, 0);
    });
  });

  describe('ends in a run when cut at max_tokens (tailrun.ts)', () => {
    const prose = 'To configure the server, set the batch size in the launch file and restart the service. ';
    it('flags an answer cut while repeating one short unit 32 times: a question mark, CJK full stops, "!, ", an emoji, tofu', () => {
      for (const unit of ['?', '。', '!, ', '\u{1F60A}', '□']) {
        const text = prose + unit.repeat(32);
        const r = reason(detect(text, { finishReason: 'length' }), 'length-repetition');
        assert.equal(r.offset, prose.length, unit);
        assert.match(r.message, /ends in 32 copies/);
        assert.equal(detect(prose + unit.repeat(31), { finishReason: 'length' }).kind, 'ok', `${unit}: 31 copies`);
        assert.equal(detect(text, { finishReason: 'stop' }).kind, 'ok', `${unit}: the model stopped by itself`);
      }
    });
    it('reads the reasoning when the server cut it before any answer text came (a model stuck while thinking)', () => {
      const thinking = 'Okay, the user asks how to set the batch size. Let me think. ';
      const stuck = createDetector();
      stuck.push({ reasoning: thinking });
      for (let i = 0; i < 40; i++) stuck.push({ reasoning: '。' });
      const r = reason(stuck.finish({ finishReason: 'length' }), 'length-repetition');
      assert.equal(r.kind, 'degenerate');
      assert.equal(r.offset, 0, 'reasoning reasons point at the answer, which is empty');
      assert.match(r.message, new RegExp(`^In the reasoning text at offset ${thinking.length}: finish_reason is "length" and the reasoning ends in 40 copies`));
      // Cut while thinking soundly: ok. An answer that came after the stuck reasoning is what was cut instead.
      const sound = createDetector();
      sound.push({ reasoning: `${thinking}The flag is --max-running-requests, and the memory it needs grows with the batch.` });
      assert.equal(sound.finish({ finishReason: 'length' }).kind, 'ok');
      const answered = createDetector();
      answered.push({ reasoning: thinking + '。'.repeat(40) });
      answered.push({ text: 'Set --max-running-requests to the batch size you want.' });
      assert.equal(answered.finish({ finishReason: 'length' }).kind, 'ok');
    });
    it('leaves rules, banners, leaders, padding and digits cut at max_tokens alone', () => {
      for (const unit of ['-', '=', '/', '.', '*', ' ', '0', '─', '-+', '—', '＝', '…', '█', '★']) {
        assert.equal(detect(prose + unit.repeat(60), { finishReason: 'length' }).kind, 'ok', JSON.stringify(unit));
      }
    });
  });

  describe('ends in a loop', () => {
    it('counts a CJK character as a token of letters: a Chinese answer that ends in a short word five times (a real answer)', () => {
      const c = real('r7e10e6dc7b');
      const r = reason(judge(c), 'short-loop');
      assert.equal(r.kind, 'degenerate');
      assert.match(c.text.slice(r.offset), /^,?洗脚,洗脚,洗脚,/);
      // Thanks said three times is a polite ending, not a loop; the same length in Latin letters is not one either.
      for (const text of ['不客气，很高兴能帮到你。如果还有其他问题，随时告诉我。谢谢！谢谢！谢谢！', `${PROSE}Thanks, thanks, thanks,`]) {
        assert.deepEqual(detect(text, { finishReason: 'stop' }).reasons, [], text);
      }
    });
    it('reads a loop that a paste cut short with an ellipsis as ending the answer (a real translation runaway)', () => {
      const c = real('r731e344953');
      assert.match(c.text, /…$/);
      const r = reason(judge(c), 'short-loop');
      assert.equal(r.offset, 0);
      assert.match(r.message, /repeated 8 times back to back, then an ellipsis/);
      // Three dots do too, with spaces after them; the same words said once before an ellipsis do not.
      for (const text of ['嗯，我再想想，我再想想，我再想想，…', '嗯，我再想想，我再想想，我再想想，...  ']) {
        assert.match(reason(detect(text, { finishReason: 'stop' }), 'short-loop').message, /repeated 3 times back to back, then an ellipsis/, text);
      }
      for (const text of ['Count along with me: one, two, three, four…', `${PROSE}And then he waited…`, 'Well… well… we shall see.', '…']) {
        assert.equal(detect(text, { finishReason: 'stop' }).kind, 'ok', text);
      }
    });
    it('reads an answer with no finish reason that stops inside a word of a loop copy as cut while looping', () => {
      const copy = 'An image of a Thanksgiving table with a turkey. ';
      const cut = `Here is what I see.\n${copy}${copy}${copy.slice(0, 20)}`;
      assert.ok(!/\s$/.test(cut) && /[a-z]$/.test(cut));
      const r = reason(detect(cut, {}), 'length-repetition');
      assert.equal(r.offset, cut.indexOf(copy));
      assert.match(r.message, /^No finish reason came/);
      // A known finish decides: "stop" keeps the laxer needs away; "length" already had them.
      assert.equal(detect(cut, { finishReason: 'stop' }).kind, 'ok');
      assert.match(reason(detect(cut, { finishReason: 'length' }), 'length-repetition').message, /^Finish_reason is "length"/);
      // Stopping on a copy's boundary, or on punctuation, is no cut.
      assert.equal(detect(`Here is what I see.\n${copy}${copy}`.trimEnd(), {}).kind, 'ok');
      assert.equal(detect(`${cut}…`, {}).kind, 'ok');
    });
    it('flags a list that ends on one word five times (no finish reason given)', () => {
      const v = judge(real('rd1e570cf1f'));
      assert.equal(v.kind, 'degenerate');
      const r = reason(v, 'short-loop');
      assert.match(r.message, /ends in a 8-character period repeated 5 times/i);
      // The exact repeat starts in the last letters before the first "czapki" ("…ki, czapki, …").
      const text = real('rd1e570cf1f').text;
      assert.ok(Math.abs(r.offset - text.indexOf('czapki')) <= 4, `offset ${r.offset}`);
    });

    it('flags an answer that is a paragraph repeated until it was cut', () => {
      const c = real('r8d7110d9a1');
      const v = judge(c);
      assert.equal(v.kind, 'degenerate');
      assert.ok(reason(v, 'long-loop').offset < c.text.length / 2, 'the loop covers most of the answer');
    });

    it('leaves a doubled refrain, a short "very very very" and a model that stopped on its own loop of data alone', () => {
      const refrain = `${PROSE}\nAnd the river keeps on running.\nAnd the river keeps on running.\n`;
      assert.equal(detect(refrain, { finishReason: 'stop' }).kind, 'ok');
      assert.equal(detect(`${PROSE}That is very very very good.`, { finishReason: 'stop' }).kind, 'ok');
      assert.equal(detect(`${PROSE}${'| --- '.repeat(6)}|`, { finishReason: 'stop' }).kind, 'ok');
    });

    it('flags a joke told two and a half times that is nearly the whole answer (a prompt echoed in a loop)', () => {
      const c = real('rfca1bc9beb');
      const v = judge(c);
      assert.equal(v.kind, 'degenerate');
      const r = reason(v, 'long-loop');
      assert.match(r.message, /ends in a \d+-character period repeated 2 times/);
      assert.ok(r.offset <= c.text.indexOf('Why did'), `offset ${r.offset}`);
    });

    it('needs two and a half sentence-long periods over three quarters of the answer for that', () => {
      const joke = 'Why did the chicken cross the road? To get to the other side. ';
      assert.equal(detect(`${joke}${joke}Why did the chicken cross the road`, { finishReason: 'stop' }).kind, 'degenerate');
      assert.equal(detect(`${joke}${joke}`, { finishReason: 'stop' }).kind, 'ok', 'two periods');
      assert.equal(detect(`${PROSE}${joke}${joke}Why did the chicken cross the road`, { finishReason: 'stop' }).kind, 'ok', 'less than three quarters');
    });

    it('flags a whole answer of prose said twice, and leaves short ones, code and partial copies alone', () => {
      const answer = `${PROSE}Requests that do not fit wait in the queue until a running one frees its blocks.`;
      assert.ok(answer.length >= LIMITS.endLoopWholeChars);
      for (const between of ['\n\n', ' ', '']) {
        const r = reason(detect(`${answer}${between}${answer}`, { finishReason: 'stop' }), 'long-loop');
        assert.equal(r.offset, 0, JSON.stringify(between));
        assert.match(r.message, /twice/);
      }
      // Another sentence before the copies: they are no longer the whole answer, but a passage said
      // twice back to back (below); a suspect when the prompt holds the passage (a repeat asked for).
      const asked = `Here it is again, word for word, as you asked. ${answer}\n\n${answer}`;
      assert.match(reason(detect(asked, { finishReason: 'stop' }), 'long-loop').message, /said twice back to back/);
      const prompted = detect(asked, { finishReason: 'stop' }, undefined, { prompt: `Say this paragraph twice, word for word: ${answer}` });
      assert.equal(prompted.kind, 'ok');
      assert.match(reason(prompted, 'long-loop').message, /The prompt holds the same passage/);
      // One copy and a half, and a templated code block said twice (no sentence ends), stay ok.
      assert.equal(detect(`${answer}\n\n${answer.slice(0, answer.length >> 1)}`, { finishReason: 'stop' }).kind, 'ok');
      const block = ['ALTER TABLE users ADD COLUMN created_at timestamptz;', 'CREATE INDEX users_created_at ON users (created_at);', 'ANALYZE users;'].join(
        '\n',
      );
      assert.equal(detect(`${block}\n${block}`, { finishReason: 'stop' }).kind, 'ok');
    });

    it('flags a passage of prose said twice back to back anywhere in the answer (real outputs of coding agents)', () => {
      for (const id of ['rd315619239', 'r0a215911b3', 'r20c062d020']) {
        const c = real(id);
        const r = reason(judge(c), 'long-loop');
        assert.match(r.message, /passage .* is said twice back to back/, id);
        const copy = c.text.slice(r.offset).trim().slice(0, 40);
        assert.ok(c.text.indexOf(copy, c.text.indexOf(copy) + 1) > 0, `${id}: the onset starts a passage that comes again`);
      }
      // Streamed in pieces as well as whole, and in the middle of an answer that goes on.
      const passage = 'I have committed the removal of the unused image file. The project is now clean and builds.';
      const text = `${PROSE}${passage} ${passage} Next I will run the tests and report what they say about the build.`;
      const d = createDetector();
      for (let i = 0; i < text.length; i += 5) d.push({ text: text.slice(i, i + 5) });
      // The copies match from the separator before the first one (". "): the onset may sit a few characters early.
      const at = reason(d.finish({ finishReason: 'stop' }), 'long-loop').offset;
      assert.ok(Math.abs(at - text.indexOf(passage)) <= 4, `onset ${at}`);
    });
    it('leaves a chorus sung twice, a short sentence said twice, code and a table said twice alone', () => {
      const ok = (text: string): void => assert.equal(detect(text, { finishReason: 'stop' }).kind, 'ok', text);
      const chorus = 'Oh the river keeps on running to the sea\nAnd the night goes on forever, wild and free\n';
      ok(`${PROSE}\n${chorus}${chorus}`);
      const sentence = 'The answer is forty-two, as before. ';
      ok(`${PROSE}${sentence}${sentence}`);
      const code = 'if (cache.has(key)) { return cache.get(key); } // the cached value, when the key is present\n';
      ok(`Both handlers start the same way:\n${code}${code}`);
      const row = '| flashinfer | fp8_e4m3 | ok | ok | the same on every run of the sweep |\n';
      ok(`| backend | kv | a | b | note |\n|---|---|---|---|---|\n${row}${row}`);
    });

    it('needs most of the answer or five periods: three periods at the end of a long answer stay ok', () => {
      const tail = 'cache blocks, cache blocks, cache blocks,';
      const long =
        `${PROSE}Requests that do not fit wait in the queue until a running one finishes and frees its blocks. ` +
        'The reserve is a fraction of the pool set at start-up, and it shrinks when the pool is nearly full. ';
      assert.equal(detect(`${long}${tail}`, { finishReason: 'stop' }).kind, 'ok');
      assert.equal(detect(`Free ${tail}`, { finishReason: 'stop' }).kind, 'degenerate');
    });
  });

  describe('loops behind markup (markup.ts)', () => {
    it('flags a paragraph looped with <strong> and [Pause_3] put in different places in each copy', () => {
      const c = real('r94b73a6425');
      const v = judge(c);
      assert.equal(v.kind, 'degenerate');
      const r = reason(v, 'long-loop');
      assert.match(r.message, /once its markup .* is left out, the answer ends in a \d+-character period repeated 2 times/i);
      // The exact repeat starts with the second copy, at its first tag at the latest.
      assert.ok(r.offset <= c.text.indexOf('<strong>知道</strong>那个'), `offset ${r.offset}`);
      const d = createDetector();
      for (let i = 0; i < c.text.length; i += 3) d.push({ text: c.text.slice(i, i + 3) });
      assert.equal(d.finish({}).kind, 'degenerate', 'streamed in pieces');
    });

    it('flags an English sentence looped with emphasis and tags that move between copies', () => {
      const copies = [
        'The **cache** is full, so the <em>scheduler</em> waits for a request to finish. ',
        'The cache is **full**, so the scheduler <em>waits</em> for a request to finish. ',
        '<em>The</em> cache is full, so the **scheduler** waits for a request to finish. ',
      ];
      const v = detect(`${copies.join('')}`, { finishReason: 'stop' });
      assert.match(reason(v, 'long-loop').message, /once its markup .* is left out, a \d+-character period "The cache is full, so the scheduler/i);
      assert.equal(detect(copies.slice(0, 2).join(''), { finishReason: 'stop' }).kind, 'ok', 'a sentence said twice');
    });

    it('leaves HTML tables, bold lists, C includes and generics alone', () => {
      const rows = ['Alice', 'Bob', 'Carol', 'Dave'].map((n, i) => `<tr><td>${n}</td><td>${30 + i}</td><td><strong>active</strong></td></tr>`).join('\n');
      assert.equal(detect(`<table>\n${rows}\n</table>`, { finishReason: 'stop' }).kind, 'ok');
      const bold = ['GPU memory', 'KV cache', 'batch size', 'context length'].map((x) => `- **${x}**: check it before you launch the server.`).join('\n');
      assert.equal(detect(`${PROSE}\n${bold}`, { finishReason: 'stop' }).kind, 'ok');
      const includes = ['vector', 'memory', 'tuple', 'utility', 'string', 'map'].map((h) => `#include <${h}>`).join('\n');
      assert.equal(detect(`${includes}\n`, { finishReason: 'stop' }).kind, 'ok');
      assert.equal(detect('List<String> a; List<String> b; List<String> c;', { finishReason: 'stop' }).kind, 'ok');
    });

    it('reads dunder names, **kwargs and unpaired tags as no markup, and keeps the words of **bold**', () => {
      assert.equal(stripMarkup('def __init__(self, *args, **kwargs):\n    super().__init__(**kwargs)\n'), null);
      assert.equal(stripMarkup('#include <vector>\nstd::vector<int> v;'), null);
      const s = stripMarkup('A **bold** <em>word</em>[Pause_3].');
      assert.ok(s);
      assert.equal(s.text, 'A bold word.');
      assert.equal(s.origin[s.text.indexOf('bold')], 'A **'.length);
    });
  });

  describe('a flood cut into pieces (channel.ts)', () => {
    it('flags quoted strings of one digit, one per line, that make most of the answer', () => {
      const c = real('r81d07c1619');
      const v = judge(c);
      assert.equal(v.kind, 'degenerate');
      const r = reason(v, 'char-flood');
      assert.match(r.message, /\d+ runs of one character, 16 or more each, make \d+% of the text/);
      assert.ok(r.offset <= c.text.indexOf('2222'), `offset ${r.offset}`);
    });

    it('needs eight runs over three fifths of the text: rule lines between prose, and seven pieces, stay ok', () => {
      const rule = '-'.repeat(40);
      const sections = ['Install', 'Configure', 'Run', 'Test', 'Deploy', 'Monitor', 'Upgrade', 'Remove', 'Support'];
      const doc = sections.map((h) => `${rule}\n${h}\n${rule}\nSee the ${h.toLowerCase()} section of the manual for the details.\n`).join('');
      assert.equal(detect(doc, { finishReason: 'stop' }).kind, 'ok');
      const digits = (n: number): string => Array.from({ length: n }, (_, i) => `    "${String((i + 1) % 10).repeat(36)}",`).join('\n');
      assert.equal(detect(digits(7), { finishReason: 'stop' }).kind, 'ok', 'seven pieces');
      assert.equal(detect(digits(8), { finishReason: 'stop' }).kind, 'degenerate', 'eight pieces');
    });
  });

  describe('word-by-word signals (words.ts)', () => {
    const ok = (text: string): void => {
      const v = detect(text, { finishReason: 'stop' });
      assert.equal(v.kind, 'ok', `${text.slice(0, 60)}: ${v.reasons.map((r) => `${r.code}/${r.kind}`).join(', ')}`);
    };

    describe('stutter', () => {
      it('flags a word said twice in an answer too short for the word windows ("Septy Septy", "need need")', () => {
        const r = reason(judge(real('r6485ea55ed')), 'word-repetition');
        assert.equal(r.kind, 'degenerate');
        assert.equal(real('r6485ea55ed').text.slice(r.offset, r.offset + 5), 'Septy');
        assert.match(reason(judge(real('r32c037f7e3')), 'word-repetition').message, /"need"/);
      });
      it('flags punctuation doubled after a word ("Paris,,,")', () => {
        const r = reason(judge(real('rce9896e207')), 'word-repetition');
        assert.equal(r.offset, 5);
        assert.match(r.message, /",,,"/);
      });
      it('flags runs of full-width commas in CJK text, which has no space after them (a real answer)', () => {
        const c = real('r679b3aa91a');
        const r = reason(judge(c), 'word-repetition');
        assert.equal(r.kind, 'degenerate');
        assert.equal(c.text.slice(r.offset, r.offset + 3), '，，，');
        assert.match(r.message, /"，，，"/);
      });
      it('leaves CJK commas said once or twice alone, and counts one run in a long answer as a suspect', () => {
        ok('你好，我是一个助手，可以回答问题、写代码、翻译文本；有什么需要帮忙的吗？');
        ok('这个问题，，我想一下。答案是四十二。');
        const long = `${'我们先看这个问题的背景，然后给出答案。'.repeat(1)}这里有一个例子，，，它说明了原因。${'所以结论是成立的，我们可以继续讨论下一步。'}`;
        const v = detect(long, { finishReason: 'stop' });
        assert.equal(reason(v, 'word-repetition').kind, 'suspect');
      });
      it('leaves doubled function words, CSV empty fields and hex words alone', () => {
        ok('I knew that that was wrong.');
        ok('name,,,\nalpha,,,beta\n');
        ok('The mask is ffff ffff here.');
      });
      it('keeps a short phrase said twice a suspect', () => {
        const v = judge(real('r977dae1562'));
        assert.equal(v.kind, 'ok');
        assert.equal(reason(v, 'word-repetition').kind, 'suspect');
      });
    });

    describe('salad', () => {
      it('flags random vocabulary strung together without punctuation (BPE salad, random-word salad)', () => {
        for (const id of ['rbc515e26bd', 'r279487eb56']) {
          assert.match(reason(judge(real(id)), 'word-salad').message, /no punctuation/, id);
        }
      });
      it('flags tokens of a code-heavy vocabulary sampled at random: new words, varied symbols, pieces, no lines', () => {
        // Written here in the shape of the cl100k salads that bench/detector.bench.ts samples.
        const salad =
          "bindingHalf oscurrent']= frameworkprov._ resultSet tempor vizAl'], reasonedge }); Paolo getDirty fotograf$ quarante " +
          "rapidBuf /*< unfoldingLn shipment.rem ebENCH tallyKeep(' Andersonfra kom &# monitorsOut winding_Z parcelDiff @{ hinted " +
          'vaultNOR grazing:: setMarble ?> turbineCle pokud (` lanternSPEC orbitals -=Wy crispPATH hollow\\x quietlyRes marzo';
        const r = reason(detect(salad, { finishReason: 'length' }), 'token-salad');
        assert.equal(r.kind, 'degenerate');
        assert.match(r.message, /tokens sampled at random/);
        // Streamed a few characters at a time, the verdict is the same.
        const d = createDetector();
        for (let i = 0; i < salad.length; i += 3) d.push({ text: salad.slice(i, i + 3) });
        assert.equal(reason(d.finish({ finishReason: 'length' }), 'token-salad').message, r.message);
      });
      it('flags a whole short answer of random code tokens (24 to 31 words) on stricter shares, and leaves an import list alone', () => {
        const salad =
          "bindingHalf oscurrent']= frameworkprov._ resultSet tempor vizAl'], reasonedge }); Paolo getDirty fotograf$ quarante " +
          "rapidBuf /*< unfoldingLn shipment.rem ebENCH tallyKeep(' Andersonfra kom &# monitorsOut winding_Z parcelDiff @{ hinted " +
          'vaultNOR grazing:: setMarble ?> turbineCle';
        assert.match(reason(detect(salad, { finishReason: 'length' }), 'token-salad').message, /in the answer's \d+ words.*tokens sampled at random/);
        const imports =
          'import { ClientConfiguration, CommonClientConfiguration, INetworkModule, NetworkRequestOptions, Logger, ICrypto, CacheManager, ' +
          'ServerTelemetryManager, AuthorityOptions, AccountInfo, SilentRequest, TokenResponse, RefreshTokenCache, ClaimsRequest, ' +
          "AuthenticationResult, TelemetryClient, CorrelationProvider, RedirectHandler, PopupHandler, StorageManager, BrokerClient, ScopeSet } from './config';";
        assert.equal(detect(imports, { finishReason: 'stop' }).kind, 'ok');
      });
      it('flags control characters that no text holds (byte tokens sampled at random): two degenerate, one a suspect', () => {
        const salad = ' Babel layoutiday Loginiversity\u000e PNG Oh Wil Qiao supposedSTON805 stands Machina\u0013 barriers heard';
        const r = reason(detect(salad, { finishReason: 'length' }), 'token-salad');
        assert.equal(r.kind, 'degenerate');
        assert.equal(r.offset, salad.indexOf('\u000e'));
        assert.match(r.message, /2 control characters \(U\+000E, U\+0013\)/);
        const one = detect('The flag is set.\u0007 Restart the server.', { finishReason: 'stop' });
        assert.equal(one.kind, 'ok');
        assert.equal(reason(one, 'token-salad').kind, 'suspect');
        // Tabs, line breaks, form feeds (a licence's page breaks) and terminal colours are text.
        ok('Usage:\tprobe\r\n\fPage two\u000b\n\u001b[31mred\u001b[0m and done.');
      });
      it('leaves a declaration file with many different identifiers on its lines alone', () => {
        const dts = [
          '/**',
          ' * Acquires a token from the cache when it is still valid; see the RFC for the details.',
          ' */',
          'export declare function acquireTokenSilent(request: SilentRequest, account: AccountInfo, telemetry: TelemetryClient,',
          '  cacheManager: CacheManager, correlationId: string, networkModule: INetworkModule): Promise<AuthenticationResult>;',
          'export declare function clearTokenCache(account: AccountInfo, logger: Logger): Promise<void>;',
          'export declare function refreshAccessToken(refreshToken: string, scopes: string[], authority: AuthorityOptions): Promise<TokenResponse>;',
        ].join('\n');
        assert.equal(detect(dts, { finishReason: 'stop' }).kind, 'ok');
      });
      it('leaves C++ that names its CamelCase identifiers again and again alone, wherever its 64-word blocks fall', () => {
        const cpp = [
          'Reads the records of one section.',
          "  /// The RecordReader's buffer must outlive the reader and its BlockCursor.",
          '  RecordReader(const ByteSource &Src, const SectionInfo &Info,',
          '               bool IsBigEndian, uint8_t WordSize)',
          '      : ByteReader(Info.Bytes, IsBigEndian, WordSize), Src(&Src),',
          '        Info(&Info) {}',
          '',
          '  /// For sections without relocations.',
          '  RecordReader(StringRef Bytes, bool IsBigEndian, uint8_t WordSize)',
          '    : ByteReader(Bytes, IsBigEndian, WordSize) {}',
          '  RecordReader(ArrayRef<uint8_t> Bytes, bool IsBigEndian,',
          '               uint8_t WordSize)',
          '      : ByteReader(',
          '            StringRef(reinterpret_cast<const char *>(Bytes.data()), Bytes.size()),',
          '            IsBigEndian, WordSize) {}',
        ].join('\n');
        const lead = `${PROSE}${MORE_PROSE}`.split(' ');
        for (let k = 0; k < lead.length; k++) ok(`${lead.slice(0, k).join(' ')} ${cpp}`);
      });
      it('leaves a base-model sentence without punctuation alone: it has its function words', () => {
        ok(real('r9da48c48cf').text);
      });
      it('flags a handful of words in random order (function-word salad)', () => {
        assert.match(reason(judge(real('r4dc0392c32')), 'word-salad').message, /different pairs/);
      });
      it('leaves templated lines with few words alone: their word pairs repeat', () => {
        ok(Array.from({ length: 12 }, (_, i) => `${i + 1}. Copy file ${i + 1} to the backup disk and check it.`).join('\n'));
      });
      it('flags words glued from pieces, laid out like prose or not', () => {
        assert.match(reason(judge(real('rddf16abece')), 'word-salad').message, /glued from pieces/);
      });
      it('makes a short answer with a word glued from pieces a suspect, and leaves the verdict ok', () => {
        for (const id of ['ref01a17f7d', 'r9222a9152e']) {
          const v = judge(real(id));
          assert.equal(v.kind, 'ok', id);
          assert.equal(reason(v, 'spliced-token').kind, 'suspect', id);
        }
        assert.deepEqual(detect('The capital of France is Paris.', { finishReason: 'stop' }).reasons, []);
        assert.deepEqual(detect('Use the MacBook Pro or the ThinkPad for this kind of work.', { finishReason: 'stop' }).reasons, []);
      });
      it('flags one item cycling ("first item: dog, second item:., ...")', () => {
        assert.match(reason(judge(real('rcf1823541f')), 'list-cycle').message, /"item"/);
      });
      it('flags CJK glued to Latin words in English text, once long or twice short', () => {
        const spliced = reason(judge(real('r032b44a4bf')), 'spliced-token');
        assert.equal(spliced.kind, 'degenerate');
        assert.equal(real('r032b44a4bf').text.slice(spliced.offset, spliced.offset + 6), 'people');
        reason(judge(real('r7aab2146fc')), 'token-salad');
      });
      it('leaves Chinese with Latin terms, and English quoting Chinese with spaces, alone', () => {
        ok('我们使用Python编写这个工具，然后用Docker部署到服务器上。这样可以很方便地管理依赖。');
        ok(`${PROSE}The city is called 北京 (Beijing) in Chinese, and the river is 长江.`);
      });
      it('leaves roff escapes glued to Cyrillic words alone (translated man pages)', () => {
        ok('.TP\n\\fB\\-m\\fP\\fI НАЗИВ \\fP, \\fB\\-\\-mount \\fP\\fIНАЗИВ\\fP\n\\fIНАЗИВ\\fP наводи датотеку \\fIзмінна\\fP=\\fIзначення\\fP на систему.\n');
      });
      it('flags a long word of one piece glued to itself ("zuimersuggyimers")', () => {
        assert.match(reason(judge(real('r6e360f6927')), 'token-salad').message, /glued to itself/);
        ok('The mask 0xbf50000000000000 is a float64 and Donaudampfschifffahrtsgesellschaft is one German word.');
      });
      it('flags lines of stray symbols, and leaves closing braces and rules alone', () => {
        assert.match(reason(judge(real('r21a3856e76')), 'answer-flood').message, /lines hold only punctuation/);
        ok('{\n  "a": {\n    "b": [\n      1\n    ]\n  }\n}\n---\n===\n}\n);\n];\n');
      });
      it('flags one CJK token spliced into an English answer ("parallel探索 agents", "1 hour群 = 2 hours")', () => {
        for (const [id, word] of [
          ['r429be5b333', 'parallel'],
          ['r5142186b3e', 'hour'],
        ] as const) {
          const r = reason(judge(real(id)), 'spliced-token');
          assert.equal(r.kind, 'degenerate', id);
          assert.equal(real(id).text.slice(r.offset, r.offset + word.length), word, id);
        }
      });
      it('leaves English naming a CJK word apart, and glued CJK among more CJK, alone', () => {
        ok(`${PROSE}In Chinese the word for explore is 探索, written with two characters.`);
        ok(`${PROSE}The app prints Hello世界 and then 你好, 世界 on the next line.`);
      });
      it('flags a word of another script glued inside a word when it holds all that script (text written here: no tune example)', () => {
        const text = `${PROSE}The log then shows the worker calling печатlines before it stops.`;
        const r = reason(detect(text, { finishReason: 'stop' }), 'spliced-token');
        assert.equal(r.kind, 'degenerate');
        assert.equal(text.slice(r.offset, r.offset + 5), 'печат');
      });
      it('leaves a Cyrillic word standing apart, one homoglyph letter, and Greek units alone', () => {
        ok(`${PROSE}The Russian word честный means honest.`);
        ok(`${PROSE}The result remains identiсal to what we had before.`);
        ok(`${PROSE}Each step takes 10μs and the angle θ stays small.`);
      });
      it('flags a run of words strung together by spaces inside an answer that began as prose (GPT-2 tail)', () => {
        const c = real('rad138b46b4');
        const r = reason(judge(c), 'word-salad');
        assert.match(r.message, /strung together by spaces alone/);
        assert.ok(c.text.slice(r.offset).startsWith('to minute farereens'), c.text.slice(r.offset, r.offset + 30));
      });
      it('leaves keywords listed by spaces after prose alone: no words glued from pieces among them', () => {
        ok(`${PROSE}Tags python rust golang typescript kotlin swift haskell ocaml erlang elixir clojure scala julia fortran cobol pascal lisp`);
      });
    });

    describe('head of the answer (head.ts)', () => {
      it('flags one letter repeated for a quarter of the answer (欸 × 30), below the 160-copy flood rule', () => {
        const c = real('ra9ddc8dc41');
        const r = reason(judge(c), 'char-flood');
        assert.equal(c.text[r.offset], '欸');
        assert.match(r.message, /repeated 30 times/);
      });
      it('leaves laughter, screams and long words alone', () => {
        ok(`${PROSE}哈哈哈哈哈，太好笑了！`);
        ok(`${PROSE}"Nooooooooooo!" he shouted, and the model answered calmly.`);
      });
      it('flags commas and periods in random order after prose (GPTQ 8-bit past 128 tokens)', () => {
        const c = real('rd0c7ecafd3');
        const r = reason(judge(c), 'token-salad');
        assert.match(r.message, /sentence marks in a row/);
        assert.match(c.text.slice(r.offset, r.offset + 6), /^[,.]+$/);
      });
      it('leaves dot leaders, ellipses and rules alone: they do not switch mark', () => {
        ok(`${PROSE}\n\nIntroduction .................................... 1\nInstallation .................................... 4\n`);
        ok(`${PROSE}And then.......................... nothing happened!!!!!! ???????????????????????????`);
      });
      it('flags lines that hold one period alone (tensor-parallel phi-2)', () => {
        assert.match(reason(judge(real('rea0dc34ee2')), 'answer-flood').message, /3 of the answer's 6 lines hold one sentence mark alone/);
      });
      it('flags closing brackets that close nothing (llava-cli salad of "}`" tokens)', () => {
        const c = real('ra94248ca62');
        const r = reason(judge(c), 'token-salad');
        assert.match(r.message, /13 of the answer's 13 brackets close nothing/);
        assert.equal(c.text[r.offset], '}');
      });
      it('leaves code cut at its start, list markers and smileys alone', () => {
        ok('        return x\n    }\n}\n\nThe two closing braces above end the method and the class.');
        ok('Pick one: 1) rebuild 2) reinstall 3) downgrade 4) report it a) now b) later :) ;-)');
      });
      it('leaves one such line among many alone', () => {
        ok(`${PROSE}\n.\nThe second line says something else.\nA third line ends here.\nAnd a fourth one.`);
      });
      it('leaves worked sums, TeX math, tables of function words and a rule under prose alone', () => {
        ok(
          'x^2 - 5x + 6 = 0\n(x - 2)(x - 3) = 0\nx = 2 or x = 3\nf(2) = 2^2 + 1 = 5\nf(3) = 3^2 + 1 = 10\nf(2) + f(3) = 5 + 10 = 15\n' +
            'If a = 2 and b = 3, then a/b = 2/3 and a*b = 6, so (a/b)*6 = 4.\nSo it is 15, and that is the answer to the question of the sum.',
        );
        ok(
          'We have $x^2 - 5x + 6 = 0$, so $(x-2)(x-3) = 0$ and $x = 2$ or $x = 3$.\n\nThen $f(2) = 2^2 + 1 = 5$ and $f(3) = 3^2 + 1 = 10$, so $f(2) + f(3) = 15$.\n\n' +
            'If $a = 2$ and $b = 3$, then $\\frac{a}{b} = \\frac{2}{3}$ and $a \\cdot b = 6$, so $\\frac{a}{b} \\cdot 6 = 4$.\n\nThus the answer is $\\boxed{15}$.',
        );
        const rows = [
          ['I', 'am', 'was'],
          ['you', 'are', 'were'],
          ['he', 'is', 'was'],
          ['she', 'is', 'was'],
          ['it', 'is', 'was'],
          ['we', 'are', 'were'],
          ['they', 'are', 'were'],
        ];
        ok(`The verb "to be":\n\n| who | now | then |\n|---|---|---|\n${rows.map((r) => `| ${r.join(' | ')} |`).join('\n')}\n`);
        ok(`Summary of the run\n${'='.repeat(60)}\nAll of the tests passed, and none of them took more than a second.\n${'-'.repeat(60)}\n`);
      });
    });

    describe('template turns', () => {
      it('flags a bare "assistant" line with answer text on both sides (markers stripped)', () => {
        const c = real('rd30ea1c95a');
        const r = reason(judge(c), 'template-leak');
        assert.equal(r.kind, 'degenerate');
        assert.equal(c.text.slice(r.offset, r.offset + 10), 'assistant\n');
      });
      it("flags gpt-oss's channel header with its markers stripped (a real answer: reasoning and answer as one text)", () => {
        const c = real('rfc6deb0358');
        const r = reason(judge(c), 'template-leak');
        assert.equal(r.kind, 'degenerate');
        assert.ok(c.text.slice(r.offset).startsWith('assistantfinal'), c.text.slice(r.offset, r.offset + 20));
        assert.match(r.message, /"assistantfinal"/);
        // Prose that names the channel with a space, or a word that only starts alike, is no header.
        ok(`${PROSE}The assistant final answer channel is the one the user sees, and the assistants finalise it.`);
      });
      it('flags a role name glued to the end of a sentence when the answer goes on (markers stripped)', () => {
        const llama = `${PROSE}How can I help you today?assistant\n\nI can also explain the scheduler if you like.`;
        const r = reason(detect(llama, { finishReason: 'stop' }), 'template-leak');
        assert.equal(r.kind, 'degenerate');
        assert.equal(llama.slice(r.offset, r.offset + 9), 'assistant');
        const glued = `${PROSE}Here it is:\n\nbar\nfoo\nfooassistant\n\nHere it is:\n\nbar`;
        assert.equal(glued.slice(reason(detect(glued, { finishReason: 'length' }), 'template-leak').offset).slice(0, 9), 'assistant');
        assert.equal(reason(detect(`${PROSE}Is that what you wanted.user\nYes, and the rest too.`), 'template-leak').kind, 'degenerate');
      });
      it('flags a new question the model asks itself after the answer and answers (a few-shot template played on)', () => {
        const c = real('r254b0a1f63');
        const r = reason(judge(c), 'template-leak');
        assert.equal(r.kind, 'degenerate');
        assert.equal(c.text.slice(r.offset, r.offset + 9), 'Question:');
        assert.equal(reason(detect('It is 4.\nQ: And 3+3?\nA: 6', { finishReason: 'stop' }), 'template-leak').kind, 'degenerate');
      });
      it("keeps a base model's questions and answers a suspect when the prompt itself is written in Q: and A: lines", () => {
        // A base model given "Q: …\nA:" carries the format on (the thread's maintainer says so).
        const c = real('r82d3a416b9');
        assert.ok(c.prompt);
        const prompted = detect(c.text, { finishReason: null }, undefined, { prompt: c.prompt });
        assert.equal(prompted.kind, 'ok');
        assert.match(reason(prompted, 'template-leak').message, /prompt itself is written in question and answer lines/);
        // Streamed, it is never degenerate on the way (a probe that stops early would cut it).
        const streamed = createDetector({ prompt: c.prompt });
        for (const ch of c.text) {
          streamed.push({ text: ch });
          assert.equal(streamed.verdict.kind, 'ok');
        }
        // Without the prompt, or with a prompt in another form, the same answer is a leak.
        assert.equal(reason(detect(c.text, { finishReason: null }), 'template-leak').kind, 'degenerate');
        const chat = detect(c.text, { finishReason: null }, undefined, { prompt: 'What is the capital of Pakistan?' });
        assert.equal(reason(chat, 'template-leak').kind, 'degenerate');
        // A prompt with Q: and A: lines does not excuse another kind of leak (a role line).
        const role = detect(`${PROSE}\nassistant\nAnd here is more text that the model wrote on its own.`, { finishReason: 'stop' }, undefined, {
          prompt: 'Q: Why is the sky blue?\nA:',
        });
        assert.equal(reason(role, 'template-leak').kind, 'degenerate');
      });
      it('leaves questions and answers that the answer introduces, or opens with, alone', () => {
        const pairs = 'Question: What is the capital of Germany?\nAnswer: Berlin\n\nQuestion: What is the capital of Italy?\nAnswer: Rome';
        assert.equal(detect(`Here are two practice questions:\n\n${pairs}`, { finishReason: 'stop' }).kind, 'ok');
        assert.equal(detect(pairs, { finishReason: 'stop' }).kind, 'ok');
      });
      it('keeps a glued role name that ends the answer a suspect, and leaves a member in code alone', () => {
        const trailing = detect(`${PROSE}How can I help you today?assistant`, { finishReason: 'stop' });
        assert.equal(trailing.kind, 'ok');
        assert.equal(reason(trailing, 'template-leak').kind, 'suspect');
        ok('Set the field like this:\nconfig.user\nand then restart the service so that it reads the new value.');
      });
      it('leaves a role name in a sentence, a capitalised heading, or a trailing role line alone', () => {
        ok('The assistant replied quickly.\nAssistant\nThe next part explains the setup.');
        ok(`${PROSE}\nassistant`);
      });
      it('leaves an indented role name alone: wrapped text, not a turn', () => {
        ok(
          'NAME\n       gcloud ai-platform models add-iam-policy-binding - add IAM policy binding for a\n\t      model\n\nDESCRIPTION\n       Adds a policy binding.',
        );
      });
    });

    describe('detokenizer spacing', () => {
      it("flags tokenizer space marks left before the words (SentencePiece's ▁, byte-level BPE's Ġ and Ċ)", () => {
        for (const text of [
          '▁The▁capital▁of▁France▁is▁Paris.▁It▁is▁known▁for▁the▁Eiffel▁Tower.',
          'ĠThe Ġcapital Ġof ĠFrance Ġis ĠParis.ĊĠIt Ġis Ġknown Ġfor Ġthe ĠEiffel ĠTower.',
        ]) {
          const r = reason(detect(text, { finishReason: 'stop' }), 'detok-spacing');
          assert.equal(r.kind, 'degenerate', text);
          assert.equal(r.offset, 0, text);
        }
      });
      it('leaves an answer that names the marks, Maltese, and DeepSeek markers alone', () => {
        ok('SentencePiece writes "Hello world" as ▁Hello ▁world: the ▁ stands for the space before a word, and the decoder turns it back into one.');
        ok("Il-Ġimgħa li għaddiet, il-Gvern ħabbar pjan ġdid għall-Ġermanja u Ġużeppi qal li x-xogħol se jibda f'Ġunju.");
        const flood = '<｜begin▁of▁sentence｜>'.repeat(6);
        assert.equal(
          judge({ ...real('r862331972d'), text: flood }).reasons.some((r) => r.code === 'detok-spacing'),
          false,
        );
      });
      it(`flags a space inside a contraction ("' s journey")`, () => {
        const r = reason(judge(real('r778a7b1646')), 'detok-spacing');
        assert.equal(r.offset, 0);
      });
      it('flags contractions whose pieces a streamer joined with spaces ("I \' m sorry", "AI \' s"), a real answer', () => {
        const c = real('r68af9cfa50');
        const r = reason(judge(c), 'detok-spacing');
        assert.equal(r.kind, 'degenerate');
        assert.equal(c.text.slice(r.offset, r.offset + 4), " ' m");
        // One such slip in a long answer that writes its contractions glued stays a suspect.
        const v = detect(`${PROSE}${MORE_PROSE}It's fine, and the scheduler ' s queue is not.`, { finishReason: 'stop' });
        assert.equal(v.kind, 'ok');
        assert.equal(reason(v, 'detok-spacing').kind, 'suspect');
      });
      it("leaves an apostrophe between spaces alone when no contraction's tail follows, or it opens a quote", () => {
        ok(`${PROSE}Type ' then s to jump, or ' then m to mark; the ' key is a prefix.`);
        ok(`${PROSE}He wrote ' mass ' and ' scale ' in the margin.`);
        ok(`${PROSE}The suffixes ' s ' and ' d ' mark the plural and the past; ' ll ' is the future.`);
        // ... also where the quoted letter ends the answer.
        ok(`${PROSE}The options are ' s ', ' m ' and ' d '`);
        ok("The plural suffix is ' s '");
      });
      it('leaves quoted letters and glued contractions alone', () => {
        ok(`${PROSE}The letter 's' is the plural mark, and it's what Python's x = 's' holds.`);
        ok("It's the model's answer, and we don't change it.");
      });
      it('leaves a closing quote before a word alone (Turkish "\'fkmap\' ve", where "ve" is "and")', () => {
        ok("Bu seçenek 'fkmap' ve 'rightleft' seçeneklerini açar; 'hlsearch' ve 'incsearch' ise aramayı vurgular.");
      });
      it('keeps one damaged contraction in a long answer a suspect', () => {
        const v = detect(`${PROSE}${MORE_PROSE}The model' s answer came back.`, { finishReason: 'stop' });
        assert.equal(v.kind, 'ok');
        assert.equal(reason(v, 'detok-spacing').kind, 'suspect');
      });
      it('judges spaced contractions against the glued ones: two slips in a long answer that writes "it\'s" stay a suspect', () => {
        const glued = "It's the model's answer, and we don't change what it's given. ";
        const slips = "The scheduler' s queue fills, and the server' s log says so. ";
        const v = detect(`${PROSE}${glued}${slips}${glued}`, { finishReason: 'stop' });
        assert.equal(v.kind, 'ok');
        assert.equal(reason(v, 'detok-spacing').kind, 'suspect');
        assert.equal(reason(detect(`${PROSE}${slips}`, { finishReason: 'stop' }), 'detok-spacing').kind, 'degenerate');
      });
      it('flags suffixes standing alone after a word ("design ing , developing"), a real answer; one in prose that names it stays a suspect', () => {
        // Tune re64cf2dcf4: DJL Serving's streamer joined the token texts with spaces.
        const c = real('re64cf2dcf4');
        const r = reason(judge(c), 'detok-spacing');
        assert.equal(r.kind, 'degenerate');
        assert.equal(c.text.slice(r.offset, r.offset + 3), 'ing');
        // Three split words make it without the spaced commas; text that names a suffix unquoted stays a suspect.
        assert.equal(
          reason(detect('The inform ation you need is in the develop ment guide and the manage ment console.', { finishReason: 'stop' }), 'detok-spacing').kind,
          'degenerate',
        );
        const named = detect('The suffix ing marks a gerund in English, and the suffix tion turns a verb into a noun.', { finishReason: 'stop' });
        assert.equal(named.kind, 'ok');
        assert.equal(reason(named, 'detok-spacing').kind, 'suspect');
        // Suffixes quoted, hyphenated or glued, and the words that are words, are no pieces.
        ok(`${PROSE}Words ending in "ing" or -tion are common; testing, information and development are fine, and so is Ed's 2nd ed. of the book.`);
      });
      it('flags Chinese characters standing one by one between spaces (a real answer), from the first run', () => {
        const c = real('rb5391d474a');
        const r = judge(c).reasons.find((x) => x.code === 'detok-spacing' && /one by one/.test(x.message));
        assert.ok(
          r,
          judge(c)
            .reasons.map((x) => x.code)
            .join(', '),
        );
        assert.equal(r.kind, 'degenerate');
        assert.match(c.text.slice(r.offset), /^\p{Script=Han} \p{Script=Han} /u);
        const japanese = 'こ ん に ち は 。 今 日 は い い 天 気 で す ね 。 何 か お 手 伝 い で き る こ と は あ り ま す か ？';
        assert.equal(reason(detect(japanese, { finishReason: 'stop' }), 'detok-spacing').offset, 0);
      });
      it('leaves a list of single characters in a longer answer, and Korean words, alone', () => {
        const numerals =
          '中文的数字写法很简单，下面按顺序列出从一到十的汉字，每个字之间用空格隔开，方便你逐个认读和记忆：\n一 二 三 四 五 六 七 八 九 十\n' +
          '其中“一”到“三”的笔画最少，初学者通常先从这几个字开始练习书写，然后再慢慢学习后面的字。';
        ok(numerals);
        ok('저는 이 책 을 좋아합니다. 그 책 은 정말 재미있고, 저 는 매일 조금씩 읽고 있습니다.');
      });
      it('leaves code alone: a host, key or value in a fence or code span can be spelt like a suffix', () => {
        const fence = 'Here is the config:\n\n```\nHost ness\n  HostName lochness.example\n  User ment\nHost tion\n  User ing\n```\n\nThen connect.';
        assert.equal(detect(fence, { finishReason: 'stop' }).kind, 'ok');
        assert.deepEqual(
          detect('Set `host ness`, `user ment` and `port tion` in the file.', { finishReason: 'stop' }).reasons.map((r) => r.code),
          [],
        );
      });
      it("leaves quoted globs and sed expressions alone: no contraction ends before '*' or '/'", () => {
        ok(`${PROSE}Compare git rm 'd*' with git rm 'd/*', then run sed -i 's/^var /self./' index.js and sed -i 's/^let /self./' main.js.`);
      });
    });

    it('reaches the same reasons streamed one character at a time', () => {
      for (const id of ['r032b44a4bf', 'r4dc0392c32', 'rd30ea1c95a', 'r21a3856e76', 'rce9896e207', 'r778a7b1646', 'r68af9cfa50', 're64cf2dcf4']) {
        const c = real(id);
        const d = createDetector();
        for (const ch of c.text) d.push({ text: ch });
        const key = (v: Verdict): string => v.reasons.map((r) => `${r.code}/${r.kind}@${r.offset}`).join(',');
        assert.equal(key(d.finish({})), key(judge(c)), id);
      }
    });
  });

  describe('dropped words (dropped.ts)', () => {
    const seq = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
    it('flags determiners whose noun went missing in a real answer, from the first one', () => {
      const c = real('reec2711e1f');
      const r = reason(judge(c), 'dropped-words');
      assert.equal(r.kind, 'degenerate');
      assert.equal(c.text.slice(r.offset, r.offset + 4), 'the,');
    });
    it('keeps one such determiner a suspect (a real two-sentence answer)', () => {
      const v = judge(real('re07326d587'));
      assert.equal(v.kind, 'ok');
      assert.equal(reason(v, 'dropped-words').kind, 'suspect');
    });
    it('leaves determiners before keyword names, hyphenated words, quotes and nouns alone', () => {
      const text =
        'Use the for loop and the in operator, then tick the to-do list. Stopwords such as "the", "their" and "its" carry little meaning. ' +
        'It is the one I want, the best of them all, and their work is done. Your move.';
      assert.deepEqual(detect(text, { finishReason: 'stop' }).reasons, []);
    });
    it('flags counting with numbers skipped or glued in a real answer, at the first gap', () => {
      const c = real('ra3f47741bb');
      const r = reason(judge(c), 'dropped-words');
      assert.equal(r.kind, 'degenerate');
      assert.equal(c.text.slice(r.offset, r.offset + 4), '2122');
    });
    it('counts with commas too, and keeps a single gap a suspect', () => {
      const two = `Sure! ${seq(1, 40)
        .filter((x) => x !== 7 && x !== 31)
        .join(', ')}.`;
      assert.equal(reason(detect(two, { finishReason: 'stop' }), 'dropped-words').kind, 'degenerate');
      const one = seq(1, 40)
        .filter((x) => x !== 17)
        .join(' ');
      const v = detect(one, { finishReason: 'stop' });
      assert.equal(v.kind, 'ok');
      assert.equal(reason(v, 'dropped-words').kind, 'suspect');
    });
    it('leaves whole counts, even numbers, primes and Fibonacci alone', () => {
      for (const text of [
        seq(1, 100).join(' '),
        seq(1, 100).join('\n'),
        seq(1, 50)
          .map((x) => 2 * x)
          .join(', '),
        '2 3 5 7 11 13 17 19 23 29 31 37 41 43 47 53 59 61 67 71 73 79 83 89 97',
        '1 1 2 3 5 8 13 21 34 55 89 144 233 377 610 987 1597 2584 4181 6765',
      ]) {
        assert.deepEqual(detect(text, { finishReason: 'stop' }).reasons, [], text.slice(0, 40));
      }
    });
  });

  describe('sentences said again (sentences.ts)', () => {
    const repeatsOf = (v: Verdict) => v.reasons.filter((r) => r.code === 'list-cycle' && /^sentences come back/i.test(r.message));
    it('shows a real answer cycling between its sentences as a suspect, at the first repeat', () => {
      const c = real('r599a7c747d');
      const v = judge(c);
      const [r] = repeatsOf(v);
      assert.ok(r, v.reasons.map((x) => x.message).join('; '));
      assert.equal(r.kind, 'suspect');
      assert.equal(v.kind, 'ok');
      assert.ok(c.text.slice(r.offset).startsWith('Paris is the capital of France.'), c.text.slice(r.offset, r.offset + 40));
      assert.ok(r.offset > 0, 'the first copy is not the repeat');
      assert.match(r.message, /"paris is the capital of france"/);
    });
    it('sees a paragraph that comes back with other sentences around it (a real answer)', () => {
      assert.equal(repeatsOf(judge(real('r38f358d4d7'))).length, 1);
    });
    it('counts a sentence once it is said three times, not twice', () => {
      const loop = 'The cache keeps the newest blocks in memory for reuse. ';
      const once = `${loop}${PROSE}${loop}${MORE_PROSE}`;
      assert.deepEqual(repeatsOf(detect(once, { finishReason: 'stop' })), []);
      assert.equal(repeatsOf(detect(`${once}${loop}`, { finishReason: 'stop' })).length, 1);
    });
    it('leaves numbered lines, code and boilerplate-heavy docs alone', () => {
      const epochs = Array.from({ length: 6 }, (_, i) => `Epoch ${i + 1} finished and the loss went down a bit.`).join('\n');
      const code = Array.from({ length: 4 }, (_, i) => `if (x${i} == null) { return the default value for the key; }`).join('\n');
      const docs = Array.from(
        { length: 3 },
        (_, i) => `### fn_${i}(arg)\nReturns zero on success or a negative error code on failure.\n\`\`\`c\nint fn_${i}(int *arg);\n\`\`\`\n`,
      ).join('\n');
      for (const text of [epochs, code, docs]) assert.deepEqual(repeatsOf(detect(text, { finishReason: 'stop' })), [], text.slice(0, 40));
    });
    it('stops counting new sentences past its table, and still counts those it holds', () => {
      // Distinct sentences without digits: the index spelt in letters.
      const spelt = (i: number): string => `${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`;
      const sentence = (i: number): string => `The team named ${spelt(i)} wrote one more line here. `;
      const full = Array.from({ length: SENTENCES.table }, (_, i) => sentence(i)).join('');
      const again = (s: string): string => s.repeat(Math.ceil((0.3 * full.length) / s.length));
      const held = repeatsOf(detect(full + again(sentence(0)), { finishReason: 'stop' }));
      assert.equal(held.length, 1);
      const late = repeatsOf(detect(full + again(sentence(SENTENCES.table + 5)), { finishReason: 'stop' }));
      assert.deepEqual(late, []);
    });
  });

  describe('words no dictionary has (garbled.ts)', () => {
    const garbledOf = (v: Verdict) => v.reasons.filter((r) => r.code === 'garbled-words');
    const gluedOf = (v: Verdict) => v.reasons.filter((r) => r.code === 'detok-spacing' && /run together/.test(r.message));
    /** Healthy prose of 60 words, about a tool whose names it repeats. */
    const JARGON =
      'To run the server with tensor parallelism, start sglang with two GPUs and set the memory fraction a little lower. ' +
      'The router then sends each request to the worker with the most free cache, and the scheduler batches the prefill of new ' +
      'requests with the decode of running ones. When sglang prints a warning about the cache, lower the fraction again and restart it.';
    it('flags a real answer whose English words are misspelt and clipped all through, where the unknown words start', () => {
      const c = real('r39e86d3f3b');
      const [r] = garbledOf(judge(c));
      assert.ok(
        r,
        judge(c)
          .reasons.map((x) => x.code)
          .join(', '),
      );
      assert.equal(r.kind, 'degenerate');
      assert.match(r.message, /^\d+ of \d+ words of English prose are in no English dictionary/);
      assert.match(c.text.slice(r.offset), /^[a-z]+/);
      assert.ok(r.message.includes(JSON.stringify(/^[a-z]+/.exec(c.text.slice(r.offset))?.[0])), r.message);
    });
    it('leaves healthy prose with its jargon, code spans and fenced code alone', () => {
      const fenced = `${JARGON}\n\n\`\`\`python\nimport argparse, ctypes, errno\ndef parse(argv):\n    ns = argparse.parse_args(argv)\n    return ns.tp, ns.dp, ns.ep, ns.mem, ns.kv\n\`\`\`\n`;
      const spans = `${JARGON} Set \`mem_frac\`, \`tp\`, \`dp\`, \`ep\`, \`kvdtype\`, \`cudagraph\`, \`chunked\`, \`prefill\` and \`radix\` in the launch file.`;
      // No word list has a contraction's first half ("didn", "wouldn"): a word glued to an apostrophe is not looked up.
      const contractions = `The server didn't start at first. It didn't load the weights, and it wouldn't, couldn't, shouldn't or mustn't, they said; the log isn't clear, the cache wasn't there, the ports aren't open, the disks weren't ready, the job hasn't run, the queue hadn't moved and the model doesn't answer. It`;
      for (const text of [JARGON, fenced, spans, contractions]) assert.deepEqual(garbledOf(detect(text, { finishReason: 'stop' })), [], text.slice(-60));
    });
    it('leaves prose in another language alone (its words are in no English dictionary)', () => {
      const spanish =
        'El servidor arranca con dos tarjetas y reparte las peticiones entre los trabajadores. Cuando la memoria se llena, ' +
        'el planificador libera los bloques de la petición más nueva y la vuelve a poner en la cola, para que las demás terminen antes. ' +
        'Si el registro muestra un aviso sobre la memoria, baje la fracción y vuelva a arrancar el servidor con la misma configuración.';
      assert.deepEqual(garbledOf(detect(spanish, { finishReason: 'stop' })), []);
    });
    /** Garbled prose written here: English function words around clipped and misspelt ones, none of them twice. */
    const BROKEN =
      'so the specical mutiv was at the brised shelf, and the extapters wait for a jropessary dtvture of the consted intfain. ' +
      'then you uifin it with comploveritor and the plome of your grastic, which is not the tweam that it vorned to be. ' +
      'it has the blentic and some frosable, but the wendery of the drastil is on its clomper and in the hostrine. ';
    it('needs enough different unknown words: the same coined name again and again is not garbling', () => {
      const coined = Array.from({ length: 6 }, (_, i) => `The flarp sits on shelf ${'abcdef'[i]} and the flarp waits for the next batch of the day.`).join(' ');
      assert.deepEqual(garbledOf(detect(coined, { finishReason: 'stop' })), []);
      assert.equal(garbledOf(detect(BROKEN, { finishReason: 'stop' })).length, 1);
    });
    it('judges a long answer in blocks: garbling of half a block or more after healthy prose is found there', () => {
      // Real healthy prose of the tune split, a few thousand characters of it.
      const healthy = `${loadRealCases()
        .filter((c) => c.split === 'tune' && c.shape === 'healthy-prose')
        .map((c) => c.text.trim())
        .join('\n\n')
        .slice(0, 6000)
        .replace(/\s+\S*$/, '')}\n\n`;
      assert.ok(healthy.length > 3000);
      assert.deepEqual(garbledOf(detect(healthy, { finishReason: 'stop' })), []);
      // GARBLED.block / 2 made-up words ("zqab", "zqac", ...), none of them twice, between function words.
      const made = (i: number): string => `zq${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`;
      const broken = Array.from({ length: GARBLED.block / 2 }, (_, i) => `${['the', 'of the', 'and', 'to a'][i % 4]} ${made(i)}`).join(' ');
      const v = detect(`${healthy}${broken}.`, { finishReason: 'stop' });
      const [r] = garbledOf(v);
      assert.ok(r, v.reasons.map((x) => x.code).join(', '));
      assert.ok(r.offset >= healthy.length, `offset ${r.offset} inside the healthy part`);
    });
    it('flags words run together with a function word where spaces were lost, and leaves one compound alone', () => {
      const text =
        'The server reads its settings ofthe file at start and loads the model weights into memory. Then it waits for requests ' +
        'andthe router sends each one to a worker. The worker batches the prefill withthe decode steps of the requests it already runs, ' +
        'and it returns tokens tothe client as they come.';
      const [r] = gluedOf(detect(text, { finishReason: 'stop' }));
      assert.ok(r);
      assert.equal(r.kind, 'degenerate');
      assert.equal(text.slice(r.offset, r.offset + 5), 'ofthe');
      const three = text.replace('tothe', 'to the');
      assert.deepEqual(gluedOf(detect(three, { finishReason: 'stop' })), [], 'three are below GARBLED.minGlued');
      const compounds = `${JARGON} Mount the cache directory readonly so that a worker cannot change it, and keep the weights readonly too.`;
      assert.deepEqual(gluedOf(detect(compounds, { finishReason: 'stop' })), []);
    });
    it('counts the function words hidden in words run together, so a short answer that lost most of its spaces is English prose', () => {
      // A real answer whose spaces moved ("Iam an AIlanguage modelcreated byOpenAI, designedto ..."):
      // its function words are glued inside, too few stand alone to call it English.
      const c = real('re45b5ee644');
      const [r] = gluedOf(judge(c));
      assert.ok(r, 'glued words found');
      assert.equal(r.kind, 'degenerate');
      // The same words with their spaces back are healthy; event names in a technical answer are
      // too few of its words to be lost spaces.
      assert.equal(
        detect('I am an AI language model created by OpenAI, designed to assist with a wide range of questions.', { finishReason: 'stop' }).kind,
        'ok',
      );
      const events =
        'Attach the handler to the button and read the form when it changes. The browser calls onclick when the user presses it, onchange ' +
        'when a field loses focus with a new value, and onsubmit before the form is sent; onload runs once the page and its images are in.';
      assert.deepEqual(gluedOf(detect(events, { finishReason: 'stop' })), []);
    });
    it('reaches the same reasons streamed one character at a time', () => {
      const c = real('r39e86d3f3b');
      const d = createDetector();
      for (const ch of c.text) d.push({ text: ch });
      const key = (v: Verdict): string => v.reasons.map((r) => `${r.code}/${r.kind}@${r.offset}`).join(',');
      assert.equal(key(d.finish({})), key(judge(c)));
    });
  });

  describe('levels', () => {
    it('lets a suspect become degenerate when stronger evidence for the same code arrives', () => {
      const d = createDetector();
      d.push({ text: `${PROSE}\ufffd ` });
      d.push({ text: 'and then \ufffd\ufffd' });
      const v = d.finish({ finishReason: 'stop' });
      assert.equal(reason(v, 'mojibake').kind, 'degenerate');
      assert.equal(v.reasons.filter((r) => r.code === 'mojibake').length, 1);
    });
    it('reports suspects apart in JSONL results', () => {
      const r = detectRecord({ id: 'x', text: `${PROSE}The tokenizer maps unknown pieces to <unk> here.`, finish_reason: 'stop' });
      assert.deepEqual(r, { id: 'x', verdict: 'ok', reasons: [], suspects: ['special-tokens'] });
    });
  });
});
