/**
 * Saved SSH passwords: which answer may be filled from the secret store, which typed answer may
 * be offered for saving, and when a saved one is forgotten. The store is an interface so the
 * rules run (and are tested) without vscode; the extension passes `context.secrets`.
 */
import type { PasswordPromptInfo, SshCallbacks } from './ssh';
import { HostError } from './types';

/** The part of vscode.SecretStorage this needs (structurally compatible). */
export interface SecretStore {
  get(key: string): PromiseLike<string | undefined>;
  store(key: string, value: string): PromiseLike<void>;
  delete(key: string): PromiseLike<void>;
}

export const sshPasswordKey = (hostId: string): string => `inferenceDoctor.sshPassword.${hostId}`;

/**
 * A hidden prompt that asks for the account password (PAM "Password: ", "user@host's password: ",
 * "Passwort:"), not for a one-time code: only such an answer is filled in or saved, so an OTP
 * never ends up in the store.
 */
export function isPasswordPrompt(info: Pick<PasswordPromptInfo, 'prompt' | 'echo' | 'method'>): boolean {
  if (info.echo) return false;
  if (info.method === 'password') return true;
  return /pass/i.test(info.prompt) && !/code|token|otp|one[- ]time|verif/i.test(info.prompt);
}

export type SaveOutcome = 'saved' | 'declined' | 'nothing-typed';

/**
 * Password handling for one connection attempt. Use `callbacks` as `askPassword`, then call
 * `connected` or `failed` once the attempt has ended.
 */
export class PasswordSession {
  private savedOffered = false;
  private triedSaved = false;
  private typed?: string;

  constructor(
    private readonly store: SecretStore,
    private readonly hostId: string,
    /** Ask the user; undefined = cancelled. */
    private readonly ask: (info: PasswordPromptInfo) => Promise<string | undefined>,
  ) {}

  readonly askPassword: NonNullable<SshCallbacks['askPassword']> = async (info) => {
    const password = isPasswordPrompt(info);
    // The saved password answers the first password prompt only; a retry means it was refused.
    if (password && !this.triedSaved) {
      this.triedSaved = true;
      const saved = await this.store.get(sshPasswordKey(this.hostId));
      if (saved !== undefined && saved !== '') {
        this.savedOffered = true;
        return saved;
      }
    }
    const answer = await this.ask(info);
    // The last typed password is the one that worked (if the connection succeeds).
    if (answer !== undefined && password) this.typed = answer;
    return answer;
  };

  /** A password was typed during this attempt (so saving it can be offered). */
  get typedPassword(): boolean {
    return this.typed !== undefined;
  }

  /**
   * After a successful connection: if a password was typed, ask `confirm` and store it only on
   * yes. A connection made with the saved password (nothing typed) asks nothing.
   */
  async connected(confirm: () => PromiseLike<boolean>): Promise<SaveOutcome> {
    const pw = this.typed;
    this.typed = undefined;
    if (pw === undefined) return 'nothing-typed';
    if (!(await confirm())) return 'declined';
    await this.store.store(sshPasswordKey(this.hostId), pw);
    return 'saved';
  }

  /** After a failed attempt: an auth failure with the saved password offered forgets it. */
  async failed(err: unknown): Promise<boolean> {
    this.typed = undefined;
    if (!(err instanceof HostError && err.kind === 'auth') || !this.savedOffered) return false;
    await this.store.delete(sshPasswordKey(this.hostId));
    return true;
  }
}
