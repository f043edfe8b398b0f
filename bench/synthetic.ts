// Synthetic but realistic wire events for benchmarks.
import { newEventId } from '../src/events/index.js';
import { userIdForSessionKey } from '../src/settings/index.js';
import { type TestServer, tempDir } from '../test/support/server.js';

/** A real conversation (through the service), owned by the server's first key; returns its id. */
export async function benchConversation(server: TestServer): Promise<string> {
  const { info } = await server.conversations.start(userIdForSessionKey(server.key), {
    agent: {
      kind: 'Agent',
      llm: { model: 'openai/bench', api_key: 'sk-bench', base_url: 'http://127.0.0.1:9/v1' },
    },
    workspace: { working_dir: tempDir('agentd-bench-ws-') },
  });
  return info.id;
}

/** Alternates agent actions, observations and messages, about 600 bytes each like a real terminal step. */
export function syntheticEvent(i: number) {
  const id = newEventId();
  const timestamp = new Date(Date.UTC(2026, 10, 22, 0, 0, 0, 0) + i).toISOString().replace('Z', '000');
  if (i % 3 === 0) {
    return {
      id,
      timestamp,
      source: 'agent',
      thought: [],
      thinking_blocks: [],
      action: { command: `echo ${i}`, is_input: false, reset: false, kind: 'TerminalAction' },
      tool_name: 'terminal',
      tool_call_id: `call_${i}`,
      tool_call: {
        id: `call_${i}`,
        name: 'terminal',
        arguments: `{"command":"echo ${i}"}`,
        origin: 'completion',
      },
      llm_response_id: `resp_${i}`,
      security_risk: 'UNKNOWN',
      kind: 'ActionEvent',
    };
  }
  if (i % 3 === 1) {
    return {
      id,
      timestamp,
      source: 'environment',
      tool_name: 'terminal',
      tool_call_id: `call_${i - 1}`,
      observation: {
        content: [{ type: 'text', text: `${i}\n`, cache_prompt: false }],
        is_error: false,
        command: `echo ${i - 1}`,
        exit_code: 0,
        timeout: false,
        metadata: {
          exit_code: 0,
          pid: 42,
          username: 'agent',
          hostname: 'box',
          working_dir: '/work',
          prefix: '',
          suffix: '',
        },
        kind: 'TerminalObservation',
      },
      action_id: newEventId(),
      kind: 'ObservationEvent',
    };
  }
  return {
    id,
    timestamp,
    source: 'user',
    llm_message: {
      role: 'user',
      content: [{ type: 'text', text: `message number ${i}`, cache_prompt: false }],
    },
    activated_skills: [],
    extended_content: [],
    kind: 'MessageEvent',
  };
}
