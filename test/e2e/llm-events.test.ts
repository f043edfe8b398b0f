// TokenEvent, LLMCompletionLogEvent and Claude's thinking through real conversations; the scripted LLM
// plays a vLLM backend that returns token ids, Claude (refusing a tool turn whose thinking was dropped)
// and LiteLLM's proxy in front of Claude.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allEvents,
  type Ev,
  finishStep,
  startConversation,
  terminalStep,
  waitForStatus,
} from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { startServer, type TestServer } from '../support/server.js';
import { connect, wsUrl } from '../support/ws.js';

let server: TestServer;
const llm = new ScriptedLLM();

beforeAll(async () => {
  await llm.start();
  server = await startServer({ toolOptions: { noChangeTimeoutSeconds: 2 } });
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
});

const codes = (text: string) => Array.from(text, (c) => c.codePointAt(0));

describe('token ids from a vLLM-style backend', () => {
  it('emits a TokenEvent per completion when the LLM asks for token ids', async () => {
    llm.script('sk-vllm-tokens', [
      { toolCalls: [{ name: 'terminal', arguments: { command: 'echo hi' } }] },
      { text: 'All done.', tokenIds: { prompt: [1, 2, 3], response: [42, 43] } },
    ]);
    const { id } = await startConversation(server, llm, [], {
      message: 'Say hi',
      agent: {
        llm: {
          model: 'hosted_vllm/scripted',
          api_key: 'sk-vllm-tokens',
          base_url: llm.openaiBaseUrl,
          num_retries: 0,
          litellm_extra_body: { return_token_ids: true },
        },
      },
    });
    expect(await waitForStatus(server, id, ['finished', 'error'])).toBe('finished');
    // The request asked the backend for the ids.
    const requests = llm.requestsFor('sk-vllm-tokens');
    expect(requests.map((r) => r.body.return_token_ids)).toEqual([true, true]);

    const events = await allEvents(server, id);
    const tokens = events.filter((e) => e.kind === 'TokenEvent');
    expect(tokens).toHaveLength(2);
    expect(tokens[0]).toMatchObject({
      source: 'agent',
      prompt_token_ids: codes('Say hi'),
      response_token_ids: codes('terminal{"command":"echo hi"}'),
    });
    expect(tokens[1]).toMatchObject({ prompt_token_ids: [1, 2, 3], response_token_ids: [42, 43] });
    // Each TokenEvent comes right after its completion, before what the completion produced.
    const order = events
      .map((e) => e.kind)
      .filter((k) => ['TokenEvent', 'ActionEvent', 'MessageEvent'].includes(k));
    expect(order).toEqual(['MessageEvent', 'TokenEvent', 'ActionEvent', 'TokenEvent', 'MessageEvent']);
  });

  it('emits none for a backend that returns no token ids', async () => {
    const { id } = await startConversation(server, llm, [{ text: 'Hello.' }]);
    expect(await waitForStatus(server, id, ['finished', 'error'])).toBe('finished');
    expect((await allEvents(server, id)).some((e) => e.kind === 'TokenEvent')).toBe(false);
  });
});

describe('LLM completion logs', () => {
  it('streams each completion as an LLMCompletionLogEvent, with every secret masked', async () => {
    const secret = 'ghp_Sup3rSecret"Value\\123';
    const apiKey = 'sk-log-completions-key';
    llm.script(apiKey, [
      { toolCalls: [{ name: 'terminal', arguments: { command: 'echo $GITHUB_TOKEN' } }] },
      { error: { status: 400, message: 'bad request from the scripted LLM' } },
    ]);
    const { id } = await startConversation(server, llm, [], {
      message: `Use the token ${secret} carefully`,
      agent: {
        llm: {
          model: 'openai/logged-model',
          api_key: apiKey,
          base_url: llm.openaiBaseUrl,
          num_retries: 0,
          usage_id: 'agent',
          log_completions: true,
        },
      },
      extra: { secrets: { GITHUB_TOKEN: secret } },
    });
    const client = await connect(
      wsUrl(server.url, `/sockets/events/${id}?session_api_key=${server.key}&resend_mode=all`),
    );
    expect(await waitForStatus(server, id, ['finished', 'error'])).toBe('error');
    const events = await allEvents(server, id);
    const logs = events.filter((e) => e.kind === 'LLMCompletionLogEvent') as (Ev & {
      filename: string;
      log_data: string;
    })[];
    expect(logs).toHaveLength(2);
    expect(logs[0]).toMatchObject({
      source: 'environment',
      model_name: 'openai/logged-model',
      usage_id: 'agent',
    });
    expect(logs[0]!.filename).toMatch(/^openai__logged-model-\d+\.\d{3}-[0-9a-f]{4}\.json$/);
    expect(logs[1]!.filename).toMatch(/-error\.json$/);
    const first = JSON.parse(logs[0]!.log_data) as Record<string, unknown>;
    expect(first).toMatchObject({ model: 'openai/logged-model', usage_summary: { prompt_tokens: 100 } });
    expect(JSON.stringify(first.response)).toContain('chatcmpl-scripted');
    expect(JSON.stringify(first.messages)).toContain('<secret-hidden>');
    const second = JSON.parse(logs[1]!.log_data) as { error: { type: string } };
    expect(second.error.type).toBe('LLMBadRequestError');
    for (const log of logs) {
      expect(log.log_data).not.toContain('Sup3rSecret');
      expect(log.log_data).not.toContain(apiKey);
    }
    // The same events reached the WebSocket client.
    await client.next((f) => (f as Ev).id === logs[1]!.id);
    client.close();
  });
});

describe("Claude's thinking", () => {
  const budgeted = (budget_tokens: number) => ({ thinking: { type: 'enabled', budget_tokens } });
  it.each([
    ['claude-haiku-4-5', {}, budgeted(31_999)],
    ['claude-haiku-4-5', { extended_thinking_budget: 2048 }, budgeted(2048)],
    [
      'claude-opus-4-6',
      { reasoning_effort: 'high' },
      { thinking: { type: 'adaptive' }, output_config: { effort: 'high' } },
    ],
  ])(
    'an agent on %s with %j thinks, keeps its thinking and hands it back through a tool loop',
    async (model, extra, asked) => {
      const { id, key } = await startConversation(server, llm, [terminalStep('echo thought'), finishStep], {
        tools: ['terminal'],
        model: `anthropic/${model}`,
        llm: { base_url: llm.url, ...extra },
      });
      expect(await waitForStatus(server, id, ['finished', 'error'])).toBe('finished');
      const requests = llm.requestsFor(key);
      expect(requests).toHaveLength(2);
      for (const r of requests) expect(r.body).toMatchObject(asked);
      const actions = (await allEvents(server, id)).filter((e) => e.kind === 'ActionEvent');
      const [block] = actions[0]!.thinking_blocks as { thinking: string; signature: string }[];
      expect(block).toEqual({
        type: 'thinking',
        thinking: 'Scripted thinking.',
        signature: expect.any(String),
      });
      const turns = requests[1]!.body.messages as { role: string; content: { type: string }[] }[];
      const assistant = turns.filter((t) => t.role === 'assistant').at(-1)!;
      expect(assistant.content[0]).toMatchObject({ type: 'thinking', signature: block!.signature });
    },
  );

  it('through an OpenAI-compatible proxy (LiteLLM’s), the thinking it answers goes back with the tool result', async () => {
    const thinking = [{ thinking: 'Proxied thinking.', signature: 'proxy-signature' }];
    const { id, key } = await startConversation(
      server,
      llm,
      [{ ...terminalStep('echo thought'), thinking }, finishStep],
      { tools: ['terminal'], model: 'litellm_proxy/claude-haiku-4-5' },
    );
    expect(await waitForStatus(server, id, ['finished', 'error'])).toBe('finished');
    const actions = (await allEvents(server, id)).filter((e) => e.kind === 'ActionEvent');
    const blocks = [{ type: 'thinking', ...thinking[0] }];
    expect(actions[0]!.thinking_blocks).toEqual(blocks);
    const turns = llm.requestsFor(key)[1]!.body.messages as Record<string, unknown>[];
    expect(turns.filter((t) => t.role === 'assistant').at(-1)).toMatchObject({ thinking_blocks: blocks });
  });
});
