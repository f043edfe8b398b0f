// Who may see a secret in clear: OpenHands' X-Expose-Secrets header, honoured for `plaintext` only
// on a server started with secret exposure enabled (off by default), and the errors that go with it.
import { Type } from 'typebox';
import type { ExposeMode } from '../../settings/index.js';
import { HttpError } from '../errors.js';
import { detailResponse } from '../schemas.js';

/** OpenHands' header: `plaintext`, `encrypted` (sealed values, `true` is its legacy alias), or absent. */
export const ExposeHeaders = Type.Object({
  'x-expose-secrets': Type.Optional(
    Type.String({
      maxLength: 64,
      description:
        'plaintext (secrets in clear: only on a server started with secret exposure enabled, else 403), encrypted (sealed values), or absent (redacted)',
    }),
  ),
});

export const EXPOSURE_DISABLED =
  'Secret exposure is disabled on this server (start it with --expose-secrets or AGENTD_EXPOSE_SECRETS=1)';

export const exposureErrors = {
  403: detailResponse('Secrets asked in clear, but this server was started without secret exposure'),
  409: detailResponse("A stored secret cannot be opened with this server's secret key (re-enter it)"),
};

export function exposeMode(header: string | undefined, enabled: boolean): ExposeMode {
  const value = (header ?? '').trim().toLowerCase();
  if (value === '') return 'redacted';
  if (value === 'encrypted' || value === 'true') return 'encrypted';
  if (value === 'plaintext') {
    if (!enabled) throw new HttpError(403, EXPOSURE_DISABLED);
    return 'plaintext';
  }
  throw new HttpError(
    400,
    `Invalid X-Expose-Secrets header value: '${value}'. Valid values are: 'encrypted', 'plaintext'.`,
  );
}
