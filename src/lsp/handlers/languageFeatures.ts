/** The standard LSP requests: hover, completion, definition, symbols, quick fixes and code lenses. */
import { CodeActionKind, type CodeAction, type CodeActionParams, type CodeLens } from 'vscode-languageserver';
import { errorDetail } from '../../core/errors';
import { showControls } from '../../core/text/foreign';
import { DIAGNOSTIC_SOURCE, FIX_COMMANDS, type ApplyAndVerifyArgs } from '../../shared/lspProtocol';
import type { FixData } from '../analysis';
import { codeLensesFor } from '../codeLens';
import { complete, definition, hover, INSTALLED_VLLM, resolveCompletion, symbols } from '../features';
import type { ServerState } from '../state';

/** Quick fixes for our diagnostics in the request, from the current analysis (else the diagnostic's own data). */
function codeActions(state: ServerState, p: CodeActionParams): CodeAction[] {
  const d = state.docs.get(p.textDocument.uri);
  if (!d) return [];
  const current = state.analysisOf(d).diagnostics;
  const out: CodeAction[] = [];
  for (const cd of p.context.diagnostics) {
    if (cd.source !== DIAGNOSTIC_SOURCE) continue;
    const same = current.find(
      (x) => x.message === cd.message && x.range.start.line === cd.range.start.line && x.range.start.character === cd.range.start.character,
    );
    const data = (same?.data ?? cd.data) as FixData | undefined;
    for (const fix of data?.fixes ?? []) {
      out.push({
        // Titles quote flag names, values and rule fixes from workspace files: controls shown.
        title: showControls(fix.title),
        kind: CodeActionKind.QuickFix,
        diagnostics: [cd],
        isPreferred: !!fix.preferred,
        edit: { changes: { [d.doc.uri]: fix.edits } },
      });
      // The same change on the running server: write it where the server is launched, restart, re-probe.
      if (fix.changes?.length) {
        const args: ApplyAndVerifyArgs = { uri: d.doc.uri, changes: fix.changes, summary: fix.summary ?? fix.title };
        const title = `Apply to Server and Re-probe: ${fix.summary ?? fix.title}`;
        out.push({
          title: showControls(title),
          kind: CodeActionKind.QuickFix,
          diagnostics: [cd],
          command: { title, command: FIX_COMMANDS.applyAndVerify, arguments: [args] },
        });
      }
    }
  }
  return out;
}

export function registerLanguageFeatures(state: ServerState): void {
  const { connection, store, docs } = state;

  connection.onHover(
    state.guard(null, (p) => {
      const d = docs.get(p.textDocument.uri);
      return d ? hover(state.analysisOf(d), p.position, state.indexFor(d), p.textDocument.uri) : null;
    }),
  );

  connection.onCompletion(
    state.guard(null, (p) => {
      const d = docs.get(p.textDocument.uri);
      if (!d) return null;
      return complete(state.analysisOf(d), d.doc.getText(), d.doc.offsetAt(p.position), p.position, state.indexFor(d), {
        editRangeDefault: state.client.editRangeDefault,
      });
    }),
  );

  // Not guarded: a failed resolve answers the item as it came.
  connection.onCompletionResolve(async (item) => {
    await state.ready;
    try {
      const vllm = (item.data as { vllm?: unknown } | undefined)?.vllm;
      if (vllm === INSTALLED_VLLM) return resolveCompletion(item, state.store.vllmRuntime?.index);
      if (typeof vllm === 'string') return resolveCompletion(item, state.store.vllmBundledFor(vllm === 'main' ? undefined : vllm)?.loaded.index);
      return resolveCompletion(item, state.indexFor(undefined));
    } catch (e) {
      state.log(`error: ${errorDetail(e)}`);
      return item;
    }
  });

  connection.onDefinition(
    state.guard(null, (p) => {
      const d = docs.get(p.textDocument.uri);
      return d ? definition(state.analysisOf(d), p.position, state.indexFor(d)) : null;
    }),
  );

  connection.onDocumentSymbol(
    state.guard([], (p) => {
      const d = docs.get(p.textDocument.uri);
      return d ? symbols(state.analysisOf(d)) : [];
    }),
  );

  connection.onCodeAction(state.guard([] as CodeAction[], (p) => codeActions(state, p)));

  connection.onCodeLens(
    state.guard([] as CodeLens[], async (p) => {
      const d = docs.get(p.textDocument.uri);
      if (!d?.isServerArgs) return [];
      const catalog = await store.serial(() => state.docCatalogs.catalogOf(d));
      return catalog ? codeLensesFor(catalog, d.doc.uri, store.runtime?.index) : [];
    }),
  );
}
