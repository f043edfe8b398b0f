// Conversation secrets: sealing what a request sends (plain strings, StaticSecret, LookupSecret) and
// opening them when a tool needs them. A LookupSecret (OpenHands) is a URL the value is fetched from
// with the given headers, e.g. an app server's GET /api/settings/secrets/{name}; its headers carry
// credentials, so they are sealed like values and never logged or shown. The value is fetched when a
// shell first needs the secrets, bounded in time and size, and kept for the life of the runtime.
import type { Logger } from '../llm/index.js';
import type { SecretBox } from '../settings/index.js';
import { InvalidConversationRequestError } from './errors.js';

/** A stored secret: a sealed value, or a lookup (URL and sealed JSON headers). */
export interface StoredSecret {
  value?: string;
  /** headers: the sealed JSON object; names: its header names, which may be shown. */
  lookup?: { url: string; headers: string | null; names?: string[] };
  description?: string;
}

const LOOKUP_TIMEOUT_MS = 10_000;
const LOOKUP_MAX_BYTES = 64 * 1024;

/** A lookup that gave no value; the message names the secret and the cause, never the headers. */
export class SecretLookupError extends Error {
  override name = 'SecretLookupError';
}

// RFC 9110 token; a value may not hold CR, LF or NUL (fetch would refuse it only at lookup time).
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[^\r\n\0]*$/;

function checkLookup(
  name: string,
  url: unknown,
  headers: unknown,
): { url: string; headers: Record<string, string> } {
  const loc = ['body', 'secrets', name];
  let parsed: URL | null = null;
  if (typeof url === 'string') {
    try {
      parsed = new URL(url);
    } catch {
      parsed = null;
    }
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new InvalidConversationRequestError(
      [...loc, 'url'],
      'A LookupSecret url must be an absolute http or https URL',
    );
  }
  const checked: Record<string, string> = {};
  for (const [key, value] of Object.entries((headers ?? {}) as Record<string, unknown>)) {
    if (!HEADER_NAME.test(key) || typeof value !== 'string' || !HEADER_VALUE.test(value)) {
      throw new InvalidConversationRequestError([...loc, 'headers'], 'Invalid HTTP header name or value');
    }
    checked[key] = value;
  }
  return { url: parsed.href, headers: checked };
}

/** The request's secrets, sealed for the record; a 422 names a secret that is neither kind. */
export function sealSecrets(
  secretBox: Pick<SecretBox, 'encrypt'>,
  secrets: Record<string, unknown>,
): Record<string, StoredSecret> {
  const sealed: Record<string, StoredSecret> = {};
  for (const [name, source] of Object.entries(secrets)) {
    const object = typeof source === 'object' && source !== null ? (source as Record<string, unknown>) : null;
    const description =
      typeof object?.description === 'string' && object.description ? object.description : null;
    const extra = description ? { description } : {};
    if (object?.kind === 'LookupSecret') {
      const lookup = checkLookup(name, object.url, object.headers);
      const hasHeaders = Object.keys(lookup.headers).length > 0;
      sealed[name] = {
        lookup: {
          url: lookup.url,
          headers: hasHeaders ? secretBox.encrypt(JSON.stringify(lookup.headers)) : null,
          names: Object.keys(lookup.headers),
        },
        ...extra,
      };
      continue;
    }
    const value = typeof source === 'string' ? source : object?.value;
    if (typeof value !== 'string') {
      throw new InvalidConversationRequestError(
        ['body', 'secrets', name],
        'A secret is a string, a StaticSecret (value) or a LookupSecret (url)',
      );
    }
    sealed[name] = { value: secretBox.encrypt(value), ...extra };
  }
  return sealed;
}

/** The inverse of sealSecrets: stored secrets as a start takes them, values and lookup headers opened. */
export function openedSecrets(
  stored: Record<string, StoredSecret>,
  open: (sealed: string) => string,
): Record<string, unknown> {
  const secrets: Record<string, unknown> = {};
  for (const [name, secret] of Object.entries(stored)) {
    const description = secret.description ? { description: secret.description } : {};
    if (secret.lookup) {
      const headers = secret.lookup.headers ? JSON.parse(open(secret.lookup.headers)) : {};
      secrets[name] = { kind: 'LookupSecret', url: secret.lookup.url, headers, ...description };
    } else if (secret.value !== undefined) {
      secrets[name] = { kind: 'StaticSecret', value: open(secret.value), ...description };
    }
  }
  return secrets;
}

/** Where a lookup goes, for messages and logs: no query (it may hold a token), no credentials. */
function where(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname}`;
}

/** GETs a lookup's value: 2xx only (no redirects followed), at most maxBytes, within the timeout. */
async function fetchLookup(
  name: string,
  url: string,
  headers: Record<string, string>,
  limits = { timeoutMs: LOOKUP_TIMEOUT_MS, maxBytes: LOOKUP_MAX_BYTES },
): Promise<string> {
  const fail = (cause: string) =>
    new SecretLookupError(`Could not look up secret '${name}' at ${where(url)}: ${cause}`);
  let response: Response;
  try {
    response = await fetch(url, {
      headers,
      redirect: 'manual',
      signal: AbortSignal.timeout(limits.timeoutMs),
    });
  } catch (error) {
    const e = error as Error & { cause?: { code?: string } };
    throw fail(e.name === 'TimeoutError' ? 'timed out' : (e.cause?.code ?? e.message));
  }
  if (response.status < 200 || response.status > 299) {
    await response.body?.cancel().catch(() => {});
    throw fail(`HTTP ${response.status}`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body ?? []) {
      size += chunk.byteLength;
      if (size > limits.maxBytes) {
        await response.body?.cancel().catch(() => {});
        throw fail(`the value is larger than ${limits.maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof SecretLookupError) throw error;
    throw fail((error as Error).name === 'TimeoutError' ? 'timed out' : 'the answer was cut off');
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Identifies a stored lookup (its sealed headers are sealed anew on each update). */
function lookupKey(lookup: NonNullable<StoredSecret['lookup']>): string {
  return `${lookup.url}\n${lookup.headers ?? ''}`;
}

/**
 * A conversation's secrets in clear. known(): static values and the lookups fetched so far (what
 * outputs are masked with); resolve(): all of them, fetching lookups not fetched yet. A failed lookup
 * is logged (name and URL, no headers) and rejects; it is tried again on the next resolve().
 */
export class ConversationSecrets {
  /** Fetched values by secret name, with the stored lookup they came from (a replaced one is refetched). */
  private readonly fetched = new Map<string, { from: string; value: string }>();

  constructor(
    private readonly stored: () => Record<string, StoredSecret>,
    private readonly secretBox: SecretBox,
    private readonly log: Logger,
  ) {}

  known(): Record<string, string> {
    const open: Record<string, string> = {};
    for (const [name, secret] of Object.entries(this.stored())) {
      if (secret.value !== undefined) open[name] = this.secretBox.decrypt(secret.value);
      else {
        const hit = this.fetched.get(name);
        if (hit && secret.lookup && hit.from === lookupKey(secret.lookup)) open[name] = hit.value;
      }
    }
    return open;
  }

  async resolve(): Promise<Record<string, string>> {
    for (const [name, secret] of Object.entries(this.stored())) {
      const lookup = secret.lookup;
      if (!lookup || this.fetched.get(name)?.from === lookupKey(lookup)) continue;
      const headers = lookup.headers
        ? (JSON.parse(this.secretBox.decrypt(lookup.headers)) as Record<string, string>)
        : {};
      try {
        this.fetched.set(name, {
          from: lookupKey(lookup),
          value: await fetchLookup(name, lookup.url, headers),
        });
      } catch (error) {
        this.log.warn(
          { secret_name: name, url: where(lookup.url), error: (error as Error).message },
          'secret lookup failed',
        );
        throw error;
      }
    }
    return this.known();
  }
}
