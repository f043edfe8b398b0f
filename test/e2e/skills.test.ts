// Agent context through real conversations: repository instructions from the workspace (AGENTS.md)
// reach the system prompt; keyword skills ride on the user message that triggers them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSkillFile } from '../../src/agent/index.js';
import { allEvents, type Ev, info, startConversation, waitForStatus } from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';

let server: TestServer;
const llm = new ScriptedLLM();

beforeAll(async () => {
  await llm.start();
  server = await startServer();
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
});

type Msg = Ev & { activated_skills: string[]; extended_content: { text: string }[] };

describe('skills and agent context', () => {
  it('AGENTS.md goes into the dynamic context; keyword skills into extended_content, once', async () => {
    const workingDir = tempDir('agentd-ws-');
    writeFileSync(join(workingDir, 'AGENTS.md'), 'Always run `make lint` before you finish.\n');
    mkdirSync(join(workingDir, '.openhands', 'skills'), { recursive: true });
    writeFileSync(
      join(workingDir, '.openhands', 'skills', 'deploy.md'),
      '---\nname: deploy\ntriggers:\n  - deploy\n  - release\n---\nDeploys go through `./ship.sh --staging` first.\n',
    );
    const { id, key } = await startConversation(server, llm, [{ text: 'Noted.' }, { text: 'Again noted.' }], {
      workingDir,
      message: 'Please DEPLOY the app',
      agent: {
        agent_context: {
          skills: [
            {
              name: 'flaky',
              content: 'Retry flaky tests once.',
              trigger: { type: 'keyword', keywords: ['flaky'] },
            },
          ],
          user_message_suffix: 'Answer briefly.',
        },
      },
    });
    expect(await waitForStatus(server, id, ['finished', 'error'])).toBe('finished');
    let events = await allEvents(server, id);
    const system = events.find((e) => e.kind === 'SystemPromptEvent') as Ev & {
      dynamic_context: { text: string };
    };
    expect(system.dynamic_context.text).toContain('Always run `make lint` before you finish.');
    expect(system.dynamic_context.text).not.toContain('ship.sh');
    const first = events.find((e) => e.kind === 'MessageEvent' && e.source === 'user') as Msg;
    expect(first.activated_skills).toEqual(['deploy']);
    expect(first.extended_content.map((c) => c.text).join('\n')).toContain('./ship.sh --staging');
    expect(first.extended_content.at(-1)!.text).toBe('Answer briefly.');
    // The LLM saw both: the instructions in the system message, the skill with the user's message.
    const request = JSON.stringify(llm.requestsFor(key)[0]!.body.messages);
    expect(request).toContain('make lint');
    expect(request).toContain('ship.sh --staging');
    expect((await info(server, id)).activated_knowledge_skills).toEqual(['deploy']);

    // A second message: deploy is already known; flaky is new.
    await api(server, `/api/conversations/${id}/events`, {
      method: 'POST',
      body: JSON.stringify({
        role: 'user',
        content: [{ type: 'text', text: 'deploy again, the tests are flaky' }],
        run: true,
      }),
    });
    expect(await waitForStatus(server, id, ['finished', 'error'])).toBe('finished');
    events = await allEvents(server, id);
    const second = events.filter((e) => e.kind === 'MessageEvent' && e.source === 'user')[1] as Msg;
    expect(second.activated_skills).toEqual(['flaky']);
    expect((await info(server, id)).activated_knowledge_skills).toEqual(['deploy', 'flaky']);
  });

  it('load_project_skills false ignores the workspace', async () => {
    const workingDir = tempDir('agentd-ws-');
    writeFileSync(join(workingDir, 'AGENTS.md'), 'Secret house rules.\n');
    const { id } = await startConversation(server, llm, [{ text: 'ok' }], {
      workingDir,
      agent: { agent_context: { load_project_skills: false } },
    });
    expect(await waitForStatus(server, id, ['finished', 'error'])).toBe('finished');
    const system = (await allEvents(server, id)).find((e) => e.kind === 'SystemPromptEvent')!;
    expect(JSON.stringify(system)).not.toContain('house rules');
  });

  it('reads skill front matter: name and triggers, inline or as a list', () => {
    expect(parseSkillFile('---\nname: x\ntriggers: [a, "b c"]\n---\nbody', 'f')).toEqual({
      name: 'x',
      content: 'body',
      keywords: ['a', 'b c'],
    });
    expect(parseSkillFile('no front matter', 'file')).toEqual({
      name: 'file',
      content: 'no front matter',
      keywords: null,
    });
  });
});
