// Marketplaces (Claude Code's format, OpenHands' extensions repository): a repository whose
// `.plugin/marketplace.json` or `.claude-plugin/marketplace.json` lists installable extensions —
//   {"name": "…", "plugins": [{"name", "source", "description"?}, …], "skills": [ … ]}
// — where a source is a folder of the repository (`./skills/github`), a path or URL, or an object
// (`{"source": "github", "repo": "o/r", "ref"?, "path"?}`, `{"source": "url", "url", …}`). OpenHands'
// repository lists skills and plugins alike under `plugins`, told apart by their folder: plugins live
// under `./plugins/`. The catalogs answer each entry with a source the install routes take as it is.
import { readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { InvalidExtensionError, insideOf } from './extension-source.js';
import { type LoadedPlugin, pluginContents, readPluginAt } from './plugins.js';
import { entriesOf, parseSkillFile, readBounded, type Skill } from './skills.js';

/** A marketplace entry's source as written. */
type EntrySource =
  | string
  | { source?: unknown; repo?: unknown; url?: unknown; ref?: unknown; path?: unknown };

interface MarketplaceEntry {
  name: string;
  description: string | null;
  source: EntrySource;
}

export interface Marketplace {
  name: string;
  /** The repository's folder, against which `./…` sources resolve. */
  root: string;
  plugins: MarketplaceEntry[];
  skills: MarketplaceEntry[];
}

/** Where an entry is to be had, as the install routes and a start's `plugins` take it. */
interface ResolvedSource {
  source: string;
  ref: string | null;
  repo_path: string | null;
}

/** OpenHands' default named marketplace file: the public skills listed there, when it exists. */
const DEFAULT_MARKETPLACE_PATH = 'marketplaces/default.json';
/** Most a marketplace file may hold, and entries read from one list. */
const MAX_MARKETPLACE_BYTES = 1024 * 1024;
const MAX_ENTRIES = 1_000;
/** Public skills read from one repository at most. */
const MAX_PUBLIC_SKILLS = 500;

const NAME = /^[A-Za-z0-9][\w.:-]{0,127}$/;

/**
 * The marketplace of the repository at `root`: its `.plugin/` or `.claude-plugin/` manifest, else
 * the file at `fallback` (relative to `root`); null when there is neither. A file that is no
 * marketplace (not JSON, too large, outside the repository) is an InvalidExtensionError.
 */
export function readMarketplace(
  root: string,
  fallback: string = DEFAULT_MARKETPLACE_PATH,
): Marketplace | null {
  for (const file of ['.plugin/marketplace.json', '.claude-plugin/marketplace.json', fallback]) {
    const data = readInside(root, file);
    if (data === null) continue;
    if (typeof data !== 'object' || Array.isArray(data))
      throw new InvalidExtensionError(`${file} is no object`);
    const record = data as Record<string, unknown>;
    return {
      name: typeof record.name === 'string' ? record.name : basename(root),
      root,
      plugins: entries(record.plugins),
      skills: entries(record.skills),
    };
  }
  return null;
}

/** The JSON file `file` of the repository at `root`; null when absent (or leading out of it). */
function readInside(root: string, file: string): unknown {
  const path = insideOf(root, file);
  const stat = path === null ? undefined : statSync(path, { throwIfNoEntry: false });
  if (path === null || !stat?.isFile()) return null;
  if (stat.size > MAX_MARKETPLACE_BYTES)
    throw new InvalidExtensionError(`${file} is over ${MAX_MARKETPLACE_BYTES / 1024 / 1024} MB`);
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new InvalidExtensionError(`${file} is not JSON (${(error as Error).message})`);
  }
}

/** The well-formed entries of a list (an entry without a usable name or source is left out). */
function entries(list: unknown): MarketplaceEntry[] {
  if (!Array.isArray(list)) return [];
  return list.slice(0, MAX_ENTRIES).flatMap((item): MarketplaceEntry[] => {
    if (typeof item !== 'object' || item === null) return [];
    const { name, description, source } = item as Record<string, unknown>;
    if (typeof name !== 'string' || !NAME.test(name)) return [];
    if (typeof source !== 'string' && (typeof source !== 'object' || source === null)) return [];
    return [
      {
        name,
        description: typeof description === 'string' ? description : null,
        source: source as EntrySource,
      },
    ];
  });
}

/**
 * An entry's source: a structured one as `github:owner/repo` or its URL with its ref and path; a
 * folder of the repository as its path on this server (null when it leads out of the repository).
 */
function resolveSource(market: Marketplace, entry: MarketplaceEntry): ResolvedSource | null {
  const { source } = entry;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  if (typeof source === 'object') {
    const where =
      source.source === 'github' && text(source.repo)
        ? `github:${source.repo}`
        : source.source === 'url'
          ? text(source.url)
          : null;
    return where === null ? null : { source: where, ref: text(source.ref), repo_path: text(source.path) };
  }
  if (!inRepository(source)) return { source, ref: null, repo_path: null };
  const path = insideOf(market.root, source);
  return path === null ? null : { source: path, ref: null, repo_path: null };
}

/** Whether a source written as a string is a folder of the marketplace's repository (not a path or URL). */
const inRepository = (source: string) =>
  !(
    source.startsWith('/') ||
    source.startsWith('~') ||
    source.includes('://') ||
    /^[\w.-]+@[\w.-]+:/.test(source) ||
    source.startsWith('github:')
  );

/** Where the plugin entry `name` is to be had; null when the marketplace lists none of that name. */
export function findPlugin(market: Marketplace, name: string): ResolvedSource | null {
  const entry = market.plugins.find((plugin) => plugin.name === name);
  return entry ? resolveSource(market, entry) : null;
}

/** Whether an entry is a plugin (under `plugins/` of its repository), not a skill. */
function isPlugin(entry: MarketplaceEntry): boolean {
  const path = typeof entry.source === 'string' ? entry.source : String(entry.source.path ?? '');
  return /^(\.\/)?plugins\//.test(path);
}

/** OpenHands' MarketplaceSkillInfo list: the skills (not the plugins), whether each is installed. */
export function marketplaceSkills(market: Marketplace, installed: ReadonlySet<string>) {
  const byName = new Map<
    string,
    { name: string; description: string | null; source: string; installed: boolean }
  >();
  for (const entry of [...market.plugins, ...market.skills]) {
    if (isPlugin(entry) || byName.has(entry.name)) continue;
    const where = resolveSource(market, entry);
    // OpenHands' one-string form, which the install route parses back: github:owner/repo@ref/path.
    // A git URL with a ref or folder has none it reads (a URL may hold '@' itself): left out.
    if (where === null || ((where.ref || where.repo_path) && !where.source.startsWith('github:'))) continue;
    const source = `${where.source}${where.ref ? `@${where.ref}` : ''}${where.repo_path ? `/${where.repo_path}` : ''}`;
    byName.set(entry.name, {
      name: entry.name,
      description: entry.description,
      source,
      installed: installed.has(entry.name),
    });
  }
  return [...byName.values()];
}

/**
 * OpenHands' MarketplacePluginInfo list: the plugins, their coordinates for a start's `plugins` or
 * the install route, whether each is installed, and — when it is a folder of this repository — its
 * folder, skills, sub-agents and files (null otherwise, or when it cannot be read).
 */
export function marketplacePlugins(market: Marketplace, installed: ReadonlySet<string>) {
  return market.plugins.filter(isPlugin).flatMap((entry) => {
    const where = resolveSource(market, entry);
    if (where === null) return [];
    let plugin: LoadedPlugin | null = null;
    if (typeof entry.source === 'string' && inRepository(entry.source))
      try {
        plugin = readPluginAt(where.source);
      } catch {
        plugin = null;
      }
    return [
      {
        name: entry.name,
        description: entry.description,
        ...where,
        installed: installed.has(entry.name),
        path: plugin?.path ?? null,
        ...(plugin ? pluginContents(plugin) : { skills: null, agents: null, files: null }),
      },
    ];
  });
}

/**
 * The public skills of an extensions repository (OpenHands' load_public_skills): those its
 * `marketplacePath` file lists under `skills/<name>/SKILL.md` or `skills/<name>.md`; every skill
 * there when that is OpenHands' default file and the repository has none; none when a file asked
 * for by name cannot be read.
 */
export function publicSkills(
  root: string,
  marketplacePath: string | null = DEFAULT_MARKETPLACE_PATH,
): Skill[] {
  const dir = join(root, 'skills');
  let names: string[];
  if (marketplacePath === null) names = skillNames(dir);
  else {
    let listed: unknown = null;
    try {
      listed = readInside(root, marketplacePath);
    } catch {
      return [];
    }
    if (listed === null && marketplacePath !== DEFAULT_MARKETPLACE_PATH) return [];
    names =
      listed === null
        ? skillNames(dir)
        : entries((listed as { plugins?: unknown }).plugins).map((e) => e.name);
  }
  return names.slice(0, MAX_PUBLIC_SKILLS).flatMap((name): Skill[] => {
    const folder = readBounded(join(dir, name, 'SKILL.md'), root);
    if (folder !== null)
      return [{ ...parseSkillFile(folder, name), agentSkills: true, source: join(dir, name, 'SKILL.md') }];
    const file = readBounded(join(dir, `${name}.md`), root);
    return file === null ? [] : [{ ...parseSkillFile(file, name), source: join(dir, `${name}.md`) }];
  });
}

/** The skills in a repository's `skills/`: its folders and markdown files (not its README). */
function skillNames(dir: string): string[] {
  return entriesOf(dir, MAX_PUBLIC_SKILLS)
    .filter((entry) => entry.toLowerCase() !== 'readme.md' && !entry.startsWith('.'))
    .map((entry) => entry.replace(/\.md$/, ''));
}
