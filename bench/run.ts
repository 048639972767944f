/**
 * `npm run bench`: runs every bench/*.bench.ts module and prints one JSON document.
 * Each module exports `run(): Promise<object>` and measures its subject beside a baseline in
 * the same process, so figures compare like with like on whatever machine runs them.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

interface BenchModule {
  run(): Promise<Record<string, unknown>>;
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const dir = __dirname;
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.bench.ts'))
    .sort();
  const report: Record<string, unknown> = {
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    startedAt: new Date().toISOString(),
  };
  for (const file of files) {
    const name = file.replace(/\.bench\.ts$/, '');
    if (only.length && !only.includes(name)) continue;
    const mod = (await import(pathToFileURL(join(dir, file)).href)) as BenchModule;
    try {
      report[name] = await mod.run();
    } catch (error) {
      report[name] = { error: error instanceof Error ? error.message : String(error) };
    }
  }
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

void main();
