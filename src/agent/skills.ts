// Agent context: what the agent is told beyond the task. Two kinds of skills, as in OpenHands:
// - repository instructions (AGENTS.md and friends in the workspace, skills without a trigger):
//   always on, part of the system prompt's per-conversation `dynamic_context`;
// - knowledge skills with keyword triggers: when a user message mentions a keyword, the skill's text
//   is added to that message as `extended_content` and its name listed in `activated_skills`
//   (once per conversation: the text stays in the history after that).
import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { readTextFile } from './text-files.js';

export interface Skill {
  name: string;
  content: string;
  /** Keywords that activate it; null = always on (repository instructions). */
  keywords: string[] | null;
  source?: string;
  /** The front matter's `description`. */
  description?: string;
  /** An AgentSkills folder (`<name>/SKILL.md`), as OpenHands' `is_agentskills_format`. */
  agentSkills?: boolean;
}

export interface AgentContextSpec {
  skills?: { name: string; content: string; trigger?: { type?: string; keywords?: string[] } | null }[];
  system_message_suffix?: string | null;
  user_message_suffix?: string | null;
  /** Read skills and instructions from the workspace (default true). */
  load_project_skills?: boolean;
  /** Skills left out by name, given or the workspace's (OpenHands' deny-list; an agent profile's disabled_skills). */
  disabled_skills?: string[];
  /** OpenHands' flags, resolved into `skills` at the start (conversation/context-skills.ts). */
  load_user_skills?: boolean;
  load_public_skills?: boolean;
  marketplace_path?: string | null;
}

/** Files at the workspace root that hold instructions for agents. */
const INSTRUCTION_FILES = ['AGENTS.md', 'agents.md', 'CLAUDE.md', '.openhands/microagents/repo.md'];
/** Bound on one skill (or sub-agent) file: instructions are for reading, not whole manuals. */
export const MAX_SKILL_CHARS = 20_000;

/**
 * A skill file's text, cut at MAX_SKILL_CHARS; null when it is not a readable file, or not inside
 * `within` once links are resolved (text-files.ts; null `within`: the user's own folders).
 */
export function readBounded(path: string, within: string | null): string | null {
  const file = readTextFile(path, within, MAX_SKILL_CHARS);
  if (file === null) return null;
  return file.cut ? `${file.text}\n[… cut at ${MAX_SKILL_CHARS} characters]` : file.text;
}

const unquote = (s: string) => s.trim().replace(/^["']|["']$/g, '');

/**
 * A markdown file's `---` front matter and body: `field(key)` reads a one-line `key: value` (quotes
 * dropped; undefined when absent or empty). Without front matter, the whole text is the body.
 */
export function frontMatter(text: string): {
  front: string;
  body: string;
  field: (key: string) => string | undefined;
} {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  const front = m?.[1] ?? '';
  const field = (key: string) => {
    const value = new RegExp(`^${key}:\\s*(.+)$`, 'm').exec(front)?.[1];
    return value === undefined ? undefined : unquote(value) || undefined;
  };
  return { front, body: m ? m[2]! : text, field };
}

/** Splits `---` front matter off a skill file; reads `name` and `triggers` (a list or [a, b]). */
export function parseSkillFile(text: string, fallbackName: string): Skill {
  const { front, body, field } = frontMatter(text);
  if (!front) return { name: fallbackName, content: body.trim(), keywords: null };
  const name = field('name') || fallbackName;
  let keywords: string[] | null = null;
  const inline = /^(?:triggers|keywords):\s*\[(.*)\]\s*$/m.exec(front);
  const block = /^(?:triggers|keywords):\s*\r?\n((?:\s*-\s*.+\r?\n?)+)/m.exec(front);
  if (inline) keywords = inline[1]!.split(',').map(unquote).filter(Boolean);
  else if (block)
    keywords = block[1]!
      .split(/\r?\n/)
      .map((l) => unquote(l.replace(/^\s*-\s*/, '')))
      .filter(Boolean);
  const description = field('description');
  return {
    name,
    content: body.trim(),
    keywords: keywords && keywords.length > 0 ? keywords : null,
    ...(description ? { description } : {}),
  };
}

/** Skill files read from one folder at most: a folder may hold anything. */
const MAX_SKILLS_PER_FOLDER = 200;

/**
 * A folder's entries, sorted, the first `limit`; none when it is missing or not a folder (a workspace
 * may hold anything).
 */
export function entriesOf(dir: string, limit = MAX_SKILLS_PER_FOLDER): string[] {
  try {
    if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return [];
    return readdirSync(dir).sort().slice(0, limit);
  } catch {
    return [];
  }
}

/** Instructions and skills found in a workspace. */
export function workspaceSkills(workingDir: string): Skill[] {
  // One listing of the workspace says which probes can find anything (names compared without case:
  // on a case-insensitive file system `agents.md` opens `AGENTS.md`); a fresh workspace needs no
  // more. Unlistable: every probe is tried, as they find what they can.
  const present = lowerNames(workingDir);
  const mayHold = (top: string) => present === null || present.has(top.toLowerCase());
  const skills: Skill[] = [];
  const seen = new Set<string>();
  for (const file of INSTRUCTION_FILES) {
    if (!mayHold(file.split('/')[0]!)) continue;
    const path = join(workingDir, file);
    const text = readBounded(path, workingDir);
    // agents.md and AGENTS.md are one file on case-insensitive file systems.
    if (text === null || seen.has(text)) continue;
    seen.add(text);
    skills.push({ name: basename(file, '.md'), content: text.trim(), keywords: null, source: path });
  }
  return [...skills, ...skillFolders(workingDir, true, mayHold)];
}

function lowerNames(dir: string): Set<string> | null {
  try {
    return new Set(readdirSync(dir).map((name) => name.toLowerCase()));
  } catch {
    return null;
  }
}

/**
 * The skill files in the user's folders, as OpenHands' USER_SKILLS_DIRS: `~/.agents/skills/<name>/SKILL.md`,
 * `~/.openhands/skills/*.md`, `~/.openhands/microagents/*.md`; the first of a name wins. With the
 * installed ones: userSkills (skill-install.ts).
 */
export function userSkillFiles(home: string): Skill[] {
  const seen = new Set<string>();
  return skillFolders(home, false).filter((s) => !seen.has(s.name) && seen.add(s.name));
}

/** The skill folders under `root`: in a workspace, OpenHands' order; in a home, the user order. */
function skillFolders(
  root: string,
  workspace: boolean,
  mayHold: (top: string) => boolean = () => true,
): Skill[] {
  const openhands: [string, (entry: string) => string | null][] = [
    [join(root, '.openhands', 'skills'), (e) => (e.endsWith('.md') ? e : null)],
    [join(root, '.openhands', 'microagents'), (e) => (e.endsWith('.md') && e !== 'repo.md' ? e : null)],
  ];
  const agents: [string, (entry: string) => string | null] = [
    join(root, '.agents', 'skills'),
    (e) => join(e, 'SKILL.md'),
  ];
  const skills: Skill[] = [];
  for (const [dir, fileOf] of workspace ? [...openhands, agents] : [agents, ...openhands]) {
    if (!mayHold(basename(dirname(dir)))) continue;
    for (const entry of entriesOf(dir)) {
      const file = fileOf(entry);
      if (!file) continue;
      // A workspace's links stay inside it; the user's own folders may link where they like.
      const text = readBounded(join(dir, file), workspace ? root : null);
      if (text === null) continue;
      const skill = { ...parseSkillFile(text, basename(entry, '.md')), source: join(dir, file) };
      skills.push(file.endsWith('SKILL.md') ? { ...skill, agentSkills: true } : skill);
    }
  }
  return skills;
}

export class AgentContext {
  constructor(
    readonly skills: readonly Skill[],
    private readonly systemSuffix: string | null = null,
    private readonly userSuffix: string | null = null,
  ) {}

  static load(workingDir: string, spec: AgentContextSpec | null | undefined): AgentContext {
    const disabled = new Set(spec?.disabled_skills ?? []);
    const given: Skill[] = (spec?.skills ?? [])
      .filter((s) => !disabled.has(s.name))
      .map((s) => ({
        name: s.name,
        content: s.content,
        keywords: s.trigger?.keywords?.length ? s.trigger.keywords : null,
      }));
    const found = spec?.load_project_skills === false ? [] : workspaceSkills(workingDir);
    const names = new Set(given.map((s) => s.name));
    for (const name of disabled) names.add(name);
    return new AgentContext(
      [...given, ...found.filter((s) => !names.has(s.name))],
      spec?.system_message_suffix?.trim() || null,
      spec?.user_message_suffix?.trim() || null,
    );
  }

  /** Repository instructions and the custom suffix, for the system prompt's dynamic context. */
  systemContext(): string | null {
    const parts = this.skills
      .filter((s) => s.keywords === null)
      .map((s) => `<REPOSITORY_INSTRUCTIONS source="${s.name}">\n${s.content}\n</REPOSITORY_INSTRUCTIONS>`);
    if (parts.length > 0)
      parts.unshift(
        'The repository has instructions for agents working in it. Follow them unless the user says otherwise:',
      );
    if (this.systemSuffix) parts.push(this.systemSuffix);
    return parts.length > 0 ? parts.join('\n\n') : null;
  }

  /** What a user message gets: the knowledge of skills its words trigger (not yet active) and the suffix. */
  forUserMessage(text: string, active: ReadonlySet<string>): { extended: string[]; activated: string[] } {
    const query = text.toLowerCase();
    const triggered = this.skills.filter(
      (s) =>
        s.keywords !== null && !active.has(s.name) && s.keywords.some((k) => query.includes(k.toLowerCase())),
    );
    const extended = triggered.map(
      (s) =>
        `<EXTRA_INFO>\nThis knowledge was added because your message mentioned "${s.keywords!.find((k) => query.includes(k.toLowerCase()))}" (skill ${s.name}). Use it if it helps.\n\n${s.content}\n</EXTRA_INFO>`,
    );
    if (this.userSuffix && text.trim()) extended.push(this.userSuffix);
    return { extended, activated: triggered.map((s) => s.name) };
  }
}
