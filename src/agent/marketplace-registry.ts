// Plugin references resolved against registered marketplaces (OpenHands' MarketplaceRegistry, for
// load_plugin): `name@market` from the registration named `market`, `name` from the one registered
// marketplace that lists it (two that do: ambiguous). A registration is OpenHands'
// {name, source, ref?, repo_path?}: a repository is kept fetched under the cache folder (one clone
// per repository and ref, extensions-repository.ts: fetched again when over five minutes old), a
// folder on the server is read where it is.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { insideOf, repositoryLocation, type SourceSpec } from './extension-source.js';
import { ExtensionsRepository } from './extensions-repository.js';
import { findPlugin, type Marketplace, readMarketplace } from './marketplace.js';

export interface MarketplaceRegistration {
  name: string;
  source: string;
  ref?: string | null;
  repo_path?: string | null;
}

/** No registered marketplace lists the plugin, or none has the name given (a 404). */
export class PluginNotFoundError extends Error {
  override name = 'PluginNotFoundError';
}

/** The reference cannot be resolved: malformed, ambiguous, or a marketplace cannot be had (a 400). */
export class PluginResolutionError extends Error {
  override name = 'PluginResolutionError';
}

const fail = (message: string): never => {
  throw new PluginResolutionError(message);
};

export class MarketplaceRegistry {
  private readonly clones = new Map<string, ExtensionsRepository>();

  /**
   * `cacheDir`: where the registered repositories are kept; `warn`: where a fetch that failed, its
   * older copy used instead, is reported.
   */
  constructor(
    private readonly cacheDir: string,
    private readonly warn: (line: string) => void,
  ) {}

  /** The source of the plugin `pluginRef` names (`name` or `name@marketplace`). */
  async resolve(pluginRef: string, registrations: readonly MarketplaceRegistration[]): Promise<SourceSpec> {
    if (registrations.length === 0)
      fail("No marketplaces are registered: the conversation's agent_context has no registered_marketplaces");
    const at = pluginRef.lastIndexOf('@');
    const name = at < 0 ? pluginRef : pluginRef.slice(0, at);
    const marketName = at < 0 ? null : pluginRef.slice(at + 1);
    if (!name || marketName === '')
      fail("A plugin reference is 'plugin-name' or 'plugin-name@marketplace-name'");
    if (marketName !== null) {
      const registration = registrations.find((r) => r.name === marketName);
      if (!registration) throw new PluginNotFoundError(`No marketplace named '${marketName}' is registered`);
      const found = findPlugin(await this.open(registration), name);
      if (!found) throw new PluginNotFoundError(`Plugin '${name}' not found in marketplace '${marketName}'`);
      return found;
    }
    const matches: string[] = [];
    const failures: string[] = [];
    let found: SourceSpec | null = null;
    for (const registration of registrations) {
      try {
        const here = findPlugin(await this.open(registration), name);
        if (here) {
          found = here;
          matches.push(registration.name);
        }
      } catch (error) {
        if (!(error instanceof PluginResolutionError)) throw error;
        failures.push(`${registration.name}: ${error.message}`);
      }
    }
    if (matches.length > 1)
      fail(
        `Plugin '${name}' is in several marketplaces (${matches.join(', ')}): use '${name}@<marketplace>'`,
      );
    if (found) return found;
    if (failures.length === registrations.length)
      fail(`No marketplace could be read: ${failures.join('; ')}`);
    throw new PluginNotFoundError(`Plugin '${name}' not found in any registered marketplace`);
  }

  /** A registration's marketplace; PluginResolutionError when it cannot be had or read. */
  private async open(registration: MarketplaceRegistration): Promise<Marketplace> {
    let root: string;
    try {
      const { location, local } = repositoryLocation(registration.source);
      if (local && (registration.ref || registration.repo_path))
        fail(`Marketplace '${registration.name}': ref and repo_path are for repositories`);
      // A client's word: never one git could read as an option or a refspec.
      if (registration.ref && !/^[\w][\w./-]{0,199}$/.test(registration.ref))
        fail(`Marketplace '${registration.name}': not a branch, tag or commit: ${registration.ref}`);
      root = local ? location : await this.clone(location, registration.ref ?? 'HEAD').current();
      if (registration.repo_path) {
        const inside = insideOf(root, registration.repo_path);
        if (inside === null) fail(`Marketplace '${registration.name}': no folder ${registration.repo_path}`);
        root = inside as string;
      }
      const market = readMarketplace(root);
      if (market === null) fail(`Marketplace '${registration.name}' has no .plugin/marketplace.json`);
      return market as Marketplace;
    } catch (error) {
      if (error instanceof PluginResolutionError) throw error;
      throw new PluginResolutionError(`Marketplace '${registration.name}': ${(error as Error).message}`);
    }
  }

  private clone(url: string, ref: string): ExtensionsRepository {
    const key = createHash('sha256').update(`${url}\n${ref}`).digest('hex').slice(0, 16);
    let clone = this.clones.get(key);
    if (!clone) {
      clone = new ExtensionsRepository({ url, ref, dir: join(this.cacheDir, key), warn: this.warn });
      this.clones.set(key, clone);
    }
    return clone;
  }
}
