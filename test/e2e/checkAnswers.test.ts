/**
 * Check Answers in Editor, in real VS Code: a JSON Lines file of saved server responses (an SGLang
 * chat completion with two choices, one NaN; a native /generate answer; a line that is not JSON)
 * gets one Problems entry per broken answer on its line, a summary notification, and the marks
 * go when the file is edited; a selection in a plain-text file is judged alone; a stream saved by
 * curl -N is put together and its verdict marked on its first line; pasted answers whose words lost
 * letters, or whose Chinese shows as undecoded byte-level pieces, are marked with what was seen.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Page } from 'playwright-core';
import { openFile, resultsDir, runCommand, toastText, useWorkbench } from './ui';
import { waitFor } from '../support/wait';
import { planAnswer } from '../../src/sim/answers';

const PROSE = 'The scheduler batches requests by length. Short prompts wait less, and long ones share the prefill.';

const SAVED = [
  JSON.stringify({
    id: 'chatcmpl-7',
    object: 'chat.completion',
    choices: [
      { index: 0, message: { role: 'assistant', content: PROSE }, finish_reason: 'stop', matched_stop: null },
      { index: 1, message: { role: 'assistant', content: '!'.repeat(24) }, finish_reason: 'stop', matched_stop: 'NaN happened' },
    ],
  }),
  JSON.stringify({ text: PROSE, meta_info: { id: 'gen-2', finish_reason: { type: 'stop', matched: null } } }),
  '{"id": "cut", "text": ',
].join('\n');

/** A streamed answer as `curl -N` saves it: token 0 in pieces, then SGLang's NaN stop. */
const STREAM = [
  ...['!!!!!!!!', '!!!!!!!!', '!!!!!!!!'].map(
    (content) => `data: ${JSON.stringify({ id: 's', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`,
  ),
  `data: ${JSON.stringify({ id: 's', object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop', matched_stop: 'NaN happened' }] })}\n\n`,
  'data: [DONE]\n\n',
].join('');

/** The simulator's answer with a letter lost from every second long word ("cahe", "attetion"), as a user would paste it. */
const GARBLED = [...planAnswer({ behaviour: { behaviour: 'garbled-letters' }, prompt: 'What does a KV cache do?', maxTokens: 512, seed: 1 }).content]
  .map((t) => t.text)
  .join('');

/** The simulator's Chinese answer as a detokenizer that never mapped byte-level pieces back shows it ("ç¼ĵåŃĺ…"). */
const BYTE_PIECES = [...planAnswer({ behaviour: { behaviour: 'byte-pieces' }, prompt: 'What does a KV cache do?', maxTokens: 512, seed: 1 }).content]
  .map((t) => t.text)
  .join('');

/** Runs Check Answers in Editor after clearing older notices, and waits for its notice; that notice's text. */
async function checkAnswers(page: Page, noticeHas: string, settledOn: RegExp): Promise<string> {
  await runCommand(page, 'Notifications: Clear All Notifications');
  await runCommand(page, 'Inference Doctor: Check Answers in Editor');
  return toastText(page, noticeHas, [settledOn]);
}

/** The Problems panel's rows as text. */
async function problems(page: Page): Promise<string[]> {
  return page.locator('.markers-panel .monaco-list-row').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).innerText));
}

describe('e2e: Check Answers in Editor', function () {
  this.timeout(300_000);
  const workbench = useWorkbench('check-answers', (workspace) => {
    writeFileSync(join(workspace, 'saved.jsonl'), `${SAVED}\n`);
    writeFileSync(join(workspace, 'pasted.txt'), `Here is what the chat showed:\n\n${'!'.repeat(30)}\n\nand the server said it was healthy.\n`);
    writeFileSync(join(workspace, 'curl-output.sse'), STREAM);
    writeFileSync(join(workspace, 'garbled.txt'), `${GARBLED}\n`);
    writeFileSync(join(workspace, 'byte-pieces.txt'), `${BYTE_PIECES}\n`);
  });
  let page: Page;
  before(() => {
    page = workbench.page;
  });

  it('marks the NaN choice and the unreadable line of saved responses, says how they fell, and drops the marks on an edit', async () => {
    await openFile(page, 'saved.jsonl');
    const summary = await checkAnswers(page, 'answers', /3 answers: 1 NaN, 2 ok; 1 line not read\. Marked in the editor\./);
    assert.match(summary, /Show Problems/);
    await page.locator('.notification-toast .monaco-button', { hasText: 'Show Problems' }).first().click();
    const rows = await waitFor('the Problems panel to list the marks', async () => ((await problems(page)).length >= 3 ? problems(page) : undefined), 30_000);
    const text = rows.join('\n');
    assert.match(text, /chatcmpl-7 choice 1 NaN: /);
    assert.match(text, /not read: not valid JSON[^\n]*\n[^\n]*\n\[Ln 3, Col 1\]/);
    assert.doesNotMatch(text, /gen-2/, 'the healthy native answer is not marked');
    await page.screenshot({ path: join(resultsDir, 'e2e-check-answers.png') });

    // An edit makes the marks point at the wrong text: they go.
    await page.locator('.monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n');
    await waitFor('the marks to go after the edit', async () => (await problems(page)).every((r) => !/chatcmpl-7/.test(r)), 30_000);
  });

  it('judges a selection alone: the flood in a pasted note, no summary of a file', async () => {
    await openFile(page, 'pasted.txt');
    await page.locator('.monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+A');
    await checkAnswers(page, '1 answer', /1 answer: 1 NaN\. Marked in the editor\./);
  });

  it('with no editor open, offers a new file to paste the answer into, then judges what is pasted', async () => {
    await runCommand(page, 'View: Close All Editors');
    await checkAnswers(page, 'Open the answer in an editor first', /curl -N/);
    await page.locator('.notification-toast .monaco-button', { hasText: 'New File to Paste Into' }).first().click();
    await page.locator('.tab.active', { hasText: /Untitled/ }).waitFor({ timeout: 30_000 });
    await page.keyboard.type('!'.repeat(30));
    await checkAnswers(page, '1 answer', /1 answer: 1 NaN\. Marked in the editor\./);
  });

  it('marks English prose whose words lost letters all through as garbled words, naming some of them', async () => {
    await openFile(page, 'garbled.txt');
    await checkAnswers(page, '1 answer', /1 answer: 1 degenerate[^.]*\. Marked in the editor\./);
    await runCommand(page, 'View: Focus Problems (Errors, Warnings, Infos)');
    const row = await waitFor('the garbled-words mark in Problems', async () => (await problems(page)).find((r) => /in no English dictionary/.test(r)), 30_000);
    assert.match(row, /garbled-words/);
    assert.match(row, /such as "cahe"/);
    await page.screenshot({ path: join(resultsDir, 'e2e-check-answers-garbled.png') });
  });

  it("marks a Chinese answer shown in GPT-2's byte alphabet as mojibake, naming the alphabet", async () => {
    await openFile(page, 'byte-pieces.txt');
    await checkAnswers(page, '1 answer', /1 answer: 1 degenerate[^.]*\. Marked in the editor\./);
    await runCommand(page, 'View: Focus Problems (Errors, Warnings, Infos)');
    const row = await waitFor('the mojibake mark in Problems', async () => (await problems(page)).find((r) => /byte alphabet/.test(r)), 30_000);
    assert.match(row, /mojibake/);
    assert.match(row, /byte-level BPE pieces not mapped back/);
    await page.screenshot({ path: join(resultsDir, 'e2e-check-answers-byte-pieces.png') });
  });

  it('puts a saved stream together as the probe does and marks its verdict on its first line', async () => {
    await openFile(page, 'curl-output.sse');
    await checkAnswers(page, '1 answer', /1 answer: 1 NaN\. Marked in the editor\./);
    await runCommand(page, 'View: Focus Problems (Errors, Warnings, Infos)');
    await waitFor(
      'the stream mark in Problems',
      async () => (await problems(page)).some((r) => /The stream's answer \(4 chunks\): NaN: /.test(r) && /\[Ln 1, Col 1\]/.test(r)),
      30_000,
    );
  });
});
