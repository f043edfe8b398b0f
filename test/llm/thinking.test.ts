// Claude's extended thinking, as OpenHands asks for it, against the scripted LLM, which refuses what
// Anthropic's Messages API refuses with thinking on (src/llm/scripted/thinking-rules.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLLM, type LLMConfig, type LlmMessage } from '../../src/llm/index.js';
import { ScriptedLLM } from '../support/scripted-llm.js';

const llm = new ScriptedLLM();
beforeAll(() => llm.start());
afterAll(() => llm.stop());

const tools = [{ name: 'terminal', description: 'run', parameters: { type: 'object', properties: {} } }];
const text = (t: string) => [{ type: 'text' as const, text: t, cache_prompt: false }];
const user = (t: string): LlmMessage => ({ role: 'user', content: text(t) });
const toolResult = (id: string): LlmMessage => ({
  role: 'tool',
  tool_call_id: id,
  name: 'terminal',
  content: text('out'),
});

let n = 0;
const config = (model: string, extra: Partial<LLMConfig> = {}): LLMConfig => ({
  model,
  api_key: `thinking-key-${++n}`,
  base_url: llm.url,
  num_retries: 0,
  ...extra,
});

/** The body and headers of the one request a completion of `messages` sent. */
async function sent(c: LLMConfig, messages: LlmMessage[] = [user('go')]) {
  llm.script(c.api_key!, [{ text: 'ok' }]);
  await createLLM(c).complete({ messages, tools });
  const request = llm.requestsFor(c.api_key!)[0]!;
  return { body: request.body, beta: request.headers['anthropic-beta'] };
}

const sampling = { temperature: 0.3, top_p: 0.9, top_k: 40 };

describe('Claude extended thinking', () => {
  it.each(['anthropic/claude-sonnet-4-5-20250929', 'claude-haiku-4-5'])(
    '%s thinks: a budget below max_tokens (32k by default), interleaved, no sampling parameters',
    async (model) => {
      const { body, beta } = await sent(config(model, sampling));
      expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 31_999 });
      expect(body.max_tokens).toBe(32_000);
      expect(beta).toContain('interleaved-thinking-2025-05-14');
      for (const p of Object.keys(sampling)) expect(body).not.toHaveProperty(p);
    },
  );

  it.each(['anthropic/claude-sonnet-4-6', 'claude-opus-4-6', 'anthropic/claude-opus-4-7', 'claude-fable-5'])(
    '%s thinks adaptively at the reasoning_effort asked, with no budget, beta header or sampling parameters',
    async (model) => {
      const { body, beta } = await sent(
        config(model, { ...sampling, reasoning_effort: 'high', extended_thinking_budget: 4096 }),
      );
      expect(body.thinking).toEqual({ type: 'adaptive' });
      expect(body.output_config).toEqual({ effort: 'high' });
      expect(body.max_tokens).toBe(32_000);
      expect(beta).toBeUndefined();
      for (const p of Object.keys(sampling)) expect(body).not.toHaveProperty(p);
    },
  );

  it.each([
    [undefined, undefined],
    ['minimal', { effort: 'low' }],
    ['max', { effort: 'max' }],
    ['unheard-of', undefined],
  ])('maps reasoning_effort %s to the effort %j', async (reasoning_effort, outputConfig) => {
    const { body } = await sent(config('claude-opus-4-6', { reasoning_effort }));
    expect(body.thinking).toEqual({ type: 'adaptive' });
    expect(body.output_config).toEqual(outputConfig);
  });

  it("takes the client's budget, capped below its max_output_tokens", async () => {
    expect(
      (await sent(config('claude-sonnet-4-5', { extended_thinking_budget: 4096 }))).body.thinking,
    ).toEqual({
      type: 'enabled',
      budget_tokens: 4096,
    });
    const capped = await sent(
      config('claude-sonnet-4-5', { extended_thinking_budget: 5000, max_output_tokens: 3000 }),
    );
    expect(capped.body).toMatchObject({ thinking: { budget_tokens: 2999 }, max_tokens: 3000 });
  });

  it.each([
    ['a model OpenHands runs without it', 'anthropic/claude-sonnet-4', {}],
    ['extended_thinking_budget null', 'claude-sonnet-4-5', { extended_thinking_budget: null }],
    ['extended_thinking_budget 0', 'claude-sonnet-4-5', { extended_thinking_budget: 0 }],
    [
      'a max_output_tokens that leaves less than the API’s 1024',
      'claude-sonnet-4-5',
      { max_output_tokens: 1000 },
    ],
    ['reasoning_effort none', 'claude-sonnet-4-6', { reasoning_effort: 'none' }],
  ])('does not think for %s, and sends its sampling parameters', async (_, model, extra) => {
    const { body, beta } = await sent(config(model, { ...sampling, ...extra }));
    expect(body).not.toHaveProperty('thinking');
    expect(beta).toBeUndefined();
    expect(body).toMatchObject(sampling);
  });

  it('passes its thinking back through a tool turn, which the API requires', async () => {
    const c = config('claude-sonnet-4-5');
    llm.script(c.api_key!, [{ toolCalls: [{ name: 'terminal', arguments: {} }] }, { text: 'done' }]);
    const model = createLLM(c);
    const first = await model.complete({ messages: [user('go')], tools });
    expect(first.message.thinking_blocks).toEqual([
      { type: 'thinking', thinking: 'Scripted thinking.', signature: expect.any(String) },
    ]);
    const call = first.message.tool_calls![0]!;
    const second = await model.complete({
      messages: [user('go'), first.message, toolResult(call.id)],
      tools,
    });
    expect(second.message.content).toEqual(text('done'));
    const [, turn] = llm.requestsFor(c.api_key!)[1]!.body.messages as { content: { type: string }[] }[];
    expect(turn!.content.map((b) => b.type)).toEqual(['thinking', 'tool_use']);
  });

  it('finishes a tool turn begun without thinking (another model, thinking off) without it, then thinks again', async () => {
    const c = config('claude-sonnet-4-5');
    const call = { id: 'toolu_1', name: 'terminal', arguments: '{}', origin: 'completion' as const };
    const before: LlmMessage = { role: 'assistant', content: [], tool_calls: [call] };
    const midTurn = await sent(c, [user('go'), before, toolResult(call.id)]);
    expect(midTurn.body).not.toHaveProperty('thinking');
    const answered: LlmMessage = { role: 'assistant', content: text('done') };
    const nextTurn = await sent(config('claude-sonnet-4-5'), [
      user('go'),
      before,
      toolResult(call.id),
      answered,
      user('and now?'),
    ]);
    expect(nextTurn.body.thinking).toMatchObject({ type: 'enabled' });
  });

  it('thinks adaptively on a tool turn begun without thinking: an adaptive turn may skip it', async () => {
    const call = { id: 'toolu_2', name: 'terminal', arguments: '{}', origin: 'completion' as const };
    const before: LlmMessage = { role: 'assistant', content: [], tool_calls: [call] };
    const { body } = await sent(config('claude-opus-4-6'), [user('go'), before, toolResult(call.id)]);
    expect(body.thinking).toEqual({ type: 'adaptive' });
  });

  it("leaves the client's own anthropic-beta header as it is", async () => {
    const { body, beta } = await sent(
      config('claude-sonnet-4-5', { extra_headers: { 'Anthropic-Beta': 'context-1m-2025-08-07' } }),
    );
    expect(beta).toBe('context-1m-2025-08-07');
    expect(body.thinking).toMatchObject({ type: 'enabled' });
  });

  it.each([
    ['temperature', { temperature: 0.5 }, 'temperature'],
    [
      'a budget under 1024',
      { thinking: { type: 'enabled', budget_tokens: 500 } },
      'greater than or equal to 1024',
    ],
    ['a budget at max_tokens, not interleaved', { max_tokens: 2000 }, 'must be greater than'],
    ['top_k, adaptive', { thinking: { type: 'adaptive' }, top_k: 5 }, 'top_k'],
    [
      'an effort the API does not name',
      { thinking: { type: 'adaptive' }, output_config: { effort: 'huge' } },
      'effort',
    ],
  ])('the scripted LLM refuses thinking with %s, as the API does', async (_, change, message) => {
    const body = {
      model: 'claude-sonnet-4-5',
      max_tokens: 4000,
      thinking: { type: 'enabled', budget_tokens: 2000 },
      messages: [{ role: 'user', content: 'go' }],
      ...change,
    };
    const res = await fetch(`${llm.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain(message);
  });
});
