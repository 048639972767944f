/**
 * Which vLLM release a launch file runs: a vllm/vllm-openai image tag (`vllm/vllm-openai:v0.11.0`,
 * `…:v0.10.1-cu128`) or a `vllm==X` pin (requirements, pyproject, a `pip install` line) in the file
 * or in the files next to it. Same candidate shape as SGLang's detection, so chooseRelease ranks them.
 */
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { normalizeVersion } from './version';
import type { ReleaseCandidate } from './detect';

const MAX_LINE = 8192;
const IMAGE = /((?:[a-z0-9][a-z0-9._-]*(?::[0-9]{1,5})?\/)*vllm-openai(?:-[a-z0-9]+)?):([A-Za-z0-9_.-]{1,64})/g;
const PIN = /(?<![\w.-])vllm(?:\[[^\]\n]{0,80}\])?\s*===?\s*v?(\d+(?:\.\d+){1,3}(?:(?:rc|\.post|\.dev)\d+)?)/gi;
const TAG_VERSION = /^v?(\d+\.\d+\.\d+(?:\.post\d+|rc\d+)?)(?:$|[-+])/;

/** The vLLM release candidates a text names, in text order. */
export function vllmReleasesInText(text: string, fileName: string): ReleaseCandidate[] {
  if (typeof text !== 'string' || !/vllm/i.test(text)) return [];
  const name = fileName.split(/[\\/]/).pop() || fileName;
  const out: ReleaseCandidate[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line.length > MAX_LINE || !/vllm/i.test(line)) return;
    for (const m of line.matchAll(IMAGE)) {
      const v = TAG_VERSION.exec(m[2])?.[1];
      const version = v ? normalizeVersion(v) : undefined;
      if (!version) continue;
      const at = m.index + m[1].length + 1;
      out.push({
        version,
        exact: true,
        source: 'image',
        detail: `image tag ${m[0]} in ${name} line ${i + 1}`,
        range: { line: i, character: at, endLine: i, endCharacter: at + m[2].length },
      });
    }
    for (const m of line.matchAll(PIN)) {
      const version = normalizeVersion(m[1]);
      if (!version) continue;
      const at = m.index + m[0].length - m[1].length;
      out.push({
        version,
        exact: true,
        source: 'requirements',
        detail: `${m[0].replace(/\s+/g, '')} in ${name} line ${i + 1}`,
        range: { line: i, character: at, endLine: i, endCharacter: at + m[1].length },
      });
    }
  });
  return out;
}

/** Names of files next to a launch file that may pin vLLM. */
export function mayPinVllm(fileName: string): boolean {
  return /^(requirements.*\.(txt|in)|pyproject\.toml|Dockerfile.*|.*\.dockerfile|(docker-)?compose.*\.ya?ml|constraints.*\.txt)$/i.test(fileName);
}

/** `vllm==` pins and vllm/vllm-openai tags in the files of `dir` that may hold them (not `self`, read already). */
export async function readVllmPins(dir: string, self: string): Promise<ReleaseCandidate[]> {
  const names = (await fsp.readdir(dir)).filter(mayPinVllm).slice(0, 16);
  const out: ReleaseCandidate[] = [];
  for (const n of names) {
    const p = join(dir, n);
    if (p === self) continue;
    try {
      const st = await fsp.stat(p);
      if (!st.isFile() || st.size > 2 * 1024 * 1024) continue;
      out.push(...vllmReleasesInText(await fsp.readFile(p, 'utf8'), p));
    } catch {
      // a file that went away or cannot be read says nothing
    }
  }
  return out;
}
