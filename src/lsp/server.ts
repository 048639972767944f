/**
 * Wires the Inference Doctor language features to an LSP connection. The shared state lives in
 * ServerState (state.ts); each group of handlers registers itself from src/lsp/handlers/:
 * lifecycle (initialize, settings, watched files), document sync, the standard language features
 * and the custom methods of src/shared/lspProtocol.ts.
 */
import type { Connection } from 'vscode-languageserver';
import { registerCustomMethods } from './handlers/customMethods';
import { registerDocumentSync } from './handlers/documentSync';
import { registerLanguageFeatures } from './handlers/languageFeatures';
import { registerLifecycle } from './handlers/lifecycle';
import { ServerState } from './state';

export function startServer(connection: Connection, baseDir: string): void {
  const state = new ServerState(connection, baseDir);
  registerLifecycle(state);
  registerDocumentSync(state);
  registerLanguageFeatures(state);
  registerCustomMethods(state);
  connection.listen();
}
