// `agentd demo`: a whole conversation with no LLM account. It starts the scripted LLM server and an
// agentd on loopback, starts a conversation over the real HTTP API, and prints the events as they
// arrive over the WebSocket, as `agentd run` shows them (cli/run/format.ts), until the agent finishes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { ScriptedLLM } from '../llm/index.js';
import { startAgentd } from '../server/start.js';
import type { Event } from './run/api.js';
import { describe, type Line } from './run/format.js';
import { Screen } from './run/screen.js';

type Ev = Event & { key?: string; value?: unknown };

/** The status changes, which `describe` leaves to the CLI's spinner, as lines of their own. */
function statusLine(e: Ev): Line[] {
  return e.kind === 'ConversationStateUpdateEvent' && e.key === 'execution_status'
    ? [{ tone: 'note', text: `status → ${e.value}` }]
    : [];
}

export async function demo(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agentd-demo-'));
  const workspace = join(dataDir, 'workspace');
  const llm = new ScriptedLLM();
  await llm.start();
  llm.setDefault([
    {
      text: 'I will look at the workspace first.',
      toolCalls: [{ name: 'terminal', arguments: { command: 'pwd && ls -la', summary: 'look around' } }],
    },
    {
      toolCalls: [
        {
          name: 'file_editor',
          arguments: {
            command: 'create',
            path: join(workspace, 'hello.py'),
            file_text: 'print("hello from agentd")\n',
          },
        },
      ],
    },
    {
      toolCalls: [
        { name: 'terminal', arguments: { command: 'python3 hello.py', summary: 'run the script' } },
      ],
    },
    {
      toolCalls: [
        {
          name: 'finish',
          arguments: { message: 'I wrote hello.py and ran it; it prints "hello from agentd".' },
        },
      ],
    },
  ]);
  const key = 'demo-session-key';
  const agentd = await startAgentd({ dataDir, sessionApiKeys: [key], logger: false });
  await agentd.app.listen({ host: '127.0.0.1', port: 0 });
  const address = agentd.app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  process.stdout.write(`agentd demo: server ${base}, scripted LLM ${llm.url}\n\n`);
  const screen = new Screen();
  try {
    const res = await fetch(`${base}/api/conversations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Session-API-Key': key },
      body: JSON.stringify({
        agent: {
          llm: { model: 'openai/scripted-demo', api_key: 'demo', base_url: llm.openaiBaseUrl },
          tools: [{ name: 'terminal' }, { name: 'file_editor' }],
        },
        workspace: { working_dir: workspace },
        initial_message: {
          role: 'user',
          content: [{ type: 'text', text: 'Write a Python script that says hello, and run it.' }],
        },
      }),
    });
    const { id } = (await res.json()) as { id: string };
    await new Promise<void>((resolve, reject) => {
      const socket = new WebSocket(
        `${base.replace('http', 'ws')}/sockets/events/${id}?session_api_key=${key}&resend_mode=all`,
      );
      socket.on('message', (data) => {
        const event = JSON.parse(data.toString()) as Ev;
        if (event.key === 'full_state') {
          const status = (event.value as { execution_status: string }).execution_status;
          if (status === 'finished' || status === 'error') {
            socket.close();
            resolve();
          }
          return;
        }
        screen.write([...describe(event), ...statusLine(event)]);
      });
      socket.on('error', reject);
    });
    const final = await fetch(`${base}/api/conversations/${id}/agent_final_response`, {
      headers: { 'X-Session-API-Key': key },
    });
    const { response } = (await final.json()) as { response: string };
    screen.write([{ tone: 'message', text: response.trim() }]);
    process.stdout.write(
      `\nDone: conversation ${id}. With \`npm start\` its events stay readable at GET /api/conversations/{id}/events/search.\n`,
    );
  } finally {
    screen.end();
    await agentd.close();
    await llm.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
