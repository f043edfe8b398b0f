// Helpers for the V1 control plane over its real HTTP API: settings that point at the scripted
// LLM, start tasks polled to the end, and JSON reads.
import { randomUUID } from 'node:crypto';
import type { ScriptedLLM, ScriptStep } from '../../src/llm/index.js';
import { api, type TestServer } from './server.js';

export type Json = Record<string, unknown>;

export async function getJson<T = Json>(server: Pick<TestServer, 'url' | 'key'>, path: string): Promise<T> {
  const res = await api(server, path);
  if (!res.ok) throw new Error(`GET ${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

export async function postJson<T = Json>(
  server: Pick<TestServer, 'url' | 'key'>,
  path: string,
  body: unknown = undefined,
): Promise<T> {
  const res = await api(server, path, {
    method: 'POST',
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`POST ${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

/** Stores the user's LLM settings with a fresh scripted key running `steps`; returns the key. */
export async function useScriptedLLM(
  server: Pick<TestServer, 'url' | 'key'>,
  llm: ScriptedLLM,
  steps: ScriptStep[],
): Promise<string> {
  const key = `sk-${randomUUID()}`;
  llm.script(key, steps);
  await postJson(server, '/api/settings', {
    llm_model: 'openai/scripted-model',
    llm_api_key: key,
    llm_base_url: llm.openaiBaseUrl,
  });
  return key;
}

/** Polls a start task until READY or ERROR (as OpenHands' UI does, faster). */
export async function waitForTask(
  server: Pick<TestServer, 'url' | 'key'>,
  taskId: string,
  timeoutMs = 30_000,
): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [task] = await getJson<Json[]>(server, `/api/v1/app-conversations/start-tasks?ids=${taskId}`);
    if (task && (task.status === 'READY' || task.status === 'ERROR')) return task;
    if (Date.now() > deadline) throw new Error(`start task stayed ${JSON.stringify(task)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Polls until `check` returns a value that is not undefined. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
