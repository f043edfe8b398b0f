// security_risk: the LLM predicts it per call; the LLM security analyzer keeps it on the action and
// ConfirmRisky decides from it. tool_call keeps what the LLM sent; action never has it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEvents, type Ev, info, startConversation, waitForStatus } from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer } from '../support/server.js';

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

const call = (command: string, risk: string) => ({
  toolCalls: [{ name: 'terminal', arguments: { command, security_risk: risk } }],
});

describe('security risk', () => {
  it('with the LLM analyzer, ConfirmRisky runs low-risk calls and stops at the threshold', async () => {
    const { id, key } = await startConversation(
      server,
      llm,
      [call('echo low', 'LOW'), call('echo high', 'HIGH'), { text: 'Done.' }],
      {
        confirmation_policy: { kind: 'ConfirmRisky', threshold: 'MEDIUM' },
        extra: { security_analyzer: { kind: 'LLMSecurityAnalyzer' } },
      },
    );
    expect(await waitForStatus(server, id, ['waiting_for_confirmation', 'finished', 'error'])).toBe(
      'waiting_for_confirmation',
    );
    const events = await allEvents(server, id);
    const actions = events.filter((e) => e.kind === 'ActionEvent') as (Ev & {
      tool_call: { arguments: string };
      action: Record<string, unknown>;
    })[];
    expect(actions.map((a) => a.security_risk)).toEqual(['LOW', 'HIGH']);
    // The first ran, the second waits.
    expect(events.filter((e) => e.kind === 'ObservationEvent')).toHaveLength(1);
    for (const a of actions) {
      expect(JSON.parse(a.tool_call.arguments)).toHaveProperty('security_risk');
      expect(a.action).not.toHaveProperty('security_risk');
    }
    expect((await info(server, id)).security_analyzer).toEqual({ kind: 'LLMSecurityAnalyzer' });
    // The tools offered to the LLM carry the argument (not on read-only tools).
    const tools = llm.requestsFor(key)[0]!.body.tools as {
      function: { name: string; parameters: { properties: object } };
    }[];
    expect(tools.find((t) => t.function.name === 'terminal')!.function.parameters.properties).toHaveProperty(
      'security_risk',
    );
    expect(tools.find((t) => t.function.name === 'think')!.function.parameters.properties).not.toHaveProperty(
      'security_risk',
    );

    await api(server, `/api/conversations/${id}/events/respond_to_confirmation`, {
      method: 'POST',
      body: JSON.stringify({ accept: true }),
    });
    expect(await waitForStatus(server, id, ['finished', 'error'])).toBe('finished');
  });

  it('without an analyzer the risk is UNKNOWN, so ConfirmRisky (confirm_unknown) asks', async () => {
    const { id } = await startConversation(server, llm, [call('echo low', 'LOW')], {
      confirmation_policy: { kind: 'ConfirmRisky' },
    });
    expect(await waitForStatus(server, id, ['waiting_for_confirmation', 'finished', 'error'])).toBe(
      'waiting_for_confirmation',
    );
    const action = (await allEvents(server, id)).find((e) => e.kind === 'ActionEvent')!;
    expect(action.security_risk).toBe('UNKNOWN');
    expect((await info(server, id)).security_analyzer).toBeNull();
  });

  it('POST security_analyzer turns the analyzer on for a conversation (a state update event)', async () => {
    const { id } = await startConversation(server, llm, [call('echo low', 'LOW'), { text: 'ok' }], {
      message: '',
    });
    const res = await api(server, `/api/conversations/${id}/security_analyzer`, {
      method: 'POST',
      body: JSON.stringify({ security_analyzer: { kind: 'LLMSecurityAnalyzer' } }),
    });
    expect(res.status).toBe(200);
    await api(server, `/api/conversations/${id}/events`, {
      method: 'POST',
      body: JSON.stringify({ role: 'user', content: [{ type: 'text', text: 'go' }], run: true }),
    });
    expect(await waitForStatus(server, id, ['finished', 'error'])).toBe('finished');
    const events = await allEvents(server, id);
    expect(events.find((e) => e.key === 'security_analyzer')).toMatchObject({
      value: { kind: 'LLMSecurityAnalyzer' },
    });
    expect(events.find((e) => e.kind === 'ActionEvent')!.security_risk).toBe('LOW');

    const bad = await api(server, `/api/conversations/${id}/security_analyzer`, {
      method: 'POST',
      body: JSON.stringify({ security_analyzer: { kind: 'MagicAnalyzer' } }),
    });
    expect(bad.status).toBe(422);
  });

  it("the user's security_analyzer setting ('llm') turns it on for new conversations", async () => {
    await api(server, '/api/settings', {
      method: 'POST',
      body: JSON.stringify({ security_analyzer: 'llm' }),
    });
    const { id } = await startConversation(server, llm, [], { message: '' });
    expect((await info(server, id)).security_analyzer).toEqual({ kind: 'LLMSecurityAnalyzer' });
    await api(server, '/api/settings', { method: 'POST', body: JSON.stringify({ security_analyzer: null }) });
  });

  it("the user's confirmation mode confirms the risky actions with an analyzer, every action without", async () => {
    const policyWith = async (settings: Record<string, unknown>) => {
      await api(server, '/api/settings', { method: 'POST', body: JSON.stringify(settings) });
      const { id } = await startConversation(server, llm, [], { message: '' });
      const started = await info(server, id);
      return [started.confirmation_policy, started.security_analyzer];
    };
    expect(await policyWith({ confirmation_mode: true, security_analyzer: 'llm' })).toEqual([
      { kind: 'ConfirmRisky' },
      { kind: 'LLMSecurityAnalyzer' },
    ]);
    expect(await policyWith({ confirmation_mode: true, security_analyzer: null })).toEqual([
      { kind: 'AlwaysConfirm' },
      null,
    ]);
    expect(await policyWith({ confirmation_mode: false, security_analyzer: 'llm' })).toEqual([
      { kind: 'NeverConfirm' },
      { kind: 'LLMSecurityAnalyzer' },
    ]);
    await api(server, '/api/settings', {
      method: 'POST',
      body: JSON.stringify({ confirmation_mode: false, security_analyzer: null }),
    });
  });

  it('an invalid security_risk value is a validation error the agent sees', async () => {
    const { id } = await startConversation(server, llm, [call('echo x', 'EXTREME'), { text: 'ok' }]);
    expect(await waitForStatus(server, id, ['finished', 'error'])).toBe('finished');
    const error = (await allEvents(server, id)).find((e) => e.kind === 'AgentErrorEvent') as Ev & {
      error: string;
    };
    expect(error.error).toContain('security_risk must be one of');
  });
});
