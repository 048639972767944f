/**
 * A small reader of the Prometheus text exposition format (what vLLM's /metrics serves): one sample
 * per line, `name{label="value",…} number [timestamp]`, `#` lines skipped. Written here because the
 * project has no Prometheus dependency and needs only samples by name and labels, not types or
 * histograms; a line that does not parse is skipped, never an error.
 */

export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = /^[A-Za-z_:][A-Za-z0-9_:]*/;
const ESCAPES: Record<string, string> = { n: '\n', '\\': '\\', '"': '"' };

/** The labels of `{a="1",b="x\"y"}` from `at` (the `{`); undefined when malformed. */
function readLabels(line: string, at: number): { labels: Record<string, string>; end: number } | undefined {
  const labels: Record<string, string> = {};
  let i = at + 1;
  for (;;) {
    while (line[i] === ' ' || line[i] === ',') i++;
    if (line[i] === '}') return { labels, end: i + 1 };
    const name = NAME.exec(line.slice(i))?.[0];
    if (!name || line[i + name.length] !== '=' || line[i + name.length + 1] !== '"') return undefined;
    i += name.length + 2;
    let value = '';
    for (;;) {
      const c = line[i];
      if (c === undefined) return undefined;
      if (c === '"') break;
      if (c === '\\') {
        value += ESCAPES[line[i + 1]] ?? line[i + 1] ?? '';
        i += 2;
      } else {
        value += c;
        i++;
      }
    }
    labels[name] = value;
    i++;
  }
}

function numberOf(text: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  return text.trim() === '' ? NaN : Number(text);
}

/** Every sample of a /metrics body, in order. */
export function* readPrometheusText(text: string): Generator<PromSample> {
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const name = NAME.exec(line)?.[0];
    if (!name) continue;
    let rest = name.length;
    let labels: Record<string, string> = {};
    if (line[rest] === '{') {
      const read = readLabels(line, rest);
      if (!read) continue;
      labels = read.labels;
      rest = read.end;
    }
    const value = numberOf(line.slice(rest).trim().split(/\s+/)[0] ?? '');
    if (Number.isNaN(value) && !/\bNaN\b/.test(line.slice(rest))) continue;
    yield { name, labels, value };
  }
}
