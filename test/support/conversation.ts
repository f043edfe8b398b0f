// Starting and watching conversations over the real HTTP API, with an agent whose LLM is the
// scripted server (each test uses its own API key, so its own script).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { type Script, ScriptedLLM } from '../../src/llm/index.js';
import { api, startServer, type TestServer, tempDir } from './server.js';

export type Ev = Record<string, unknown> & { kind: string; id: string; source?: string };

export interface StartOptions {
  tools?: string[];
  message?: string;
  confirmation_policy?: Record<string, unknown>;
  max_iterations?: number;
  workingDir?: string;
  model?: string;
  agent?: Record<string, unknown>;
  /** More members of the agent's LLM (merged into the scripted one). */
  llm?: Record<string, unknown>;
  /** More members of the start request (hook_config, security_analyzer, …). */
  extra?: Record<string, unknown>;
}

/**
 * A server and a scripted LLM for a test file: both started before its tests and stopped after (the
 * server's folder removed). `server` is set once `beforeAll` ran.
 */
export function serverAndLlm(options: Parameters<typeof startServer>[0] = {}) {
  const env = { llm: new ScriptedLLM(), server: undefined as unknown as TestServer };
  beforeAll(async () => {
    await env.llm.start();
    env.server = await startServer(options);
  });
  afterAll(async () => {
    await env.server?.close({ remove: true });
    await env.llm.stop();
  });
  return env;
}

export async function startConversation(
  server: TestServer,
  llm: ScriptedLLM,
  steps: Script,
  options: StartOptions = {},
) {
  const key = `sk-${randomUUID()}`;
  llm.script(key, steps);
  const workingDir = options.workingDir ?? tempDir('agentd-ws-');
  const body = {
    agent: {
      kind: 'Agent',
      llm: {
        model: options.model ?? 'openai/scripted-model',
        api_key: key,
        base_url: llm.openaiBaseUrl,
        num_retries: 0,
        usage_id: 'agent',
        ...options.llm,
      },
      tools: (options.tools ?? ['terminal', 'file_editor']).map((name) => ({ name })),
      ...options.agent,
    },
    workspace: { working_dir: workingDir },
    ...options.extra,
    ...(options.confirmation_policy ? { confirmation_policy: options.confirmation_policy } : {}),
    ...(options.max_iterations ? { max_iterations: options.max_iterations } : {}),
    ...(options.message === undefined || options.message
      ? {
          initial_message: {
            role: 'user',
            content: [{ type: 'text', text: options.message ?? 'Do the task.' }],
          },
        }
      : {}),
  };
  const res = await api(server, '/api/conversations', { method: 'POST', body: JSON.stringify(body) });
  if (res.status !== 201) throw new Error(`start answered ${res.status}: ${await res.text()}`);
  const info = (await res.json()) as { id: string };
  return { id: info.id, key, workingDir };
}

export async function info(server: TestServer, id: string): Promise<Record<string, unknown>> {
  return (await (await api(server, `/api/conversations/${id}`)).json()) as Record<string, unknown>;
}

/** Polls until the conversation's status is one of `statuses`. */
export async function waitForStatus(
  server: TestServer,
  id: string,
  statuses: string[],
  timeoutMs = 20_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = (await info(server, id)).execution_status as string;
    if (statuses.includes(status)) return status;
    if (Date.now() > deadline) throw new Error(`status stayed ${status}, wanted ${statuses.join('|')}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The history the conversation's live runtime keeps in memory (agent/resident-history.ts); test-only
 * access, since the service's runtimes are its own.
 */
export function residentHistory(server: TestServer, id: string): readonly Ev[] {
  const service = server.conversations as unknown as {
    runtimes: { get(id: string): { events(): readonly Ev[] } | undefined };
  };
  const runtime = service.runtimes.get(id);
  if (!runtime) throw new Error(`conversation ${id} has no live runtime`);
  return runtime.events();
}

/** Every event of the conversation, through the paged search. */
export async function allEvents(server: TestServer, id: string): Promise<Ev[]> {
  const out: Ev[] = [];
  let pageId: string | null = null;
  do {
    const q: string = pageId ? `?page_id=${pageId}&limit=100` : '?limit=100';
    const page = (await (await api(server, `/api/conversations/${id}/events/search${q}`)).json()) as {
      items: Ev[];
      next_page_id: string | null;
    };
    out.push(...page.items);
    pageId = page.next_page_id;
  } while (pageId);
  return out;
}

/** The kinds in order, with state updates shown as `State:<key>=<value>`, for order assertions. */
export function shape(events: Ev[]): string[] {
  return events.map((e) => {
    if (e.kind === 'ConversationStateUpdateEvent')
      return e.key === 'execution_status' ? `State:${e.value}` : `State:${e.key}`;
    if (e.kind === 'ActionEvent') return `Action:${e.tool_name}`;
    if (e.kind === 'ObservationEvent') return `Observation:${e.tool_name}`;
    if (e.kind === 'MessageEvent') return `Message:${e.source}`;
    return e.kind;
  });
}

/** A scripted LLM step that runs `command` in the terminal. */
export const terminalStep = (command: string) => ({
  toolCalls: [{ name: 'terminal', arguments: { command } }],
});
/** A scripted LLM step that ends the run. */
export const finishStep = { toolCalls: [{ name: 'finish', arguments: { message: 'done' } }] };

/** A summarizing condenser with an LLM of its own: the scripted server's, answering `key`'s script. */
export const summarizer = (llm: ScriptedLLM, key: string, maxSize: number) => ({
  kind: 'LLMSummarizingCondenser',
  llm: {
    model: 'openai/scripted-model',
    api_key: key,
    base_url: llm.openaiBaseUrl,
    num_retries: 0,
    usage_id: 'condenser',
  },
  max_size: maxSize,
  keep_first: 4,
});

/** The trimmed text of each terminal observation, in order. */
export function terminalOutputs(events: Ev[]): string[] {
  return events
    .filter((e) => e.kind === 'ObservationEvent' && e.tool_name === 'terminal')
    .map((e) => ((e.observation as { content: { text: string }[] }).content[0]?.text ?? '').trim());
}

export function withoutStats(kinds: string[]): string[] {
  return kinds.filter((k) => k !== 'State:stats' && k !== 'State:last_user_message_id');
}

/** Polls the events until one matches (for things that happen after the status changes). */
export async function waitForEvent(
  server: TestServer,
  id: string,
  match: (e: Ev) => boolean,
  timeoutMs = 20_000,
): Promise<Ev> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await allEvents(server, id)).find(match);
    if (found) return found;
    if (Date.now() > deadline) throw new Error('no matching event');
    await new Promise((r) => setTimeout(r, 20));
  }
}
