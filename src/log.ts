import * as vscode from 'vscode';
import { createLogChannel } from './ui/foreignText';

let channel: vscode.LogOutputChannel | undefined;

/** The extension's log ("Inference Doctor" in the Output panel), created on first use. */
export function log(): vscode.LogOutputChannel {
  channel ??= createLogChannel('Inference Doctor');
  return channel;
}

export function disposeLog(): void {
  channel?.dispose();
  channel = undefined;
}
