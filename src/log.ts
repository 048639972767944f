import * as vscode from 'vscode';

let channel: vscode.LogOutputChannel | undefined;

/** The extension's log ("Inference Doctor" in the Output panel), created on first use. */
export function log(): vscode.LogOutputChannel {
  channel ??= vscode.window.createOutputChannel('Inference Doctor', { log: true });
  return channel;
}

export function disposeLog(): void {
  channel?.dispose();
  channel = undefined;
}
