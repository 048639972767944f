/**
 * The markdown documents the extension generates (Quick Health Probe report, installed-SGLang flag
 * differences) quote a server's, a host's and a model's text: rendered by markdown-it with raw HTML and
 * linkify on, none of it may become a link, an image or HTML, and reordering controls must show.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { quickProbeReport } from '../../src/core/probe/quickReport';
import { flagDifferencesReport } from '../../src/core/flags/differencesReport';
import type { QuickProbeResult } from '../../src/core/probe/quick';
import type { ProbeResult } from '../../src/core/probe/types';
import type { RuntimeCatalog } from '../../src/core/flags/runtime';

const ATTACK =
  '[Open the server log](command:workbench.action.terminal.new) ![pixel](http://127.0.0.1:9/p.png) ' +
  '<img src="http://127.0.0.1:9/i.png"> <a href="https://evil.invalid">x</a> https://evil.invalid/bare [ref]: https://evil.invalid ' +
  '`` ``` `x` \u202Eevil';

interface Renderer {
  render(src: string): string;
}
const MarkdownIt = ((): (new (o: Record<string, unknown>) => Renderer) | undefined => {
  try {
    return createRequire(__filename)('markdown-it') as new (o: Record<string, unknown>) => Renderer;
  } catch {
    return undefined;
  }
})();

function rendered(ctx: Mocha.Context, markdown: string): string {
  if (!MarkdownIt) ctx.skip();
  return new MarkdownIt({ html: true, linkify: true }).render(markdown);
}

function assertInert(html: string): void {
  assert.doesNotMatch(html, /<a[\s>]/, 'no link');
  assert.doesNotMatch(html, /<img[\s>]/, 'no image');
  // Only the tags markdown itself makes from the report's own structure.
  for (const tag of html.match(/<\/?([a-z0-9]+)/g) ?? []) {
    assert.match(tag, /^<\/?(h1|h2|p|ul|li|pre|code|blockquote|strong|em)$/, `unexpected tag ${tag}`);
  }
  assert.ok(!html.includes('\u202E'), 'the override is shown, not kept');
  assert.match(html, /⟨U\+202E⟩/);
}

function probeResult(content: string, errorMessage?: string): ProbeResult {
  const reasons = errorMessage ? [] : [{ code: 'word-salad', kind: 'degenerate', message: `saw ${ATTACK}`, offset: 7 }];
  return {
    status: errorMessage ? 'error' : 'ok',
    content,
    reasoning: '',
    contentDroppedChars: 0,
    totalChars: content.length,
    finishReason: 'stop',
    matchedStop: null,
    ttftMs: 1,
    durationMs: 2,
    completionTokens: 3,
    tokensPerSecond: null,
    chunkCount: 1,
    verdict: { kind: errorMessage ? 'ok' : 'degenerate', reasons, onset: errorMessage ? null : 7 },
    ...(errorMessage ? { error: { kind: 'http', message: errorMessage } } : {}),
  } as ProbeResult;
}

describe('generated markdown reports quote foreign text inertly', () => {
  it('Quick Health Probe report: label, prompt, reasons, errors and the answer stay text', function () {
    const result: QuickProbeResult = {
      summary: { verdict: 'degenerate', errors: 1, message: `1 failed: ${ATTACK}` },
      items: [
        {
          id: 'a',
          label: 'Greeting',
          prompt: `Say ${ATTACK}`,
          result: probeResult(`answer ${ATTACK}\n\`\`\`\`\`\nstill fenced ![x](http://127.0.0.1:9/z.png)`),
        },
        { id: 'b', label: 'Counting', prompt: 'Count', result: probeResult('', `CUDA error: ${ATTACK}`) },
      ],
    };
    const markdown = quickProbeReport({ label: `Evil ${ATTACK}`, baseUrl: 'http://h:1/`x`' }, result);
    const html = rendered(this, markdown);
    assertInert(html);
    assert.match(html, /Open the server log/, 'the foreign text is still there, as text');
    assert.match(html, /CUDA error/);
    // The answer, backtick runs and all, is inside one fenced block.
    const blocks = html.match(/<pre><code[^>]*>[\s\S]*?<\/code><\/pre>/g) ?? [];
    assert.equal(blocks.length, 2);
    assert.match(blocks[0], /still fenced/);
    assert.match(html, /<h2>Counting: request failed<\/h2>/, 'a failed request is not reported as OK');
  });

  it('installed-SGLang differences: interpreter, version, path, warnings, flags and messages stay text', function () {
    const rt = {
      python: `/opt/${ATTACK}/python`,
      version: `0.5 ${ATTACK}`,
      install: { sglangDir: `/srv/${ATTACK}` },
      warnings: [`the dump failed: ${ATTACK}`],
      source: 'help',
    } as unknown as RuntimeCatalog;
    const markdown = flagDifferencesReport(`box ${ATTACK}`, rt, [
      { kind: 'runtime-only', flag: `--evil-\`x\`-${ATTACK}`, field: 'evil', message: `only at run time: ${ATTACK}` },
    ]);
    const html = rendered(this, markdown);
    assertInert(html);
    assert.match(html, /the dump failed/);
    assert.match(html, /only at run time/);
  });
});
