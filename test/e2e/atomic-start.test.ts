// Starting a conversation is atomic: a start that cannot work answers 4xx and leaves no record, no
// folder (under the data folder or a workspace it would have created) and no event; a client that
// retries makes no duplicates.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForStatus } from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';

const llm = new ScriptedLLM();
let server: TestServer;
/** Every folder this file makes is under one (tempDir removes it after the file). */
const scratch = tempDir('agentd-atomic-');
let folders = 0;
const folder = () => {
  const path = join(scratch, `f${++folders}`);
  mkdirSync(path);
  return path;
};

beforeAll(async () => {
  await llm.start();
  server = await startServer();
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
});

const goodLlm = () => ({ model: 'openai/scripted', api_key: 'sk-atomic', base_url: llm.openaiBaseUrl });

/** What a start could leave behind: records, folders under the data folder, events. */
async function traces(id: string) {
  const count = (await (await api(server, '/api/conversations/count')).json()) as number;
  const folder = join(server.dataDir, 'conversations');
  return {
    count,
    folders: existsSync(folder) ? readdirSync(folder).sort() : [],
    record: (await api(server, `/api/conversations/${id}`)).status,
    events: (await server.store.events.after(id, 0, 10).catch(() => [])).length,
  };
}

/** Posts a start (with an initial message) and checks that it left nothing; returns the answer. */
async function refusedStart(
  body: Record<string, unknown>,
  workingDir = join(folder(), 'not-yet', 'there'),
): Promise<{ status: number; detail: unknown }> {
  const id = randomUUID();
  const before = await traces(id);
  const res = await api(server, '/api/conversations', {
    method: 'POST',
    body: JSON.stringify({
      conversation_id: id,
      workspace: { working_dir: workingDir },
      initial_message: { role: 'user', content: [{ type: 'text', text: 'hello' }] },
      ...body,
    }),
  });
  const answer = { status: res.status, detail: ((await res.json()) as { detail: unknown }).detail };
  expect(await traces(id)).toEqual({ ...before, record: 404, events: 0 });
  expect(before.record).toBe(404);
  expect(existsSync(join(workingDir, '..', '..'))).toBe(workingDir.includes('not-yet'));
  expect(existsSync(join(workingDir, '..'))).toBe(false);
  return answer;
}

const agent = (llmConfig: Record<string, unknown>, more: Record<string, unknown> = {}) => ({
  agent: { kind: 'Agent', llm: llmConfig, tools: [{ name: 'terminal' }], ...more },
});

describe('a start with an LLM configuration that cannot work', () => {
  it.each([
    [
      'a provider prefix that needs a base URL',
      { model: 'foo/bar', api_key: 'k' },
      'base_url',
      /needs a base URL/,
    ],
    [
      'a base URL that is not a URL',
      { ...goodLlm(), base_url: 'http://exa mple/v1' },
      'base_url',
      /not a valid URL/,
    ],
    [
      'a base URL that is not http',
      { ...goodLlm(), base_url: 'ftp://example.com' },
      'base_url',
      /http:\/\/ or https:\/\//,
    ],
    [
      'a base URL without its scheme',
      { ...goodLlm(), base_url: 'localhost:4000' },
      'base_url',
      /http:\/\/ or https:\/\//,
    ],
    [
      'an Azure deployment without its resource',
      { model: 'azure/my-deployment', api_key: 'k' },
      'base_url',
      /needs a base URL/,
    ],
    ['a blank model', { ...goodLlm(), model: '   ' }, 'model', /must not be empty/],
    ['a prefix without a model', { ...goodLlm(), model: 'openai/' }, 'model', /names no model/],
  ])('%s: 422 at the member, nothing stored', async (_name, llmConfig, field, message) => {
    const { status, detail } = await refusedStart(agent(llmConfig));
    expect(status).toBe(422);
    expect(detail).toEqual([
      { loc: ['body', 'agent', 'llm', field], msg: expect.stringMatching(message), type: 'value_error' },
    ]);
  });

  it("takes OpenHands' own provider without a base URL (its proxy is the default)", async () => {
    const res = await api(server, '/api/conversations', {
      method: 'POST',
      body: JSON.stringify({
        ...agent({ model: 'openhands/claude-sonnet-4-6', api_key: 'oh-key' }),
        workspace: { working_dir: folder() },
      }),
    });
    expect(res.status).toBe(201);
  });

  it("checks the critic's and the condenser's own LLMs too", async () => {
    const members = {
      critic: { kind: 'LLMCritic', llm: { model: 'foo/bar' } },
      condenser: { kind: 'LLMSummarizingCondenser', llm: { model: 'hosted_vllm/x' } },
    };
    for (const [member, config] of Object.entries(members)) {
      const { status, detail } = await refusedStart(agent(goodLlm(), { [member]: config }));
      expect(status).toBe(422);
      expect((detail as { loc: unknown }[])[0]!.loc).toEqual(['body', 'agent', member, 'llm', 'base_url']);
    }
  });

  it('names the stored setting when the LLM comes from the settings', async () => {
    const saved = await api(server, '/api/settings', {
      method: 'POST',
      body: JSON.stringify({ llm_model: 'litellm_proxy/my-model', llm_api_key: 'sk-settings' }),
    });
    expect(saved.ok).toBe(true);
    try {
      const { status, detail } = await refusedStart({});
      expect(status).toBe(422);
      expect(detail).toEqual([
        { loc: ['body', 'agent'], msg: expect.stringMatching(/llm_base_url/), type: 'value_error' },
      ]);
    } finally {
      await api(server, '/api/settings', { method: 'POST', body: JSON.stringify({ llm_model: null }) });
    }
  });
});

describe('other refused starts', () => {
  it('an initial message from another role: 422 at the message, nothing stored', async () => {
    const { status, detail } = await refusedStart({
      ...agent(goodLlm()),
      initial_message: { role: 'assistant', content: [{ type: 'text', text: 'hi' }] },
    });
    expect(status).toBe(422);
    expect((detail as { loc: unknown }[])[0]!.loc).toEqual(['body', 'initial_message', 'role']);
  });

  it('a working directory that cannot be created: 422 at working_dir, nothing stored', async () => {
    const file = join(folder(), 'a-file');
    writeFileSync(file, 'not a folder');
    const id = randomUUID();
    const before = await traces(id);
    const res = await api(server, '/api/conversations', {
      method: 'POST',
      body: JSON.stringify({
        conversation_id: id,
        ...agent(goodLlm()),
        workspace: { working_dir: join(file, 'ws') },
      }),
    });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { detail: { loc: unknown }[] }).detail[0]!.loc).toEqual([
      'body',
      'workspace',
      'working_dir',
    ]);
    expect(await traces(id)).toEqual(before);
  });

  it('a workspace whose skills path is a file starts normally (its skills are skipped)', async () => {
    const workingDir = folder();
    mkdirSync(join(workingDir, '.openhands'));
    writeFileSync(join(workingDir, '.openhands', 'skills'), 'not a folder');
    const res = await api(server, '/api/conversations', {
      method: 'POST',
      body: JSON.stringify({
        ...agent(goodLlm()),
        workspace: { working_dir: workingDir },
        initial_message: { role: 'user', content: [{ type: 'text', text: 'hello' }] },
      }),
    });
    expect(res.status).toBe(201);
  });

  it('a failure while storing it leaves nothing: the record, its events, the workspace it made', async () => {
    // The real database refuses the start's message (a trigger, standing in for a full disk), after
    // the start made its working directory.
    const db = new Database(join(server.dataDir, 'agentd.db'));
    await exec(
      db,
      "CREATE TRIGGER refuse_start BEFORE INSERT ON events WHEN instr(NEW.json, 'refuse me') > 0 " +
        "BEGIN SELECT RAISE(ABORT, 'the disk is full'); END",
    );
    try {
      const message = { role: 'user', content: [{ type: 'text', text: 'refuse me' }] };
      const { status } = await refusedStart({ ...agent(goodLlm()), initial_message: message });
      expect(status).toBe(500);
    } finally {
      await exec(db, 'DROP TRIGGER refuse_start');
      db.close();
    }
  });

  it("a start does not make the conversation's own folder (the first tool that writes there does)", async () => {
    const res = await api(server, '/api/conversations', {
      method: 'POST',
      body: JSON.stringify({ ...agent(goodLlm()), workspace: { working_dir: folder() } }),
    });
    expect(res.status).toBe(201);
    const { persistence_dir } = (await res.json()) as { persistence_dir: string };
    expect(persistence_dir.startsWith(join(server.dataDir, 'conversations'))).toBe(true);
    expect(existsSync(persistence_dir)).toBe(false);
  });
});

/**
 * Runs `sql` through a second connection to the server's database. Not while the server's store has
 * appends open (their group holds the write lock): a wait on the lock here would hold the very
 * event loop that commits them.
 */
async function exec(db: Database.Database, sql: string): Promise<void> {
  db.pragma('busy_timeout = 0');
  for (;;) {
    try {
      db.exec(sql);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

describe('retries of one start', () => {
  it('concurrent starts with one conversation_id make one conversation', async () => {
    const id = randomUUID();
    const body = JSON.stringify({
      conversation_id: id,
      ...agent(goodLlm()),
      workspace: { working_dir: folder() },
    });
    const before = (await (await api(server, '/api/conversations/count')).json()) as number;
    const answers = await Promise.all(
      [1, 2, 3].map(() => api(server, '/api/conversations', { method: 'POST', body })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 201]);
    expect((await (await api(server, '/api/conversations/count')).json()) as number).toBe(before + 1);
  });
});

describe('a start with an initial message', () => {
  it('stores the record with its first events, and answers with the title and the run going', async () => {
    const key = 'sk-atomic-whole';
    llm.script(key, [{ delayMs: 300, text: 'hi' }]);
    const res = await api(server, '/api/conversations', {
      method: 'POST',
      body: JSON.stringify({
        ...agent({ ...goodLlm(), api_key: key }),
        workspace: { working_dir: folder() },
        initial_message: { role: 'user', content: [{ type: 'text', text: 'Fix   the\nbuild' }] },
      }),
    });
    expect(res.status).toBe(201);
    const info = (await res.json()) as { id: string; title: string; execution_status: string };
    // The answer is the record as stored: titled from the message, its run already going.
    expect(info).toMatchObject({ title: 'Fix the build', execution_status: 'running' });
    const events = (await server.store.events.after(info.id, 0, 10)).map((e) => JSON.parse(e.json));
    expect(events.slice(0, 4).map((e) => [e.kind, e.key ?? null])).toEqual([
      ['SystemPromptEvent', null],
      ['MessageEvent', null],
      ['ConversationStateUpdateEvent', 'last_user_message_id'],
      ['ConversationStateUpdateEvent', 'execution_status'],
    ]);
    expect(events[2].value).toBe(events[1].id);
    expect(events[3].value).toBe('running');
    await waitForStatus(server, info.id, ['finished']);
  });

  it('concurrent starts with one conversation_id and a message make one conversation with one message', async () => {
    const id = randomUUID();
    const key = 'sk-atomic-retry';
    llm.script(key, [{ text: 'done' }]);
    const body = JSON.stringify({
      conversation_id: id,
      ...agent({ ...goodLlm(), api_key: key }),
      workspace: { working_dir: folder() },
      initial_message: { role: 'user', content: [{ type: 'text', text: 'once' }] },
    });
    const answers = await Promise.all(
      [1, 2, 3].map(() => api(server, '/api/conversations', { method: 'POST', body })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 201]);
    await waitForStatus(server, id, ['finished']);
    const kinds = (await server.store.events.after(id, 0, 100)).map((e) => JSON.parse(e.json).kind);
    expect(kinds.filter((k) => k === 'MessageEvent')).toHaveLength(2); // the user's and the agent's
    expect(kinds.filter((k) => k === 'SystemPromptEvent')).toHaveLength(1);
  });
});
