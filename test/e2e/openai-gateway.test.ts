// OpenHands' OpenAI-compatible gateway, driven by OpenAI's own Node SDK against the real server: a
// chat completion runs the agent (on an LLM profile, the scripted LLM behind it) to its end and
// answers its final response, in one piece or streamed; a conversation named again goes on.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Script } from '../../src/llm/index.js';
import { allEvents, info, terminalOutputs } from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer } from '../support/server.js';

const llm = new ScriptedLLM();
let server: TestServer;
let client: OpenAI;

beforeAll(async () => {
  await llm.start();
  server = await startServer({ keys: ['alice-key', 'bob-key'] });
  // The session key is OpenAI's API key: it goes as `Authorization: Bearer`.
  client = new OpenAI({ apiKey: 'alice-key', baseURL: `${server.url}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
});

/** Saves an LLM profile of alice's whose model answers `script`. */
async function profile(name: string, script: Script, key = 'alice-key', on = server): Promise<void> {
  const apiKey = `sk-${randomUUID()}`;
  llm.script(apiKey, script);
  const res = await api(on, `/api/profiles/${name}`, {
    method: 'POST',
    key,
    body: JSON.stringify({
      llm: { model: 'openai/scripted-model', api_key: apiKey, base_url: llm.openaiBaseUrl, num_retries: 0 },
    }),
  });
  expect(res.status).toBe(201);
}

const finish = (message: string) => ({ toolCalls: [{ name: 'finish', arguments: { message } }] });
const systemPromptOf = (body: Record<string, unknown>) =>
  JSON.stringify((body.messages as { role: string }[]).filter((m) => m.role === 'system'));

describe('/v1/chat/completions and /v1/models through the openai SDK', () => {
  it("runs the task on the profile's LLM and answers the agent's final response; a named conversation goes on", async () => {
    const asked: Record<string, unknown>[] = [];
    await profile('scripted', (request, index) => {
      asked.push(request.body);
      if (index === 0) return { toolCalls: [{ name: 'terminal', arguments: { command: 'echo $((6*7))' } }] };
      return finish(index === 1 ? 'The answer is 42.' : 'Still 42.');
    });
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['openhands_scripted']);

    const { data, response } = await client.chat.completions
      .create({
        model: 'openhands_scripted',
        messages: [
          { role: 'system', content: 'Answer in one sentence.' },
          { role: 'user', content: 'What is 6 times 7?' },
        ],
      })
      .withResponse();
    expect(data.choices[0]?.message).toMatchObject({ role: 'assistant', content: 'The answer is 42.' });
    expect(data.choices[0]?.finish_reason).toBe('stop');
    expect(data.model).toBe('openhands_scripted');
    // Two LLM calls at the scripted server's 100 prompt and 20 completion tokens each.
    expect(data.usage).toEqual({ prompt_tokens: 200, completion_tokens: 40, total_tokens: 240 });
    const id = response.headers.get('x-openhands-serverconversation-id') ?? '';
    const conversation = await info(server, id);
    expect((conversation.workspace as { working_dir: string }).working_dir).toBe(
      join(server.dataDir, 'gateway', id),
    );
    expect(terminalOutputs(await allEvents(server, id))).toEqual(['42']);
    // The system message joined the agent's system prompt; the task was the user's message.
    expect(systemPromptOf(asked[0]!)).toContain('Answer in one sentence.');

    const again = await client.chat.completions
      .create(
        { model: 'openhands_scripted', messages: [{ role: 'user', content: 'And now?' }] },
        { headers: { 'X-OpenHands-ServerConversation-ID': id } },
      )
      .withResponse();
    expect(again.data.choices[0]?.message.content).toBe('Still 42.');
    expect(again.data.usage).toEqual({ prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 });
    expect(again.response.headers.get('x-openhands-serverconversation-id')).toBe(id);
    const users = (await allEvents(server, id)).filter(
      (e) => e.kind === 'MessageEvent' && e.source === 'user',
    );
    expect(users).toHaveLength(2);
  });

  it('streams the answer as chunks, with the usage when asked', async () => {
    await profile('streamer', [finish('Streamed answer.')]);
    const stream = await client.chat.completions.create({
      model: 'openhands_streamer',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Say something' }] }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: unknown = null;
    const finishes: (string | null)[] = [];
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.choices[0]) finishes.push(chunk.choices[0].finish_reason);
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Streamed answer.');
    expect(finishes.at(-1)).toBe('stop');
    expect(usage).toEqual({ prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 });
  });

  it('refuses what it cannot run with OpenAI-shaped errors the SDK raises, and ends a failed run as a 502', async () => {
    await expect(
      client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    // Another user's profile is not a model of alice's.
    await profile('bobs', [finish('no')], 'bob-key');
    await expect(
      client.chat.completions.create({
        model: 'openhands_bobs',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    ).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(
      client.chat.completions.create({
        model: 'openhands_scripted',
        messages: [{ role: 'system', content: 'x' }],
      }),
    ).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(
      client.chat.completions.create({
        model: 'openhands_scripted',
        messages: [
          { role: 'user', content: [{ type: 'input_audio', input_audio: { data: '', format: 'wav' } }] },
        ],
      }),
    ).rejects.toThrow(/Unsupported content part type: input_audio/);

    await profile('broken', [{ error: { status: 400, message: 'this model is broken' } }]);
    const failed = await client.chat.completions
      .create({ model: 'openhands_broken', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(OpenAI.APIError);
    expect((failed as InstanceType<typeof OpenAI.APIError>).status).toBe(502);

    expect((failed as Error).message).toMatch(/Agent run ended with status: error/);
    // The conversation it ran in is named, to look at or go on with.
    const failedIn = (failed as InstanceType<typeof OpenAI.APIError>).headers?.get(
      'x-openhands-serverconversation-id',
    );
    expect((await info(server, failedIn ?? '')).execution_status).toBe('error');
    const anonymous = new OpenAI({ apiKey: 'wrong-key', baseURL: `${server.url}/v1`, maxRetries: 0 });
    await expect(anonymous.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    // A request Fastify refuses (422) reads as one too.
    await expect(
      client.chat.completions.create({ model: 'openhands_scripted', messages: [] }),
    ).rejects.toThrow(/messages/);
  });

  it('answers a completion still waiting with a 503 at once when the server shuts down', async () => {
    const own = await startServer({ keys: ['carol-key'] });
    await profile(
      'slow',
      [{ toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 30' } }] }],
      'carol-key',
      own,
    );
    const pending = api(own, '/v1/chat/completions', {
      method: 'POST',
      key: 'carol-key',
      body: JSON.stringify({ model: 'openhands_slow', messages: [{ role: 'user', content: 'wait' }] }),
    });
    // The run is under way (its terminal command sleeps) before the server closes.
    const id = await new Promise<string>((resolve) => {
      const poll = async () => {
        const page = (await (await api(own, '/api/conversations/search', { key: 'carol-key' })).json()) as {
          items: { id: string; execution_status: string }[];
        };
        const running = page.items.find((c) => c.execution_status === 'running');
        if (running) resolve(running.id);
        else setTimeout(poll, 50);
      };
      void poll();
    });
    const started = Date.now();
    const closed = own.close({ remove: true });
    const answer = await pending;
    expect(answer.status).toBe(503);
    expect(answer.headers.get('x-openhands-serverconversation-id')).toBe(id);
    expect(((await answer.json()) as { error: { message: string } }).error.message).toMatch(/shutting down/);
    await closed;
    // Well before the 10 s the server gives requests still in flight at shutdown.
    expect(Date.now() - started).toBeLessThan(8000);
  });
});
