/**
 * What the detector benches share: their healthy text, and each of the detector's scanners run
 * alone the way StreamingDetector runs it (1024 code units decoded once per piece).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Channel } from '../../src/core/detect/channel';
import { LexicalScanner } from '../../src/core/detect/lexical';
import { WordScanner } from '../../src/core/detect/words';
import { parseJsonLenient } from '../../src/core/detect/record';

/** The scanners StreamingDetector feeds every piece of the text to. */
export const SCANNERS = ['channel', 'lex', 'words'] as const;
export type Scanner = (typeof SCANNERS)[number];

/**
 * The generated corpus's healthy texts, joined and repeated to `chars`. The repeat (every 909,097
 * characters) is far longer than any window the detector keeps, so it sees no loop in it.
 */
export function healthyText(chars: number): string {
  const parts: string[] = [];
  for (const line of readFileSync(join(__dirname, '..', '..', 'test', 'corpus', 'corpus.jsonl'), 'utf8').split('\n')) {
    if (!line) continue;
    const c = parseJsonLenient(line) as { label: string; text?: string };
    if (c.label === 'ok' && c.text) parts.push(c.text);
  }
  const base = parts.join('\n\n');
  let out = base;
  while (out.length < chars) out += `\n\n${base}`;
  return out.slice(0, chars);
}

/**
 * One scanner alone over the whole text, in the detector's 1024-unit pieces; its reasons are
 * dropped. `lex` alone hashes its words' letters itself: in the detector it takes the letter runs
 * WordScanner found in the same piece, so its share of the detector's time is less than alone.
 */
export function scanAlone(scanner: Scanner, text: string): void {
  const units = new Uint16Array(1024);
  const bytes = Buffer.from(units.buffer);
  const sink = (): void => undefined;
  const s = scanner === 'channel' ? new Channel(sink, '!') : scanner === 'lex' ? new LexicalScanner(sink, undefined, '!') : new WordScanner(sink);
  for (let f = 0; f < text.length; f += 1024) {
    const n = Math.min(1024, text.length - f);
    bytes.write(text.slice(f, f + n), 0, 'utf16le');
    s.feed(units, n);
  }
}
