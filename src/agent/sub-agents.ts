// Sub-agent definitions (OpenHands' AgentDefinition): the types of agent the task tool can hand a task
// to. A definition is a markdown file — YAML front matter (name, description, tools, model, …) and a
// body that is the sub-agent's system prompt — or one of agentd's built-ins (builtin-sub-agents.ts).
// Files are found, first of a name winning, in the project's `.agents/agents` then `.openhands/agents`,
// then the user's `~/.agents/agents` then `~/.openhands/agents` (OpenHands' order; but a project's
// never replaces the user's own of its name); a plugin brings its own `agents/` (plugins.ts). A file
// that does not parse, or links out of its folder (text-files.ts), is left out and reported, never fatal.
import { statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Value } from 'typebox/value';
import YAML from 'yaml';
import { HookConfigError, normalizeHookConfig } from '../hooks/index.js';
import { builtinAgentDefinitions } from './builtin-sub-agents.js';
import { entriesOf, frontMatter, MAX_SKILL_CHARS } from './skills.js';
import { AgentDefinition, PERMISSION_MODES, type SubAgentInfo } from './sub-agent-schemas.js';
import { readTextFile } from './text-files.js';

/** A definition file that cannot be read as one: which file, which field (null: the file itself). */
export class AgentDefinitionError extends Error {
  override name = 'AgentDefinitionError';
  constructor(
    readonly file: string,
    readonly field: string | null,
    reason: string,
  ) {
    super(`${file}: ${field === null ? '' : `${field} `}${reason}`);
  }
}

/** The front-matter keys a definition reads; the others are kept as its metadata (OpenHands' list). */
const KNOWN_KEYS = new Set([
  ...['name', 'description', 'model', 'color', 'tools', 'skills', 'max_iteration_per_run'],
  ...['max_budget_per_run', 'hooks', 'profile_store_dir', 'mcp_config', 'mcp_servers'],
  ...['permission_mode', 'condenser'],
]);
/** OpenHands' words for the default condenser and for none. */
const DEFAULT_CONDENSER_WORDS = new Set(['', 'default', 'inherit']);
const NO_CONDENSER_WORDS = new Set(['none', 'off', 'false', 'no', 'disable', 'disabled']);

type Front = Record<string, unknown>;
const isMapping = (value: unknown): value is Front =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const scalar = (value: unknown): string | null =>
  typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : null;

/**
 * One markdown file as a definition found at `level`, read only inside `within` (text-files.ts; null:
 * the user's own folders); an AgentDefinitionError when it is not one.
 */
export function readAgentDefinition(
  path: string,
  level: AgentDefinition['level'],
  within: string | null,
): AgentDefinition {
  const fail = (field: string | null, reason: string): never => {
    throw new AgentDefinitionError(path, field, reason);
  };
  const { front, body } = frontMatter(readAgentFile(path, within, fail));
  let fm: unknown;
  try {
    // Duplicate keys: the last one counts, as PyYAML (OpenHands' parser) reads them.
    fm = YAML.parse(front, { uniqueKeys: false }) ?? {};
  } catch (error) {
    fail('front matter', `is not YAML (${(error as Error).message.split('\n')[0]})`);
  }
  if (!isMapping(fm)) return fail('front matter', 'is not a mapping of keys');
  const text = (key: string, fallback: string) => {
    const value = fm[key] ?? fallback;
    return scalar(value) ?? fail(key, 'must be text');
  };
  const list = (key: string, commas: boolean): string[] => {
    const value = fm[key];
    // A skills string is comma-separated (`skills: a, b`); a tools string is one tool (OpenHands').
    if (typeof value === 'string')
      return commas ? value.split(',').flatMap((s) => (s.trim() ? [s.trim()] : [])) : [value];
    if (!Array.isArray(value)) return [];
    return value.map((item, i) => scalar(item) ?? fail(`${key}[${i}]`, 'must be a name'));
  };
  const description = text('description', '');
  const definition: AgentDefinition = {
    name: text('name', '') || basename(path).replace(/\.md$/i, ''),
    description,
    model: text('model', 'inherit'),
    color: fm.color == null ? null : text('color', ''),
    tools: list('tools', false),
    skills: list('skills', true),
    system_prompt: body.trim(),
    source: path,
    level,
    when_to_use_examples: [...description.matchAll(/<example>([\s\S]*?)<\/example>/gi)].flatMap((m) =>
      m[1]!.trim() ? [m[1]!.trim()] : [],
    ),
    hooks: hooksOf(fm.hooks, fail),
    permission_mode: permissionMode(fm.permission_mode, fail),
    max_iteration_per_run: maxIterations(fm.max_iteration_per_run, fail),
    max_budget_per_run: maxBudget(fm.max_budget_per_run, fail),
    mcp_config: mcpServers(fm, fail),
    profile_store_dir:
      fm.profile_store_dir == null
        ? null
        : typeof fm.profile_store_dir === 'string'
          ? fm.profile_store_dir
          : fail('profile_store_dir', 'must be a folder'),
    condenser: condenserOf(fm.condenser, fail),
    metadata: Object.fromEntries(Object.entries(fm).filter(([key]) => !KNOWN_KEYS.has(key))),
  };
  // What no extractor bounds (a name or prompt too long, too many tools) is the schema's to refuse.
  const error = Value.Errors(AgentDefinition, definition)[0];
  if (error) {
    // `/tools/3` is the field `tools[3]`, as the extractors name it.
    const field = error.instancePath
      .replace(/\/(\d+)(?=\/|$)/g, '[$1]')
      .slice(1)
      .replaceAll('/', '.');
    fail(field || null, error.message);
  }
  return definition;
}

type Fail = (field: string | null, reason: string) => never;

/** The file's text; refused whole over MAX_SKILL_CHARS (cut, its front matter or prompt would be wrong). */
function readAgentFile(path: string, within: string | null, fail: Fail): string {
  const file = readTextFile(path, within, MAX_SKILL_CHARS);
  if (file === null)
    return fail(null, within === null ? 'is not a readable file' : `is not a readable file inside ${within}`);
  if (file.cut) fail(null, `is over ${MAX_SKILL_CHARS} characters`);
  return file.text;
}

function permissionMode(value: unknown, fail: Fail): AgentDefinition['permission_mode'] {
  if (value == null) return null;
  const mode = String(value).trim().toLowerCase();
  return (PERMISSION_MODES as readonly string[]).includes(mode)
    ? (mode as AgentDefinition['permission_mode'])
    : fail('permission_mode', `must be one of ${PERMISSION_MODES.join(', ')} (not '${String(value)}')`);
}

/** A whole number or its text; other types count as none, as in OpenHands. */
function maxIterations(value: unknown, fail: Fail): number | null {
  let n: number | null = null;
  if (typeof value === 'string')
    n = /^\s*[-+]?\d+\s*$/.test(value)
      ? Number(value)
      : fail('max_iteration_per_run', 'must be a whole number');
  else if (typeof value === 'number' && Number.isInteger(value)) n = value;
  return n !== null && n <= 0 ? fail('max_iteration_per_run', `must be above 0 (not ${n})`) : n;
}

/** A number or its text (USD); other types count as none, as in OpenHands. */
function maxBudget(value: unknown, fail: Fail): number | null {
  let n: number | null = null;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string') n = value.trim() ? Number(value) : Number.NaN;
  if (n === null) return null;
  return n > 0 && Number.isFinite(n)
    ? n
    : fail('max_budget_per_run', `must be a number above 0 (not ${value})`);
}

/** `mcp_config` (or its older name `mcp_servers`): servers by name, or `{mcpServers: …}` as .mcp.json has them. */
function mcpServers(fm: Front, fail: Fail): AgentDefinition['mcp_config'] {
  const field = Object.hasOwn(fm, 'mcp_config') ? 'mcp_config' : 'mcp_servers';
  let servers = fm[field];
  if (servers == null) return null;
  if (isMapping(servers) && Object.hasOwn(servers, 'mcpServers')) servers = servers.mcpServers ?? {};
  if (!isMapping(servers)) return fail(field, 'must be a mapping of server names to servers');
  for (const [name, server] of Object.entries(servers))
    if (!isMapping(server)) fail(`${field}.${name}`, 'must be a mapping (a command or a url)');
  return servers as NonNullable<AgentDefinition['mcp_config']>;
}

/** A mapping is a hook configuration (OpenHands' or Claude Code's form); anything else, none. */
function hooksOf(value: unknown, fail: Fail): AgentDefinition['hooks'] {
  if (!isMapping(value)) return null;
  try {
    return normalizeHookConfig(value) as unknown as AgentDefinition['hooks'];
  } catch (error) {
    if (!(error instanceof HookConfigError)) throw error;
    return fail(['hooks', ...error.path].join('.'), error.message);
  }
}

/** Absent, `default` or true: the default condenser (null); `none` or false: NoOpCondenser; a mapping: that one. */
function condenserOf(value: unknown, fail: Fail): AgentDefinition['condenser'] {
  if (value == null || value === true) return null;
  if (value === false) return { kind: 'NoOpCondenser' };
  if (typeof value === 'string') {
    const word = value.trim().toLowerCase();
    if (DEFAULT_CONDENSER_WORDS.has(word)) return null;
    if (NO_CONDENSER_WORDS.has(word)) return { kind: 'NoOpCondenser' };
  }
  if (isMapping(value))
    return typeof value.kind === 'string' && value.kind
      ? value
      : fail('condenser.kind', "must name the condenser (e.g. 'LLMSummarizingCondenser')");
  return fail('condenser', `must be 'default', 'none' or a condenser's mapping (not '${String(value)}')`);
}

const isFile = (path: string) => {
  // A link loop or an entry that cannot be looked at is no definition file, and no reason to fail.
  try {
    return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
};

/**
 * The definitions in one folder: its top-level `*.md` files but README.md, sorted, among its first
 * `limit` entries (a folder may hold anything); one that cannot be read goes to `warn`.
 */
export function agentDefinitionsIn(
  dir: string,
  level: AgentDefinition['level'],
  within: string | null,
  warn: (line: string) => void,
  limit?: number,
): AgentDefinition[] {
  return entriesOf(dir, limit).flatMap((entry): AgentDefinition[] => {
    const path = join(dir, entry);
    if (!/\.md$/i.test(entry) || entry.toLowerCase() === 'readme.md' || !isFile(path)) return [];
    try {
      return [readAgentDefinition(path, level, within)];
    } catch (error) {
      warn(`Sub-agent definition left out: ${(error as Error).message}`);
      return [];
    }
  });
}

/** The definitions in the list order, the first of a name winning. */
export function mergeAgentDefinitions(...lists: readonly AgentDefinition[][]): AgentDefinition[] {
  const byName = new Map<string, AgentDefinition>();
  for (const list of lists)
    for (const definition of list) if (!byName.has(definition.name)) byName.set(definition.name, definition);
  return [...byName.values()];
}

export interface FileAgentOptions {
  /** The user's home. */
  home: string;
  /** The workspace; null: no project agents. */
  projectDir?: string | null;
  loadUser?: boolean;
  loadProject?: boolean;
  /** Where a file that cannot be read is reported. */
  warn?: (line: string) => void;
}

/**
 * The project's file agents, then the user's, `.agents` before `.openhands` in each, the first of a
 * name winning; but a project's type never replaces the user's own of its name (unlike OpenHands):
 * a cloned repository must not swap the user's `reviewer`, with its guard hooks, for one without.
 */
export function fileAgentDefinitions(options: FileAgentOptions): AgentDefinition[] {
  const { home, projectDir = null, loadUser = true, loadProject = true, warn = () => {} } = options;
  const folders = (root: string) => [join(root, '.agents', 'agents'), join(root, '.openhands', 'agents')];
  const user = mergeAgentDefinitions(
    ...(loadUser ? folders(home) : []).map((dir) => agentDefinitionsIn(dir, 'user', null, warn)),
  );
  const own = new Set(user.map((d) => d.name));
  const project = (loadProject && projectDir !== null ? folders(projectDir) : []).map((dir) =>
    agentDefinitionsIn(dir, 'project', projectDir, warn).filter((d) => {
      if (!own.has(d.name)) return true;
      warn(`Sub-agent definition left out: ${d.source} would replace your own '${d.name}'`);
      return false;
    }),
  );
  return mergeAgentDefinitions(...project, user);
}

/** OpenHands' SubAgentInfo of a definition, members in its order. */
function subAgentInfo(d: AgentDefinition): SubAgentInfo {
  return {
    name: d.name,
    description: d.description,
    model: d.model,
    color: d.color,
    tools: d.tools,
    skills: d.skills,
    system_prompt: d.system_prompt,
    when_to_use_examples: d.when_to_use_examples,
    permission_mode: d.permission_mode,
    max_iteration_per_run: d.max_iteration_per_run,
    max_budget_per_run: d.max_budget_per_run,
    mcp_config: d.mcp_config,
    mcp_servers: d.mcp_config,
    profile_store_dir: d.profile_store_dir,
    hooks: d.hooks,
    condenser: d.condenser,
    metadata: d.metadata,
    level: d.level,
    source: d.source,
    is_builtin: d.level === 'builtin',
  };
}

/**
 * The sub-agent types there are, the first of a name winning: `first` (what a conversation's start
 * brought), the project's and the user's files, then the built-ins.
 */
export function availableAgentDefinitions(
  options: FileAgentOptions & { loadBuiltin?: boolean },
  first: readonly AgentDefinition[] = [],
): AgentDefinition[] {
  return mergeAgentDefinitions(
    [...first],
    fileAgentDefinitions(options),
    options.loadBuiltin === false ? [] : builtinAgentDefinitions(),
  );
}

/** POST /api/sub-agents: the project's, the user's and the built-in sub-agents, the first of a name winning. */
export function subAgentCatalog(request: FileAgentOptions & { loadBuiltin?: boolean }): {
  agents: SubAgentInfo[];
} {
  return { agents: availableAgentDefinitions(request).map(subAgentInfo) };
}
