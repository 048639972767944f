/**
 * The command table (src/commands.ts) against package.json, both ways, and against the source: every
 * contributed command is in the table and the table holds nothing else; every menu entry and welcome
 * link names a command of the table; every command the code registers, runs or puts on a tree item
 * is spelled through the table, and every command of the table is registered.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { COMMANDS } from '../../src/commands';

const ROOT = join(__dirname, '..', '..');

interface Manifest {
  contributes: {
    commands: { command: string }[];
    menus: Record<string, { command?: string }[]>;
    keybindings?: { command: string }[];
    viewsWelcome?: { contents: string }[];
    walkthroughs?: { steps: { id: string; description: string; completionEvents?: string[]; media: { markdown?: string; image?: string } }[] }[];
  };
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;
const table = new Set<string>(Object.values(COMMANDS));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('command table', () => {
  it('holds exactly the commands package.json contributes', () => {
    const contributed = manifest.contributes.commands.map((c) => c.command);
    assert.equal(new Set(contributed).size, contributed.length, 'a command is contributed twice');
    assert.deepEqual([...table].sort(), [...contributed].sort());
  });

  it('every menu entry, keybinding and welcome link names a command of the table', () => {
    const named: string[] = [];
    for (const [menu, entries] of Object.entries(manifest.contributes.menus)) {
      for (const e of entries) if (e.command) named.push(`${menu}: ${e.command}`);
    }
    for (const k of manifest.contributes.keybindings ?? []) named.push(`keybinding: ${k.command}`);
    for (const w of manifest.contributes.viewsWelcome ?? []) {
      for (const m of w.contents.matchAll(/\(command:([\w.]+)\)/g)) named.push(`welcome: ${m[1]}`);
    }
    for (const step of (manifest.contributes.walkthroughs ?? []).flatMap((w) => w.steps)) {
      for (const m of step.description.matchAll(/\(command:([\w.]+)\)/g)) named.push(`walkthrough ${step.id}: ${m[1]}`);
      for (const e of step.completionEvents ?? [])
        if (e.startsWith('onCommand:')) named.push(`walkthrough ${step.id} completion: ${e.slice('onCommand:'.length)}`);
    }
    assert.ok(named.length > 20, `only ${named.length} menu entries found`);
    const unknown = named.filter((n) => !table.has(n.slice(n.lastIndexOf(' ') + 1)));
    assert.deepEqual(unknown, []);
  });

  it("every walkthrough step's media is a file the .vsix carries", () => {
    const steps = (manifest.contributes.walkthroughs ?? []).flatMap((w) => w.steps);
    assert.ok(steps.length >= 4, 'the Get Started walkthrough has its steps');
    // .vscodeignore excludes everything, then lets through "!dir/*.ext" patterns: a media file must match one.
    const kept = readFileSync(join(ROOT, '.vscodeignore'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('!'))
      .map((line) => new RegExp(`^${line.slice(1).replace(/\./g, '\\.').replace(/\*/g, '[^/]*')}$`));
    for (const step of steps) {
      const file = step.media.markdown ?? step.media.image;
      assert.ok(file, `step ${step.id} has media`);
      assert.ok(statSync(join(ROOT, file)).isFile(), `${file} exists`);
      assert.ok(
        kept.some((re) => re.test(file)),
        `${file} is packaged`,
      );
    }
  });

  it('the code spells every own command through the table, and registers each one', () => {
    const literal: string[] = [];
    let code = '';
    for (const file of sources(join(ROOT, 'src'))) {
      if (file.endsWith(join('src', 'commands.ts')) || file.endsWith(join('shared', 'lspProtocol.ts'))) continue;
      const text = readFileSync(file, 'utf8');
      code += text;
      for (const m of text.matchAll(/'(inferenceDoctor\.\w+)'/g)) if (table.has(m[1])) literal.push(`${file.slice(ROOT.length + 1)}: ${m[1]}`);
    }
    assert.deepEqual(literal, [], 'command IDs written out instead of taken from src/commands.ts');
    // Registered through ctx.registerCommand(X.key, …) or the remote feature's command(X.key, …).
    const registered = new Set([...code.matchAll(/(?:registerCommand|\bcommand)\(\s*(?:COMMANDS|[A-Z_]+_COMMANDS)\.(\w+)/g)].map((m) => m[1]));
    const keys = Object.keys(COMMANDS).filter((k) => !registered.has(k));
    assert.deepEqual(keys, [], 'commands in the table that nothing registers');
  });
});
