// Streaming through the real provider SDKs against the scripted server's server-sent events: each
// API hands on its deltas in order and answers exactly what the same call without streaming answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLLM,
  type LLMConfig,
  type LlmDelta,
  type LlmMessage,
  type ScriptStep,
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
const messages: LlmMessage[] = [
  { role: 'user', content: [{ type: 'text', text: 'go', cache_prompt: false }] },
];
const command = 'echo a fairly long command line';

const apis: { api: string; model: string; step: ScriptStep }[] = [
  {
    api: 'chat',
    model: 'openai/gpt-4o',
    step: { text: 'Running it now.', reasoning: 'The user wants output.' },
  },
  {
    api: 'responses',
    model: 'openai/gpt-5-mini',
    step: {
      text: 'Running it now.',
      reasoningItem: { id: 'rs_1', summary: ['The user wants output.'], encrypted_content: 'enc' },
    },
  },
  {
    api: 'messages',
    model: 'anthropic/claude-sonnet-4',
    step: { text: 'Running it now.', thinking: [{ thinking: 'The user wants output.', signature: 'sig' }] },
  },
];

let n = 0;
function configFor(model: string, stream: boolean): LLMConfig {
  n += 1;
  return {
    model,
    api_key: `stream-key-${n}`,
    base_url: model.startsWith('anthropic/') ? llm.url : llm.openaiBaseUrl,
    num_retries: 0,
    stream,
    reasoning_summary: 'auto', // the Responses API's reasoning comes as summaries, when asked for
  };
}

/** The same step, answered once plainly and once streamed. */
async function both(model: string, step: ScriptStep) {
  const plain = configFor(model, false);
  const streamed = configFor(model, true);
  llm.script(plain.api_key!, [step]);
  llm.script(streamed.api_key!, [step]);
  const deltas: LlmDelta[] = [];
  const a = await createLLM(plain).complete({ messages, tools }, undefined, (d) => deltas.push(d));
  const plainDeltas = deltas.length;
  const b = await createLLM(streamed).complete({ messages, tools }, undefined, (d) => deltas.push(d));
  return { a, b, plainDeltas, deltas, plainKey: plain.api_key!, streamKey: streamed.api_key! };
}

describe.each(apis)('streaming over $api', ({ model, step }) => {
  it('hands on content and reasoning deltas and answers what the plain call answers', async () => {
    const { a, b, plainDeltas, deltas, plainKey, streamKey } = await both(model, step);
    expect(plainDeltas).toBe(0);
    expect(llm.requestsFor(plainKey)[0]!.body.stream).toBeUndefined();
    expect(llm.requestsFor(streamKey)[0]!.body.stream).toBe(true);
    const content = deltas.filter((d) => d.type === 'content').map((d) => (d as { text: string }).text);
    const reasoning = deltas.filter((d) => d.type === 'reasoning').map((d) => (d as { text: string }).text);
    expect(content).toEqual(['Running ', 'it ', 'now.']);
    expect(reasoning.join('')).toBe('The user wants output.');
    expect(reasoning.length).toBeGreaterThan(1);
    expect(b.message).toEqual(a.message);
    expect(b.usage).toEqual(a.usage);
    expect(b.finishReason).toEqual(a.finishReason);
    expect(b.id).toMatch(/scripted/);
  });

  it('hands on tool-call argument deltas and assembles the same tool calls', async () => {
    const { a, b, deltas } = await both(model, {
      text: 'Two calls.',
      toolCalls: [
        { name: 'terminal', arguments: { command }, id: 'call_one' },
        { name: 'terminal', arguments: { command: 'ls' }, id: 'call_two' },
      ],
    });
    const calls = deltas.filter((d) => d.type === 'tool_call') as Extract<LlmDelta, { type: 'tool_call' }>[];
    expect(calls.filter((d) => d.id).map((d) => [d.index, d.id, d.name])).toEqual([
      [0, 'call_one', 'terminal'],
      [1, 'call_two', 'terminal'],
    ]);
    const argsOf = (i: number) =>
      calls
        .filter((d) => d.index === i)
        .map((d) => d.arguments)
        .join('');
    expect(JSON.parse(argsOf(0))).toEqual({ command });
    expect(JSON.parse(argsOf(1))).toEqual({ command: 'ls' });
    expect(calls.filter((d) => d.index === 0 && d.arguments).length).toBeGreaterThan(1);
    expect(b.message).toEqual(a.message);
    expect(b.message.tool_calls?.map((c) => c.id)).toEqual(['call_one', 'call_two']);
  });

  it('an abort half-way stops the stream and rejects with the abort', async () => {
    const config = configFor(model, true);
    llm.script(config.api_key!, [{ ...step, streamGapMs: 200 }]);
    const controller = new AbortController();
    const deltas: LlmDelta[] = [];
    const call = createLLM(config).complete({ messages, tools }, controller.signal, (d) => {
      deltas.push(d);
      controller.abort(new Error('interrupted'));
    });
    await expect(call).rejects.toThrow('interrupted');
    expect(deltas).toHaveLength(1);
  });

  it('a stream cut before its end is an error, not a short answer', async () => {
    const config = configFor(model, true);
    llm.script(config.api_key!, [{ ...step, streamCutAfter: 3 }]);
    const call = createLLM(config).complete({ messages, tools }, undefined, () => {});
    await expect(call).rejects.toMatchObject({ name: expect.stringMatching(/^LLM/) });
  });

  it('a provider error before the stream starts is the same error as without streaming', async () => {
    const config = configFor(model, true);
    llm.script(config.api_key!, [{ error: { status: 400, message: 'bad thing' } }]);
    await expect(createLLM(config).complete({ messages, tools }, undefined, () => {})).rejects.toMatchObject({
      name: 'LLMBadRequestError',
    });
  });
});

it('a streaming config without a delta callback calls the provider without streaming', async () => {
  const config = configFor('openai/gpt-4o', true);
  llm.script(config.api_key!, [{ text: 'plain' }]);
  const r = await createLLM(config).complete({ messages, tools });
  expect(r.message.content).toEqual([{ type: 'text', text: 'plain', cache_prompt: false }]);
  expect(llm.requestsFor(config.api_key!)[0]!.body.stream).toBeUndefined();
});

it('vLLM token ids survive streaming', async () => {
  const config = { ...configFor('hosted_vllm/m', true), litellm_extra_body: { return_token_ids: true } };
  llm.script(config.api_key!, [{ text: 'ids', tokenIds: { prompt: [1, 2], response: [3, 4] } }]);
  const r = await createLLM(config).complete({ messages, tools }, undefined, () => {});
  expect(r.tokenIds).toEqual({ prompt: [1, 2], response: [3, 4] });
});
