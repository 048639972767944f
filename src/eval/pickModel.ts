/**
 * Which model of a server a check runs on: the only one it lists, else the user's pick (the
 * simulator and multi-model servers list several). Throws when the models cannot be listed.
 */
import * as vscode from 'vscode';
import { fetchModels } from '../core/probe/server-api';
import type { ServerTarget } from '../core/probe/types';
import { guardPicks } from '../ui/foreignText';

/** The model id, null when the server lists none (the request then names none), undefined when the pick was dismissed. */
export async function pickModel(target: ServerTarget, serverLabel: string, signal?: AbortSignal): Promise<string | null | undefined> {
  const models = (await fetchModels(target, signal ? { signal } : {})).map((m) => m.id);
  if (models.length <= 1) return models[0] ?? null;
  const picked = await vscode.window.showQuickPick(guardPicks(models.map((id) => ({ label: id, id }))), {
    title: `Which model of ${serverLabel}?`,
    placeHolder: 'The server lists several models',
    ignoreFocusOut: true,
  });
  return picked?.id;
}
