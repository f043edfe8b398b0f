// Who a caller is: each session key is a user. The id is a digest of the key, so the key itself is
// never stored; with auth off (--no-auth) everyone is the one local user.
import { createHash } from 'node:crypto';

export const LOCAL_USER = 'local';

export function userIdForSessionKey(key: string | null): string {
  if (key === null) return LOCAL_USER;
  return `key-${createHash('sha256').update(`agentd-user:${key}`).digest('hex').slice(0, 24)}`;
}
