// LLM failures are visible at once: a failure retrying cannot fix is a ConversationErrorEvent after
// one request (or none), a retryable one is retried and the run finishes, and every retry and every
// failed call is a log line naming the conversation. Over real HTTP, with the scripted LLM server.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEvents, type Ev, waitForStatus } from '../support/conversation.js';
import { closedPort } from '../support/ports.js';
import { RecordingLogger } from '../support/recording-logger.js';
import { ScriptedLLM, type ScriptStep } from '../support/scripted-llm.js';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';

const llm = new ScriptedLLM();
const logger = new RecordingLogger();
let server: TestServer;
/** The conversations' working directories (tempDir removes it after the file). */
const scratch = tempDir('agentd-llm-failures-');

beforeAll(async () => {
  await llm.start();
  server = await startServer({ serviceLogger: logger });
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
});

/** Starts a conversation whose LLM is `llmConfig` over the server's defaults (no num_retries given). */
async function start(llmConfig: Record<string, unknown>): Promise<string> {
  const res = await api(server, '/api/conversations', {
    method: 'POST',
    body: JSON.stringify({
      agent: {
        kind: 'Agent',
        llm: { model: 'openai/scripted-model', base_url: llm.openaiBaseUrl, usage_id: 'agent', ...llmConfig },
        tools: [{ name: 'terminal' }],
      },
      workspace: { working_dir: join(scratch, randomUUID()) },
      initial_message: { role: 'user', content: [{ type: 'text', text: 'Do the task.' }] },
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

function scripted(steps: ScriptStep[]): string {
  const key = `sk-${randomUUID()}`;
  llm.script(key, steps);
  return key;
}

const errorEvents = (events: Ev[]) => events.filter((e) => e.kind === 'ConversationErrorEvent');

describe('LLM failures in a conversation', () => {
  it('a 401 is an error event after exactly one request, and one error log line', async () => {
    const key = scripted([{ error: { status: 401, message: 'invalid api key' } }, { text: 'unreached' }]);
    const id = await start({ api_key: key });
    expect(await waitForStatus(server, id, ['error', 'finished'])).toBe('error');
    const [error] = errorEvents(await allEvents(server, id));
    expect(error).toMatchObject({ code: 'LLMAuthenticationError', source: 'environment' });
    expect(error!.detail).toMatch(/401/);
    expect(llm.requestsFor(key)).toHaveLength(1);
    expect(logger.about(id)).toEqual([
      expect.objectContaining({
        level: 'error',
        fields: expect.objectContaining({ attempt: 1, error: 'LLMAuthenticationError', status: 401 }),
      }),
    ]);
    expect(logger.text()).not.toContain(key);
  });

  it('a 429 is retried (a warn line naming the conversation) and the run finishes', async () => {
    const key = scripted([{ error: { status: 429, message: 'slow down' } }, { text: 'Done after a retry.' }]);
    // The retry waits are the request's own (configurable); the defaults are covered in test/llm.
    const id = await start({ api_key: key, retry_min_wait: 0.05, retry_max_wait: 0.05 });
    expect(await waitForStatus(server, id, ['error', 'finished'])).toBe('finished');
    expect(llm.requestsFor(key)).toHaveLength(2);
    expect(errorEvents(await allEvents(server, id))).toEqual([]);
    expect(logger.about(id)).toEqual([
      {
        level: 'warn',
        message: 'LLM call failed; retrying',
        fields: expect.objectContaining({
          conversation_id: id,
          attempt: 1,
          error: 'LLMRateLimitError',
          status: 429,
          wait_s: 0.05,
        }),
      },
    ]);
  });

  it("a key that cannot be sent (the README's `sk-…`) is an error event with no request and no retry", async () => {
    const key = `sk-${randomUUID().slice(0, 8)}…`;
    const before = llm.requests.length;
    const id = await start({ api_key: key });
    expect(await waitForStatus(server, id, ['error', 'finished'])).toBe('error');
    const events = await allEvents(server, id);
    const [error] = errorEvents(events);
    expect(error).toMatchObject({ code: 'LLMAuthenticationError' });
    expect(error!.detail).toMatch(/cannot be sent in an HTTP header/);
    expect(llm.requests.length).toBe(before);
    expect(logger.about(id).map((l) => l.level)).toEqual(['error']);
    expect(JSON.stringify(events)).not.toContain(key);
    expect(logger.text()).not.toContain(key);
  });

  it('a base URL where nothing listens is an error event without retries', async () => {
    const id = await start({
      api_key: 'sk-unreachable',
      base_url: `http://127.0.0.1:${await closedPort()}/v1`,
    });
    expect(await waitForStatus(server, id, ['error', 'finished'])).toBe('error');
    const [error] = errorEvents(await allEvents(server, id));
    expect(error).toMatchObject({ code: 'LLMServiceUnavailableError' });
    expect(error!.detail).toMatch(/ECONNREFUSED/);
    expect(logger.about(id)).toEqual([
      expect.objectContaining({
        level: 'error',
        fields: expect.objectContaining({ attempt: 1, retryable: false }),
      }),
    ]);
  });
});

describe('LLM failures outside a run', () => {
  it('ask_agent answers 502 with the LLM error when the LLM refuses, never a 500', async () => {
    const key = scripted([{ text: 'done' }, { error: { status: 401, message: 'invalid api key' } }]);
    const id = await start({ api_key: key });
    await waitForStatus(server, id, ['finished', 'error']);
    const res = await api(server, `/api/conversations/${id}/ask_agent`, {
      method: 'POST',
      body: JSON.stringify({ question: 'What did you do?' }),
    });
    expect(res.status).toBe(502);
    const body = (await res.json()) as { detail: string };
    expect(body.detail).toMatch(/401/);
    expect(body.detail).not.toContain(key);
  });
});
