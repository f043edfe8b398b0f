// Reading a JSON request body: strict UTF-8 (a bad byte is a 400, not a silent U+FFFD), a nesting
// limit checked by one linear scan of the text before JSON.parse (a 10,000-deep body would otherwise
// reach recursive code later and end as a RangeError 500), no `__proto__` members (400, as Fastify's
// own parser), and FastAPI's 422 for text that is not JSON.
import { HttpError, RequestValidationError } from './errors.js';

/** Deepest nesting of arrays and objects a JSON body may have (documented in the README and OpenAPI). */
export const MAX_JSON_DEPTH = 100;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The body as text; a 400 when its bytes are not UTF-8. A leading BOM is dropped. */
export function decodeUtf8(body: Buffer): string {
  try {
    return utf8.decode(body);
  } catch {
    throw new HttpError(400, 'The request body is not valid UTF-8');
  }
}

/** True when arrays/objects nest deeper than `max`; brackets inside strings do not count. */
function nestsDeeperThan(text: string, max: number): boolean {
  // A text this short cannot hold max+1 open brackets and their closers.
  if (text.length <= 2 * max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** JSON text as a value: 422 `json_too_deep` past the depth limit, 422 `json_invalid` when not JSON. */
export function parseJsonText(text: string): unknown {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new RequestValidationError([
      {
        loc: ['body'],
        msg: `JSON nests deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`,
        type: 'json_too_deep',
      },
    ]);
  }
  let value: unknown;
  try {
    // A key spelled with escapes (\u005f_proto__) hides from a text search, so those are read with the check too.
    const suspect = text.includes('__proto__') || text.includes('constructor') || text.includes('\\u');
    value = suspect ? JSON.parse(text, refusePrototypeKeys) : JSON.parse(text);
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw new RequestValidationError([
      { loc: ['body'], msg: `JSON decode error: ${(error as Error).message}`, type: 'json_invalid' },
    ]);
  }
  return value;
}

/**
 * Refuses `__proto__` and `constructor.prototype` members, as Fastify's own parser does: merged into
 * an object with Object.assign they would change its prototype.
 */
function refusePrototypeKeys(key: string, value: unknown): unknown {
  const constructorPrototype =
    key === 'constructor' && value !== null && typeof value === 'object' && 'prototype' in value;
  if (key === '__proto__' || constructorPrototype) {
    throw new HttpError(400, 'Object contains forbidden prototype property');
  }
  return value;
}
