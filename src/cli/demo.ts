// `agentd demo`: a whole conversation with no LLM account. It starts the scripted LLM server and an
// agentd on loopback, starts a conversation over the real HTTP API, and prints the events as they
// arrive over the WebSocket, until the agent finishes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { ScriptedLLM } from '../llm/index.js';
import { startAgentd } from '../server/start.js';

type Ev = Record<string, unknown> & { kind: string; source?: string };

function describe(e: Ev): string | null {
  const text = (content: unknown) =>
    ((content as { text?: string }[] | undefined) ?? []).map((c) => c.text ?? '').join('');
  switch (e.kind) {
    case 'SystemPromptEvent':
      return `system prompt with ${(e.tools as unknown[]).length} tools`;
    case 'MessageEvent':
      return `${e.source} says: ${text((e.llm_message as { content: unknown }).content)}`;
    case 'ActionEvent':
      return `agent calls ${e.tool_name}: ${(e.tool_call as { arguments: string }).arguments}`;
    case 'ObservationEvent':
      return `${e.tool_name} answers: ${text((e.observation as { content: unknown }).content)
        .trim()
        .split('\n')
        .join('\n    ')}`;
    case 'AgentErrorEvent':
      return `error from ${e.tool_name}: ${e.error}`;
    case 'ConversationStateUpdateEvent':
      return e.key === 'execution_status' ? `status → ${e.value}` : null;
    default:
      return e.kind;
  }
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
        const line = describe(event);
        if (line) process.stdout.write(`• ${line}\n`);
      });
      socket.on('error', reject);
    });
    process.stdout.write(
      `\nDone: conversation ${id}. With \`npm start\` its events stay readable at GET /api/conversations/{id}/events/search.\n`,
    );
  } finally {
    await agentd.close();
    await llm.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
