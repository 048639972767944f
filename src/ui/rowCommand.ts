/**
 * Row commands for tree views that redraw while people click them.
 *
 * VS Code keeps a row command's arguments only until the row is redrawn: a click that lands
 * during a refresh (a health check finishing, search results streaming in, a host connecting)
 * ran nothing and showed "Actual command not found". Such rows get a command without arguments,
 * and that command reads the clicked row from the view's selection, which VS Code sets before it
 * runs the row's command.
 */
import type * as vscode from 'vscode';
import type { CommandId } from '../commands';

/** The command of a row in a view that redraws: no arguments (see above). */
export function rowCommand(command: CommandId, title: string): vscode.Command {
  return { command, title };
}

/** The row whose click ran the command; none when the view has no selection (a click before activation). */
export function clickedRow<T>(view: vscode.TreeView<T>): T | undefined {
  return view.selection[0];
}
