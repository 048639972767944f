import { strict as assert } from 'node:assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listSshAliases, parseHostSpec, resolveSshTarget, expandGlob, type SshConfigOptions } from '../../src/core/hosts/sshConfig';

describe('sshConfig', () => {
  let home: string;
  let o: SshConfigOptions;
  before(() => {
    home = mkdtempSync(join(tmpdir(), 'id-sshcfg-'));
    mkdirSync(join(home, '.ssh', 'conf.d'), { recursive: true });
    o = { home, localUser: 'me', configFile: join(home, '.ssh', 'config') };
    writeFileSync(
      join(home, '.ssh', 'config'),
      [
        'Include conf.d/*.conf',
        'Host gpu1',
        '  HostName 10.0.0.5',
        '  User root',
        '  Port 2222',
        '  IdentityFile ~/.ssh/gpu_key',
        '  IdentitiesOnly yes',
        '  ServerAliveInterval 30',
        'Host gpu2 gpu3',
        '  HostName %h.cluster.example',
        '  ProxyJump bastion',
        'Host bastion',
        '  HostName bastion.example',
        '  User jump',
        '  IdentityFile %d/.ssh/jump_%r',
        'Host inner',
        '  Include inner.extra',
        '  User innerUser',
        'Host chain',
        '  ProxyJump bastion,gpu1',
        'Host *.lab !skip.lab',
        '  User labuser',
        'Host *',
        '  User fallback',
        '  ServerAliveCountMax 5',
        '',
      ].join('\n'),
    );
    writeFileSync(join(home, '.ssh', 'conf.d', 'a.conf'), 'Host fromInclude\n  HostName inc.example\n  Port 2200\n');
    writeFileSync(join(home, '.ssh', 'conf.d', 'b.conf'), 'Host *.inc\n  User wild\n');
    writeFileSync(join(home, '.ssh', 'inner.extra'), 'Port 2022\nHost never\n  HostName never.example\n');
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  it('resolves an alias with HostName, User, Port, IdentityFile, IdentitiesOnly, ServerAliveInterval', () => {
    const t = resolveSshTarget({ host: 'gpu1' }, o);
    assert.equal(t.hostName, '10.0.0.5');
    assert.equal(t.user, 'root');
    assert.equal(t.port, 2222);
    assert.deepEqual(t.identityFiles, [join(home, '.ssh', 'gpu_key')]);
    assert.equal(t.defaultIdentityFiles, false);
    assert.equal(t.identitiesOnly, true);
    assert.equal(t.serverAliveInterval, 30);
    assert.equal(t.serverAliveCountMax, 5);
    assert.deepEqual(t.proxyJump, []);
  });

  it('expands %h and resolves ProxyJump hops through the config', () => {
    const t = resolveSshTarget({ host: 'gpu3' }, o);
    assert.equal(t.hostName, 'gpu3.cluster.example');
    assert.equal(t.user, 'fallback');
    assert.equal(t.proxyJump.length, 1);
    const j = t.proxyJump[0];
    assert.equal(j.hostName, 'bastion.example');
    assert.equal(j.user, 'jump');
    assert.deepEqual(j.identityFiles, [join(home, '.ssh', 'jump_jump')]);
  });

  it('multi-hop ProxyJump keeps order', () => {
    const t = resolveSshTarget({ host: 'chain' }, o);
    assert.deepEqual(
      t.proxyJump.map((h) => h.alias),
      ['bastion', 'gpu1'],
    );
  });

  it('follows Include relative to ~/.ssh with globs', () => {
    const t = resolveSshTarget({ host: 'fromInclude' }, o);
    assert.equal(t.hostName, 'inc.example');
    assert.equal(t.port, 2200);
    assert.equal(resolveSshTarget({ host: 'x.inc' }, o).user, 'wild');
  });

  it('Include inside a Host block applies only to that block', () => {
    const t = resolveSshTarget({ host: 'inner' }, o);
    assert.equal(t.port, 2022);
    assert.equal(t.user, 'innerUser');
    assert.equal(resolveSshTarget({ host: 'gpu3' }, o).port, 22);
    assert.equal(resolveSshTarget({ host: 'never' }, o).hostName, 'never');
  });

  it('honours wildcard and negated Host patterns, first value wins', () => {
    assert.equal(resolveSshTarget({ host: 'a.lab' }, o).user, 'labuser');
    assert.equal(resolveSshTarget({ host: 'skip.lab' }, o).user, 'fallback');
  });

  it('typed user/port override the config; unknown hosts get defaults', () => {
    const t = resolveSshTarget({ host: 'gpu1', user: 'bob', port: 22 }, o);
    assert.equal(t.user, 'bob');
    assert.equal(t.port, 22);
    const d = resolveSshTarget({ host: 'plain.example' }, { home, localUser: 'me', configFile: join(home, 'nope') });
    assert.equal(d.user, 'me');
    assert.equal(d.port, 22);
    assert.equal(d.defaultIdentityFiles, true);
    assert.ok(d.identityFiles.includes(join(home, '.ssh', 'id_ed25519')));
    assert.deepEqual(d.userKnownHostsFiles, [join(home, '.ssh', 'known_hosts'), join(home, '.ssh', 'known_hosts2')]);
  });

  it('lists concrete aliases only (Includes followed, wildcards and negations dropped)', () => {
    assert.deepEqual(listSshAliases(o), ['fromInclude', 'gpu1', 'gpu2', 'gpu3', 'bastion', 'inner', 'never', 'chain']);
  });

  it('parses HOST strings', () => {
    assert.deepEqual(parseHostSpec('local'), { kind: 'local' });
    assert.deepEqual(parseHostSpec('gpu1'), { kind: 'ssh', host: 'gpu1' });
    assert.deepEqual(parseHostSpec('root@gpu1'), { kind: 'ssh', host: 'gpu1', user: 'root' });
    assert.deepEqual(parseHostSpec('root@10.0.0.5:2222'), { kind: 'ssh', host: '10.0.0.5', user: 'root', port: 2222 });
    assert.deepEqual(parseHostSpec('ssh://root@h.example:2200'), { kind: 'ssh', host: 'h.example', user: 'root', port: 2200 });
    assert.deepEqual(parseHostSpec('ssh://h.example/'), { kind: 'ssh', host: 'h.example' });
    assert.deepEqual(parseHostSpec('ssh://u@[::1]:2022'), { kind: 'ssh', host: '::1', user: 'u', port: 2022 });
    assert.deepEqual(parseHostSpec('::1'), { kind: 'ssh', host: '::1' });
    for (const bad of ['', 'u@h:notaport', 'u@h:70000', 'h;rm -rf /', '-oProxyCommand=x', '@h', 'ssh://h/path']) {
      assert.throws(() => parseHostSpec(bad), Error, bad);
    }
  });

  it('expands globs sorted, skipping dot files', () => {
    writeFileSync(join(home, '.ssh', 'conf.d', '.hidden.conf'), '');
    assert.deepEqual(
      expandGlob(join(home, '.ssh', 'conf.d', '*.conf')).map((p) => p.split('/').pop()),
      ['a.conf', 'b.conf'],
    );
  });
});
