// The public extensions repository (OpenHands/extensions by default, AGENTD_EXTENSIONS_REPO): a
// clone kept under the data folder that the marketplace catalogs and the public skills are read
// from. It is fetched when first needed and again when the copy is older than five minutes (OpenHands'
// catalog cache), one fetch at a time; a fetch that fails leaves the copy there in use. Nothing is
// fetched at start-up: a server with no network starts as fast and works, without a marketplace.
import { existsSync, mkdirSync } from 'node:fs';
import { runGit } from '../git/index.js';
import { publicSkills } from './marketplace.js';
import type { Skill } from './skills.js';

export interface ExtensionsRepositoryOptions {
  /** What git fetches: a repository URL or a folder (extension-source.ts' repositoryLocation). */
  url: string;
  /** The branch, tag or commit. */
  ref: string;
  /** The clone's folder (made when missing). */
  dir: string;
  /** How long a fetched copy is used before the next fetch (default 5 minutes). */
  maxAgeMs?: number;
  /** Where a failed fetch is reported when an older copy is used instead (default stderr). */
  warn?: (line: string) => void;
}

/** Neither a fetch nor an earlier copy: nothing to read (answered as a 502). */
export class ExtensionsUnavailableError extends Error {
  override name = 'ExtensionsUnavailableError';
}

const FIVE_MINUTES = 5 * 60_000;
/**
 * After a fetch fails, how long the next ones wait: with no network, git can take its whole timeout
 * to fail, and every skill list or start would wait that long again.
 */
const RETRY_AFTER_MS = 60_000;

export class ExtensionsRepository {
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private fetching: Promise<void> | null = null;
  private failure: { at: number; error: unknown } | null = null;

  constructor(private readonly options: ExtensionsRepositoryOptions) {}

  /**
   * The clone's folder, fetched first when older than the maximum age (not again within a minute of
   * a failed fetch); the copy there when the fetch fails; ExtensionsUnavailableError without one.
   */
  async current(): Promise<string> {
    const { dir, url, maxAgeMs = FIVE_MINUTES } = this.options;
    if (Date.now() - this.fetchedAt < maxAgeMs) return dir;
    if (this.failure === null || Date.now() - this.failure.at >= RETRY_AFTER_MS) {
      try {
        await this.fetch();
        return dir;
      } catch (error) {
        this.failure = { at: Date.now(), error };
        if (await this.hasCopy())
          this.warn(`agentd: using the copy of ${url} fetched before: ${(error as Error).message}`);
      }
    }
    if (await this.hasCopy()) return dir;
    throw this.failure.error;
  }

  /**
   * The public skills `marketplacePath` lists (marketplace.ts' publicSkills); none, with a warning,
   * when the repository cannot be had: a skill list or a start does not fail for want of them.
   */
  async publicSkills(marketplacePath?: string | null): Promise<Skill[]> {
    try {
      return publicSkills(await this.current(), marketplacePath);
    } catch (error) {
      if (!(error instanceof ExtensionsUnavailableError)) throw error;
      this.warn(`agentd: no public skills: ${error.message}`);
      return [];
    }
  }

  /** Fetches now (POST /api/skills/sync); ExtensionsUnavailableError when it cannot. */
  async sync(): Promise<void> {
    await this.fetch();
  }

  /** One fetch at a time: a caller arriving during one waits for it rather than starting another. */
  private fetch(): Promise<void> {
    this.fetching ??= this.fetchNow().finally(() => {
      this.fetching = null;
    });
    return this.fetching;
  }

  private async fetchNow(): Promise<void> {
    const { url, ref, dir } = this.options;
    try {
      mkdirSync(dir, { recursive: true });
    } catch (error) {
      throw new ExtensionsUnavailableError(
        `Cannot keep a copy of ${url} in ${dir}: ${(error as Error).message}`,
      );
    }
    if (!existsSync(`${dir}/.git`)) await this.git(['init', '--quiet']);
    // One commit, no history: the catalog and skills are read from the files alone. `--` first,
    // though the URL and ref are the server's configuration, never a client's words.
    await this.git(['fetch', '--quiet', '--depth', '1', '--no-tags', '--', url, ref]);
    await this.git(['checkout', '--quiet', '--force', '--detach', 'FETCH_HEAD']);
    this.fetchedAt = Date.now();
    this.failure = null;
  }

  private warn(line: string): void {
    (this.options.warn ?? ((text) => process.stderr.write(`${text}\n`)))(line);
  }

  private async hasCopy(): Promise<boolean> {
    // Its own .git first: git would otherwise answer for a repository the data folder is inside.
    if (!existsSync(`${this.options.dir}/.git`)) return false;
    return (
      (await runGit(this.options.dir, ['rev-parse', '--verify', '--quiet', 'HEAD']).catch(() => null))?.ok ??
      false
    );
  }

  private async git(args: string[]): Promise<void> {
    let failure: string;
    try {
      const done = await runGit(this.options.dir, args);
      if (done.ok) return;
      failure = done.error;
    } catch (error) {
      failure = (error as Error).message;
    }
    throw new ExtensionsUnavailableError(
      `Cannot fetch ${this.options.url} at ${this.options.ref}: ${failure || `git ${args[0]} failed`}`,
    );
  }
}
