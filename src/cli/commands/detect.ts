/** `inference-doctor detect FILE.jsonl|-`: one verdict line per JSONL record. */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { detectRecords } from '../../core/detect';
import { errorMessage } from '../../core/errors';
import { EXIT, UsageError, write, type CliIo, type Command } from '../command';

const USAGE = `Usage: inference-doctor detect FILE.jsonl
       inference-doctor detect -            (read standard input)

Each input line is a JSON object {"id", "text", "finish_reason"?, "matched_stop"?, "logprobs"?,
"prompt"?} (Python's NaN/Infinity literals are accepted; with "prompt" an echoed prompt is seen),
or a response saved as the server sent it: an OpenAI-compatible chat completion or completion
(SGLang, vLLM; every choice, with the message's reasoning), a line of an OpenAI batch output file,
or SGLang's native /generate answer {"text", "meta_info"} (alone or a list of them).
Each output line is {"id", "choice"?, "verdict", "reasons", "suspects"?}: "reasons" made the
verdict, "suspects" is weak evidence that left it alone, "choice" numbers the choices of a response
that has several. {"id", "error"} marks a line that is not a valid record. Blank lines are skipped.

Exit status: 0 judged (whatever the verdicts), 64 bad usage, 66 the file cannot be read.`;

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
    for await (const line of lines) {
      if (!line.trim()) continue;
      for (const result of detectRecords(line)) batch += `${JSON.stringify(result)}\n`;
      if (batch.length > 64 * 1024) {
        await write(io.stdout, batch);
        batch = '';
      }
    }
    if (batch) await write(io.stdout, batch);
    return EXIT.ok;
  },
};
