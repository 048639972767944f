/**
 * Lazy, once-only loading of web-tree-sitter and the Python grammar (both WASM).
 * The extension ships both .wasm files in its dist folder, so both paths are injectable;
 * the defaults resolve from node_modules.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
// `import = require` so bundlers take the package's CommonJS build: its ESM build reads
// import.meta.url, which is empty in the CJS bundles (dist/server.js, dist/cli.js).
// eslint-disable-next-line @typescript-eslint/no-require-imports -- see above
import TreeSitter = require('web-tree-sitter');

type Language = TreeSitter.Language;
type Parser = TreeSitter.Parser;
const { Language, Parser } = TreeSitter;

export interface PythonParserOptions {
  /** Path of tree-sitter-python.wasm. Default: node_modules/tree-sitter-python/tree-sitter-python.wasm. */
  wasmPath?: string;
  /** Path of web-tree-sitter's own tree-sitter.wasm. Default: the one inside node_modules/web-tree-sitter. */
  treeSitterWasmPath?: string;
}

function nodeRequire(): NodeJS.Require {
  // Bundled CommonJS has `require`; under ESM loaders fall back to one rooted at the cwd.
  if (typeof require === 'function' && typeof require.resolve === 'function') return require;
  return createRequire(join(process.cwd(), 'package.json'));
}

export function defaultPythonWasmPath(): string {
  return join(dirname(nodeRequire().resolve('tree-sitter-python/package.json')), 'tree-sitter-python.wasm');
}

export function defaultTreeSitterWasmPath(): string {
  return nodeRequire().resolve('web-tree-sitter/tree-sitter.wasm');
}

let initPromise: Promise<void> | undefined;
let languagePromise: Promise<Language> | undefined;
let languageKey: string | undefined;

/** Loads the runtime and the grammar once; later calls return the same language. */
export async function loadPythonLanguage(opts: PythonParserOptions = {}): Promise<Language> {
  if (!initPromise) {
    const runtimeWasm = opts.treeSitterWasmPath ?? defaultTreeSitterWasmPath();
    initPromise = Parser.init({ locateFile: () => runtimeWasm }).catch((error: unknown) => {
      initPromise = undefined;
      throw error;
    });
  }
  await initPromise;
  const wasm = opts.wasmPath ?? defaultPythonWasmPath();
  if (!languagePromise || languageKey !== wasm) {
    languageKey = wasm;
    languagePromise = Language.load(wasm).catch((error: unknown) => {
      languagePromise = undefined;
      throw error;
    });
  }
  return languagePromise;
}

/** A new parser set to Python. Parsers are cheap; the language is shared. */
export async function loadPythonParser(opts: PythonParserOptions = {}): Promise<Parser> {
  const language = await loadPythonLanguage(opts);
  const parser = new Parser();
  parser.setLanguage(language);
  return parser;
}

let sharedParser: Promise<Parser> | undefined;
let sharedKey = '';

/** One parser per process for the same WASM files (a failed load is retried on the next call). */
export function sharedPythonParser(opts: PythonParserOptions = {}): Promise<Parser> {
  const key = `${opts.wasmPath ?? ''}|${opts.treeSitterWasmPath ?? ''}`;
  if (!sharedParser || key !== sharedKey) {
    sharedKey = key;
    sharedParser = loadPythonParser(opts).catch((error: unknown) => {
      sharedParser = undefined;
      throw error;
    });
  }
  return sharedParser;
}
