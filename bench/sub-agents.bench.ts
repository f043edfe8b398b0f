// Sub-agent tasks on the real binary: one task, then 8 tasks of one answer run at once
// (tool_concurrency_limit 8), each sub-agent an echo and a finish against an LLM that answers in
// 100 ms (OpenHands' stress budget: 8 parallel sub-agents take at most 1.5× the wall time of one, and
// the server gains at most 64 file descriptors).
import { readdirSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { RecordedRequest, ScriptStep } from '../src/llm/index.js';
import { ScriptedLLM } from '../src/llm/index.js';
import { createConversation, dataDir, post, startBinary, untilFinished } from './binary-lib.js';
import { ms, record } from './lib.js';

const LLM_MS = 100;
const PARALLEL = 8;

const firstUserText = (request: RecordedRequest) => {
  const user = (request.body.messages as { role: string; content: unknown }[]).find((m) => m.role === 'user');
  return JSON.stringify(user?.content ?? '');
};
const said = (request: RecordedRequest, role: string) =>
  (request.body.messages as { role: string }[]).some((m) => m.role === role);

/** The parent sends `tasks` task calls in one answer, then finishes; each sub-agent echoes, then finishes. */
function script(tasks: number) {
  return (request: RecordedRequest): ScriptStep => {
    const step = (s: Omit<ScriptStep, 'delayMs'>): ScriptStep => ({ ...s, delayMs: LLM_MS });
    if (firstUserText(request).includes('BENCH-TASK'))
      return said(request, 'assistant')
        ? step({ toolCalls: [{ name: 'finish', arguments: { message: 'echoed' } }] })
        : step({ toolCalls: [{ name: 'terminal', arguments: { command: 'echo sub-agent' } }] });
    if (said(request, 'tool'))
      return step({ toolCalls: [{ name: 'finish', arguments: { message: 'done' } }] });
    return step({
      toolCalls: Array.from({ length: tasks }, (_, i) => ({
        name: 'task',
        arguments: {
          prompt: `BENCH-TASK ${i}: run echo`,
          subagent_type: 'bash-runner',
          description: `task ${i}`,
        },
      })),
    });
  };
}

const openFiles = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

export async function benchSubAgents(): Promise<void> {
  const llm = new ScriptedLLM();
  await llm.start();
  const b = await startBinary(dataDir('subagents'));
  const run = async (tasks: number) => {
    const key = `bench-subagents-${tasks}-${performance.now()}`;
    llm.script(key, script(tasks));
    const id = await createConversation(
      b.url,
      { url: llm.openaiBaseUrl, key },
      {
        agent: {
          llm: { model: 'openai/bench', api_key: key, base_url: llm.openaiBaseUrl, num_retries: 0 },
          tools: [{ name: 'terminal' }, { name: 'task_tool_set' }],
          tool_concurrency_limit: PARALLEL,
        },
      },
    );
    const done = untilFinished(b.url, id);
    await new Promise((r) => setTimeout(r, 20)); // the socket is open before the task is sent
    const t = performance.now();
    await post(b.url, `/api/conversations/${id}/events`, {
      role: 'user',
      content: [{ type: 'text', text: 'delegate' }],
      run: true,
    });
    await done;
    return performance.now() - t;
  };
  await run(1); // the first task loads what tasks use (sub-agent files, built-ins, a shell)
  const before = openFiles(b.pid);
  const one = await run(1);
  const many = await run(PARALLEL);
  const grown = openFiles(b.pid) - before;
  await b.stop();
  await llm.stop();
  const ratio = many / one;
  record({
    name: `sub-agent tasks (LLM ${LLM_MS} ms a call): 1 task / ${PARALLEL} at once, sent → finished`,
    value: `${ms(one)} / ${ms(many)}`,
  });
  record({
    name: `sub-agent tasks: ${PARALLEL} at once / 1 (wall ratio); file descriptors gained`,
    value: `${ratio.toFixed(2)}×; ${grown}`,
    goal: '≤ 1.5×; ≤ 64',
    met: ratio <= 1.5 && grown <= 64,
  });
}
