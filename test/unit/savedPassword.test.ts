import { strict as assert } from 'node:assert';
import { PasswordSession, isPasswordPrompt, sshPasswordKey, type SecretStore } from '../../src/core/hosts/savedPassword';
import type { PasswordPromptInfo } from '../../src/core/hosts/ssh';
import { HostError } from '../../src/core/hosts/types';

const info = (prompt: string, extra: Partial<PasswordPromptInfo> = {}): PasswordPromptInfo => ({
  user: 'u',
  host: 'h',
  prompt,
  echo: false,
  method: 'keyboard-interactive',
  attempt: 1,
  ...extra,
});

function memoryStore(initial: Record<string, string> = {}): SecretStore & { map: Map<string, string> } {
  const map = new Map(Object.entries(initial));
  return {
    map,
    get: (k) => Promise.resolve(map.get(k)),
    store: (k, v) => {
      map.set(k, v);
      return Promise.resolve();
    },
    delete: (k) => {
      map.delete(k);
      return Promise.resolve();
    },
  };
}

describe('saved SSH passwords', () => {
  it('only hidden password prompts count as the account password (never an OTP or a visible answer)', () => {
    assert.equal(isPasswordPrompt(info('Password: ')), true);
    assert.equal(isPasswordPrompt(info('Passwort: ')), true);
    assert.equal(isPasswordPrompt(info("u@h's password: ", { method: 'password' })), true);
    assert.equal(isPasswordPrompt(info('Verification code: ')), false);
    assert.equal(isPasswordPrompt(info('Passcode or option (1-3): ')), false);
    assert.equal(isPasswordPrompt(info("One-time password (OATH) for `u': ")), false);
    assert.equal(isPasswordPrompt(info('Password: ', { echo: true })), false);
  });

  it('fills only the first password prompt from the store, never an OTP; saves nothing typed for an OTP', async () => {
    const store = memoryStore({ [sshPasswordKey('x')]: 'saved' });
    const asked: string[] = [];
    const s = new PasswordSession(store, 'x', (i) => {
      asked.push(i.prompt);
      return Promise.resolve(`typed:${i.prompt}`);
    });
    assert.equal(await s.askPassword(info('Verification code: ')), 'typed:Verification code: ');
    assert.equal(s.typedPassword, false);
    assert.equal(await s.askPassword(info('Password: ')), 'saved');
    assert.equal(await s.askPassword(info('Password: ', { attempt: 2 })), 'typed:Password: ');
    assert.deepEqual(asked, ['Verification code: ', 'Password: ']);
    assert.equal(await s.connected(() => Promise.resolve(true)), 'saved');
    assert.equal(store.map.get(sshPasswordKey('x')), 'typed:Password: ');
  });

  it('forgets the saved password only after an auth failure in which it was offered', async () => {
    const key = sshPasswordKey('x');
    const unused = new PasswordSession(memoryStore({ [key]: 'p' }), 'x', () => Promise.resolve(undefined));
    assert.equal(await unused.failed(new HostError('auth', 'no')), false);
    const store = memoryStore({ [key]: 'p' });
    const used = new PasswordSession(store, 'x', () => Promise.resolve(undefined));
    await used.askPassword(info('Password: '));
    assert.equal(await used.failed(new HostError('connect', 'network')), false);
    assert.equal(store.map.has(key), true);
    assert.equal(await used.failed(new HostError('auth', 'refused')), true);
    assert.equal(store.map.has(key), false);
  });
});
