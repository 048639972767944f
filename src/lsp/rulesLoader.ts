/** Known-bad rules in use: the built-in ones merged with each workspace folder's `.inference-doctor/rules.json`. */
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { builtinRules, mergeRules, parseRulesText, type KnownBadRule, type RuleError, type RuleLoadResult } from '../core/rules';

function errorText(e: RuleError): string {
  return `${e.source}${e.path}${e.rule ? ` (${e.rule})` : ''}: ${e.message}`;
}

export class RulesLoader {
  rules: KnownBadRule[];
  /** The rules files found at the last load. */
  files: string[] = [];
  errors: string[];
  /** Bumped by every load: part of the analysis cache key (the catalog's generation is the client's, not ours). */
  generation = 0;

  constructor(private readonly log: (m: string) => void) {
    const builtin = builtinRules();
    this.rules = builtin.rules;
    this.errors = builtin.errors.map(errorText);
  }

  /** Reads the folders' rules files (a missing one is no error) and replaces the rules in use. */
  async load(folders: readonly string[]): Promise<void> {
    const loaded: RuleLoadResult[] = [];
    const files: string[] = [];
    for (const f of folders) {
      const p = join(f, '.inference-doctor', 'rules.json');
      let text: string;
      try {
        text = await fsp.readFile(p, 'utf8');
      } catch {
        continue;
      }
      files.push(p);
      loaded.push(parseRulesText(text, p));
    }
    const merged = mergeRules(builtinRules(), loaded);
    this.rules = merged.rules;
    this.files = files;
    this.errors = merged.errors.map(errorText);
    this.generation++;
    for (const e of this.errors) this.log(`rules: ${e}`);
  }
}
