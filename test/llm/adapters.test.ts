import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openaiClient } from '../../src/llm/clients.js';
import {
  backoffSeconds,
  createLLM,
  endpointOf,
  LLMAuthenticationError,
  LLMBadRequestError,
  type LLMConfig,
  LLMRateLimitError,
  type LlmMessage,
  OPENHANDS_LLM_PROXY,
  route,
  routingProblems,
} from '../../src/llm/index.js';
import { ScriptedLLM } from '../support/scripted-llm.js';

const llm = new ScriptedLLM();
beforeAll(() => llm.start());
afterAll(() => llm.stop());

const tools = [
  {
    name: 'terminal',
    description: 'run',
    parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  },
];
const user = (text: string): LlmMessage => ({
  role: 'user',
  content: [{ type: 'text', text, cache_prompt: false }],
});
const system: LlmMessage = {
  role: 'system',
  content: [{ type: 'text', text: 'be brief', cache_prompt: false }],
};
let n = 0;
const config = (model: string, extra: Partial<LLMConfig> = {}): LLMConfig => {
  n += 1;
  const anthropic = model.startsWith('anthropic/');
  return {
    model,
    api_key: `key-${n}`,
    base_url: anthropic ? llm.url : llm.openaiBaseUrl,
    num_retries: 0,
    ...extra,
  };
};

describe('model routing', () => {
  it('routes LiteLLM-style model strings', () => {
    expect(route({ model: 'openai/gpt-4o' })).toMatchObject({ api: 'chat', model: 'gpt-4o' });
    expect(route({ model: 'gpt-5-mini' })).toMatchObject({ api: 'responses' });
    expect(route({ model: 'openai/gpt-5', use_responses_api: false })).toMatchObject({ api: 'chat' });
    expect(route({ model: 'anthropic/claude-sonnet-4' })).toMatchObject({
      api: 'messages',
      model: 'claude-sonnet-4',
    });
    expect(route({ model: 'claude-3-5-haiku' })).toMatchObject({ api: 'messages' });
    expect(route({ model: 'litellm_proxy/my-model', base_url: 'http://127.0.0.1:1' })).toMatchObject({
      provider: 'compatible',
      api: 'chat',
      model: 'my-model',
    });
    expect(() => route({ model: 'litellm_proxy/my-model' })).toThrow(LLMBadRequestError);
  });

  it("sends OpenHands' own models (openhands/…) to its LLM proxy, unless base_url names another", async () => {
    const model = 'openhands/claude-sonnet-4-6';
    expect(route({ model })).toMatchObject({
      provider: 'compatible',
      api: 'chat',
      model: 'claude-sonnet-4-6',
    });
    expect(routingProblems({ model })).toEqual([]);
    expect(endpointOf({ model })).toBe(OPENHANDS_LLM_PROXY);
    expect(endpointOf({ model, base_url: ' ' })).toBe(OPENHANDS_LLM_PROXY);
    expect(endpointOf({ model, base_url: 'http://127.0.0.1:4000' })).toBe('http://127.0.0.1:4000');
    expect(endpointOf({ model: 'openai/gpt-4o' })).toBeUndefined();
    expect((await openaiClient({ model })).baseURL).toBe(OPENHANDS_LLM_PROXY);
    expect(routingProblems({ model: 'litellm_proxy/claude-sonnet-4-6' })[0]?.field).toBe('base_url');
  });

  it.each([
    ['openrouter/anthropic/claude-sonnet-4.5', 'https://openrouter.ai/api/v1', 'anthropic/claude-sonnet-4.5'],
    ['deepseek/deepseek-chat', 'https://api.deepseek.com/v1', 'deepseek-chat'],
    ['gemini/gemini-2.5-pro', 'https://generativelanguage.googleapis.com/v1beta/openai', 'gemini-2.5-pro'],
    ['mistral/devstral-medium-2507', 'https://api.mistral.ai/v1', 'devstral-medium-2507'],
  ])(
    'runs %s with its key alone, at the provider’s endpoint (a base_url still wins)',
    (model, endpoint, name) => {
      expect(routingProblems({ model })).toEqual([]);
      expect(route({ model })).toMatchObject({ provider: 'compatible', api: 'chat', model: name });
      expect(endpointOf({ model })).toBe(endpoint);
      expect(endpointOf({ model, base_url: 'http://127.0.0.1:4000/v1' })).toBe('http://127.0.0.1:4000/v1');
    },
  );

  it('backs off exponentially within [min, max]', () => {
    const c = { model: 'x', retry_min_wait: 1, retry_max_wait: 10, retry_multiplier: 2 };
    expect([1, 2, 3, 4, 5].map((a) => backoffSeconds(a, c))).toEqual([2, 4, 8, 10, 10]);
  });
});

describe('OpenAI chat completions', () => {
  it('returns text with usage, cost and latency, and sends the tools', async () => {
    const c = config('openai/gpt-4o');
    llm.script(c.api_key!, [{ text: 'hello', usage: { prompt_tokens: 1000, completion_tokens: 100 } }]);
    const model = createLLM(c);
    const response = await model.complete({ messages: [system, user('hi')], tools });
    expect(response.message.content).toEqual([{ type: 'text', text: 'hello', cache_prompt: false }]);
    expect(response.usage).toMatchObject({ prompt_tokens: 1000, completion_tokens: 100 });
    expect(response.cost).toBeCloseTo((1000 * 2.5 + 100 * 10) / 1e6);
    expect(response.latencyMs).toBeGreaterThan(0);
    const sent = llm.requestsFor(c.api_key!)[0]!.body as { tools: unknown[]; messages: { role: string }[] };
    expect(sent.tools).toHaveLength(1);
    expect(sent.messages.map((m) => m.role)).toEqual(['system', 'user']);
    const stats = model.metrics.snapshot() as {
      usage_to_metrics: Record<string, { accumulated_cost: number }>;
    };
    expect(stats.usage_to_metrics.default?.accumulated_cost).toBeCloseTo(response.cost);
  });

  it('returns parallel tool calls and sends results back as tool messages', async () => {
    const c = config('openai/gpt-4o');
    llm.script(c.api_key!, [
      {
        toolCalls: [
          { name: 'terminal', arguments: { command: 'ls' } },
          { name: 'terminal', arguments: { command: 'pwd' } },
        ],
        reasoning: 'two at once',
      },
      { text: 'done' },
    ]);
    const model = createLLM(c);
    const first = await model.complete({ messages: [user('go')], tools });
    expect(first.message.tool_calls?.map((t) => JSON.parse(t.arguments).command)).toEqual(['ls', 'pwd']);
    expect(first.message.tool_calls?.every((t) => t.origin === 'completion')).toBe(true);
    expect(first.message.reasoning_content).toBe('two at once');
    const toolMessages: LlmMessage[] = first.message.tool_calls!.map((t) => ({
      role: 'tool',
      tool_call_id: t.id,
      name: t.name,
      content: [{ type: 'text', text: 'out', cache_prompt: false }],
    }));
    await model.complete({ messages: [user('go'), first.message, ...toolMessages], tools });
    const sent = llm.requestsFor(c.api_key!)[1]!.body as {
      messages: { role: string; tool_call_id?: string; tool_calls?: unknown[] }[];
    };
    expect(sent.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(sent.messages[1]!.tool_calls).toHaveLength(2);
  });

  it('retries a 429 and then succeeds', async () => {
    const c = config('openai/gpt-4o', {
      num_retries: 2,
      retry_min_wait: 0.01,
      retry_max_wait: 0.02,
      retry_multiplier: 0.01,
    });
    llm.script(c.api_key!, [{ error: { status: 429 } }, { error: { status: 503 } }, { text: 'third time' }]);
    const response = await createLLM(c).complete({ messages: [user('x')], tools: [] });
    expect(response.message.content?.[0]).toMatchObject({ text: 'third time' });
    expect(llm.requestsFor(c.api_key!)).toHaveLength(3);
  });

  it('gives up with LLMRateLimitError when retries are exhausted', async () => {
    const c = config('openai/gpt-4o', {
      num_retries: 1,
      retry_min_wait: 0.01,
      retry_max_wait: 0.01,
      retry_multiplier: 0.01,
    });
    llm.script(c.api_key!, [{ error: { status: 429 } }, { error: { status: 429 } }]);
    await expect(createLLM(c).complete({ messages: [user('x')], tools: [] })).rejects.toBeInstanceOf(
      LLMRateLimitError,
    );
  });

  it('fails at once with LLMAuthenticationError on a wrong key, without the key in the message', async () => {
    const c = config('openai/gpt-4o', { num_retries: 3 });
    llm.script(c.api_key!, [{ error: { status: 401, message: `bad key ${c.api_key}` } }]);
    const error = await createLLM(c)
      .complete({ messages: [user('x')], tools: [] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LLMAuthenticationError);
    expect((error as Error).name).toBe('LLMAuthenticationError');
    expect((error as Error).message).not.toContain(c.api_key);
    expect(llm.requestsFor(c.api_key!)).toHaveLength(1);
  });

  it('stops when aborted', async () => {
    const c = config('openai/gpt-4o');
    llm.script(c.api_key!, [{ delayMs: 2000, text: 'late' }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('interrupted')), 50);
    await expect(
      createLLM(c).complete({ messages: [user('x')], tools: [] }, controller.signal),
    ).rejects.toThrow();
  });
});

describe('prompt caching through an OpenAI-compatible proxy', () => {
  const conversation = (c: LLMConfig) => [
    system,
    user('go'),
    {
      role: 'assistant' as const,
      content: [],
      tool_calls: [
        { id: 'call-1', name: 'terminal', arguments: '{"command":"ls"}', origin: 'completion' as const },
      ],
    },
    {
      role: 'tool' as const,
      tool_call_id: 'call-1',
      name: 'terminal',
      content: [{ type: 'text' as const, text: `out for ${c.api_key}`, cache_prompt: false }],
    },
  ];
  const sent = async (c: LLMConfig) => {
    llm.script(c.api_key!, [{ text: 'ok' }]);
    await createLLM(c).complete({ messages: conversation(c), tools });
    return llm.requestsFor(c.api_key!)[0]!.body.messages as { role: string; content: unknown }[];
  };

  it('marks the system prompt and the last tool result of a Claude model for the cache', async () => {
    const messages = await sent(config('litellm_proxy/claude-sonnet-4-5', { base_url: llm.openaiBaseUrl }));
    expect(messages[0]).toEqual({
      role: 'system',
      content: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }],
    });
    expect(messages[1]).toEqual({ role: 'user', content: 'go' });
    expect(messages[3]!.content).toEqual([
      { type: 'text', text: expect.stringMatching(/^out for /), cache_control: { type: 'ephemeral' } },
    ]);
  });

  it("marks them the same for OpenHands' own provider (openhands/claude-…)", async () => {
    const messages = await sent(config('openhands/claude-haiku-4-5', { base_url: llm.openaiBaseUrl }));
    expect(JSON.stringify(messages).match(/cache_control/g)).toHaveLength(2);
    expect(llm.requests.at(-1)!.body.model).toBe('claude-haiku-4-5');
  });

  it('sends an OpenAI model, or caching_prompt false, no mark', async () => {
    for (const c of [
      config('openai/gpt-4o'),
      config('litellm_proxy/claude-sonnet-4-5', { base_url: llm.openaiBaseUrl, caching_prompt: false }),
    ]) {
      const messages = await sent(c);
      expect(JSON.stringify(messages)).not.toContain('cache_control');
      expect(messages[0]).toEqual({ role: 'system', content: 'be brief' });
    }
  });
});

describe('OpenAI Responses', () => {
  it('asks for reasoning summaries only when reasoning_summary says so (OpenAI refuses them to unverified organizations)', async () => {
    const sentReasoning = async (extra: Partial<LLMConfig>) => {
      const c = config('openai/gpt-5', extra);
      llm.script(c.api_key!, [{ text: 'ok' }]);
      await createLLM(c).complete({ messages: [user('x')], tools: [] });
      return llm.requestsFor(c.api_key!)[0]!.body.reasoning;
    };
    expect(await sentReasoning({ reasoning_effort: 'high' })).toEqual({ effort: 'high' });
    expect(await sentReasoning({ reasoning_effort: 'low', reasoning_summary: 'detailed' })).toEqual({
      effort: 'low',
      summary: 'detailed',
    });
    expect(await sentReasoning({})).toBeUndefined();
  });

  it('returns reasoning items and tool calls, and passes the reasoning back', async () => {
    const c = config('openai/gpt-5', { reasoning_summary: 'auto' });
    llm.script(c.api_key!, [
      {
        reasoningItem: { id: 'rs_1', summary: ['thought about it'], encrypted_content: 'opaque' },
        toolCalls: [{ name: 'terminal', arguments: { command: 'ls' } }],
      },
      { text: 'finished' },
    ]);
    const model = createLLM(c);
    const first = await model.complete({ messages: [system, user('go')], tools });
    expect(first.message.responses_reasoning_item).toMatchObject({
      id: 'rs_1',
      summary: ['thought about it'],
      encrypted_content: 'opaque',
    });
    expect(first.message.tool_calls?.[0]).toMatchObject({ name: 'terminal', origin: 'responses' });
    expect(first.usage.reasoning_tokens).toBe(5);
    const call = first.message.tool_calls![0]!;
    await model.complete({
      messages: [
        system,
        user('go'),
        first.message,
        {
          role: 'tool',
          tool_call_id: call.id,
          name: 'terminal',
          content: [{ type: 'text', text: 'a b', cache_prompt: false }],
        },
      ],
      tools,
    });
    const sent = llm.requestsFor(c.api_key!)[1]!;
    expect(sent.api).toBe('responses');
    const input = sent.body.input as {
      type?: string;
      id?: string;
      encrypted_content?: string;
      call_id?: string;
    }[];
    expect(input.find((i) => i.type === 'reasoning')).toMatchObject({
      id: 'rs_1',
      encrypted_content: 'opaque',
    });
    expect(input.find((i) => i.type === 'function_call_output')).toMatchObject({ call_id: call.id });
    expect(sent.body.instructions).toBe('be brief');
  });
});

describe('Anthropic Messages', () => {
  it('returns thinking and redacted thinking with signatures, and sends them back on the next turn', async () => {
    const c = config('anthropic/claude-sonnet-4');
    llm.script(c.api_key!, [
      {
        thinking: [{ thinking: 'let me think', signature: 'sig-123' }],
        redactedThinking: ['REDACTED=='],
        toolCalls: [{ name: 'terminal', arguments: { command: 'ls' } }],
      },
      { text: 'done' },
    ]);
    const model = createLLM(c);
    const first = await model.complete({ messages: [system, user('go')], tools });
    expect(first.message.thinking_blocks).toEqual([
      { type: 'thinking', thinking: 'let me think', signature: 'sig-123' },
      { type: 'redacted_thinking', data: 'REDACTED==' },
    ]);
    const call = first.message.tool_calls![0]!;
    expect(JSON.parse(call.arguments)).toEqual({ command: 'ls' });
    await model.complete({
      messages: [
        system,
        user('go'),
        first.message,
        {
          role: 'tool',
          tool_call_id: call.id,
          name: 'terminal',
          content: [{ type: 'text', text: 'out', cache_prompt: false }],
        },
      ],
      tools,
    });
    const sent = llm.requestsFor(c.api_key!)[1]!;
    expect(sent.api).toBe('messages');
    // Prompt caching (on by default): the system prompt and the last user turn carry the two marks.
    expect(sent.body.system).toEqual([
      { type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } },
    ]);
    expect(JSON.stringify(sent.body).match(/cache_control/g)).toHaveLength(2);
    const turns = sent.body.messages as {
      role: string;
      content: { type: string; signature?: string; tool_use_id?: string }[];
    }[];
    expect(turns.map((t) => t.role)).toEqual(['user', 'assistant', 'user']);
    expect(turns[1]!.content.map((b) => b.type)).toEqual(['thinking', 'redacted_thinking', 'tool_use']);
    expect(turns[1]!.content[0]!.signature).toBe('sig-123');
    expect(turns[2]!.content[0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: call.id,
      cache_control: { type: 'ephemeral' },
    });
    expect(turns[0]!.content[0]).not.toHaveProperty('cache_control');
    expect(
      String(
        llm.requestsFor(c.api_key!)[0]!.headers.authorization ??
          llm.requestsFor(c.api_key!)[0]!.headers['x-api-key'],
      ),
    ).toContain(c.api_key!);
  });

  it.each([false, true])(
    'counts the cached parts of the prompt in prompt_tokens and bills them at their prices (streamed: %s)',
    async (stream) => {
      const c = config('anthropic/claude-sonnet-4-5', { stream });
      const usage = {
        prompt_tokens: 5000,
        completion_tokens: 100,
        cache_read_tokens: 3000,
        cache_write_tokens: 1500,
      };
      llm.script(c.api_key!, [{ text: 'ok', usage }]);
      const response = await createLLM(c).complete(
        { messages: [system, user('go')], tools },
        undefined,
        () => {},
      );
      // The wire said input_tokens 500: without the cached parts the agent would think its context small.
      expect(response.usage).toMatchObject(usage);
      expect(response.cost).toBeCloseTo((500 * 3 + 3000 * 0.3 + 1500 * 3.75 + 100 * 15) / 1e6);
    },
  );

  it('marks nothing for the cache with caching_prompt false', async () => {
    const c = config('anthropic/claude-sonnet-4', { caching_prompt: false });
    llm.script(c.api_key!, [{ text: 'ok' }]);
    await createLLM(c).complete({ messages: [system, user('go')], tools });
    const sent = llm.requestsFor(c.api_key!)[0]!;
    expect(sent.body.system).toBe('be brief');
    expect(JSON.stringify(sent.body)).not.toContain('cache_control');
  });

  it('maps a 401 to LLMAuthenticationError', async () => {
    const c = config('anthropic/claude-sonnet-4');
    llm.script(c.api_key!, [{ error: { status: 401 } }]);
    await expect(createLLM(c).complete({ messages: [user('x')], tools: [] })).rejects.toBeInstanceOf(
      LLMAuthenticationError,
    );
  });
});

describe('Azure OpenAI', () => {
  const sent = async (extra: Partial<LLMConfig>) => {
    const c = config('azure/my-gpt-deployment', {
      base_url: `${llm.url}/`,
      max_output_tokens: 500,
      ...extra,
    });
    llm.script(c.api_key!, [{ text: 'ok' }]);
    const answer = await createLLM(c).complete({ messages: [user('x')], tools: [] });
    expect(answer.message.content).toEqual([{ type: 'text', text: 'ok', cache_prompt: false }]);
    return llm.requestsFor(c.api_key!)[0]!;
  };

  it("sends azure/<deployment> to the deployment's chat completions, with the api-key header and max_tokens", async () => {
    const request = await sent({});
    const url = new URL(request.url, 'http://x');
    expect(url.pathname).toBe('/openai/deployments/my-gpt-deployment/chat/completions');
    expect(url.searchParams.get('api-version')).toBe('2025-02-01-preview');
    expect(request.headers['api-key']).toMatch(/^key-/);
    expect(request.body).toMatchObject({ model: 'my-gpt-deployment', max_tokens: 500 });
    expect(request.body).not.toHaveProperty('max_completion_tokens');
  });

  it("takes the LLM's api_version, and a base URL that already ends in /openai", async () => {
    const request = await sent({ api_version: '2024-10-21', base_url: `${llm.url}/openai` });
    expect(request.url).toBe('/openai/deployments/my-gpt-deployment/chat/completions?api-version=2024-10-21');
  });

  it('needs a base URL: the resource', () => {
    expect(routingProblems({ model: 'azure/my-gpt-deployment' })[0]?.field).toBe('base_url');
  });
});

describe('reasoning effort', () => {
  // OpenHands' LLM sends reasoning_effort "high" whatever the model; OpenAI refuses it (400) for its
  // models that do not reason.
  const sentBody = async (model: string) => {
    const c = config(model, { reasoning_effort: 'high' });
    llm.script(c.api_key!, [{ text: 'ok' }]);
    await createLLM(c).complete({ messages: [user('x')], tools: [] });
    return llm.requestsFor(c.api_key!)[0]!;
  };

  it.each([
    'openai/gpt-4o',
    'gpt-4.1-mini',
    'openai/gpt-5-chat-latest',
    'chatgpt-4o-latest',
    'litellm_proxy/gpt-4o',
  ])('leaves it out for %s, which does not reason', async (model) => {
    const { body } = await sentBody(model);
    expect(body).not.toHaveProperty('reasoning_effort');
    expect(body).not.toHaveProperty('reasoning');
  });

  it.each([
    ['openai/o3', { reasoning: { effort: 'high' } }],
    ['openai/gpt-5.1-codex', { reasoning: { effort: 'high' } }],
    ['hosted_vllm/qwen3-32b', { reasoning_effort: 'high' }],
    ['litellm_proxy/claude-sonnet-4-5', { reasoning_effort: 'high' }],
  ])('sends it to %s', async (model, expected) => {
    expect((await sentBody(model)).body).toMatchObject(expected);
  });
});

describe('sampling parameters', () => {
  const sampling = { temperature: 0.3, top_p: 0.9, top_k: 40, seed: 7, max_output_tokens: 300 };
  const sentBody = async (model: string, extra: Partial<LLMConfig> = {}) => {
    const c = config(model, { ...sampling, ...extra });
    llm.script(c.api_key!, [{ text: 'ok' }]);
    await createLLM(c).complete({ messages: [user('x')], tools: [] });
    return llm.requestsFor(c.api_key!)[0]!.body;
  };

  it('sends each to the APIs that take it: seed to chat completions, top_k to Anthropic', async () => {
    const chat = await sentBody('openai/gpt-4o');
    expect(chat).toMatchObject({ temperature: 0.3, top_p: 0.9, seed: 7, max_completion_tokens: 300 });
    expect(chat).not.toHaveProperty('top_k'); // OpenAI refuses members it does not know
    const messages = await sentBody('anthropic/claude-sonnet-4');
    expect(messages).toMatchObject({ temperature: 0.3, top_p: 0.9, top_k: 40, max_tokens: 300 });
    expect(messages).not.toHaveProperty('seed');
  });

  it('leaves out what is not set, and sends litellm_extra_body to Anthropic too', async () => {
    const body = await sentBody('anthropic/claude-sonnet-4', {
      top_p: null,
      top_k: null,
      litellm_extra_body: { metadata: { user_id: 'u-1' } },
    });
    expect(body).not.toHaveProperty('top_p');
    expect(body).not.toHaveProperty('top_k');
    expect(body.metadata).toEqual({ user_id: 'u-1' });
  });
});
