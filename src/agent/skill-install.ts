// Installed skills (OpenHands' /api/skills/install and /installed): an AgentSkills folder (a SKILL.md
// and what it refers to) copied from a git repository or a local folder into
// `~/.openhands/skills/installed/<name>`, tracked in that folder's `.installed.json` (OpenHands'
// file: `{extensions: {name: info}}`), so the SDK's own tools read the same installation. The
// enabled ones are user skills, after the user's own skill files (userSkills).
import { randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyExtension, fetchSource, InvalidExtensionError, type SourceSpec } from './extension-source.js';
import { SKILL_NAME_PATTERN } from './schemas.js';
import { parseSkillFile, type Skill, userSkillFiles } from './skills.js';

const METADATA = '.installed.json';

/** OpenHands' InstalledSkillInfo as it answers it (and keeps it in `.installed.json`). */
export interface InstalledSkill {
  name: string;
  version: string;
  description: string;
  enabled: boolean;
  source: string;
  requested_ref: string | null;
  resolved_ref: string | null;
  repo_path: string | null;
  installed_at: string;
  install_path: string;
}

export interface InstallRequest extends SourceSpec {
  force?: boolean;
}

/**
 * A skill of that name is installed already (409). The other failures are extension-source.ts':
 * SourceFetchError (400), InvalidExtensionError (422).
 */
export class SkillExistsError extends Error {
  override name = 'SkillExistsError';
}

const invalid = (message: string): never => {
  throw new InvalidExtensionError(message);
};

/**
 * The user's skills, as OpenHands' load_user_skills: the skill files in their folders, then the
 * enabled installed skills whose name none of those has.
 */
export function userSkills(home: string): Skill[] {
  const own = userSkillFiles(home);
  const names = new Set(own.map((skill) => skill.name));
  return [...own, ...new InstalledSkills(home).enabledSkills().filter((skill) => !names.has(skill.name))];
}

export class InstalledSkills {
  /** One change at a time: installations and the metadata file are read, changed and written whole. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly home: string) {}

  private get dir(): string {
    return join(this.home, '.openhands', 'skills', 'installed');
  }

  private inTurn<T>(work: () => Promise<T> | T): Promise<T> {
    const next = this.turn.then(work, work);
    this.turn = next.catch(() => undefined);
    return next;
  }

  /** Fetches the source and installs the skill in it (SourceFetchError, InvalidExtensionError, SkillExistsError); a reinstall keeps `enabled`. */
  install(request: InstallRequest): Promise<InstalledSkill> {
    return this.inTurn(async () => {
      const scratch = join(tmpdir(), `agentd-skill-${randomUUID()}`);
      try {
        const fetched = await fetchSource(request, scratch);
        const { skill, version, description } = readSkill(fetched.root, fetched.name);
        const target = join(this.dir, skill.name);
        const metadata = this.readMetadata();
        if (existsSync(target) && !request.force)
          throw new SkillExistsError(
            `Skill '${skill.name}' is already installed: use force=true to overwrite`,
          );
        copyExtension(fetched.root, target);
        const info: InstalledSkill = {
          name: skill.name,
          version,
          description,
          enabled: metadata[skill.name]?.enabled ?? true,
          source: request.source,
          requested_ref: request.ref ?? null,
          resolved_ref: fetched.resolvedRef,
          repo_path: request.repo_path ?? null,
          installed_at: new Date().toISOString(),
          install_path: target,
        };
        this.writeMetadata({ ...metadata, [skill.name]: info });
        return info;
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    });
  }

  /** Every installed skill, the metadata reconciled with the folder (gone ones dropped, untracked found). */
  list(): InstalledSkill[] {
    const metadata = this.readMetadata();
    const present = new Set(this.folders());
    const tracked = Object.values(metadata).filter((info) => present.has(info.name));
    const found = [...present]
      .filter((name) => !Object.hasOwn(metadata, name))
      .flatMap((name): InstalledSkill[] => {
        try {
          const path = join(this.dir, name);
          const { skill, version, description } = readSkill(path, name);
          if (skill.name !== name) return [];
          return [
            {
              name,
              version,
              description,
              enabled: true,
              source: 'local',
              requested_ref: null,
              resolved_ref: null,
              repo_path: null,
              installed_at: statSync(path).mtime.toISOString(),
              install_path: path,
            },
          ];
        } catch {
          return [];
        }
      });
    return [...tracked, ...found].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  get(name: string): InstalledSkill | null {
    return this.list().find((info) => info.name === name) ?? null;
  }

  /** Enables or disables one; false when it is not installed. */
  setEnabled(name: string, enabled: boolean): Promise<boolean> {
    return this.inTurn(() => {
      const info = this.get(name);
      if (!info) return false;
      this.writeMetadata({ ...this.readMetadata(), [name]: { ...info, enabled } });
      return true;
    });
  }

  /** Removes one (only a tracked or found installation, never another folder); false when none. */
  uninstall(name: string): Promise<boolean> {
    return this.inTurn(() => {
      const metadata = this.readMetadata();
      const known = Object.hasOwn(metadata, name) || this.get(name) !== null;
      if (!known) return false;
      rmSync(join(this.dir, name), { recursive: true, force: true });
      const { [name]: _gone, ...rest } = metadata;
      this.writeMetadata(rest);
      return true;
    });
  }

  /** Fetches it again from where it came from (its requested ref); null when it is not installed. */
  async refresh(name: string): Promise<InstalledSkill | null> {
    const info = this.get(name);
    if (!info) return null;
    return this.install({
      source: info.source,
      ref: info.requested_ref,
      repo_path: info.repo_path,
      force: true,
    });
  }

  /** The enabled installations as skills, for the agent (read when asked: the folder may change). */
  enabledSkills(): Skill[] {
    return this.list()
      .filter((info) => info.enabled)
      .flatMap((info) => {
        try {
          return [{ ...readSkill(info.install_path, info.name).skill, source: info.install_path }];
        } catch {
          return [];
        }
      });
  }

  private folders(): string[] {
    try {
      return readdirSync(this.dir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && new RegExp(SKILL_NAME_PATTERN).test(entry.name))
        .map((entry) => entry.name);
    } catch {
      return [];
    }
  }

  private readMetadata(): Record<string, InstalledSkill> {
    try {
      const parsed = JSON.parse(readFileSync(join(this.dir, METADATA), 'utf8')) as {
        extensions?: Record<string, InstalledSkill>;
        skills?: Record<string, InstalledSkill>;
      };
      // OpenHands' older files kept them under `skills`.
      return { ...parsed.skills, ...parsed.extensions };
    } catch {
      return {};
    }
  }

  private writeMetadata(extensions: Record<string, InstalledSkill>): void {
    mkdirSync(this.dir, { recursive: true });
    const file = join(this.dir, METADATA);
    writeFileSync(`${file}.tmp`, `${JSON.stringify({ extensions }, null, 2)}\n`);
    renameSync(`${file}.tmp`, file);
  }
}

/** The skill in `root` (its SKILL.md), named by its front matter or the folder; InvalidExtensionError. */
function readSkill(root: string, fallbackName: string) {
  const file = ['SKILL.md', 'skill.md'].map((f) => join(root, f)).find((f) => existsSync(f));
  if (!file) return invalid('Invalid skill: the source holds no SKILL.md');
  const text = readFileSync(file, 'utf8');
  const skill: Skill = { ...parseSkillFile(text, fallbackName), agentSkills: true };
  if (!new RegExp(SKILL_NAME_PATTERN).test(skill.name))
    invalid(`Invalid skill name '${skill.name}': lowercase letters and digits in hyphen-separated words`);
  const front = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1] ?? '';
  const version = /^version:\s*["']?([^"'\r\n]*)["']?\s*$/m.exec(front)?.[1]?.trim() ?? '';
  return { skill, version, description: skill.description ?? '' };
}
