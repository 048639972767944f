/**
 * Workspace trust: settings a workspace could use against its user (a program to run, which
 * servers to contact, which SSH config and host keys to trust) are ignored from an untrusted
 * workspace, which VS Code does for every key listed in restrictedConfigurations.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Manifest {
  capabilities?: { untrustedWorkspaces?: { supported: boolean | 'limited'; description?: string; restrictedConfigurations?: string[] } };
  contributes: { configuration: { properties: Record<string, { description?: string; markdownDescription?: string }> } };
}

const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as Manifest;

describe('workspace trust declaration', () => {
  const trust = manifest.capabilities?.untrustedWorkspaces;

  it('supports untrusted workspaces in a limited way and says what is limited', () => {
    assert.ok(trust);
    assert.equal(trust.supported, 'limited');
    assert.match(trust.description ?? '', /untrusted workspace/);
  });

  it('restricts every setting that runs a program, picks servers to contact, or trusts SSH hosts and keys', () => {
    const restricted = new Set(trust?.restrictedConfigurations ?? []);
    const properties = manifest.contributes.configuration.properties;
    for (const key of Object.keys(properties)) {
      const risky = /python|pythonPaths|configFile|knownHostsFile|\.servers$|serverArgsPath/.test(key);
      if (risky) assert.ok(restricted.has(key), `${key} must be restricted in untrusted workspaces`);
    }
    for (const key of restricted) assert.ok(key in properties, `${key} is not a contributed setting`);
  });
});
