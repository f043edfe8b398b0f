// Who a caller is: each session API key is a user, auth off (--no-auth) is the one local user.
// The id is a domain-separated SHA-256 digest of the key, so neither the database nor a log line
// holds the key, and the id stays the same across restarts and secret-key rotations (it is the
// owner of conversations and settings). Not an HMAC under the secret key on purpose: rotating that
// key must not orphan every user's data, and the id must be computable without it. Session keys are
// long random strings, so the digest cannot be reversed by guessing.
import { createHash } from 'node:crypto';

export const LOCAL_USER = 'local';

/** `'local'` for null (auth disabled), else `key-` and 24 hex digits (96 bits) of the digest. */
export function userIdForSessionKey(key: string | null): string {
  if (key === null) return LOCAL_USER;
  return `key-${createHash('sha256').update(`agentd-user:${key}`).digest('hex').slice(0, 24)}`;
}
