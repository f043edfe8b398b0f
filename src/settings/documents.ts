// A user's settings document as the services read and write it: projected on today's members, one
// read-modify-write at a time per user (across replicas: the store takes the turns), its secrets
// sealed for that user (a value copied into another user's document does not open).
import { Value } from 'typebox/value';
import type { SettingsStore } from '../store/index.js';
import { complete, defaultSettings } from './parse.js';
import type { SettingsDocument } from './profiles.js';
import { type Settings, StoredDocumentShape } from './schemas.js';
import { SecretBox, SecretKeyError } from './secret-box.js';

/** The additional authenticated data of a user's sealed settings: a value copied to another user fails. */
export const sealContext = (userId: string) => `agentd-settings:${userId}`;

/** How a secret is shown: redacted (no header), sealed (`encrypted`), or in clear. */
export type ExposeMode = 'redacted' | 'encrypted' | 'plaintext';

/** A document of the defaults, for a user who has stored nothing yet. */
export const defaults = (): SettingsDocument => defaultSettings();

export abstract class SettingsDocuments {
  constructor(
    protected readonly documents: SettingsStore,
    protected readonly box: SecretBox,
  ) {}

  /**
   * A value as a client sends it back: opened when it is one this server sealed for this user (an
   * `encrypted` read), else as it is. SecretKeyError when it looks sealed but does not open.
   */
  openSealed(userId: string, value: string): string {
    return SecretBox.isSealed(value) ? this.open(userId, value, 'a sealed value sent back') : value;
  }

  /** A value sealed for this user, as an `encrypted` read shows it: it opens only here, for them. */
  sealFor(userId: string, value: string): string {
    return this.box.encrypt(value, sealContext(userId));
  }

  /** A value sealed for this user, in clear; SecretKeyError naming `path` (never the value) otherwise. */
  protected open(userId: string, sealed: string, path: string): string {
    try {
      return this.box.decrypt(sealed, sealContext(userId));
    } catch (error) {
      throw new SecretKeyError(`settings of ${userId}, ${path}: ${(error as Error).message}`);
    }
  }

  /**
   * Seals a value a client sent for this user: in clear, or sealed by this server for them (an
   * `encrypted` read sent back: opened first, SecretKeyError when it does not open).
   */
  protected sealer(userId: string): (value: string) => string {
    const context = sealContext(userId);
    return (value) => this.box.encrypt(this.openSealed(userId, value), context);
  }

  /**
   * Runs `fn` after the user's earlier writes, so two concurrent writes cannot lose one another
   * (through any replica: the store takes the turns).
   */
  protected serialize<T>(userId: string, fn: () => Promise<T>): Promise<T> {
    return this.documents.exclusive(userId, fn);
  }

  protected write(userId: string, doc: SettingsDocument): Promise<void> {
    return this.documents.put(userId, JSON.stringify(doc));
  }

  /** The stored (sealed) document, projected on today's members with their defaults. */
  protected async read(userId: string): Promise<SettingsDocument | null> {
    const text = await this.documents.get(userId);
    if (text === null) return null;
    return complete(Value.Clean(StoredDocumentShape, JSON.parse(text)) as Settings);
  }
}
