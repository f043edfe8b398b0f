// Sub-agent definitions read from real files in temp folders: the markdown parser (front matter as
// YAML, OpenHands' defaults and refusals), discovery (project over user, .agents over .openhands,
// README and non-files skipped, a broken file reported, the folder bound), the merge and the built-ins.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import {
  AgentDefinition,
  AgentDefinitionError,
  builtinAgentDefinitions,
  fileAgentDefinitions,
  mergeAgentDefinitions,
  readAgentDefinition,
} from '../../src/agent/index.js';
import { createAjv } from '../../src/events/validate.js';
import { tempDir } from '../support/server.js';

function write(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

/** A definition file in a folder of its own. */
const file = (text: string, name = 'agent.md') => write(join(tempDir('agentd-sub-agent-'), name), text);

const DEFAULTS = {
  description: '',
  model: 'inherit',
  color: null,
  tools: [],
  skills: [],
  system_prompt: '',
  source: null,
  level: null,
  when_to_use_examples: [],
  hooks: null,
  permission_mode: null,
  max_iteration_per_run: null,
  max_budget_per_run: null,
  mcp_config: null,
  profile_store_dir: null,
  condenser: null,
  metadata: {},
};

describe('readAgentDefinition', () => {
  it("reads OpenHands' documented example whole", () => {
    const path = file(
      [
        '---',
        'name: code-reviewer',
        'description: |',
        '  Reviews code changes.',
        '',
        '  <example>please review this PR</example>',
        '  <EXAMPLE>can you do a security review?</EXAMPLE>',
        'tools:',
        '  - terminal',
        'model: inherit',
        'permission_mode: Confirm_Risky',
        'color: purple',
        'audience: maintainers',
        'owners: [ana, bo]',
        '---',
        '',
        'You are a meticulous code reviewer.',
        'Focus on correctness.',
        '',
      ].join('\n'),
      'reviewer.md',
    );
    expect(readAgentDefinition(path, 'project', null)).toEqual({
      ...DEFAULTS,
      name: 'code-reviewer',
      description:
        'Reviews code changes.\n\n<example>please review this PR</example>\n<EXAMPLE>can you do a security review?</EXAMPLE>\n',
      color: 'purple',
      tools: ['terminal'],
      system_prompt: 'You are a meticulous code reviewer.\nFocus on correctness.',
      source: path,
      level: 'project',
      when_to_use_examples: ['please review this PR', 'can you do a security review?'],
      permission_mode: 'confirm_risky',
      metadata: { audience: 'maintainers', owners: ['ana', 'bo'] },
    });
  });

  it('takes the name from the file and every default without front matter', () => {
    const path = file('\n  Just a prompt.\n', 'plain-helper.md');
    expect(readAgentDefinition(path, 'user', null)).toEqual({
      ...DEFAULTS,
      name: 'plain-helper',
      system_prompt: 'Just a prompt.',
      source: path,
      level: 'user',
    });
  });

  it('reads folded descriptions, flow and block lists, a one-tool string and comma-separated skills', () => {
    const folded = readAgentDefinition(
      file(
        '---\ndescription: >-\n  Runs the\n  tests.\ntools: [terminal, file_editor]\nskills: pdf, git ,, docker\n---\nP\n',
      ),
      null,
      null,
    );
    expect(folded).toMatchObject({
      description: 'Runs the tests.',
      tools: ['terminal', 'file_editor'],
      skills: ['pdf', 'git', 'docker'],
    });
    const single = readAgentDefinition(
      file('---\ntools: terminal\nskills:\n  - pdf\n  - 7\n---\n'),
      null,
      null,
    );
    expect(single).toMatchObject({ tools: ['terminal'], skills: ['pdf', '7'] });
  });

  it('reads limits as numbers or their text, and keeps a level given in the front matter as metadata', () => {
    const read = (front: string) => readAgentDefinition(file(`---\n${front}\n---\nP\n`), 'user', null);
    expect(read('max_iteration_per_run: 12\nmax_budget_per_run: 0.5')).toMatchObject({
      max_iteration_per_run: 12,
      max_budget_per_run: 0.5,
    });
    expect(read("max_iteration_per_run: ' 7 '\nmax_budget_per_run: '2'")).toMatchObject({
      max_iteration_per_run: 7,
      max_budget_per_run: 2,
    });
    // Other types count as none, as OpenHands reads them.
    expect(read('max_iteration_per_run: 2.5\nmax_budget_per_run: true')).toMatchObject({
      max_iteration_per_run: null,
      max_budget_per_run: null,
    });
    expect(read('level: builtin\nsource: /elsewhere')).toMatchObject({
      level: 'user',
      metadata: { level: 'builtin', source: '/elsewhere' },
    });
  });

  it('reads MCP servers (mcp_config over mcp_servers, the .mcp.json wrapper), hooks and condensers', () => {
    const read = (front: string) => readAgentDefinition(file(`---\n${front}\n---\n`), null, null);
    const fetch = { command: 'uvx', args: ['mcp-server-fetch'] };
    expect(read('mcp_servers:\n  fetch: {command: uvx, args: [mcp-server-fetch]}').mcp_config).toEqual({
      fetch,
    });
    expect(
      read(
        'mcpServersNot: 1\nmcp_config:\n  mcpServers:\n    fetch: {command: uvx, args: [mcp-server-fetch]}',
      ).mcp_config,
    ).toEqual({ fetch });
    // Present but null, mcp_config still wins (OpenHands reads mcp_servers only when mcp_config is absent).
    expect(read('mcp_config: null\nmcp_servers:\n  fetch: {command: uvx}').mcp_config).toBeNull();
    expect(read('mcp_config: {}').mcp_config).toEqual({});
    expect(read('hooks:\n  PreToolUse:\n    - hooks: [{command: echo hi}]').hooks).toEqual({
      pre_tool_use: [{ matcher: '*', hooks: [{ type: 'command', command: 'echo hi', timeout: 60 }] }],
      post_tool_use: [],
      user_prompt_submit: [],
      session_start: [],
      session_end: [],
      stop: [],
    });
    expect(read('hooks: [not, a, mapping]').hooks).toBeNull();
    for (const none of ['none', 'OFF', 'false', 'disabled'])
      expect(read(`condenser: ${none}`).condenser).toEqual({ kind: 'NoOpCondenser' });
    for (const usual of ['default', 'inherit', 'true', "''"])
      expect(read(`condenser: ${usual}`).condenser).toBeNull();
    expect(read('condenser: {kind: LLMSummarizingCondenser, max_size: 80}').condenser).toEqual({
      kind: 'LLMSummarizingCondenser',
      max_size: 80,
    });
    expect(read('profile_store_dir: /profiles').profile_store_dir).toBe('/profiles');
  });

  it('keeps a __proto__ key as metadata without touching any prototype', () => {
    const definition = readAgentDefinition(file('---\n__proto__: {polluted: yes}\n---\n'), null, null);
    expect(Object.hasOwn(definition.metadata, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    [
      'permission_mode: sometimes',
      'permission_mode',
      'must be one of always_confirm, never_confirm, confirm_risky',
    ],
    ['max_iteration_per_run: 0', 'max_iteration_per_run', 'must be above 0'],
    ['max_iteration_per_run: -3', 'max_iteration_per_run', 'must be above 0'],
    ['max_iteration_per_run: many', 'max_iteration_per_run', 'must be a whole number'],
    ['max_budget_per_run: 0', 'max_budget_per_run', 'must be a number above 0'],
    ['max_budget_per_run: cheap', 'max_budget_per_run', 'must be a number above 0'],
    ['mcp_config: [fetch]', 'mcp_config', 'must be a mapping of server names to servers'],
    ['mcp_servers: just-text', 'mcp_servers', 'must be a mapping of server names to servers'],
    ['mcp_config: {fetch: uvx}', 'mcp_config.fetch', 'must be a mapping'],
    ['profile_store_dir: [a, b]', 'profile_store_dir', 'must be a folder'],
    ['condenser: sometimes', 'condenser', "must be 'default', 'none'"],
    ['condenser: {max_size: 3}', 'condenser.kind', 'must name the condenser'],
    ['hooks: {Nope: []}', 'hooks.Nope', "Unknown hook event 'Nope'"],
    ['name: {first: a}', 'name', 'must be text'],
    ['tools: [terminal, {a: 1}]', 'tools[1]', 'must be a name'],
    [`name: ${'n'.repeat(257)}`, 'name', 'must not have more than 256 characters'],
    [`tools: [${'t, '.repeat(200)}t]`, 'tools', 'must not have more than 200 items'],
    [`skills: [a, ${'s'.repeat(257)}]`, 'skills[1]', 'must not have more than 256 characters'],
    ['name: [unclosed', 'front matter', 'is not YAML'],
    ['- a\n- list', 'front matter', 'is not a mapping of keys'],
  ])('refuses `%s`, naming the file and %s', (front, field, reason) => {
    const path = file(`---\n${front}\n---\nP\n`);
    let error: unknown;
    try {
      readAgentDefinition(path, 'user', null);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(AgentDefinitionError);
    expect(error).toMatchObject({ file: path, field });
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toContain(`${field} ${reason}`);
  });

  it('refuses a file over 20,000 characters rather than cutting its prompt', () => {
    const path = file(`---\nname: long\n---\n${'x'.repeat(20_000)}`);
    expect(() => readAgentDefinition(path, 'user', null)).toThrow(`${path}: is over 20000 characters`);
  });
});

describe('fileAgentDefinitions', () => {
  const agent = (name: string, prompt: string) => `---\nname: ${name}\n---\n${prompt}\n`;

  it("takes the project before the user and .agents before .openhands, the first of a name winning, but never the project's in place of the user's own", () => {
    const home = tempDir('agentd-sub-agent-home-');
    const project = tempDir('agentd-sub-agent-project-');
    write(join(project, '.agents', 'agents', 'shared.md'), agent('shared', 'project .agents'));
    write(join(project, '.agents', 'agents', 'b-project.md'), agent('b-project', 'B'));
    write(join(project, '.openhands', 'agents', 'shared.md'), agent('shared', 'project .openhands'));
    write(join(project, '.openhands', 'agents', 'legacy.md'), agent('legacy', 'project legacy'));
    write(join(home, '.agents', 'agents', 'shared.md'), agent('shared', 'user .agents'));
    write(join(home, '.agents', 'agents', 'legacy.md'), agent('legacy', 'user legacy'));
    write(join(home, '.agents', 'agents', 'mine.md'), agent('mine', 'user .agents'));
    write(join(home, '.openhands', 'agents', 'mine.md'), agent('mine', 'user .openhands'));
    write(join(home, '.openhands', 'agents', 'old.md'), agent('old', 'user .openhands'));

    const warned: string[] = [];
    const found = fileAgentDefinitions({ home, projectDir: project, warn: (line) => warned.push(line) });
    expect(found.map((d) => [d.name, d.level, d.system_prompt])).toEqual([
      ['b-project', 'project', 'B'],
      ['legacy', 'user', 'user legacy'],
      ['mine', 'user', 'user .agents'],
      ['shared', 'user', 'user .agents'],
      ['old', 'user', 'user .openhands'],
    ]);
    // The project's `shared` (twice) and `legacy` are left out, each said.
    expect(warned).toEqual([
      `Sub-agent definition left out: ${join(project, '.agents', 'agents', 'shared.md')} would replace your own 'shared'`,
      `Sub-agent definition left out: ${join(project, '.openhands', 'agents', 'legacy.md')} would replace your own 'legacy'`,
      `Sub-agent definition left out: ${join(project, '.openhands', 'agents', 'shared.md')} would replace your own 'shared'`,
    ]);

    expect(fileAgentDefinitions({ home, projectDir: project, loadUser: false }).map((d) => d.name)).toEqual([
      'b-project',
      'shared',
      'legacy',
    ]);
    const userOnly = [
      ['legacy', 'user legacy'],
      ['mine', 'user .agents'],
      ['shared', 'user .agents'],
      ['old', 'user .openhands'],
    ];
    const pairs = (list: AgentDefinition[]) => list.map((d) => [d.name, d.system_prompt]);
    expect(pairs(fileAgentDefinitions({ home, projectDir: project, loadProject: false }))).toEqual(userOnly);
    expect(pairs(fileAgentDefinitions({ home }))).toEqual(userOnly);
  });

  it('reads only top-level markdown files, not README, and reports a broken one without losing the rest', () => {
    const home = tempDir('agentd-sub-agent-home-');
    const dir = join(home, '.agents', 'agents');
    write(join(dir, 'README.md'), agent('readme', 'not an agent'));
    write(join(dir, 'readme.md'), agent('readme-lower', 'not an agent'));
    write(join(dir, 'notes.txt'), agent('notes', 'not markdown'));
    write(join(dir, 'nested', 'deep.md'), agent('deep', 'below the top'));
    mkdirSync(join(dir, 'folder.md'));
    write(join(dir, 'LOUD.MD'), agent('loud', 'upper-case suffix'));
    write(join(dir, 'ok.md'), agent('ok', 'fine'));
    const broken = write(join(dir, 'broken.md'), '---\npermission_mode: maybe\n---\n');
    const lines: string[] = [];
    const found = fileAgentDefinitions({ home, warn: (line) => lines.push(line) });
    expect(found.map((d) => d.name)).toEqual(['loud', 'ok']);
    expect(lines).toEqual([expect.stringContaining(`${broken}: permission_mode must be one of`)]);
  });

  it('reads at most the first 200 entries of a folder', () => {
    const home = tempDir('agentd-sub-agent-home-');
    for (let i = 0; i < 205; i++) {
      const name = `a${String(i).padStart(3, '0')}`;
      write(join(home, '.openhands', 'agents', `${name}.md`), agent(name, name));
    }
    const found = fileAgentDefinitions({ home });
    expect(found).toHaveLength(200);
    expect(found.at(-1)!.name).toBe('a199');
  });
});

describe('mergeAgentDefinitions', () => {
  it('keeps the first definition of a name, in list order', () => {
    const builtins = builtinAgentDefinitions();
    const explorer = { ...builtins[1]!, level: 'programmatic' as const, system_prompt: 'mine' };
    const runner = { ...builtins[0]!, level: 'user' as const, system_prompt: 'the user runner' };
    const merged = mergeAgentDefinitions([explorer], [], [runner, { ...explorer, level: 'user' }], builtins);
    expect(merged.map((d) => [d.name, d.level, d.system_prompt.slice(0, 15)])).toEqual([
      ['code-explorer', 'programmatic', 'mine'],
      ['bash-runner', 'user', 'the user runner'],
      ['general-purpose', 'builtin', builtins[2]!.system_prompt.slice(0, 15)],
      ['web-researcher', 'builtin', builtins[3]!.system_prompt.slice(0, 15)],
    ]);
  });
});

describe('builtinAgentDefinitions', () => {
  it("has OpenHands' four types with their tools, agentd's prompts and no MCP servers", () => {
    const builtins = builtinAgentDefinitions();
    expect(builtins.map((d) => [d.name, d.tools])).toEqual([
      ['bash-runner', ['terminal']],
      ['code-explorer', ['terminal']],
      ['general-purpose', ['terminal', 'file_editor', 'task_tracker']],
      ['web-researcher', ['browser_tool_set']],
    ]);
    for (const definition of builtins) {
      expect(Value.Check(AgentDefinition, definition)).toBe(true);
      expect(definition).toMatchObject({
        level: 'builtin',
        model: 'inherit',
        mcp_config: null,
        source: null,
      });
      expect(definition.description.length).toBeGreaterThan(40);
      expect(definition.system_prompt.length).toBeGreaterThan(200);
    }
    expect(builtins[1]!.system_prompt).toContain('never create, change, move or delete a file');
  });

  it('leaves out the browser-bound web-researcher with browser: false', () => {
    expect(builtinAgentDefinitions({ browser: false }).map((d) => d.name)).toEqual([
      'bash-runner',
      'code-explorer',
      'general-purpose',
    ]);
    expect(builtinAgentDefinitions({ browser: true })).toHaveLength(4);
  });
});

describe('AgentDefinition (the wire schema)', () => {
  it("validates a client's partial definition and fills OpenHands' defaults, as the server's Ajv does", () => {
    const validate = createAjv().compile(AgentDefinition);
    const partial: Record<string, unknown> = { name: 'helper', tools: ['terminal'] };
    expect(validate(partial)).toBe(true);
    expect(partial).toEqual({ ...DEFAULTS, name: 'helper', tools: ['terminal'] });
    expect(validate({ name: 'x', permission_mode: 'sometimes' })).toBe(false);
    expect(validate({ name: 'x', max_iteration_per_run: 0 })).toBe(false);
    expect(validate({ description: 'no name' })).toBe(false);
  });
});
