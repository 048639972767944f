/**
 * Inference Doctor language server entry point (bundled to dist/server.js).
 * Run standalone with `node dist/server.js --stdio`.
 */
import { createConnection, ProposedFeatures, TextDocuments, TextDocumentSyncKind } from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";

const connection = createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);

connection.onInitialize(() => ({
  capabilities: { textDocumentSync: TextDocumentSyncKind.Incremental },
  serverInfo: { name: "inference-doctor" },
}));

documents.listen(connection);
connection.listen();
