/**
 * Changing the flags of a systemd unit without touching the unit file: a drop-in
 * (`/etc/systemd/system/UNIT.d/inference-doctor.conf`) that clears ExecStart and sets the edited
 * command, then `daemon-reload` and `restart`. Undo removes the drop-in (or puts back the one that
 * was there), so the user's unit is restored byte for byte because it was never written.
 *
 * Pure: it plans argv lists; the caller runs them on a Host (every argument is data: file contents
 * travel as an argument to `sh -c` with a fixed script, never inside the script).
 */
import { findLaunchCommands } from '../launch/index';
import { applyTextEdits, EDITABLE_ENGINES, isEnvChange, launchEdits, type FlagChange } from '../launch/edit';
import { LineIndex } from '../lines';

export const DROP_IN_NAME = 'inference-doctor.conf';

export interface SystemdPlan {
  unit: string;
  dropInPath: string;
  /** The drop-in's text. */
  dropIn: string;
  /** The effective ExecStart command line after the change (for the before/after view). */
  execStart: string;
  /** Run in order to apply. */
  apply: string[][];
  /** Run in order to undo (the previous drop-in is written back when there was one). */
  restore: string[][];
}

export class SystemdPlanError extends Error {}

const UNIT = /^[A-Za-z0-9:_.@-]{1,200}$/;

/** Where our drop-in for `unit` lives. */
export function dropInPath(name: string, unitDir = '/etc/systemd/system'): string {
  return `${unitDir}/${unitName(name)}.d/${DROP_IN_NAME}`;
}

/** `sglang` → `sglang.service`; refuses names that could leave the unit directory or run as options. */
export function unitName(name: string): string {
  const unit = /\.(service|socket|target|timer|mount|path)$/.test(name) ? name : `${name}.service`;
  if (!UNIT.test(unit) || unit.startsWith('-') || unit.startsWith('.')) throw new SystemdPlanError(`Not a unit name: ${JSON.stringify(name)}`);
  return unit;
}

/**
 * Plans the change. `effective` is what `systemctl cat UNIT` prints (the unit and its drop-ins, in
 * order): the last SGLang or vLLM command found there is the one systemd runs. `previousDropIn` is our
 * drop-in's current text when it exists (from an earlier apply), so undo can put it back.
 */
export function planSystemdChange(
  name: string,
  effective: string,
  changes: FlagChange[],
  opts: { unitDir?: string; previousDropIn?: string } = {},
): SystemdPlan {
  const unit = unitName(name);
  const commands = findLaunchCommands(effective, 'systemd', { engines: EDITABLE_ENGINES });
  const cmd = commands[commands.length - 1];
  if (!cmd) throw new SystemdPlanError(`No SGLang or vLLM launch command in the ExecStart of ${unit}`);
  const edited = applyTextEdits(
    effective,
    launchEdits(
      cmd,
      effective,
      changes.filter((c) => !isEnvChange(c)),
    ),
  );
  // Variables go in the drop-in too: a later Environment= wins over the unit's.
  const environment = changes
    .filter(isEnvChange)
    .map((c) => `Environment=${systemdQuote(`${c.flag}=${typeof c.value === 'string' ? c.value : c.value ? '1' : '0'}`)}`);
  const after = findLaunchCommands(edited, 'systemd', { engines: EDITABLE_ENGINES });
  const next = after[after.length - 1];
  if (!next) throw new SystemdPlanError(`The change would leave ${unit} without a launch command`);
  const execStart = logicalLine(edited, next.range.start.line, next.range.end);
  if (!/^\s*ExecStart\s*=/.test(execStart)) throw new SystemdPlanError(`The launch command of ${unit} is not in its ExecStart`);
  const path = dropInPath(unit, opts.unitDir);
  const dir = path.slice(0, path.lastIndexOf('/'));
  const dropIn = [
    '# Written by Inference Doctor: the flags below replace those of the unit.',
    '# Remove this file (then systemctl daemon-reload) to go back to the unit as written.',
    '[Service]',
    ...environment,
    'ExecStart=',
    execStart.trimStart(),
    '',
  ].join('\n');
  const reloadAndRestart = [
    ['systemctl', 'daemon-reload'],
    ['systemctl', 'restart', unit],
  ];
  return {
    unit,
    dropInPath: path,
    dropIn,
    execStart: execStart.trim(),
    apply: [['mkdir', '-p', dir], writeFileArgv(path, dropIn), ...reloadAndRestart],
    restore: [opts.previousDropIn === undefined ? ['rm', '-f', path] : writeFileArgv(path, opts.previousDropIn), ...reloadAndRestart],
  };
}

/**
 * Writes `content` to `path` atomically (a temp file, then rename). The temp file starts as a copy
 * of the old one so the mode survives (a launch script stays executable). The script is fixed; the
 * content and path are positional arguments, so nothing in them is ever parsed by the shell.
 */
export function writeFileArgv(path: string, content: string): string[] {
  return [
    'sh',
    '-c',
    'umask 022; tmp="$2.tmp.$$"; if [ -f "$2" ]; then cp -p "$2" "$tmp" || exit; fi; printf %s "$1" > "$tmp" && mv -f "$tmp" "$2"',
    'sh',
    content,
    path,
  ];
}

/** One Environment= assignment, double-quoted the way systemd reads it. */
function systemdQuote(assignment: string): string {
  return /^[A-Za-z0-9_=.,:/+-]+$/.test(assignment) ? assignment : `"${assignment.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** From the start of `line` to `end`: the ExecStart assignment with its `\` continuations. */
function logicalLine(text: string, line: number, end: { line: number; character: number }): string {
  const lines = new LineIndex(text);
  return text.slice(lines.offset({ line, character: 0 }), lines.offset(end));
}
