// Plugins in a start (OpenHands' `plugins`): a real plugin folder in the Claude Code layout — a skill,
// a command, hooks and an MCP server — and one from a real git repository (file://), against the
// scripted LLM: what each part adds is seen in what the LLM gets and what the conversation does. And
// the ambient ones every conversation gets: the user's, and the installed ones (/api/plugins).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  allEvents,
  type Ev,
  serverAndLlm,
  startConversation,
  waitForStatus,
} from '../support/conversation.js';
import { api, tempDir } from '../support/server.js';

const home = tempDir('agentd-plugin-home-');
const env = serverAndLlm({ skillsHome: home });
const { llm } = env;

function write(root: string, files: Record<string, string>): string {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const mcpServer = join(process.cwd(), 'test/support/mcp-server.mjs');
// The placeholder a plugin writes, not a template: the plugin's folder is put in when it is loaded.
// biome-ignore lint/suspicious/noTemplateCurlyInString: the plugin's own syntax
const ROOT = '${CLAUDE_PLUGIN_ROOT}';
const helper = write(tempDir('agentd-plugin-'), {
  '.plugin/plugin.json': JSON.stringify({ name: 'helper', version: '1.2.0', description: 'Helps' }),
  'skills/greeting/SKILL.md':
    '---\nname: greeting\ntriggers:\n  - hello\n---\nGREETING-SKILL: greet warmly.\n',
  'commands/review.md':
    '---\ndescription: Review the change\nargument-hint: what to review\n---\nREVIEW-COMMAND: read the diff first.\n',
  '.mcp.json': JSON.stringify({
    mcpServers: {
      calc: {
        command: process.execPath,
        args: [mcpServer, 'stdio'],
        env: { PLUGIN_DIR: ROOT },
      },
    },
  }),
  'hooks/hooks.json': JSON.stringify({
    hooks: {
      PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: `touch "${ROOT}/hook-ran"` }] }],
    },
  }),
});

type Info = {
  agent: {
    agent_context: { skills: { name: string }[] };
    mcp_config?: { mcpServers: Record<string, { env?: object }> };
  };
  hook_config: { pre_tool_use: unknown[] } | null;
};
const conversation = async (id: string) =>
  (await (await api(env.server, `/api/conversations/${id}`)).json()) as Info;
const toolNames = (body: Record<string, unknown>) =>
  ((body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);

describe('plugins', () => {
  it("bring their skills, commands, MCP servers and hooks to the conversation's agent", async () => {
    const { id, key } = await startConversation(
      env.server,
      llm,
      [
        { toolCalls: [{ name: 'terminal', arguments: { command: 'echo hi' } }] },
        { toolCalls: [{ name: 'finish', arguments: { message: 'done' } }] },
      ],
      {
        message: 'hello! /helper:review the change',
        tools: ['terminal'],
        extra: { plugins: [{ source: helper }] },
      },
    );
    // A run only starts with `run: true`: send the message that runs it.
    await api(env.server, `/api/conversations/${id}/run`, { method: 'POST' });
    expect(await waitForStatus(env.server, id, ['finished', 'error'])).toBe('finished');
    const [first] = llm.requestsFor(key);
    const sent = JSON.stringify(first!.body.messages);
    expect(sent).toContain('GREETING-SKILL');
    expect(sent).toContain('REVIEW-COMMAND');
    expect(toolNames(first!.body)).toEqual(expect.arrayContaining(['terminal', 'add']));
    const message = (await allEvents(env.server, id)).find(
      (e) => e.kind === 'MessageEvent' && e.source === 'user',
    ) as Ev & { activated_skills: string[] };
    expect(message.activated_skills.sort()).toEqual(['greeting', 'helper:review']);
    // The hook ran from the plugin's folder, before the terminal call.
    expect(existsSync(join(helper, 'hook-ran'))).toBe(true);
    const info = await conversation(id);
    expect(info.agent.agent_context.skills.map((s) => s.name).sort()).toEqual(['greeting', 'helper:review']);
    // Its MCP server's env values are kept sealed and shown masked, as the agent's own servers' are.
    expect(info.agent.mcp_config?.mcpServers.calc?.env).toEqual({ PLUGIN_DIR: '**********' });
    expect(info.hook_config?.pre_tool_use).toHaveLength(1);
  });

  it('load from a git repository, kept once per commit under the data folder', async () => {
    const repo = tempDir('agentd-plugin-repo-');
    write(repo, {
      'plugins/notes/.claude-plugin/plugin.json': JSON.stringify({ name: 'notes' }),
      'plugins/notes/skills/keep-notes.md': '---\nname: keep-notes\n---\nNOTES-SKILL: keep notes.\n',
    });
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-C', repo, ...args], {
        encoding: 'utf8',
      });
    git('init', '-q', '-b', 'main');
    git('add', '-A');
    git('commit', '-q', '-m', 'notes');
    const plugins = [{ source: `file://${repo}`, repo_path: 'plugins/notes' }];
    for (let i = 0; i < 2; i++) {
      const { id } = await startConversation(env.server, llm, [], { message: '', extra: { plugins } });
      expect((await conversation(id)).agent.agent_context.skills.map((s) => s.name)).toEqual(['keep-notes']);
    }
    const cache = join(env.server.dataDir, 'plugins');
    expect(readdirSync(cache)).toHaveLength(1);
  });

  it('that cannot be fetched or read are a 422 at their place, and nothing is started', async () => {
    const broken = write(tempDir('agentd-plugin-bad-'), { '.mcp.json': '{not json' });
    const huge = write(tempDir('agentd-plugin-huge-'), {
      '.mcp.json': JSON.stringify({ mcpServers: {}, padding: 'x'.repeat(300 * 1024) }),
    });
    const noServer = write(tempDir('agentd-plugin-noserver-'), {
      '.mcp.json': JSON.stringify({ mcpServers: { bad: { args: ['x'] } } }),
    });
    const count = async () => (await (await api(env.server, '/api/conversations/count')).json()) as number;
    const before = await count();
    for (const [plugins, loc, text] of [
      [[{ source: helper }, { source: '/nonexistent/plugin' }], ['body', 'plugins', 1], 'No folder at'],
      [[{ source: broken }], ['body', 'plugins', 0], 'is not JSON'],
      [[{ source: huge }], ['body', 'plugins', 0], 'is over 256 KB'],
      [[{ source: noServer }], ['body', 'plugins', 0, 'mcpServers', 'bad'], 'a command or a url'],
      [[{ source: 'nonsense' }], ['body', 'plugins', 0], 'Unable to parse source'],
    ] as const) {
      const res = await api(env.server, '/api/conversations', {
        method: 'POST',
        body: JSON.stringify({
          agent: { llm: { model: 'openai/x', api_key: 'k', base_url: llm.openaiBaseUrl }, tools: [] },
          workspace: { working_dir: tempDir('agentd-ws-') },
          plugins,
        }),
      });
      expect(res.status, JSON.stringify(plugins)).toBe(422);
      const { detail } = (await res.json()) as { detail: { loc: unknown[]; msg: string }[] };
      expect(detail[0]).toMatchObject({ loc, msg: expect.stringContaining(text) });
    }
    expect(await count()).toBe(before);
  });

  it("are installed, listed with what they bring, and while enabled join every conversation, as the user's own do", async () => {
    const names = async (id: string) =>
      (await conversation(id)).agent.agent_context.skills.map((s) => s.name);
    const start = async () => (await startConversation(env.server, llm, [], { message: '' })).id;
    const install = await api(env.server, '/api/plugins/install', {
      method: 'POST',
      body: JSON.stringify({ source: helper }),
    });
    expect(install.status).toBe(200);
    const installed = (await install.json()) as Record<string, unknown>;
    expect(installed).toMatchObject({
      name: 'helper',
      version: '1.2.0',
      description: 'Helps',
      enabled: true,
      resolved_ref: null,
      install_path: join(home, '.openhands', 'plugins', 'installed', 'helper'),
      skills: [
        { name: 'greeting', description: null },
        { name: 'helper:review', description: 'Review the change' },
      ],
    });
    expect(installed.files).toEqual(
      expect.arrayContaining(['.plugin/plugin.json', 'skills/greeting/SKILL.md']),
    );
    expect(
      (
        await api(env.server, '/api/plugins/install', {
          method: 'POST',
          body: JSON.stringify({ source: helper }),
        })
      ).status,
    ).toBe(409);
    // The user's own plugin folder, beside the installed ones; a server in it that is none is left out,
    // not a reason to refuse every start.
    write(join(home, '.agents', 'plugins', 'mine'), {
      'skills/mine.md': '---\nname: mine-skill\n---\nMINE.\n',
      '.mcp.json': JSON.stringify({ mcpServers: { bad: { args: ['x'] } } }),
    });
    const listed = (await (await api(env.server, '/api/plugins', { method: 'POST', body: '{}' })).json()) as {
      plugins: { name: string; skills: { name: string }[] }[];
    };
    expect(listed.plugins.map((p) => p.name)).toEqual(['mine', 'helper']);
    expect(await names(await start())).toEqual(['mine-skill', 'greeting', 'helper:review']);

    // Disabled: installed still, no longer in a conversation.
    const patched = await api(env.server, '/api/plugins/installed/helper', {
      method: 'PATCH',
      body: JSON.stringify({ enabled: false }),
    });
    expect(await patched.json()).toEqual({ name: 'helper', enabled: false });
    expect(await names(await start())).toEqual(['mine-skill']);
    const got = (await (await api(env.server, '/api/plugins/installed/helper')).json()) as {
      enabled: boolean;
    };
    expect(got.enabled).toBe(false);
    const refreshed = await api(env.server, '/api/plugins/installed/helper/refresh', { method: 'POST' });
    expect(((await refreshed.json()) as { plugin: { enabled: boolean } }).plugin.enabled).toBe(false);

    const removed = await api(env.server, '/api/plugins/installed/helper', { method: 'DELETE' });
    expect(await removed.json()).toEqual({ message: "Plugin 'helper' uninstalled" });
    expect(existsSync(join(home, '.openhands', 'plugins', 'installed', 'helper'))).toBe(false);
    expect((await api(env.server, '/api/plugins/installed/helper')).status).toBe(404);
    const noName = write(tempDir('agentd-plugin-NoName-'), {
      '.plugin/plugin.json': JSON.stringify({ name: 'Not_Kebab' }),
    });
    const refused = await api(env.server, '/api/plugins/install', {
      method: 'POST',
      body: JSON.stringify({ source: noName }),
    });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { detail: string }).detail).toContain(
      "Invalid plugin name 'Not_Kebab'",
    );
  });
});
