/**
 * A docker compose service as a restart target: the service's `command:` (or `entrypoint:`) in the
 * compose file is edited through the launch parser, written atomically, and the service recreated
 * with `docker compose up -d --force-recreate --no-deps SERVICE`. Restore writes the file back byte
 * for byte and recreates it again. Works on any Host (exec only), so over SSH too.
 */
import { isMap, isNode, parseDocument } from 'yaml';
import { findLaunchCommands } from '../launch/index';
import { applyTextEdits, EDITABLE_ENGINES, launchEdits, type FlagChange } from '../launch/edit';
import type { LaunchCommand } from '../launch/types';
import { LineIndex } from '../lines';
import type { Host } from '../hosts/types';
import { FixError, type RestartTarget } from './loop';
import { writeFileArgv } from './systemd';

const SERVICE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,200}$/;

/** The launch command of `service` in a compose file's text; throws a FixError that says what is missing. */
export function serviceLaunchCommand(text: string, service: string): LaunchCommand {
  const doc = parseDocument(text);
  if (doc.errors.length) throw new FixError(`The compose file is not valid YAML: ${doc.errors[0].message.split('\n')[0]}`);
  const services = doc.get('services', true);
  const node = isMap(services) ? services.get(service, true) : undefined;
  if (!isMap(node)) throw new FixError(`No service "${service}" under services: in the compose file`);
  const lines = new LineIndex(text);
  const commands = findLaunchCommands(text, 'yaml', { engines: EDITABLE_ENGINES });
  for (const key of ['command', 'entrypoint']) {
    const value = node.get(key, true);
    if (!isNode(value) || !value.range) continue;
    const [start, , end] = value.range;
    const inside = commands.find((c) => {
      // The vllm/vllm-openai image's command starts at its `image:`: its arguments are what `command:` holds.
      const at = lines.offset(c.entry === 'image' && c.args.length ? c.args[0].range.start : c.range.start);
      return at >= start && at <= end;
    });
    if (inside) return inside;
  }
  throw new FixError(`Service "${service}" has no SGLang or vLLM launch command in its command: or entrypoint:`);
}

/** Services of a compose file whose command is an SGLang or vLLM launch (none when it is no compose file). */
export function composeServices(text: string): string[] {
  const doc = parseDocument(text);
  const services = doc.errors.length ? undefined : doc.get('services', true);
  if (!isMap(services)) return [];
  const names = services.items.map((i) => String((i.key as { value?: unknown } | null)?.value ?? i.key));
  return names.filter((n) => {
    try {
      serviceLaunchCommand(text, n);
      return true;
    } catch {
      return false;
    }
  });
}

export class ComposeTarget implements RestartTarget {
  private original: string | undefined;
  readonly label: string;

  /** `docker`: how the host runs the docker CLI (tests give a stand-in; default `docker`). */
  constructor(
    private readonly host: Host,
    private readonly file: string,
    private readonly service: string,
    private readonly docker: readonly string[] = ['docker'],
  ) {
    if (!SERVICE.test(service)) throw new FixError(`Not a compose service name: ${JSON.stringify(service)}`);
    this.label = `compose service ${service} (${file})`;
  }

  private compose(...rest: string[]): string[] {
    return [...this.docker, 'compose', '-f', this.file, ...rest];
  }

  private async run(argv: string[], what: string): Promise<string> {
    const r = await this.host.exec(argv, { timeoutMs: 300_000, maxOutputBytes: 1024 * 1024 });
    if (r.code !== 0) throw new FixError(`${what} failed (exit ${r.code ?? r.signal}): ${(r.stderr || r.stdout).trim().slice(0, 500)}`);
    return r.stdout;
  }

  async apply(changes: FlagChange[]): Promise<void> {
    const text = new TextDecoder().decode(await this.host.readFile(this.file, { maxBytes: 4 * 1024 * 1024 }));
    this.original ??= text;
    const cmd = serviceLaunchCommand(text, this.service);
    await this.run(writeFileArgv(this.file, applyTextEdits(text, launchEdits(cmd, text, changes))), `Writing ${this.file}`);
    await this.recreate();
  }

  async restore(): Promise<void> {
    if (this.original === undefined) return;
    await this.run(writeFileArgv(this.file, this.original), `Restoring ${this.file}`);
    await this.recreate();
  }

  private async recreate(): Promise<void> {
    await this.run(this.compose('up', '-d', '--force-recreate', '--no-deps', '--', this.service), `docker compose up ${this.service}`);
  }

  async logTail(): Promise<string> {
    const r = await this.host.exec(this.compose('logs', '--no-color', '--tail', '40', '--', this.service), { timeoutMs: 30_000, maxOutputBytes: 256 * 1024 });
    return r.stdout + r.stderr;
  }

  async isRunning(): Promise<boolean> {
    const r = await this.host.exec(this.compose('ps', '--status', 'running', '-q', '--', this.service), { timeoutMs: 30_000, maxOutputBytes: 64 * 1024 });
    if (r.code !== 0) throw new FixError(`docker compose ps failed: ${(r.stderr || r.stdout).trim().slice(0, 300)}`);
    return r.stdout.trim() !== '';
  }
}
