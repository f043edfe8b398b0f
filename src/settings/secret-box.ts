// Encryption of secrets at rest: AES-256-GCM with a random 96-bit IV per value and its auth tag,
// written as `v1:<iv>:<tag>:<ciphertext>` (base64). The key comes from OH_SECRET_KEY (any string,
// stretched with scrypt) or from a generated 32-byte key file `<dataDir>/secret.key` (mode 0600).
import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PREFIX = 'v1:';

export class SecretKeyError extends Error {
  override name = 'SecretKeyError';
}

export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new SecretKeyError('secret key must be 32 bytes');
  }

  encrypt(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${PREFIX}${iv.toString('base64')}:${cipher.getAuthTag().toString('base64')}:${data.toString('base64')}`;
  }

  decrypt(sealed: string): string {
    const parts = sealed.startsWith(PREFIX) ? sealed.slice(PREFIX.length).split(':') : [];
    if (parts.length !== 3) throw new SecretKeyError('not an encrypted secret');
    const [iv, tag, data] = parts.map((p) => Buffer.from(p!, 'base64')) as [Buffer, Buffer, Buffer];
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretKeyError(
        'cannot decrypt a stored secret: the secret key changed (OH_SECRET_KEY or secret.key)',
      );
    }
  }
}

/** OH_SECRET_KEY if set, else the key file in the data folder (created on first use, mode 0600). */
export function loadSecretBox(options: {
  dataDir: string;
  env: Record<string, string | undefined>;
}): SecretBox {
  const fromEnv = options.env.OH_SECRET_KEY;
  if (fromEnv) return new SecretBox(scryptSync(fromEnv, 'agentd-secret-key-v1', 32));
  const file = join(options.dataDir, 'secret.key');
  if (!existsSync(file)) {
    writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600 });
  } else if ((statSync(file).mode & 0o077) !== 0) {
    // A key readable by others is repaired rather than refused: the data folder is ours.
    chmodSync(file, 0o600);
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new SecretKeyError(`${file} does not hold a 32-byte base64 key`);
  return new SecretBox(key);
}
