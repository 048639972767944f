/** `inference-doctor detect FILE.jsonl|-`: one verdict line per JSONL record. */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { detectRecords, recordResult, type DetectRecordResult } from '../../core/detect';
import { judgeAnswerText } from '../../core/detect/answerText';
import { judgeSavedStream, looksLikeSavedStream } from '../../core/probe/savedStream';
import { errorMessage } from '../../core/errors';
import { EXIT, UsageError, write, type CliIo, type Command } from '../command';

const USAGE = `Usage: inference-doctor detect FILE.jsonl
       inference-doctor detect ANSWER.txt   (one answer as plain text)
       inference-doctor detect -            (read standard input)

Each input line is a JSON object {"id", "text", "finish_reason"?, "matched_stop"?, "logprobs"?,
"prompt"?} (Python's NaN/Infinity literals are accepted; with "prompt" an echoed prompt is seen),
or a response saved as the server sent it: an OpenAI-compatible chat completion or completion
(SGLang, vLLM; every choice, with the message's reasoning), a line of an OpenAI batch output file,
or SGLang's native /generate answer {"text", "meta_info"} (alone or a list of them).
A file whose first line is "{" or "[" alone is one pretty-printed JSON document; a file that starts
with "data:" is a saved stream (curl -N): its chunks are put together as the probe does (the first
choice) and judged as one answer. Any other file (its first line is not JSON) is one answer as plain
text, copied from a chat or a log, judged whole; a note on standard error says so.
Each output line is {"id", "choice"?, "verdict", "reasons", "suspects"?}: "reasons" made the
verdict, "suspects" is weak evidence that left it alone, "choice" numbers the choices of a response
that has several. {"id", "error"} marks a line that is not a valid record. Blank lines are skipped.

Exit status: 0 judged (whatever the verdicts), 64 bad usage, 65 a document or stream too large to
read whole, 66 the file cannot be read.`;

/** The largest pretty-printed document or saved stream read whole. */
const MAX_WHOLE_CHARS = 64 * 1024 * 1024;

/** How a file read whole is judged. */
type WholeKind = 'document' | 'stream' | 'text';

/** What a file's first non-blank line says it is, when it is read whole; null for JSON Lines. */
function wholeKindOf(firstLine: string): WholeKind | null {
  const t = firstLine.trim();
  if (t === '{' || t === '[') return 'document';
  if (looksLikeSavedStream(t)) return 'stream';
  return t.startsWith('{') || t.startsWith('[') ? null : 'text';
}

/** A saved stream or a plain-text answer as one answer, or a pretty-printed document as the records it holds. */
function judgeWhole(text: string, kind: WholeKind): DetectRecordResult[] {
  if (kind === 'text') return [recordResult(null, undefined, judgeAnswerText(text))];
  if (kind === 'document') return detectRecords(text);
  const r = judgeSavedStream(text);
  if (!r.ok) return [{ id: null, error: `not read as a saved stream: ${r.error}` }];
  return [recordResult(null, undefined, r.verdict)];
}

export const detectCommand: Command = {
  name: 'detect',
  summary: 'judge saved answers, one JSONL record per line',
  usage: USAGE,
  inputFile: true,
  async run(argv: string[], io: CliIo): Promise<number> {
    const files = argv.filter((a) => a !== '--');
    if (files.length !== 1) throw new UsageError(files.length ? 'detect takes one file' : 'Missing the input file (use - for standard input)');
    const file = files[0];
    if (file.startsWith('-') && file !== '-') throw new UsageError(`Unknown option ${file}`);
    const input = file === '-' ? io.stdin : createReadStream(file);
    const opened = new Promise<void>((resolve, reject) => {
      if (file === '-') resolve();
      else {
        input.once('open', () => resolve());
        input.once('error', reject);
      }
    });
    try {
      await opened;
    } catch (error) {
      await write(io.stderr, `Cannot read ${file}: ${errorMessage(error)}\n`);
      return EXIT.noInput;
    }
    const lines = createInterface({ input, crlfDelay: Infinity });
    let batch = '';
    // A pretty-printed document, a saved stream or plain text is read whole (bounded); JSON Lines line by line.
    let whole: string[] | null = null;
    let wholeKind: WholeKind = 'document';
    let wholeChars = 0;
    let first = true;
    for await (const line of lines) {
      if (whole) {
        whole.push(line);
        wholeChars += line.length + 1;
        if (wholeChars > MAX_WHOLE_CHARS) {
          await write(
            io.stderr,
            `${file}: more than ${MAX_WHOLE_CHARS / (1024 * 1024)} MiB in one document, stream or plain-text answer: only JSON Lines are read in pieces\n`,
          );
          return EXIT.dataError;
        }
        continue;
      }
      if (!line.trim()) continue;
      if (first) {
        first = false;
        const kind = wholeKindOf(line);
        if (kind !== null) {
          wholeKind = kind;
          whole = [line];
          wholeChars = line.length + 1;
          if (kind === 'text') await write(io.stderr, `${file}: not JSON Lines (its first line is not a JSON object): judged as one plain-text answer\n`);
          continue;
        }
      }
      for (const result of detectRecords(line)) batch += `${JSON.stringify(result)}\n`;
      if (batch.length > 64 * 1024) {
        await write(io.stdout, batch);
        batch = '';
      }
    }
    if (whole) for (const result of judgeWhole(whole.join('\n'), wholeKind)) batch += `${JSON.stringify(result)}\n`;
    if (batch) await write(io.stdout, batch);
    return EXIT.ok;
  },
};
