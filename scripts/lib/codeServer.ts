/**
 * Starts real VS Code (code-server 4.100.3) with the packaged .vsix installed, for the e2e tier
 * and `npm run demo`. code-server rejects --extensionDevelopmentPath, so the extension goes in
 * the way users get it: `--install-extension FILE` into a throwaway extensions dir.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const repoRoot = resolve(__dirname, '..', '..');
export const codeServerBin = join(repoRoot, '.cache/code-server/node_modules/.bin/code-server');
export const vsixPath = join(repoRoot, 'dist/inference-doctor.vsix');

export interface CodeServerOptions {
  workspace: string;
  /** Extra user settings merged over the defaults below. */
  settings?: Record<string, unknown>;
  port?: number;
  /** Keep the temp dirs (demo) instead of deleting them on close. */
  keep?: boolean;
  /**
   * Turn workspace trust on and open the workspace untrusted (Restricted Mode) without the
   * startup prompt. Default: trust off, as most tests want.
   */
  restricted?: boolean;
  /** More .vsix files to install beside ours (test-only helper extensions). */
  extraVsix?: string[];
}

export interface RunningCodeServer {
  url: string;
  port: number;
  userDataDir: string;
  extensionsDir: string;
  logs: () => string;
  close(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

export async function startCodeServer(options: CodeServerOptions): Promise<RunningCodeServer> {
  const base = mkdtempSync(join(tmpdir(), 'inference-doctor-cs-'));
  const userDataDir = join(base, 'user-data');
  const extensionsDir = join(base, 'extensions');
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  const trust = options.restricted
    ? { 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never', 'security.workspace.trust.emptyWindow': false }
    : { 'security.workspace.trust.enabled': false };
  const settings = {
    ...trust,
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'update.mode': 'none',
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'chat.disableAIFeatures': true,
    ...options.settings,
  };
  writeFileSync(join(userDataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));

  const vsixFiles = [vsixPath, ...(options.extraVsix ?? [])];
  const install = spawnSync(
    codeServerBin,
    ['--extensions-dir', extensionsDir, '--user-data-dir', userDataDir, ...vsixFiles.flatMap((f) => ['--install-extension', f])],
    { encoding: 'utf8', timeout: 120_000 },
  );
  if (install.status !== 0) {
    throw new Error(`code-server --install-extension failed (${install.status}): ${install.stderr || install.stdout}`);
  }

  const port = options.port ?? (await freePort());
  let output = '';
  const child: ChildProcess = spawn(
    codeServerBin,
    [
      '--auth',
      'none',
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--user-data-dir',
      userDataDir,
      '--extensions-dir',
      extensionsDir,
      '--disable-telemetry',
      '--disable-update-check',
      ...(options.restricted ? [] : ['--disable-workspace-trust']),
      '--disable-getting-started-override',
      options.workspace,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, VSCODE_PROXY_URI: '' } },
  );
  child.stdout?.on('data', (d: Buffer) => {
    output += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    output += d.toString();
  });

  const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(options.workspace)}`;
  await waitForHttp(
    `http://127.0.0.1:${port}/healthz`,
    60_000,
    () => child.exitCode !== null,
    () => output,
  );
  return {
    url,
    port,
    userDataDir,
    extensionsDir,
    logs: () => output,
    close: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise<void>((done) => {
          const timer = setTimeout(() => {
            child.kill('SIGKILL');
            done();
          }, 5_000);
          child.once('exit', () => {
            clearTimeout(timer);
            done();
          });
        });
      }
      if (!options.keep) rmSync(base, { recursive: true, force: true });
    },
  };
}

async function waitForHttp(url: string, timeoutMs: number, died: () => boolean, logs: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (died()) throw new Error(`code-server exited early:\n${logs()}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`code-server did not answer ${url} within ${timeoutMs} ms:\n${logs()}`);
}
