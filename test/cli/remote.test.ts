// The client commands against a running `agentd serve` (the real binary): --url/--key, the data
// folder held by a server, and `events --follow` across a server restart (exact resume).
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { closedPort } from '../support/ports.js';
import { waitUntil } from '../support/process.js';
import type { ScriptStep } from '../support/scripted-llm.js';
import { tempDir } from '../support/server.js';
import { agentd, agentdToEnd, scriptedLLMEnv } from './command.js';

const llm = scriptedLLMEnv('cli-remote');

const finish = (message: string): ScriptStep => ({ toolCalls: [{ name: 'finish', arguments: { message } }] });

async function call<T>(url: string, key: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      'X-Session-API-Key': key,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.ok, `${path}: ${res.status}`).toBe(true);
  return (await res.json()) as T;
}

describe('agentd run --url --key', () => {
  it('runs the conversation on the server, lists it there, and refuses a wrong key', async () => {
    const server = await runCli(['serve', '--port', '0', '--data-dir', tempDir('agentd-cli-srv-')], {
      env: { OH_SESSION_API_KEYS_0: 'remote-key' },
    });
    const target = ['--url', server.url, '--key', 'remote-key'];
    const run = await agentdToEnd(
      ['run', 'do it remotely', '--dir', tempDir(), ...target],
      llm.env([finish('Remote done.')]),
    );
    expect(run.code, run.output).toBe(0);
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('Remote done.');
    const id = /conversation (\S+)/.exec(run.stdout)![1]!;
    const info = await call<{ execution_status: string }>(
      server.url,
      'remote-key',
      `/api/conversations/${id}`,
    );
    expect(info.execution_status).toBe('finished');

    // The environment names the server as well as the options do.
    const listed = await agentdToEnd(['conversations'], {
      AGENTD_URL: server.url,
      AGENTD_SESSION_API_KEY: 'remote-key',
    });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${id}  finished`);

    const refused = await agentdToEnd(['conversations', '--url', server.url, '--key', 'wrong']);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('refused the session key');
    await server.stop();
  });

  it("--model alone runs the settings' LLM (its stored key) with that model", async () => {
    const server = await runCli(['serve', '--port', '0', '--data-dir', tempDir('agentd-cli-srv-')], {
      env: { OH_SESSION_API_KEYS_0: 'remote-key' },
    });
    const { LLM_API_KEY, LLM_BASE_URL } = llm.env([finish('Settings key used.')]);
    // The settings name another model: only --model can make the scripted one answer.
    await call(server.url, 'remote-key', '/api/settings', {
      llm_model: 'openai/not-scripted',
      llm_api_key: LLM_API_KEY,
      llm_base_url: LLM_BASE_URL,
    });
    const run = await agentdToEnd([
      'run',
      'use my settings',
      '--model',
      'openai/scripted',
      '--dir',
      tempDir(),
      '--url',
      server.url,
      '--key',
      'remote-key',
    ]);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('Settings key used.');
    const id = /conversation (\S+)/.exec(run.stdout)![1]!;
    const info = await call<{ agent: { llm: { model: string } } }>(
      server.url,
      'remote-key',
      `/api/conversations/${id}`,
    );
    expect(info.agent.llm.model).toBe('openai/scripted');
    await server.stop();
  });

  it('--profile runs a new conversation on a saved LLM profile, and switches a resumed one to another', async () => {
    const server = await runCli(['serve', '--port', '0', '--data-dir', tempDir('agentd-cli-srv-')], {
      env: { OH_SESSION_API_KEYS_0: 'remote-key' },
    });
    const target = ['--url', server.url, '--key', 'remote-key'];
    const profile = async (name: string, steps: ScriptStep[]) => {
      const { LLM_API_KEY, LLM_BASE_URL } = llm.env(steps);
      await call(server.url, 'remote-key', `/api/profiles/${name}`, {
        llm: { model: `openai/${name}`, api_key: LLM_API_KEY, base_url: LLM_BASE_URL },
      });
    };
    await profile('first', [finish('On the first profile.')]);
    await profile('second', [finish('On the second profile.')]);
    // No LLM in the settings: the profile is all there is.
    const run = await agentdToEnd(['run', 'go', '--profile', 'first', '--dir', tempDir(), ...target]);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('On the first profile.');
    const id = /conversation (\S+)/.exec(run.stdout)![1]!;

    const resumed = await agentdToEnd(['run', 'more', '--resume', id, '--profile', 'second', ...target]);
    expect(resumed.code, resumed.output).toBe(0);
    expect(resumed.stdout.trimEnd().split('\n').at(-1)).toBe('On the second profile.');
    const info = await call<{ agent: { llm: { model: string } } }>(
      server.url,
      'remote-key',
      `/api/conversations/${id}`,
    );
    expect(info.agent.llm.model).toBe('openai/second');

    const unknown = await agentdToEnd(['run', 'go', '--profile', 'nope', '--dir', tempDir(), ...target]);
    expect(unknown.code).toBe(2);
    expect(unknown.output).toContain("Profile 'nope' not found");
    expect(unknown.output).not.toContain('LLM_MODEL');
    await server.stop();
  });

  it('--agent runs a new conversation on a saved agent profile, by its name', async () => {
    const server = await runCli(['serve', '--port', '0', '--data-dir', tempDir('agentd-cli-srv-')], {
      env: { OH_SESSION_API_KEYS_0: 'remote-key' },
    });
    const target = ['--url', server.url, '--key', 'remote-key'];
    const { LLM_API_KEY, LLM_BASE_URL } = llm.env([finish('As the reviewer.')]);
    await call(server.url, 'remote-key', '/api/profiles/review-llm', {
      llm: { model: 'openai/review-llm', api_key: LLM_API_KEY, base_url: LLM_BASE_URL },
    });
    await call(server.url, 'remote-key', '/api/agent-profiles/reviewer', {
      llm_profile_ref: 'review-llm',
      system_message_suffix: 'Review only.',
    });
    const run = await agentdToEnd(['run', 'look', '--agent', 'reviewer', '--dir', tempDir(), ...target]);
    expect(run.code, run.output).toBe(0);
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('As the reviewer.');
    const id = /conversation (\S+)/.exec(run.stdout)![1]!;
    const info = await call<{ launched_agent_profile: { agent_profile_id: string } | null }>(
      server.url,
      'remote-key',
      `/api/conversations/${id}`,
    );
    const { profiles } = await call<{ profiles: { id: string; name: string }[] }>(
      server.url,
      'remote-key',
      '/api/agent-profiles',
    );
    expect(info.launched_agent_profile?.agent_profile_id).toBe(
      profiles.find((p) => p.name === 'reviewer')?.id,
    );

    const unknown = await agentdToEnd(['run', 'go', '--agent', 'nope', '--dir', tempDir(), ...target]);
    expect(unknown.code).toBe(2);
    expect(unknown.output).toContain("No agent profile 'nope' (saved: reviewer;");
    const both = await agentdToEnd([
      'run',
      'go',
      '--agent',
      'reviewer',
      '--profile',
      'review-llm',
      ...target,
    ]);
    expect(both.code).toBe(2);
    expect(both.output).toContain('not with --model or --profile');
    await server.stop();
  });

  it('without --url uses the server that holds the data folder; a second server there is refused', async () => {
    const dataDir = tempDir('agentd-cli-shared-');
    const server = await runCli(['serve', '--port', '0', '--data-dir', dataDir]);
    const run = await agentdToEnd(
      ['run', 'share the folder', '--data-dir', dataDir, '--dir', tempDir()],
      llm.env([finish('Shared.')]),
    );
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain(`agentd: using the server at ${server.url}`);
    const id = /conversation (\S+)/.exec(run.stdout)![1]!;
    // It ran on the server, as the folder's user (its key): the server knows it and says finished.
    const info = await call<{ execution_status: string }>(
      server.url,
      server.key!,
      `/api/conversations/${id}`,
    );
    expect(info.execution_status).toBe('finished');

    const second = await agentdToEnd(['serve', '--port', '0', '--data-dir', dataDir]);
    expect(second.code).toBe(2);
    expect(second.output).toContain(`is in use by agentd serve at ${server.url}`);
    expect(await server.stop()).toBe(0);
  });
});

describe('agentd events --follow', () => {
  it('follows live across a server restart with no gap and no duplicate, and ends on Ctrl-C', async () => {
    const port = await closedPort();
    const dataDir = tempDir('agentd-cli-follow-');
    const key = 'follow-key';
    const serve = () =>
      runCli(['serve', '--port', String(port), '--data-dir', dataDir], {
        env: { OH_SESSION_API_KEYS_0: key },
      });
    const llmKey = llm.env([finish('First.'), finish('Second.')]).LLM_API_KEY;
    let server = await serve();
    const { id } = await call<{ id: string }>(server.url, key, '/api/conversations', {
      agent: {
        llm: { model: 'openai/scripted', api_key: llmKey, base_url: llm.url() },
        tools: [{ name: 'terminal' }],
      },
      workspace: { working_dir: tempDir() },
      initial_message: { role: 'user', content: [{ type: 'text', text: 'first' }] },
    });
    const follower = agentd(['events', id, '--follow', '--json', '--url', server.url, '--key', key]);
    const followed = () =>
      follower
        .stdout()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { id: string; kind: string; value?: unknown });
    await waitUntil(() => followed().some((e) => e.value === 'finished'));

    expect(await server.stop()).toBe(0);
    await follower.waitFor('reconnecting');
    server = await serve();
    await call(server.url, key, `/api/conversations/${id}/events`, {
      role: 'user',
      content: [{ type: 'text', text: 'second' }],
      run: true,
    });
    await waitUntil(() => followed().filter((e) => e.value === 'finished').length === 2);

    const stored = await call<{ items: { id: string }[] }>(
      server.url,
      key,
      `/api/conversations/${id}/events/search?limit=100`,
    );
    await waitUntil(() => followed().length >= stored.items.length);
    follower.signal('SIGINT');
    expect(await follower.exited).toBe(0);
    expect(followed().map((e) => e.id)).toEqual(stored.items.map((e) => e.id));
    await server.stop();
  });
});
