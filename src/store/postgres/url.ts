// What a start-up failure may say about the database: where it is, never the password.

/** The URL with its password (if any) replaced by `***`; a text that is no URL is not echoed. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(an invalid URL)';
  }
}

/** The store could not connect to the database, or not prepare it (migrations). */
export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
  constructor(url: string, cause: unknown) {
    const reason =
      cause instanceof Error ? cause.message || (cause as { code?: string }).code : String(cause);
    super(`cannot use the database at ${redactUrl(url)}: ${reason || 'connection failed'}`, { cause });
  }
}
