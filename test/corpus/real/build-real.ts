/**
 * Merges gathered real outputs (test/corpus/real/incoming/*.jsonl, one file per gatherer) into
 * test/corpus/real/outputs.jsonl: validated, de-duplicated, each with its split.
 *
 *   npx tsx test/corpus/real/build-real.ts
 *
 * The split is decided by the source thread, never by the text or the label, so every output of
 * one thread lands on the same side and tuning cannot learn a thread it is later scored on.
 * Entries already in outputs.jsonl keep their id and split; new ones are appended.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REAL_LABELS, type RealCase } from './realCase';

const DIR = __dirname;
const OUT = join(DIR, 'outputs.jsonl');
const INCOMING = join(DIR, 'incoming');

function splitOf(source: string): RealCase['split'] {
  const thread = source.replace(/#.*$/, '').replace(/\/+$/, '');
  return createHash('sha256').update(thread).digest()[0] < 128 ? 'tune' : 'validation';
}

function idOf(text: string, source: string): string {
  return `r${createHash('sha256').update(`${source}\n${text}`).digest('hex').slice(0, 10)}`;
}

function readJsonl(path: string): unknown[] {
  return readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).map((l, i) => {
    try {
      return JSON.parse(l) as unknown;
    } catch (e) {
      throw new Error(`${path}:${i + 1}: ${(e as Error).message}`);
    }
  });
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

function main(): void {
  const existing = existsSync(OUT) ? (readJsonl(OUT) as RealCase[]) : [];
  const byText = new Map(existing.map((c) => [c.text, c]));
  let added = 0;
  const skipped: string[] = [];
  const files = existsSync(INCOMING) ? readdirSync(INCOMING).filter((f) => f.endsWith('.jsonl')).sort() : [];
  for (const file of files) {
    for (const raw of readJsonl(join(INCOMING, file))) {
      const r = raw as Record<string, unknown>;
      const text = typeof r.text === 'string' ? r.text : '';
      const source = str(r.source) ?? '';
      const label = str(r.label) as RealCase['label'] | undefined;
      const note = str(r.note) ?? '';
      if (text.trim().length < 8) { skipped.push(`${file}: shorter than 8 characters`); continue; }
      if (!/^https:\/\/github\.com\/[^/]+\/[^/]+\/(issues|pull|discussions)\/\d+/.test(source)) { skipped.push(`${file}: source ${source}`); continue; }
      if (!label || !REAL_LABELS.includes(label)) { skipped.push(`${file}: label ${String(r.label)}`); continue; }
      // Lengths rebuilt from a token count are not text as pasted.
      if (/reconstruct|completion_tokens/i.test(note)) { skipped.push(`${file}: reconstructed (${source})`); continue; }
      if (byText.has(text)) continue;
      const shape = str(r.shape) ?? 'unknown';
      const c: RealCase = {
        id: idOf(text, source),
        split: splitOf(source),
        label,
        shape,
        source,
        engine: str(r.engine) ?? 'other',
        text,
      };
      // Wrong but fluent answers need a reference answer (the accuracy check), not this detector.
      if (shape === 'fluent-wrong' || shape === 'wrong-language') c.scope = 'accuracy';
      const fr = str(r.finish_reason);
      if (fr) c.finish_reason = fr;
      const ms = str(r.matched_stop);
      if (ms) c.matched_stop = ms;
      if (r.truncated === true) c.truncated = true;
      const prompt = str(r.prompt);
      if (prompt) c.prompt = prompt;
      if (note) c.note = note;
      byText.set(text, c);
      added++;
    }
  }
  const all = [...byText.values()];
  writeFileSync(OUT, all.map((c) => JSON.stringify(c)).join('\n') + '\n');
  const count = (split: string, label: string): number => all.filter((c) => c.split === split && c.label === label && !c.scope).length;
  console.log(`${all.length} outputs (${added} new) in ${OUT}`);
  for (const split of ['tune', 'validation']) {
    console.log(`  ${split}: nan ${count(split, 'nan')}, degenerate ${count(split, 'degenerate')}, healthy ${count(split, 'healthy')}`);
  }
  console.log(`  accuracy-only (fluent but wrong): ${all.filter((c) => c.scope).length}`);
  for (const s of skipped) console.log(`  skipped ${s}`);
}

main();
