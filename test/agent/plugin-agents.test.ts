// A plugin's sub-agents (`agents/*.md` in the Claude Code layout), read from a real plugin folder: what
// loadPlugin and readPluginAt return, what a listing shows, a broken file reported, the bound.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidExtensionError, loadPlugin, pluginContents, readPluginAt } from '../../src/agent/index.js';
import { tempDir } from '../support/server.js';

function plugin(files: Record<string, string>): string {
  const root = tempDir('agentd-plugin-agents-');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe("a plugin's agents", () => {
  it('are its agents/*.md at level plugin, README left out and a broken file reported', async () => {
    const root = plugin({
      '.claude-plugin/plugin.json': JSON.stringify({ name: 'reviewing', description: 'Reviews' }),
      'agents/reviewer.md':
        '---\nname: reviewer\ndescription: Reviews diffs\ntools: [terminal]\n---\nReview.\n',
      'agents/tester.md': '---\ndescription: Writes tests\n---\nTest.\n',
      'agents/README.md': '# The agents\n',
      'agents/broken.md': '---\nmax_iteration_per_run: 0\n---\n',
      'agents/more/nested.md': '---\nname: nested\n---\n',
    });
    const loaded = await loadPlugin({ source: root }, tempDir('agentd-plugin-cache-'));
    expect(loaded.agents.map((a) => [a.name, a.level, a.source, a.tools])).toEqual([
      ['reviewer', 'plugin', join(root, 'agents', 'reviewer.md'), ['terminal']],
      ['tester', 'plugin', join(root, 'agents', 'tester.md'), []],
    ]);
    expect(loaded.agents[0]!.system_prompt).toBe('Review.');
    expect(loaded.warnings).toEqual([
      expect.stringContaining(`${join(root, 'agents', 'broken.md')}: max_iteration_per_run must be above 0`),
    ]);
    expect(pluginContents(loaded)).toMatchObject({
      agents: [
        { name: 'reviewer', description: 'Reviews diffs' },
        { name: 'tester', description: 'Writes tests' },
      ],
      files: expect.arrayContaining(['agents/reviewer.md', 'agents/tester.md']),
    });
  });

  it('are none without an agents folder', () => {
    const loaded = readPluginAt(plugin({ 'skills/a.md': '---\nname: a\n---\nA\n' }));
    expect(loaded.agents).toEqual([]);
    expect(loaded.warnings).toEqual([]);
    expect(pluginContents(loaded).agents).toEqual([]);
  });

  it('are at most 100: a plugin with more is refused', () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 101; i++) files[`agents/a${i}.md`] = `---\nname: a${i}\n---\n`;
    expect(() => readPluginAt(plugin(files))).toThrow(InvalidExtensionError);
    delete files['agents/a100.md'];
    expect(readPluginAt(plugin(files)).agents).toHaveLength(100);
  });
});
