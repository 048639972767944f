/**
 * A hostile workspace against the real language server over stdio: a server_args.py whose help
 * texts, choices and defaults carry links, images, command URIs, raw HTML and bidi overrides, and
 * a rules file whose title, symptom, fix and source do the same. Hovers and completion docs are
 * rendered with markdown-it (HTML and linkify on, stricter than VS Code's renderer): no image, no
 * link but the rule source's https link, which shows its real host; diagnostics carry no raw bidi
 * control.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CompletionItem, CompletionList, Diagnostic, Hover, MarkupContent, PublishDiagnosticsParams } from 'vscode-languageserver-protocol';
import type { CatalogStatus } from '../../src/shared/lspProtocol';
import { StdioLspClient } from '../../src/lsp/stdioClient';
import { buildLanguageServer, LSP_SERVER, uriOf } from '../support/lsp';
import { waitFor } from '../support/wait';

interface MarkdownIt {
  render(src: string): string;
}
const markdownIt = (createRequire(__filename)('markdown-it') as (opts: object) => MarkdownIt)({ html: true, linkify: true });

const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/;
const PAYLOAD = [
  '[Open the log](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%20-rf%20~%22%7D)',
  '![pixel](https://tracker.invalid/p.png)',
  '<img src="https://tracker.invalid/q.png">',
  '<a href="command:workbench.action.terminal.new">docs</a>',
  'https://docs.sglang.ai/ (official docs)',
  '[file](file:///etc/passwd)',
  '`` `code` ``',
  '\u202Eevil\u202C',
].join(' ');

const SERVER_ARGS = `"""Hostile fixture written for Inference Doctor tests."""
import argparse
import dataclasses


@dataclasses.dataclass
class ServerArgs:
    attention_backend: str = "triton"

    @staticmethod
    def add_cli_args(parser: argparse.ArgumentParser):
        parser.add_argument(
            "--attention-backend",
            type=str,
            choices=["triton", "[x](command:evil)"],
            default=ServerArgs.attention_backend,
            help=${JSON.stringify(PAYLOAD)},
        )
`;

const RULES = {
  rules: [
    {
      id: 'hostile',
      engine: 'sglang',
      confidence: 'confirmed',
      title: `Known ${PAYLOAD}`,
      symptom: PAYLOAD,
      sources: ['https://evil.invalid/x)](command:workbench.action.terminal.new'],
      match: { fields: { attention_backend: ['triton'] } },
      fix: { summary: PAYLOAD, set: [{ flag: '--attention-backend', field: 'attention_backend', value: 'flashinfer' }] },
    },
  ],
};

/** Every link and image markdown-it renders from the markdown, as [tag, href-or-src, text]. */
function rendered(md: string): { links: [string, string][]; images: string[]; html: string } {
  const html = markdownIt.render(md);
  const links = [...html.matchAll(/<a href="([^"]*)">(.*?)<\/a>/g)].map((m) => [m[1], m[2]] as [string, string]);
  const images = [...html.matchAll(/<img [^>]*src="([^"]*)"/g)].map((m) => m[1]);
  return { links, images, html };
}

describe('language server on a hostile workspace', function () {
  this.timeout(60_000);
  let ws: string;
  let c: StdioLspClient;
  let diagnostics: Diagnostic[];
  const launch = 'python3 -m sglang.launch_server --model-path m --attention-backend triton\n';
  let uri: string;

  before(async function () {
    this.timeout(120_000);
    buildLanguageServer();
    ws = mkdtempSync(join(tmpdir(), 'id-lsp-hostile-'));
    mkdirSync(join(ws, 'sglang', 'srt'), { recursive: true });
    writeFileSync(join(ws, 'sglang', 'srt', 'server_args.py'), SERVER_ARGS);
    mkdirSync(join(ws, '.inference-doctor'));
    writeFileSync(join(ws, '.inference-doctor', 'rules.json'), JSON.stringify(RULES));
    c = new StdioLspClient({ serverPath: LSP_SERVER });
    await c.initialize(ws);
    await waitFor('workspace catalog', async () => {
      const s = await c.request<CatalogStatus>('inferenceDoctor/catalogStatus', null);
      return s.active?.kind === 'workspace' && s.rules.files.length === 1 ? s : undefined;
    });
    uri = uriOf(join(ws, 'run.sh'));
    const p = c.diagnostics(uri, (d: PublishDiagnosticsParams) => d.version === 1);
    await c.open(uri, 'shellscript', launch, 1);
    diagnostics = (await p).diagnostics;
  });

  after(async () => {
    await c?.close();
    rmSync(ws, { recursive: true, force: true });
  });

  it('hovers with the help, choices and rule as text: no image, no command or file link, the source link shows its host', async () => {
    const pos = { line: 0, character: launch.indexOf('--attention-backend') + 3 };
    const h = await c.request<Hover | null>('textDocument/hover', { textDocument: { uri }, position: pos });
    assert.ok(h);
    const md = (h.contents as MarkupContent).value;
    const { links, images, html } = rendered(md);
    assert.deepEqual(images, []);
    assert.ok(!/<img|<a href="command|<a href="file|<script/i.test(html), html);
    for (const [href, text] of links) {
      assert.match(href, /^https:\/\/evil\.invalid\//, `only the rule source links: ${href}`);
      assert.match(text, /evil\.invalid/, 'the link text shows the real host');
    }
    assert.ok(!BIDI.test(html), 'no raw bidi control');
    // The text is still there to read.
    assert.match(html, /Open the log/);
    assert.match(html, /official docs/);
    assert.match(html, /⟨U\+202E⟩evil/);
  });

  it('renders completion docs inert too', async () => {
    const res = await c.request<CompletionList | CompletionItem[]>('textDocument/completion', {
      textDocument: { uri },
      position: { line: 0, character: launch.indexOf('--attention-backend') + 4 },
    });
    const items = Array.isArray(res) ? res : res.items;
    const item = items.find((i) => i.label === '--attention-backend');
    assert.ok(item, items.map((i) => i.label).join(','));
    const resolved = await c.request<CompletionItem>('completionItem/resolve', item);
    const { links, images, html } = rendered((resolved.documentation as MarkupContent).value);
    assert.deepEqual(images, []);
    assert.deepEqual(links, []);
    assert.ok(!BIDI.test(html));
  });

  it('puts no raw bidi control in diagnostics', () => {
    const known = diagnostics.filter((d) => d.code === 'known-bad');
    assert.equal(known.length, 1, JSON.stringify(diagnostics));
    for (const d of diagnostics) assert.ok(!BIDI.test(d.message), d.message);
  });
});
