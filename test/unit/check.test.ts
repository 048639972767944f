/**
 * `inference-doctor check` in process: the checker against the language server's own analysis of
 * the same text, the GPU names, GitHub's escaping rules and the JSON that shows controls.
 */
import { strict as assert } from 'node:assert';
import { join } from 'node:path';
import { Checker, syntaxOf } from '../../src/cli/check/engine';
import { escapeData, escapeProperty, safeJson } from '../../src/cli/check/formats';
import { loadBundledCatalog } from '../../src/core/flags/bundled/load';
import { gpuFromArg, ccNumber } from '../../src/core/gpu/names';
import { builtinRules } from '../../src/core/rules';
import { analyzeText } from '../../src/lsp/analysis';
import { CatalogIndex } from '../../src/lsp/catalogIndex';

const FIX = join(__dirname, '..', 'fixtures', 'check');

describe('check', () => {
  it('finds what analyzeText finds for the same text, release and rules, 1-based', async () => {
    const bundled = await loadBundledCatalog();
    const text = 'python3 -m sglang.launch_server --model-path m --kv-cache-dtype fp9 --nope 1 --port 1 --port 2\n';
    const checker = new Checker({ cwd: FIX, bundled, version: '0.5.6' });
    const result = await checker.checkText(text, join(FIX, 'virtual', 'x.sh'));
    const match = bundled.match('0.5.6')!;
    const index = new CatalogIndex(bundled.catalogFor(match.index), { kind: 'bundled', label: 'bundled catalog of SGLang 0.5.6', version: '0.5.6' });
    const direct = analyzeText(text, 'shellscript', index, {
      rules: builtinRules().rules,
      versions: { sglang: '0.5.6' },
      release: { version: '0.5.6', detail: 'SGLang 0.5.6, set in the --version option', bundled, releaseIndex: match.index },
    });
    const expected = direct.diagnostics
      .map(
        (d) => `${d.range.start.line + 1}:${d.range.start.character + 1}-${d.range.end.line + 1}:${d.range.end.character + 1} ${String(d.code)} ${d.message}`,
      )
      .sort();
    const got = result.findings.map((f) => `${f.line}:${f.column}-${f.endLine}:${f.endColumn} ${f.code} ${f.message}`).sort();
    assert.ok(expected.length >= 3, expected.join('\n'));
    assert.deepEqual(got, expected);
    assert.deepEqual(result.release, { version: '0.5.6', source: 'setting', detail: 'SGLang 0.5.6, set in the --version option' });
  });

  it('reads a file by its name; a name that says nothing is read as a shell script', () => {
    assert.equal(syntaxOf('/x/compose.yaml'), 'yaml');
    assert.equal(syntaxOf('/x/Dockerfile'), 'dockerfile');
    assert.equal(syntaxOf('/x/llm.service'), 'systemd');
    assert.equal(syntaxOf('/x/README.md'), 'markdown');
    assert.equal(syntaxOf('/x/launch'), 'plaintext');
  });

  it('--gpu takes a name or a compute capability', () => {
    assert.equal(ccNumber(gpuFromArg('rtx-pro-6000')!.cc), 12);
    assert.equal(ccNumber(gpuFromArg('NVIDIA RTX PRO 6000')!.cc), 12);
    assert.equal(ccNumber(gpuFromArg('b300')!.cc), 10.3);
    assert.equal(ccNumber(gpuFromArg('H100')!.cc), 9);
    assert.equal(ccNumber(gpuFromArg('a100')!.cc), 8);
    assert.equal(ccNumber(gpuFromArg('mi300x')!.cc), 9.4);
    assert.equal(ccNumber(gpuFromArg('12.0')!.cc), 12);
    assert.equal(ccNumber(gpuFromArg('sm_90')!.cc), 9);
    assert.equal(gpuFromArg('abacus'), undefined);
    assert.equal(gpuFromArg('130.5'), undefined);
  });

  it("escapes workflow commands as GitHub's toolkit does", () => {
    assert.equal(escapeData('a, b: 100%\r\nc'), 'a, b: 100%25%0D%0Ac');
    assert.equal(escapeProperty('dir,1/a:b%.sh\n'), 'dir%2C1/a%3Ab%25.sh%0A');
  });

  it('JSON keeps the value and shows every invisible or reordering character as an escape', () => {
    const value = { path: 'a\u202eb\u200bc\u2066d', n: 1 };
    const text = safeJson(value);
    assert.ok(!/[\u202e\u200b\u2066]/.test(text), text);
    assert.match(text, /a\\u202eb\\u200bc\\u2066d/);
    assert.deepEqual(JSON.parse(text), value);
  });
});
