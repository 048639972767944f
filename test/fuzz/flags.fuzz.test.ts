/** Fuzz: mutated server_args.py files never throw and return within a bound. */
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCatalogWith, loadPythonParser } from '../../src/core/flags';
import { seededRandom as rng } from '../../src/core/random';

const FIXTURES = join(__dirname, '..', 'fixtures', 'server_args');

const JUNK = ['"', "'", '(', ')', '[', ']', '{', '}', '\\', ':', ',', '"""', 'f"{', '\n', '\t', '\0', '\u00e9', '\ud83d\ude00', 'A[', 'Arg(', '= ', '#'];

function mutate(src: string, r: () => number): string {
  const at = (): number => Math.floor(r() * src.length);
  switch (Math.floor(r() * 6)) {
    case 0:
      return src.slice(0, at());
    case 1: {
      let s = src;
      for (let i = 0; i < 1 + r() * 20; i++) {
        const p = Math.floor(r() * s.length);
        s = s.slice(0, p) + String.fromCharCode(Math.floor(r() * 256)) + s.slice(p);
      }
      return s;
    }
    case 2: {
      let s = src;
      for (let i = 0; i < 1 + r() * 10; i++) {
        const p = Math.floor(r() * s.length);
        s = s.slice(0, p) + JUNK[Math.floor(r() * JUNK.length)] + s.slice(p);
      }
      return s;
    }
    case 3: {
      const a = at();
      const b = at();
      return src.slice(0, Math.min(a, b)) + src.slice(Math.max(a, b));
    }
    case 4: {
      const p = at();
      return src.slice(0, p) + src.slice(p, p + 2000) + src.slice(p);
    }
    default: {
      const p = at();
      return src.slice(0, p) + (r() < 0.5 ? '"' : '(') + src.slice(p);
    }
  }
}

describe('flag catalog fuzz', function () {
  this.timeout(180_000);

  it('1,000 seeded mutations: no throw, each under 2 s', async () => {
    const parser = await loadPythonParser();
    const bases = ['inline_v04.py', 'choices_lists_2025.py', 'dataclass_main.py'].map((f) => readFileSync(join(FIXTURES, f), 'utf8'));
    const r = rng(20260101);
    let worst = 0;
    const start = performance.now();
    for (let i = 0; i < 1000; i++) {
      const src = mutate(bases[i % bases.length], r);
      const t0 = performance.now();
      const c = buildCatalogWith(parser, src, { keepTree: false });
      const dt = performance.now() - t0;
      worst = Math.max(worst, dt);
      assert.ok(Array.isArray(c.entries) && Array.isArray(c.diagnostics), `case ${i}`);
      assert.ok(dt < 2000, `case ${i} took ${dt.toFixed(0)} ms`);
    }
    console.log(`      1000 mutations in ${((performance.now() - start) / 1000).toFixed(1)} s, worst ${worst.toFixed(0)} ms`);
  });

  it('pathological inputs: 10 MB line, deep nesting, unbalanced quotes', async () => {
    const parser = await loadPythonParser();
    const cases = [
      `X = "${'a'.repeat(10 * 1024 * 1024)}"\nclass ServerArgs:\n    port: A[int, "p"] = 1\n`,
      `# ${'x'.repeat(10 * 1024 * 1024)}`,
      `X = ${'['.repeat(5000)}1${']'.repeat(5000)}\n`,
      `X = ${'('.repeat(20000)}`,
      `class ServerArgs:\n    a: A[${'Optional['.repeat(3000)}int${']'.repeat(3000)}, "h"] = 1\n`,
      `CHOICES = [${Array.from({ length: 50000 }, (_, i) => `"v${i}"`).join(', ')}]\nparser.add_argument("--x", choices=CHOICES)\n`,
      '"""'.repeat(1001),
      "parser.add_argument('--x', help='unterminated",
      'X = 1 + ' + '1 + '.repeat(20000) + '1\nparser.add_argument("--y", default=X)\n',
      '',
    ];
    for (const [i, src] of cases.entries()) {
      const t0 = performance.now();
      const c = buildCatalogWith(parser, src, { keepTree: false });
      const dt = performance.now() - t0;
      assert.ok(Array.isArray(c.entries), `case ${i}`);
      assert.ok(dt < 5000, `case ${i} took ${dt.toFixed(0)} ms`);
    }
  });
});
