// Agent figures against a real agentd process (the built binary) and the scripted LLM:
//  - loop overhead per step: each step is one LLM call answered at once with a `think` call;
//  - an N-step task of one terminal `echo` per step, end to end, and the server's peak RSS.
import { readFileSync, rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { ScriptedLLM, type ScriptStep } from '../src/llm/index.js';
import { runCli } from '../test/support/cli.js';
import { tempDir } from '../test/support/server.js';
import { mb, ms, percentile, record } from './lib.js';

const KEY = 'bench-key';

function peakRssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return kb * 1024;
}

/** Starts a conversation and resolves with the ms from the POST to the full_state that says finished. */
async function timedRun(base: string, llmUrl: string, apiKey: string, workingDir: string): Promise<number> {
  const t = performance.now();
  const res = await fetch(`${base}/api/conversations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Session-API-Key': KEY },
    body: JSON.stringify({
      agent: {
        llm: { model: 'openai/bench', api_key: apiKey, base_url: llmUrl, num_retries: 0 },
        tools: [{ name: 'terminal' }],
      },
      workspace: { working_dir: workingDir },
      max_iterations: 1000,
    }),
  });
  const { id } = (await res.json()) as { id: string };
  const done = new Promise<void>((resolve, reject) => {
    const socket = new WebSocket(`${base.replace('http', 'ws')}/sockets/events/${id}?session_api_key=${KEY}`);
    socket.on('message', (data) => {
      const e = JSON.parse(data.toString()) as { key?: string; value?: { execution_status?: string } };
      const status = e.key === 'full_state' ? e.value?.execution_status : undefined;
      if (status === 'finished') {
        socket.close();
        resolve();
      } else if (status === 'error' || status === 'stuck') {
        socket.close();
        reject(new Error(`the benchmark run ended ${status}`));
      }
    });
    socket.once('open', () => {
      void fetch(`${base}/api/conversations/${id}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Session-API-Key': KEY },
        body: JSON.stringify({ role: 'user', content: [{ type: 'text', text: 'go' }], run: true }),
      });
    });
  });
  await done;
  return performance.now() - t;
}

function stepsScript(
  n: number,
  step: (i: number) => ScriptStep,
): (request: unknown, index: number) => ScriptStep {
  return (_request, index) =>
    index < n ? step(index) : { toolCalls: [{ name: 'finish', arguments: { message: 'done' } }] };
}

export async function benchAgent(): Promise<void> {
  const llm = new ScriptedLLM();
  await llm.start();
  const dataDir = tempDir('agentd-bench-agent-');
  const cli = await runCli(['serve', '--port', '0', '--data-dir', dataDir], {
    env: { OH_SESSION_API_KEYS_0: KEY },
    cwd: process.env.BENCH_BIN_DIR, // another checkout's binary, to compare (see README)
  });
  const pid = cli.proc.pid!;
  try {
    // Warm up the process (JIT, first shell) once.
    llm.script(
      'warm',
      stepsScript(5, (i) => ({
        toolCalls: [{ name: 'terminal', arguments: { command: `echo warm ${i}` } }],
      })),
    );
    await timedRun(cli.url, llm.openaiBaseUrl, 'warm', tempDir('agentd-bench-w-'));

    const steps = 50;
    const thinkRuns: number[] = [];
    for (let run = 0; run < 3; run++) {
      const key = `think-${run}`;
      llm.script(
        key,
        stepsScript(steps, (i) => ({ toolCalls: [{ name: 'think', arguments: { thought: `step ${i}` } }] })),
      );
      thinkRuns.push(
        (await timedRun(cli.url, llm.openaiBaseUrl, key, tempDir('agentd-bench-t-'))) / (steps + 1),
      );
    }
    thinkRuns.sort((a, b) => a - b);
    const overhead = percentile(thinkRuns, 50);
    record({
      name: 'agent loop per step, zero-latency LLM (think tool), p50 of 3×50 steps',
      value: ms(overhead),
      goal: '< 5 ms',
      met: overhead < 5,
    });

    const echoRuns: number[] = [];
    for (let run = 0; run < 3; run++) {
      const key = `echo-${run}`;
      llm.script(
        key,
        stepsScript(steps, (i) => ({
          toolCalls: [{ name: 'terminal', arguments: { command: `echo ${i}` } }],
        })),
      );
      echoRuns.push(
        (await timedRun(cli.url, llm.openaiBaseUrl, key, tempDir('agentd-bench-e-'))) / (steps + 1),
      );
    }
    echoRuns.sort((a, b) => a - b);
    const perStep = percentile(echoRuns, 50);
    record({
      name: `N-step task, one terminal echo per step (N=${steps}), per step, p50 of 3`,
      value: ms(perStep),
      goal: '< 11 ms',
      met: perStep < 11,
    });
    const peak = peakRssBytes(pid);
    record({
      name: `server peak RSS after the N=${steps} runs`,
      value: mb(peak),
      goal: '< 120 MB',
      met: peak < 120 * 1024 * 1024,
    });
  } finally {
    await cli.stop();
    await llm.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
