// Plugins (OpenHands' `plugins` in a start): a folder in the Claude Code plugin layout that bundles
// skills, slash commands, hooks and MCP servers for the agent —
//   .plugin/plugin.json or .claude-plugin/plugin.json   name, version, description (else the folder's name)
//   skills/<name>/SKILL.md, skills/*.md                  skills
//   commands/*.md                                        /<plugin>:<command>, a skill that keyword triggers
//   agents/*.md                                          sub-agent definitions (sub-agents.ts), level 'plugin'
//   hooks/hooks.json                                     hooks (OpenHands' or Claude Code's form)
//   .mcp.json                                            {"mcpServers": {name: server}}
// `${CLAUDE_PLUGIN_ROOT}` (and OpenHands' `${SKILL_ROOT}`) in hooks and MCP servers is the plugin's
// folder. A folder on the server is read where it is; a repository is cloned once per commit into
// `<cache>/<source hash>-<commit>`, kept: its hooks and servers run from there for as long as a
// conversation runs on it. Besides a start's own, every conversation gets OpenHands' ambient plugins
// (ambientPlugins): the user's and the enabled installed ones (installedPlugins) — not a workspace's.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, lstatSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, sep } from 'node:path';
import { type HookConfig, HookConfigError, normalizeHookConfig } from '../hooks/index.js';
import { copyExtension, fetchSource, InvalidExtensionError, type SourceSpec } from './extension-source.js';
import { Installations } from './installations.js';
import { entriesOf, frontMatter, parseSkillFile, readBounded, type Skill } from './skills.js';
import type { AgentDefinition } from './sub-agent-schemas.js';
import { agentDefinitionsIn } from './sub-agents.js';

export interface LoadedPlugin {
  name: string;
  version: string;
  description: string;
  /** Its folder: the local one, or its clone under the cache. */
  path: string;
  /** The commit of a repository's plugin; null for a local folder. */
  resolvedRef: string | null;
  /** Its skills, then its commands as skills (`<plugin>:<command>`, triggered by `/<plugin>:<command>`). */
  skills: Skill[];
  /** Its sub-agents (`agents/*.md`), level 'plugin'. */
  agents: AgentDefinition[];
  /** What was left out of it and why (an agent file that does not parse), for the caller's log. */
  warnings: string[];
  /** Its MCP servers by name, as .mcp.json gives them (its folder put in). */
  mcpServers: Record<string, unknown>;
  hooks: HookConfig | null;
}

/** Most skills and commands one plugin may bring (OpenHands' max_skills is 100 for all plugins), and most agents. */
const MAX_PLUGIN_SKILLS = 100;
/** Entries read from a plugin's folders: one more than allowed says there are too many. */
const READ_ENTRIES = MAX_PLUGIN_SKILLS + 1;

const invalid = (message: string): never => {
  throw new InvalidExtensionError(message);
};

/** The user's installed plugins (`~/.openhands/plugins/installed`), named by their manifest. */
export const installedPlugins = (home: string) =>
  new Installations(join(home, '.openhands', 'plugins', 'installed'), 'Plugin', (root, name) =>
    readManifest(root, name),
  );

/**
 * OpenHands' ambient plugins, which every conversation gets: the user's (`~/.agents/plugins/*`, then
 * `~/.openhands/plugins/*`), then the enabled installed ones, the first of a name winning; one that
 * cannot be read is left out. A workspace's own (`.agents/plugins`, `.openhands/plugins`) are not
 * among them, unlike OpenHands: their hooks and MCP servers would run commands no one asked for.
 */
export function ambientPlugins(home: string): LoadedPlugin[] {
  const installedDir = join(home, '.openhands', 'plugins', 'installed');
  const folders = [
    ...[join(home, '.agents', 'plugins'), join(home, '.openhands', 'plugins')].flatMap((dir) =>
      entriesOf(dir, READ_ENTRIES)
        .map((entry) => join(dir, entry))
        .filter((path) => path !== installedDir && statSync(path, { throwIfNoEntry: false })?.isDirectory()),
    ),
    // Asked only when there is an installed folder: every start asks, most homes have none.
    ...(statSync(installedDir, { throwIfNoEntry: false })?.isDirectory()
      ? installedPlugins(home)
          .enabled()
          .map((info) => info.install_path)
      : []),
  ];
  const seen = new Set<string>();
  return folders.flatMap((path): LoadedPlugin[] => {
    try {
      const plugin = readPluginAt(path);
      if (seen.has(plugin.name)) return [];
      seen.add(plugin.name);
      return [plugin];
    } catch {
      return [];
    }
  });
}

/** What a plugin brings, for a listing: its skills (commands among them), its sub-agents and its files (not .git). */
export function pluginContents(plugin: LoadedPlugin) {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of entriesOf(dir, 2_000)) {
      if (entry === '.git' || files.length >= 2_000) continue;
      const path = join(dir, entry);
      // lstat: a link is listed as neither (a link to `.` or to `/` would loop or list the server).
      const stat = lstatSync(path, { throwIfNoEntry: false });
      if (stat?.isDirectory()) walk(path);
      else if (stat?.isFile()) files.push(relative(plugin.path, path).split(sep).join('/'));
    }
  };
  walk(plugin.path);
  return {
    skills: plugin.skills.map((skill) => ({ name: skill.name, description: skill.description ?? null })),
    agents: plugin.agents.map((agent) => ({ name: agent.name, description: agent.description })),
    files: files.sort(),
  };
}

/** Reads a plugin's folder (InvalidExtensionError when it cannot). */
export function readPluginAt(path: string): LoadedPlugin {
  return readPlugin(path, basename(path), null);
}

/** Fetches and reads one plugin. SourceFetchError (cannot fetch), InvalidExtensionError (cannot read). */
export async function loadPlugin(spec: SourceSpec, cacheDir: string): Promise<LoadedPlugin> {
  const scratch = join(tmpdir(), `agentd-plugin-${randomUUID()}`);
  try {
    const fetched = await fetchSource(spec, scratch);
    let path = fetched.root;
    if (fetched.resolvedRef !== null) {
      const key = createHash('sha256')
        .update(`${spec.source}\n${spec.repo_path ?? ''}`)
        .digest('hex')
        .slice(0, 16);
      path = join(cacheDir, `${key}-${fetched.resolvedRef.slice(0, 12)}`);
      // One commit's files never change: a clone made for an earlier start is taken as it is (and
      // one copied by a start running beside this one is never pulled from under it).
      if (!existsSync(path)) copyExtension(fetched.root, path, false);
    }
    return readPlugin(path, fetched.name, fetched.resolvedRef);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function readPlugin(path: string, folderName: string, resolvedRef: string | null): LoadedPlugin {
  const manifest = readManifest(path, folderName);
  const skills = [
    ...folderSkills(join(path, 'skills'), path),
    ...commandSkills(join(path, 'commands'), manifest.name, path),
  ];
  if (skills.length > MAX_PLUGIN_SKILLS)
    invalid(
      `Plugin '${manifest.name}' brings ${skills.length} skills and commands; at most ${MAX_PLUGIN_SKILLS}`,
    );
  const warnings: string[] = [];
  const agents = agentDefinitionsIn(
    join(path, 'agents'),
    'plugin',
    path,
    (line) => warnings.push(line),
    READ_ENTRIES,
  );
  if (agents.length > MAX_PLUGIN_SKILLS)
    invalid(`Plugin '${manifest.name}' brings ${agents.length} agents; at most ${MAX_PLUGIN_SKILLS}`);
  const withRoot = (value: unknown) => expandRoot(value, path);
  const mcp = readJson(join(path, '.mcp.json'), manifest.name);
  const servers = (mcp as { mcpServers?: unknown } | null)?.mcpServers ?? {};
  if (typeof servers !== 'object' || servers === null || Array.isArray(servers))
    invalid(`Plugin '${manifest.name}': .mcp.json's mcpServers is not an object of servers by name`);
  const hooksFile = readJson(join(path, 'hooks', 'hooks.json'), manifest.name);
  let hooks: HookConfig | null = null;
  try {
    hooks = hooksFile === null ? null : normalizeHookConfig(withRoot(hooksFile));
  } catch (error) {
    if (!(error instanceof HookConfigError)) throw error;
    invalid(`Plugin '${manifest.name}': hooks/hooks.json ${[...error.path, error.message].join(': ')}`);
  }
  return {
    ...manifest,
    path,
    resolvedRef,
    skills,
    agents,
    warnings,
    mcpServers: withRoot(servers) as Record<string, unknown>,
    hooks,
  };
}

function readManifest(
  path: string,
  folderName: string,
): { name: string; version: string; description: string } {
  for (const dir of ['.plugin', '.claude-plugin']) {
    const data = readJson(join(path, dir, 'plugin.json'), folderName) as Record<string, unknown> | null;
    if (data === null) continue;
    const text = (key: string) => (typeof data[key] === 'string' ? (data[key] as string) : '');
    const name = text('name');
    if (!/^[A-Za-z0-9][\w.-]{0,127}$/.test(name))
      invalid(`${dir}/plugin.json: a plugin's name is letters, digits, '.', '_' and '-' (not '${name}')`);
    return { name, version: text('version') || '1.0.0', description: text('description') };
  }
  const name = folderName || 'plugin';
  return { name, version: '1.0.0', description: `Plugin loaded from ${name}` };
}

/** Most a plugin's JSON file (manifest, hooks, MCP servers) may hold. */
const MAX_JSON_BYTES = 256 * 1024;

/** A JSON file of the plugin, or null when there is none; an InvalidExtensionError when it does not parse. */
function readJson(file: string, plugin: string): unknown {
  const size = statSync(file, { throwIfNoEntry: false });
  if (!size?.isFile()) return null;
  if (size.size > MAX_JSON_BYTES)
    invalid(`Plugin '${plugin}': ${basename(file)} is over ${MAX_JSON_BYTES / 1024} KB`);
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    return invalid(`Plugin '${plugin}': ${basename(file)} is not JSON (${(error as Error).message})`);
  }
}

/** skills/<name>/SKILL.md (AgentSkills) and skills/*.md. */
function folderSkills(dir: string, plugin: string): Skill[] {
  return entriesOf(dir, READ_ENTRIES).flatMap((entry): Skill[] => {
    const folder = readBounded(join(dir, entry, 'SKILL.md'), plugin);
    if (folder !== null)
      return [{ ...parseSkillFile(folder, entry), agentSkills: true, source: join(dir, entry) }];
    const file = entry.endsWith('.md') ? readBounded(join(dir, entry), plugin) : null;
    return file === null
      ? []
      : [{ ...parseSkillFile(file, basename(entry, '.md')), source: join(dir, entry) }];
  });
}

/** commands/*.md as OpenHands turns them into skills: `/<plugin>:<command>` triggers its text. */
function commandSkills(dir: string, plugin: string, root: string): Skill[] {
  return entriesOf(dir, READ_ENTRIES)
    .filter((entry) => entry.endsWith('.md') && entry.toLowerCase() !== 'readme.md')
    .flatMap((entry): Skill[] => {
      const text = readBounded(join(dir, entry), root);
      if (text === null) return [];
      const command = basename(entry, '.md');
      const { body, field } = frontMatter(text);
      const description = field('description');
      const hint = field('argument-hint');
      const content = [
        description ? `## ${command}\n\n${description}\n` : '',
        hint ? `**Arguments**: \`$ARGUMENTS\` - ${hint}\n` : '',
        `\n${body.trim()}`,
      ]
        .join('\n')
        .trim();
      const name = `${plugin}:${command}`;
      return [
        {
          name,
          content,
          keywords: [`/${name}`],
          source: join(dir, entry),
          ...(description ? { description } : {}),
        },
      ];
    });
}

/** Every string with the plugin's folder for ${CLAUDE_PLUGIN_ROOT} and ${SKILL_ROOT}. */
function expandRoot(value: unknown, root: string): unknown {
  if (typeof value === 'string') return value.replace(/\$\{(CLAUDE_PLUGIN_ROOT|SKILL_ROOT)\}/g, root);
  if (Array.isArray(value)) return value.map((v) => expandRoot(v, root));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandRoot(v, root)]));
  return value;
}
