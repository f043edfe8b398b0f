// Query helpers shared by the V1 routes: paging parameters and datetimes as FastAPI reads them.
import { Type } from 'typebox';
import { normalizeTimestamp } from '../../../events/index.js';
import { RequestValidationError } from '../../errors.js';

/** `limit` is 1..100 (OpenHands answers 500 above 100; a clear 422 here). */
export const PageQuery = {
  page_id: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 100 })),
};

/** Repeated query parameter `name` with 1..100 values. */
export const IdList = (pattern?: string) =>
  Type.Array(Type.String(pattern ? { pattern } : { minLength: 1 }), { minItems: 1, maxItems: 100 });

/** The ISO 8601 forms normalizeTimestamp reads: a date, or a date and time with optional fraction and offset. */
export const DATETIME_PATTERN =
  '^\\d{4}-\\d{2}-\\d{2}(?:[Tt ]\\d{2}:\\d{2}(?::\\d{2})?(?:\\.\\d{1,9})?(?:[Zz]|[+-]\\d{2}:?\\d{2})?)?$';

export const DateTimeQuery = Type.Optional(
  Type.String({
    pattern: DATETIME_PATTERN,
    description: 'ISO 8601 datetime (or a date: midnight); without a zone it is read as UTC',
  }),
);

/** A datetime query parameter as an event timestamp (UTC, microseconds, no zone). */
export function eventTime(value: string | undefined, name: string): string | undefined {
  if (value === undefined) return undefined;
  const normalized = normalizeTimestamp(value);
  if (normalized === null) {
    throw new RequestValidationError([
      { loc: ['query', name], msg: 'Input should be a valid datetime', type: 'datetime_parsing' },
    ]);
  }
  return normalized;
}

/** A datetime query parameter in the form records keep (`toISOString`). */
export function recordTime(value: string | undefined, name: string): string | undefined {
  const normalized = eventTime(value, name);
  return normalized === undefined ? undefined : `${normalized.slice(0, 23)}Z`;
}
