// Encryption of secrets at rest: AES-256-GCM, a random 96-bit IV per value and its 128-bit auth tag,
// written as `v1:<iv>:<tag>:<ciphertext>` (each part base64). GCM authenticates, so a wrong key or
// an altered value is an error, never garbage. An optional context (additional authenticated data)
// binds a value to where it belongs, e.g. to its user, so it cannot be copied elsewhere and used.
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomInto } from '../events/index.js';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
/** Fixed salt: the same OH_SECRET_KEY must give the same key on every start and every machine. */
const SCRYPT_SALT = 'agentd/OH_SECRET_KEY/v1';
export const KEY_FILE_NAME = 'secret.key';

export class SecretKeyError extends Error {
  override name = 'SecretKeyError';
}

export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== KEY_BYTES) throw new SecretKeyError(`secret key must be ${KEY_BYTES} bytes`);
    this.#key = Buffer.from(key);
  }

  /** A box whose key is derived from any string (scrypt, fixed salt): how OH_SECRET_KEY is used. */
  static fromPassphrase(passphrase: string): SecretBox {
    if (passphrase === '') throw new SecretKeyError('the secret key passphrase is empty');
    return new SecretBox(scryptSync(passphrase, SCRYPT_SALT, KEY_BYTES));
  }

  static isSealed(value: string): boolean {
    return value.startsWith(`${VERSION}:`) && value.split(':').length === 4;
  }

  encrypt(plaintext: string, context?: string): string {
    const iv = Buffer.allocUnsafe(IV_BYTES);
    randomInto(iv, 0, IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
    if (context !== undefined) cipher.setAAD(Buffer.from(context, 'utf8'));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [VERSION, iv.toString('base64'), tag.toString('base64'), data.toString('base64')].join(':');
  }

  /** Throws SecretKeyError (whose message never holds the value) when the value cannot be opened. */
  decrypt(sealed: string, context?: string): string {
    const parts = sealed.split(':');
    if (parts.length !== 4 || parts[0] !== VERSION) {
      throw new SecretKeyError(
        `not a sealed secret (expected the ${VERSION}:<iv>:<tag>:<ciphertext> format)`,
      );
    }
    const [iv, tag, data] = parts.slice(1).map((p) => Buffer.from(p, 'base64')) as [Buffer, Buffer, Buffer];
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) {
      throw new SecretKeyError('not a sealed secret (bad IV or auth tag length)');
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
      if (context !== undefined) decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretKeyError(
        'cannot decrypt a stored secret: the secret key is not the one it was sealed with ' +
          `(OH_SECRET_KEY or <data dir>/${KEY_FILE_NAME} changed), or the stored value was altered`,
      );
    }
  }
}

export interface LoadSecretBoxOptions {
  dataDir: string;
  env: Record<string, string | undefined>;
  /** Told when the key file had to be repaired; defaults to process.emitWarning. */
  warn?: (message: string) => void;
}

/**
 * The box of this server. `OH_SECRET_KEY` (any non-empty string, stretched to 32 bytes with scrypt)
 * wins; otherwise `<dataDir>/secret.key` holds a random 32-byte key in base64, created on first use
 * with mode 0600. A key file readable by group or others is repaired to 0600 with a warning (it may
 * have leaked: rotate it if the machine is shared; a read-only file only gets the warning); a key
 * file that is not a regular file, or does not hold 32 bytes, is refused.
 */
export function loadSecretBox(options: LoadSecretBoxOptions): SecretBox {
  const passphrase = options.env.OH_SECRET_KEY;
  if (passphrase !== undefined && passphrase !== '') return SecretBox.fromPassphrase(passphrase);
  return new SecretBox(readOrCreateKeyFile(options.dataDir, options.warn ?? defaultWarn));
}

function defaultWarn(message: string): void {
  process.emitWarning(message, { code: 'AGENTD_SECRET_KEY' });
}

function readOrCreateKeyFile(dataDir: string, warn: (message: string) => void): Buffer {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, KEY_FILE_NAME);
  try {
    // 'wx': never overwrite a key another process created meanwhile (that would orphan its secrets).
    writeFileSync(file, `${randomBytes(KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const stat = statSync(file);
  if (!stat.isFile()) throw new SecretKeyError(`${file} is not a regular file`);
  if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) repairMode(file, stat.mode, warn);
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== KEY_BYTES)
    throw new SecretKeyError(`${file} does not hold a ${KEY_BYTES}-byte base64 key`);
  return key;
}

function repairMode(file: string, mode: number, warn: (message: string) => void): void {
  const was = `${file} is readable by other users (mode ${(mode & 0o777).toString(8)})`;
  try {
    chmodSync(file, 0o600);
  } catch (error) {
    // A read-only mount (e.g. a provisioned secret): keep going, the operator owns its permissions.
    warn(`${was} and could not be changed to 0600: ${(error as Error).message}`);
    return;
  }
  warn(`${was}; changed to 0600. If others could read it, rotate the key and re-enter the secrets.`);
}
