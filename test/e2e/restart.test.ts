// A conversation cut off by a server stop says so: after the restart it reads `error` with a
// ConversationErrorEvent `ServerRestarted`, stored (REST, WebSocket replay) and logged with its id.
// (test/e2e/crash.test.ts does the same through kill -9 of the real binary.)
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEvents, startConversation, waitForStatus } from '../support/conversation.js';
import { RecordingLogger } from '../support/recording-logger.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { startServer, type TestServer, tempDir } from '../support/server.js';
import { connect, wsUrl } from '../support/ws.js';

const llm = new ScriptedLLM();
const dataDir = tempDir('agentd-restart-');
let server: TestServer | null = null;

beforeAll(() => llm.start());
afterAll(async () => {
  await server?.close({ remove: true });
  await llm.stop();
});

describe('a server stop during a run', () => {
  it('leaves a ServerRestarted error event, over REST and WebSocket, and a log line', async () => {
    const first = await startServer({ dataDir, keys: ['restart-key'] });
    // The LLM answers only after the server is gone: the run is cut off in the middle of a step.
    const { id, key } = await startConversation(first, llm, [{ delayMs: 60_000, text: 'too late' }], {
      workingDir: join(dataDir, 'workspace'),
    });
    await waitForStatus(first, id, ['running']);
    while (llm.requestsFor(key).length === 0) await new Promise((r) => setTimeout(r, 20));
    await first.close();

    const logger = new RecordingLogger();
    server = await startServer({ dataDir, keys: ['restart-key'], serviceLogger: logger });
    expect(await waitForStatus(server, id, ['error', 'running', 'idle', 'finished'])).toBe('error');
    const events = await allEvents(server, id);
    const errors = events.filter((e) => e.kind === 'ConversationErrorEvent');
    expect(errors).toEqual([
      expect.objectContaining({
        code: 'ServerRestarted',
        source: 'environment',
        detail: expect.stringMatching(/server stopped .* while this conversation was running/),
      }),
    ]);
    // The error comes right before the status change it explains.
    expect(events.slice(-2).map((e) => e.kind)).toEqual([
      'ConversationErrorEvent',
      'ConversationStateUpdateEvent',
    ]);

    const client = await connect(
      wsUrl(server.url, `/sockets/events/${id}?session_api_key=restart-key&resend_mode=all`),
    );
    try {
      const replayed = (await client.next((f) => (f as { id?: string }).id === errors[0]!.id)) as {
        code?: string;
      };
      expect(replayed.code).toBe('ServerRestarted');
    } finally {
      client.close();
    }

    expect(logger.about(id)).toEqual([
      expect.objectContaining({
        level: 'warn',
        message: 'conversation was running when the server stopped; marked error',
      }),
    ]);
  });
});
