/**
 * Lets a test load the extension's own modules outside VS Code: `require('vscode')` resolves to
 * the stand-in object the test passes, until the returned function puts module resolution back.
 * That function also forgets every module loaded meanwhile (they hold the stand-in), so later test
 * files in the same mocha process load the project's modules afresh.
 */
import Module from 'node:module';
import { join } from 'node:path';

const M = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };

export function installFakeVscode(fake: object, name: string): () => void {
  const original = M._resolveFilename;
  const cachedBefore = new Set(Object.keys(require.cache));
  const path = join(__dirname, `__fake_vscode_${name}__.js`);
  M._resolveFilename = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? path : original.call(this, request, ...rest);
  };
  require.cache[path] = { id: path, filename: path, loaded: true, exports: fake } as unknown as NodeJS.Module;
  return () => {
    M._resolveFilename = original;
    for (const key of Object.keys(require.cache)) if (!cachedBefore.has(key)) delete require.cache[key];
  };
}
