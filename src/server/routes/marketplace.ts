// The public extensions repository's marketplace for the skills and plugins routes: the repository
// fetched when its copy is old (agent/extensions-repository.ts), then its marketplace file read.
import {
  type ExtensionsRepository,
  ExtensionsUnavailableError,
  InvalidExtensionError,
  readMarketplace,
} from '../../agent/index.js';
import { HttpError } from '../errors.js';

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
