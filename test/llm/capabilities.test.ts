// OpenHands' SDK's api_mode and capability_overrides, which name what a model takes where agentd's
// table cannot know (proxy aliases, models newer than it): each decides what a request carries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLLM, type LLMConfig, route } from '../../src/llm/index.js';
import { ScriptedLLM } from '../support/scripted-llm.js';

const llm = new ScriptedLLM();
beforeAll(() => llm.start());
afterAll(() => llm.stop());

let n = 0;
/** The body of the one request a completion with this LLM sends (to the scripted LLM). */
async function sentBody(model: string, extra: Partial<LLMConfig>) {
  const anthropic = model.startsWith('anthropic/');
  const c: LLMConfig = {
    model,
    api_key: `capability-key-${++n}`,
    base_url: anthropic ? llm.url : llm.openaiBaseUrl,
    num_retries: 0,
    ...extra,
  };
  llm.script(c.api_key!, [{ text: 'ok' }]);
  const system = {
    role: 'system' as const,
    content: [{ type: 'text' as const, text: 'be brief', cache_prompt: false }],
  };
  const user = {
    role: 'user' as const,
    content: [{ type: 'text' as const, text: 'go', cache_prompt: false }],
  };
  await createLLM(c).complete({ messages: [system, user], tools: [] });
  return llm.requestsFor(c.api_key!)[0]!.body;
}

describe('api_mode', () => {
  it('forces the API, over use_responses_api and the model', () => {
    expect(route({ model: 'openai/gpt-5', api_mode: 'chat' }).api).toBe('chat');
    expect(route({ model: 'openai/gpt-4o', api_mode: 'responses' }).api).toBe('responses');
    expect(route({ model: 'openai/gpt-5', api_mode: 'auto' }).api).toBe('responses');
    expect(route({ model: 'openai/gpt-5', api_mode: 'chat', use_responses_api: true }).api).toBe('chat');
    const proxy = { model: 'litellm_proxy/my-alias', base_url: 'http://127.0.0.1:4000' };
    expect(route({ ...proxy, api_mode: 'responses' }).api).toBe('responses');
    expect(route({ ...proxy, capability_overrides: { supports_responses_api: true } }).api).toBe('responses');
    expect(route(proxy).api).toBe('chat');
  });
});

describe('capability_overrides', () => {
  it('supports_reasoning_effort sends or withholds the effort whatever the model', async () => {
    const on = { reasoning_effort: 'high', capability_overrides: { supports_reasoning_effort: true } };
    expect(await sentBody('openai/gpt-4o', on)).toMatchObject({ reasoning_effort: 'high' });
    const off = { reasoning_effort: 'high', capability_overrides: { supports_reasoning_effort: false } };
    expect(await sentBody('hosted_vllm/qwen3', off)).not.toHaveProperty('reasoning_effort');
  });

  it('supports_sampling_params false leaves out temperature and top_p (chat) and top_k (Anthropic)', async () => {
    const sampling = {
      temperature: 0.2,
      top_p: 0.9,
      top_k: 5,
      capability_overrides: { supports_sampling_params: false },
    };
    for (const body of [
      await sentBody('openai/gpt-4o', sampling),
      await sentBody('anthropic/claude-sonnet-4', sampling),
    ]) {
      for (const p of ['temperature', 'top_p', 'top_k']) expect(body).not.toHaveProperty(p);
    }
  });

  it("sends no temperature or top_p to OpenAI's reasoning models (they refuse them), unless told", async () => {
    const sampling = { temperature: 0.2, top_p: 0.9 };
    const o3 = await sentBody('litellm_proxy/o3', { ...sampling, api_mode: 'chat' });
    expect(o3).not.toHaveProperty('temperature');
    expect(o3).not.toHaveProperty('top_p');
    expect(await sentBody('openai/gpt-4o', sampling)).toMatchObject(sampling);
    const told = { ...sampling, capability_overrides: { supports_sampling_params: true } };
    expect(await sentBody('openai/gpt-5', { ...told, api_mode: 'chat' })).toMatchObject(sampling);
  });

  it('supports_prompt_cache marks a proxy alias of Claude for the cache, or no Claude at all', async () => {
    const alias = await sentBody('litellm_proxy/house-model', {
      capability_overrides: { supports_prompt_cache: true },
    });
    expect(JSON.stringify(alias.messages)).toContain('cache_control');
    const claude = await sentBody('anthropic/claude-sonnet-4', {
      capability_overrides: { supports_prompt_cache: false },
    });
    expect(JSON.stringify(claude)).not.toContain('cache_control');
  });

  it.each([
    ['disable_vision', { disable_vision: true }],
    ['supports_vision false', { capability_overrides: { supports_vision: false } }],
  ])('%s leaves images out, each replaced by a line that says so', async (_, extra) => {
    const withImage = async (more: Partial<LLMConfig>) => {
      const c: LLMConfig = {
        model: 'openai/gpt-4o',
        api_key: `vision-key-${++n}`,
        base_url: llm.openaiBaseUrl,
        ...more,
      };
      llm.script(c.api_key!, [{ text: 'ok' }]);
      const content = [
        { type: 'text' as const, text: 'what is this?', cache_prompt: false },
        { type: 'image' as const, image_urls: ['data:image/png;base64,iVBORw0KGgo='], cache_prompt: false },
      ];
      await createLLM(c).complete({ messages: [{ role: 'user', content }], tools: [] });
      return JSON.stringify(llm.requestsFor(c.api_key!)[0]!.body.messages);
    };
    const without = await withImage(extra);
    expect(without).not.toContain('image_url');
    expect(without).toContain('1 image(s) left out');
    expect(await withImage({})).toContain('image_url');
  });

  it.each([
    ['adaptive', 'anthropic/claude-opus-5', { thinking: { type: 'adaptive' } }],
    ['manual', 'anthropic/claude-opus-4-6', { thinking: { type: 'enabled', budget_tokens: 31_999 } }],
  ])('thinking_mode %s decides how %s thinks', async (mode, model, expected) => {
    expect(await sentBody(model, { capability_overrides: { thinking_mode: mode } })).toMatchObject(expected);
  });

  it('thinking_mode none turns thinking off where agentd would think', async () => {
    const body = await sentBody('anthropic/claude-haiku-4-5', {
      capability_overrides: { thinking_mode: 'none' },
    });
    expect(body).not.toHaveProperty('thinking');
    expect(body.max_tokens).toBe(8192);
  });
});
