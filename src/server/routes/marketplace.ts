// The public extensions repository's marketplace for the skills and plugins routes: the repository
// fetched when its copy is old (agent/extensions-repository.ts), then its marketplace file read.

import type { TSchema } from 'typebox';
import {
  type ExtensionsRepository,
  ExtensionsUnavailableError,
  InvalidExtensionError,
  readMarketplace,
} from '../../agent/index.js';
import { HttpError } from '../errors.js';
import { detailResponse, errorResponses } from '../schemas.js';

/** A marketplace route's answers: its catalog, or a 502 when the repository cannot be had. */
export const marketplaceResponses = (catalog: TSchema) => ({
  200: catalog,
  ...errorResponses,
  502: detailResponse('The extensions repository cannot be fetched'),
});

/** The marketplace; null when the server has none or the repository lists none. 502: no copy can be had. */
export async function marketplaceOf(extensions: ExtensionsRepository | null) {
  if (extensions === null) return null;
  try {
    return readMarketplace(await extensions.current());
  } catch (error) {
    if (error instanceof ExtensionsUnavailableError) throw new HttpError(502, error.message);
    // A marketplace file that is no marketplace: the repository's fault, not the caller's.
    if (error instanceof InvalidExtensionError)
      throw new HttpError(502, `The extensions repository's marketplace cannot be read: ${error.message}`);
    throw error;
  }
}
