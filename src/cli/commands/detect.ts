/** `inference-doctor detect FILE.jsonl|-`: one verdict line per JSONL record. */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { detectRecord } from '../../core/detect';
import { EXIT, UsageError, write, type CliIo, type Command } from '../command';

const USAGE = `Usage: inference-doctor detect FILE.jsonl
       inference-doctor detect -            (read standard input)

Each input line is a JSON object {"id", "text", "finish_reason"?, "matched_stop"?, "logprobs"?,
"prompt"?} (Python's NaN/Infinity literals are accepted; with "prompt" an echoed prompt is seen).
Each output line is {"id", "verdict", "reasons", "suspects"?}: "reasons" made the verdict,
"suspects" is weak evidence that left it alone. {"id", "error"} marks a line that is not a valid
record. Blank lines are skipped. Exit 0.`;

export const detectCommand: Command = {
  name: 'detect',
  summary: 'judge saved answers, one JSONL record per line',
  usage: USAGE,
  async run(argv: string[], io: CliIo): Promise<number> {
    if (argv.includes('-h') || argv.includes('--help')) throw new UsageError('');
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
      await write(io.stderr, `Cannot read ${file}: ${error instanceof Error ? error.message : String(error)}\n`);
      return EXIT.noInput;
    }
    const lines = createInterface({ input, crlfDelay: Infinity });
    let batch = '';
    for await (const line of lines) {
      if (!line.trim()) continue;
      batch += `${JSON.stringify(detectRecord(line))}\n`;
      if (batch.length > 64 * 1024) {
        await write(io.stdout, batch);
        batch = '';
      }
    }
    if (batch) await write(io.stdout, batch);
    return EXIT.ok;
  },
};
