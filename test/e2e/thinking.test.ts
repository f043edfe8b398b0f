// Claude's extended thinking through the server: an agent on a model that thinks asks for it, stores
// each step's thinking on its ActionEvent, and hands it back with the tool result, as the Messages
// API requires (the scripted LLM refuses a tool turn whose thinking was dropped).
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  allEvents,
  finishStep,
  startConversation,
  terminalStep,
  waitForStatus,
} from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { startServer, type TestServer } from '../support/server.js';

const llm = new ScriptedLLM();
let server: TestServer;
beforeAll(async () => {
  await llm.start();
  server = await startServer();
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
});

const budgeted = (budget_tokens: number) => ({ thinking: { type: 'enabled', budget_tokens } });
it.each([
  ['claude-haiku-4-5', {}, budgeted(63_999)],
  ['claude-haiku-4-5', { extended_thinking_budget: 2048 }, budgeted(2048)],
  [
    'claude-opus-4-6',
    { reasoning_effort: 'high' },
    { thinking: { type: 'adaptive' }, output_config: { effort: 'high' } },
  ],
])('an agent on %s with %j thinks and runs a tool loop to the end', async (model, extra, asked) => {
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
  expect(actions[0]!.thinking_blocks).toEqual([
    { type: 'thinking', thinking: 'Scripted thinking.', signature: expect.any(String) },
  ]);
  const turns = requests[1]!.body.messages as {
    role: string;
    content: { type: string; signature?: string }[];
  }[];
  const assistant = turns.filter((t) => t.role === 'assistant').at(-1)!;
  expect(assistant.content[0]).toMatchObject({
    type: 'thinking',
    signature: (actions[0]!.thinking_blocks as { signature: string }[])[0]!.signature,
  });
});
