// Installed skills (OpenHands' /api/skills/install and /installed): AgentSkills folders (a SKILL.md and
// what it refers to) installed into `~/.openhands/skills/installed/<name>` (installations.ts). The
// enabled ones are user skills, after the user's own skill files (userSkills).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidExtensionError } from './extension-source.js';
import { Installations } from './installations.js';
import { frontMatter, parseSkillFile, readBounded, type Skill, userSkillFiles } from './skills.js';

/** The user's installed skills. */
export const installedSkills = (home: string) =>
  new Installations(join(home, '.openhands', 'skills', 'installed'), 'Skill', (root, name) => {
    const { skill, version, description } = readSkill(root, name);
    return { name: skill.name, version, description };
  });

/**
 * The user's skills, as OpenHands' load_user_skills: the skill files in their folders, then the
 * enabled installed skills whose name none of those has.
 */
export function userSkills(home: string): Skill[] {
  const own = userSkillFiles(home);
  const names = new Set(own.map((skill) => skill.name));
  const installed = installedSkills(home)
    .enabled()
    .flatMap((info): Skill[] => {
      try {
        return [{ ...readSkill(info.install_path, info.name).skill, source: info.install_path }];
      } catch {
        return [];
      }
    });
  return [...own, ...installed.filter((skill) => !names.has(skill.name))];
}

/** The skill in `root` (its SKILL.md), named by its front matter or the folder; InvalidExtensionError. */
function readSkill(root: string, fallbackName: string) {
  const file = ['SKILL.md', 'skill.md'].map((f) => join(root, f)).find((f) => existsSync(f));
  if (!file) throw new InvalidExtensionError('Invalid skill: the source holds no SKILL.md');
  const text = readBounded(file, root);
  if (text === null) throw new InvalidExtensionError('Invalid skill: its SKILL.md is not a file inside it');
  const skill: Skill = { ...parseSkillFile(text, fallbackName), agentSkills: true };
  return { skill, version: frontMatter(text).field('version') ?? '', description: skill.description ?? '' };
}
