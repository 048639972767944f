/**
 * Starts the Inference Doctor language server (dist/server.js) lazily: `vscode-languageclient` is
 * loaded and the server spawned only once a document that can hold an SGLang launch command is
 * open (shell scripts, systemd units, compose/Kubernetes YAML, Dockerfiles, Python, Markdown).
 *
 *   registerLanguageClient(context);                               // in activate()
 *   await sendRuntimeCatalog({ catalog, hostLabel, computeCapability });   // from remote/flags features
 */
import * as vscode from 'vscode';
import { REMOTE_SCHEME } from '../core/remote/uris';
import { log } from '../log';
import type { LanguageClient, LanguageClientOptions, ServerOptions } from 'vscode-languageclient/node';
import {
  CONFIG_SECTION, onCustomNotification, sendCustomNotification, sendCustomRequest,
  type CatalogEntriesParams, type CatalogEntriesResult, type CatalogStatus, type SetRuntimeCatalogParams,
} from '../shared/lspProtocol';
import { notificationText } from '../core/text/foreign';

/** Documents the server looks at. Pattern-based entries catch unit files whatever language id they get. */
export const DOCUMENT_SELECTOR: ({ language: string; pattern?: string; scheme?: string } | { pattern: string; language?: string; scheme?: string })[] = [
  // server_args.py, local or on a host: code lenses, and the catalog it defines
  { scheme: 'file', language: 'python', pattern: '**/server_args.py' },
  { scheme: REMOTE_SCHEME, language: 'python', pattern: '**/server_args.py' },
  { scheme: REMOTE_SCHEME, pattern: '**/server_args.py' },
  { language: 'shellscript' },
  { language: 'yaml' },
  { language: 'dockercompose' },
  { language: 'dockerfile' },
  { language: 'python' },
  { language: 'markdown' },
  { language: 'ini', pattern: '**/*.{service,socket}' },
  { language: 'systemd-unit-file' },
  { language: 'plaintext', pattern: '**/*.{service,socket}' },
  { pattern: '**/*.{service,socket}' },
];

let client: LanguageClient | undefined;
let starting: Promise<LanguageClient | undefined> | undefined;
let lastRuntime: SetRuntimeCatalogParams | undefined;
let extensionContext: vscode.ExtensionContext | undefined;
const statusEmitter = new vscode.EventEmitter<CatalogStatus>();
/** Fires when the server's active catalog changes. */
export const onCatalogStatus = statusEmitter.event;

function matches(doc: vscode.TextDocument): boolean {
  const s = doc.uri.scheme;
  if (s !== 'file' && s !== 'untitled' && s !== 'vscode-remote' && s !== REMOTE_SCHEME) return false;
  return vscode.languages.match(DOCUMENT_SELECTOR, doc) > 0;
}

async function start(context: vscode.ExtensionContext): Promise<LanguageClient | undefined> {
  const { LanguageClient: Client, TransportKind } = await import('vscode-languageclient/node');
  const module = context.asAbsolutePath('dist/server.js');
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6011'] } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    synchronize: {
      configurationSection: CONFIG_SECTION,
      fileEvents: [
        vscode.workspace.createFileSystemWatcher('**/.inference-doctor/rules.json'),
        vscode.workspace.createFileSystemWatcher('**/server_args.py'),
      ],
    },
    outputChannelName: 'Inference Doctor Flags',
  };
  const c = new Client('inferenceDoctor.flags', 'Inference Doctor Flags', serverOptions, clientOptions);
  await c.start();
  context.subscriptions.push(onCustomNotification(c, 'inferenceDoctor/catalogChanged', (s) => statusEmitter.fire(s)) as vscode.Disposable);
  if (lastRuntime) await sendCustomNotification(c, 'inferenceDoctor/setRuntimeCatalog', lastRuntime);
  client = c;
  return c;
}

/** Starts the server unless it is starting already; a failure is logged, shown, and allows a later retry. */
function startOnce(context: vscode.ExtensionContext): Promise<LanguageClient | undefined> {
  starting ??= start(context).catch((e: unknown) => {
    starting = undefined;
    log().error(`flags language server did not start: ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
    void vscode.window.showWarningMessage(`Inference Doctor: the flags language server did not start: ${notificationText(e instanceof Error ? e.message : String(e))}`);
    return undefined;
  });
  return starting;
}

/**
 * Registers the language client; the server starts with the first matching document (already open
 * ones included). Safe to call once from activate().
 */
export function registerLanguageClient(context: vscode.ExtensionContext): void {
  extensionContext = context;
  const check = (doc: vscode.TextDocument): void => {
    if (starting || !matches(doc)) return;
    log().info(`starting the flags language server for ${doc.uri.toString()} (${doc.languageId})`);
    void startOnce(context);
  };
  for (const doc of vscode.workspace.textDocuments) check(doc);
  if (!starting) {
    const sub = vscode.workspace.onDidOpenTextDocument((doc) => {
      check(doc);
      if (starting) sub.dispose();
    });
    context.subscriptions.push(sub);
  }
  context.subscriptions.push(statusEmitter, { dispose: () => void stopLanguageClient() });
}

/**
 * Starts the server now if no document has started it yet (the Backend Flags view needs it with
 * no file open). Undefined when it cannot start (the user was told) or before registration.
 */
export function ensureLanguageClient(): Promise<LanguageClient | undefined> {
  if (client) return Promise.resolve(client);
  return extensionContext ? startOnce(extensionContext) : Promise.resolve(undefined);
}

/** The active catalog's entries (starting the server when needed); undefined when it cannot run. */
export async function requestCatalogEntries(params: CatalogEntriesParams = {}): Promise<CatalogEntriesResult | undefined> {
  const c = await ensureLanguageClient();
  return c ? sendCustomRequest(c, 'inferenceDoctor/catalogEntries', params) : undefined;
}

export async function stopLanguageClient(): Promise<void> {
  const c = client;
  client = undefined;
  starting = undefined;
  if (c) await c.stop().catch(() => undefined);
}

/**
 * Hands the server a catalog read from an installed SGLang (catalogToJson) and the GPU of that host.
 * Kept and re-sent if the server starts later; `catalog: null` clears it.
 */
export async function sendRuntimeCatalog(params: SetRuntimeCatalogParams): Promise<void> {
  lastRuntime = params;
  const c = client ?? (starting ? await starting : undefined);
  if (c) await sendCustomNotification(c, 'inferenceDoctor/setRuntimeCatalog', params);
}
