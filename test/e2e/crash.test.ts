import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { waitUntil } from '../support/process.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { tempDir } from '../support/server.js';

const llm = new ScriptedLLM();
const dataDir = tempDir('agentd-crash-');
const key = 'crash-test-key';

beforeAll(async () => {
  await llm.start();
});
afterAll(async () => {
  await llm.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

type Ev = {
  id: string;
  kind: string;
  error?: string;
  key?: string;
  value?: unknown;
  code?: string;
  detail?: string;
};

describe('kill -9 during a run', () => {
  it('keeps every committed event once, records the interrupted action, and run continues', async () => {
    const serve = () =>
      runCli(['serve', '--port', '0', '--data-dir', dataDir], { env: { OH_SESSION_API_KEYS_0: key } });
    const call = (base: string, path: string, init: RequestInit = {}) =>
      fetch(`${base}${path}`, {
        ...init,
        headers: { 'X-Session-API-Key': key, 'content-type': 'application/json' },
      });

    llm.script('llm-key', [
      { toolCalls: [{ name: 'terminal', arguments: { command: 'echo started; sleep 60' } }] },
      { toolCalls: [{ name: 'finish', arguments: { message: 'finished after the restart' } }] },
    ]);
    let cli = await serve();
    const start = await call(cli.url, '/api/conversations', {
      method: 'POST',
      body: JSON.stringify({
        agent: {
          llm: { model: 'openai/scripted', api_key: 'llm-key', base_url: llm.openaiBaseUrl, num_retries: 0 },
          tools: [{ name: 'terminal' }],
        },
        workspace: { working_dir: tempDir('agentd-crash-ws-') },
        initial_message: { role: 'user', content: [{ type: 'text', text: 'run a long command' }] },
      }),
    });
    expect(start.status).toBe(201);
    const { id } = (await start.json()) as { id: string };

    // Wait until the long command's ActionEvent is committed, then kill the server outright.
    for (;;) {
      const page = (await (
        await call(cli.url, `/api/conversations/${id}/events/search?kind=ActionEvent`)
      ).json()) as { items: Ev[] };
      if (page.items.length > 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const before = (
      (await (await call(cli.url, `/api/conversations/${id}/events/search`)).json()) as { items: Ev[] }
    ).items;
    await cli.stop('SIGKILL');

    cli = await serve();
    try {
      const after = (
        (await (await call(cli.url, `/api/conversations/${id}/events/search`)).json()) as { items: Ev[] }
      ).items;
      // Everything committed before the kill is there, once, in order.
      expect(after.slice(0, before.length).map((e) => e.id)).toEqual(before.map((e) => e.id));
      expect(new Set(after.map((e) => e.id)).size).toBe(after.length);
      const recovery = after.slice(before.length);
      expect(recovery.map((e) => e.kind)).toEqual([
        'AgentErrorEvent',
        'ConversationErrorEvent',
        'ConversationStateUpdateEvent',
      ]);
      expect(recovery[0]!.error).toMatch(/A restart occurred while this tool was in progress/);
      // Why the conversation reads `error`: said at once, in the conversation itself.
      expect(recovery[1]).toMatchObject({ code: 'ServerRestarted', source: 'environment' });
      expect(recovery[1]!.detail).toMatch(/server stopped .* while this conversation was running/);
      expect(recovery[2]).toMatchObject({ key: 'execution_status', value: 'error' });
      // And the server's log says it, naming the conversation (JSON lines: stdout is not a terminal;
      // written in batches, so the line may follow the API's answer by a few milliseconds).
      const logged = new RegExp(`"conversation_id":"${id}".*marked error`);
      await waitUntil(() => logged.test(cli.output()));
      const conversation = (await (await call(cli.url, `/api/conversations/${id}`)).json()) as {
        execution_status: string;
      };
      expect(conversation.execution_status).toBe('error');

      // From here, run continues with the next step.
      expect((await call(cli.url, `/api/conversations/${id}/run`, { method: 'POST' })).status).toBe(200);
      for (;;) {
        const state = (await (await call(cli.url, `/api/conversations/${id}`)).json()) as {
          execution_status: string;
        };
        if (state.execution_status === 'finished') break;
        expect(['running', 'error']).toContain(state.execution_status);
        await new Promise((r) => setTimeout(r, 20));
      }
      const final = (await (await call(cli.url, `/api/conversations/${id}/agent_final_response`)).json()) as {
        response: string;
      };
      expect(final.response).toBe('finished after the restart');
    } finally {
      await cli.stop();
    }
  });
});
