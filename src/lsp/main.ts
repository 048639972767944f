/**
 * Inference Doctor language server entry point (bundled to dist/server.js). Standalone use from
 * any editor: `node dist/server.js --stdio` (also `--node-ipc` or `--socket=PORT`).
 */
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { startServer } from './server';

const connection = createConnection(ProposedFeatures.all);
// dist/server.js sits next to dist/wasm/ (tree-sitter runtime + Python grammar).
startServer(connection, __dirname);
