/**
 * The settings table (src/config.ts) against package.json both ways — keys, defaults, scopes —
 * and the typed reader over a configuration source.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Config, CONFIG_ROOT, SETTINGS, type ConfigurationSource } from '../../src/config';

interface Property {
  default?: unknown;
  scope?: string;
  type?: string | string[];
}
const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, Property> } };
  capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
};
const properties = manifest.contributes.configuration.properties;

/** A configuration source over a plain object, firing change events on `set`. */
function source(values: Record<string, unknown>): ConfigurationSource & { set(key: string, value: unknown): void } {
  const listeners: ((e: { affectsConfiguration(section: string): boolean }) => void)[] = [];
  return {
    getConfiguration: (section) => ({ get: <T>(key: string) => values[`${section}.${key}`] as T | undefined }),
    onDidChangeConfiguration: (listener: (e: { affectsConfiguration(section: string): boolean }) => void) => {
      listeners.push(listener);
      return { dispose: () => listeners.splice(listeners.indexOf(listener), 1) };
    },
    set(key, value) {
      values[key] = value;
      for (const l of [...listeners]) l({ affectsConfiguration: (s) => key === s || key.startsWith(`${s}.`) });
    },
  };
}

describe('settings table', () => {
  it('holds exactly the settings package.json contributes', () => {
    assert.deepEqual(
      Object.keys(SETTINGS)
        .map((k) => `${CONFIG_ROOT}.${k}`)
        .sort(),
      Object.keys(properties).sort(),
    );
  });

  it('has the same default and scope as package.json for every setting', () => {
    for (const [key, spec] of Object.entries(SETTINGS)) {
      const p = properties[`${CONFIG_ROOT}.${key}`];
      assert.deepEqual(p.default, spec.default, `default of ${key}`);
      assert.equal(p.scope, spec.scope, `scope of ${key}`);
    }
  });

  it('keeps paths on this computer out of workspace settings, and restricts programs in untrusted workspaces', () => {
    // A workspace must not choose the SSH config or host keys at all; programs only when trusted.
    assert.equal(SETTINGS['ssh.configFile'].scope, 'machine');
    assert.equal(SETTINGS['ssh.knownHostsFile'].scope, 'machine');
    const restricted = new Set(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations);
    for (const key of ['flags.python', 'remote.pythonPaths', 'servers', 'flags.serverArgsPath'] as const) {
      assert.notEqual(SETTINGS[key].scope, 'application', key);
      assert.ok(restricted.has(`${CONFIG_ROOT}.${key}`), `${key} is restricted in untrusted workspaces`);
    }
  });
});

describe('Config', () => {
  it('reads typed values and falls back to the default for a missing or wrong-typed value', () => {
    const config = new Config(
      source({
        'inferenceDoctor.probe.maxTokens': 64,
        'inferenceDoctor.probe.timeoutSeconds': 'soon',
        'inferenceDoctor.health.intervalSeconds': Number.NaN,
        'inferenceDoctor.remote.pythonPaths': '/usr/bin/python3',
        'inferenceDoctor.servers': [{ url: 'http://a' }],
      }),
    );
    assert.equal(config.get('probe.maxTokens'), 64);
    assert.equal(config.get('probe.timeoutSeconds'), 120);
    assert.equal(config.get('health.intervalSeconds'), 30);
    assert.deepEqual(config.get('remote.pythonPaths'), []);
    assert.deepEqual(config.get('servers'), [{ url: 'http://a' }]);
    assert.equal(config.get('probe.earlyStop'), true);
  });

  it('text() trims and gives undefined for an empty value', () => {
    const config = new Config(source({ 'inferenceDoctor.flags.python': '  /opt/venv/bin/python  ', 'inferenceDoctor.ssh.configFile': '   ' }));
    assert.equal(config.text('flags.python'), '/opt/venv/bin/python');
    assert.equal(config.text('ssh.configFile'), undefined);
  });

  it('onDidChange fires for the keys and sections asked for, not for others', () => {
    const s = source({});
    const config = new Config(s);
    let health = 0;
    let ssh = 0;
    const a = config.onDidChange(['health'], () => health++);
    const b = config.onDidChange(['ssh.configFile'], () => ssh++);
    s.set('inferenceDoctor.health.intervalSeconds', 5);
    s.set('inferenceDoctor.ssh.knownHostsFile', '/k');
    s.set('inferenceDoctor.ssh.configFile', '/c');
    assert.deepEqual([health, ssh], [1, 1]);
    a.dispose();
    b.dispose();
    s.set('inferenceDoctor.health.checkGenerate', false);
    assert.equal(health, 1);
  });
});
