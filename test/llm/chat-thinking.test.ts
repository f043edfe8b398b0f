// Claude's thinking through an OpenAI-compatible proxy (LiteLLM's), against the scripted LLM, which
// answers as that proxy does: `thinking_blocks` on the message, streamed a piece per delta.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLLM, type LLMConfig, type LlmMessage } from '../../src/llm/index.js';
import { ScriptedLLM } from '../support/scripted-llm.js';

const llm = new ScriptedLLM();
beforeAll(() => llm.start());
afterAll(() => llm.stop());

const tools = [{ name: 'terminal', description: 'run', parameters: { type: 'object', properties: {} } }];
const text = (t: string) => [{ type: 'text' as const, text: t, cache_prompt: false }];
const user: LlmMessage = { role: 'user', content: text('go') };

let n = 0;
const config = (model: string, extra: Partial<LLMConfig> = {}): LLMConfig => ({
  model,
  api_key: `chat-thinking-key-${++n}`,
  base_url: llm.openaiBaseUrl,
  num_retries: 0,
  ...extra,
});

const blocks = [
  { type: 'thinking', thinking: 'First I look at the files.', signature: 'sig-one' },
  { type: 'thinking', thinking: 'Then I list them.', signature: 'sig-two' },
  { type: 'redacted_thinking', data: 'REDACTED==' },
];

describe('Claude thinking through a proxy', () => {
  it.each([false, true])(
    'keeps the thinking blocks the proxy answers (streamed: %s) and hands them back with the tool result',
    async (stream) => {
      const c = config('litellm_proxy/claude-haiku-4-5', { stream });
      llm.script(c.api_key!, [
        {
          thinking: blocks.slice(0, 2) as { thinking: string; signature: string }[],
          redactedThinking: ['REDACTED=='],
          toolCalls: [{ name: 'terminal', arguments: {} }],
        },
        { text: 'done' },
      ]);
      const model = createLLM(c);
      const first = await model.complete({ messages: [user], tools }, undefined, () => {});
      expect(first.message.thinking_blocks).toEqual(blocks);
      expect(first.message.reasoning_content).toBe('First I look at the files.Then I list them.');
      const call = first.message.tool_calls![0]!;
      const result: LlmMessage = {
        role: 'tool',
        tool_call_id: call.id,
        name: 'terminal',
        content: text('out'),
      };
      await model.complete({ messages: [user, first.message, result], tools }, undefined, () => {});
      const sent = llm.requestsFor(c.api_key!)[1]!.body.messages as Record<string, unknown>[];
      expect(sent[1]).toMatchObject({ role: 'assistant', thinking_blocks: blocks });
      expect(llm.requestsFor(c.api_key!)[0]!.body.stream).toBe(stream || undefined);
    },
  );

  it('sends another model no thinking blocks (OpenAI refuses members it does not know)', async () => {
    const c = config('openai/gpt-4o');
    llm.script(c.api_key!, [{ text: 'ok' }]);
    const earlier: LlmMessage = { role: 'assistant', content: text('hi'), thinking_blocks: blocks as never };
    await createLLM(c).complete({ messages: [user, earlier, user], tools });
    const sent = llm.requestsFor(c.api_key!)[0]!.body.messages as Record<string, unknown>[];
    expect(sent[1]).not.toHaveProperty('thinking_blocks');
  });
});
