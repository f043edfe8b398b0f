// The critic through real conversations: the agent's LLM and the critic's LLM are two scripts on
// the scripted server (two API keys).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseVerdict } from '../../src/agent/index.js';
import { allEvents, type Ev, info, startConversation, waitForStatus } from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { startServer, type TestServer } from '../support/server.js';

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

const criticLlm = (key: string) => ({
  model: 'openai/critic-model',
  api_key: key,
  base_url: llm.openaiBaseUrl,
  num_retries: 0,
  usage_id: 'critic',
});

describe('LLM critic', () => {
  it('scores the finishing action (default mode) and leaves other actions alone', async () => {
    llm.script('sk-critic-1', [{ text: 'Verdict: {"score": 0.8, "message": "The output was checked."}' }]);
    const { id } = await startConversation(
      server,
      llm,
      [
        { toolCalls: [{ name: 'terminal', arguments: { command: 'echo checked' } }] },
        { toolCalls: [{ name: 'finish', arguments: { message: 'Checked and done.' } }] },
      ],
      {
        message: 'Check the output please',
        agent: { critic: { kind: 'LLMCritic', llm: criticLlm('sk-critic-1') } },
      },
    );
    expect(await waitForStatus(server, id, ['finished', 'error'])).toBe('finished');
    const actions = (await allEvents(server, id)).filter((e) => e.kind === 'ActionEvent');
    expect(actions[0]).not.toHaveProperty('critic_result');
    expect(actions[1]!.critic_result).toEqual({
      score: 0.8,
      message: 'The output was checked.',
      metadata: {
        critic: 'LLMCritic',
        model: 'openai/critic-model',
        llm_response_id: expect.any(String),
        event_ids: [actions[1]!.id],
      },
    });
    // The critic read the conversation and the step it judged.
    const [request] = llm.requestsFor('sk-critic-1');
    const prompt = JSON.stringify(request!.body.messages);
    expect(prompt).toContain('Check the output please');
    expect(prompt).toContain('echo checked');
    expect(prompt).toContain('Checked and done.');
    expect(request!.body.tools).toBeUndefined();
    // Its usage is in the conversation's stats, under its usage id (next to the agent's and the
    // default condenser's); its key is never shown.
    const details = await info(server, id);
    expect(Object.keys((details.stats as { usage_to_metrics: object }).usage_to_metrics).sort()).toEqual([
      'agent',
      'condenser',
      'critic',
    ]);
    expect((details.agent as { critic: { llm: { api_key: string } } }).critic.llm.api_key).toBe('**********');
  });

  it('in all_actions mode scores every action and the agent reply; a critic that fails is skipped', async () => {
    llm.script('sk-critic-2', [
      { text: '{"score": 1.7, "message": "over the top"}' },
      { text: 'I cannot say.' },
    ]);
    const { id } = await startConversation(
      server,
      llm,
      [{ toolCalls: [{ name: 'terminal', arguments: { command: 'echo a' } }] }, { text: 'Here you go.' }],
      { agent: { critic: { kind: 'LLMCritic', llm: criticLlm('sk-critic-2'), mode: 'all_actions' } } },
    );
    expect(await waitForStatus(server, id, ['finished', 'error'])).toBe('finished');
    const events = await allEvents(server, id);
    const action = events.find((e) => e.kind === 'ActionEvent') as Ev & { critic_result: { score: number } };
    expect(action.critic_result.score).toBe(1); // clamped to the spec's 0..1
    const reply = events.find((e) => e.kind === 'MessageEvent' && e.source === 'agent')!;
    expect(reply).not.toHaveProperty('critic_result');
  });

  it('PassCritic scores replies 1 without any LLM call', async () => {
    const { id } = await startConversation(server, llm, [{ text: 'Hello.' }], {
      agent: { critic: { kind: 'PassCritic' } },
    });
    expect(await waitForStatus(server, id, ['finished', 'error'])).toBe('finished');
    const reply = (await allEvents(server, id)).find(
      (e) => e.kind === 'MessageEvent' && e.source === 'agent',
    )!;
    expect(reply.critic_result).toMatchObject({ score: 1, message: null });
  });

  it('parses verdicts defensively', () => {
    expect(parseVerdict('{"score": "0.25", "message": "meh"}')).toEqual({ score: 0.25, message: 'meh' });
    expect(parseVerdict('{"score": -3}')).toEqual({ score: 0, message: null });
    expect(parseVerdict('no json')).toBeNull();
    expect(parseVerdict('{"message": "no score"}')).toBeNull();
  });
});
