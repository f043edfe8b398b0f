// The real binary from outside: spawn `dist/cli.js serve`, talk to it over loopback like a client,
// read its memory from /proc. Shared by binary.ts's rows.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:http';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { runCli } from '../test/support/cli.js';
import { rawRequest } from '../test/support/http.js';
import { tempDir } from '../test/support/server.js';
import { killOnExit } from './lib.js';

export const KEY = 'bench-key';
/** The checkout whose binary runs (BENCH_BIN_DIR: e.g. an older commit's worktree, to compare). */
const binDir = () => process.env.BENCH_BIN_DIR ?? process.cwd();
export const auth = { 'X-Session-API-Key': KEY };

export interface Binary {
  url: string;
  pid: number;
  stop(): Promise<unknown>;
}

/** Starts `node dist/cli.js serve` (or `npm start`) on a data folder and waits for /ready. */
export async function startBinary(
  dataDir: string,
  options: { viaNpm?: boolean; nodeOptions?: string; env?: Record<string, string> } = {},
): Promise<Binary & { readyMs: number }> {
  const t = performance.now();
  const { viaNpm = false } = options;
  const args = ['--port', '0', '--data-dir', dataDir];
  // BENCH_SERVER_NODE_OPTIONS reaches the server alone (a profiler's --import, say), not the bench.
  const nodeOptions = [process.env.BENCH_SERVER_NODE_OPTIONS, options.nodeOptions].filter(Boolean).join(' ');
  const env = {
    OH_SESSION_API_KEYS_0: KEY,
    ...options.env,
    ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
  };
  const cli = viaNpm
    ? await runCli(args, { command: ['npm', 'start', '--silent', '--'], env, cwd: binDir() })
    : await runCli(['serve', ...args], { env, cwd: binDir() });
  for (;;) {
    const res = await fetch(`${cli.url}/ready`).catch(() => null);
    if (res?.status === 200) break;
  }
  const readyMs = performance.now() - t;
  // Behind `npm start` the server is npm's grandchild; /proc figures are read from the server itself.
  const pid = viaNpm ? serverPid(cli.proc.pid!) : cli.proc.pid!;
  return { url: cli.url, pid, readyMs, stop: () => cli.stop() };
}

function serverPid(root: number): number {
  const children = (pid: number) =>
    readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  let pid = root;
  for (let depth = 0; depth < 4; depth++) {
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    if (cmd.includes('dist/cli.js') || cmd.includes('scripts/start.cjs')) return pid;
    pid = children(pid)[0] ?? pid;
  }
  return pid;
}

/**
 * CPU time of the process's main thread so far, in µs (/proc's schedstat: user and system time,
 * what JavaScript and the syscalls it makes cost). Steadier than wall times on a shared machine.
 */
export function mainThreadCpuMicros(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1000;
}

export function rssBytes(pid: number, field: 'VmRSS' | 'VmHWM' = 'VmRSS'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
}

/**
 * Probes `/health` every `everyMs` until stopped, on a connection of its own, as a load balancer's
 * checker does (in the shared pool it would wait behind this process's other requests, not for the
 * server). `stop` answers each probe's round trip, ms.
 */
export function healthProbe(base: string, everyMs = 10): { stop(): Promise<number[]> } {
  const checker = new Agent({ keepAlive: true, maxSockets: 1 });
  const waits: number[] = [];
  let probing = true;
  const probe = (async () => {
    while (probing) {
      const t = performance.now();
      await rawRequest(base, { method: 'GET', path: '/health', agent: checker });
      waits.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      probing = false;
      await probe;
      checker.destroy();
      return waits;
    },
  };
}

/** `request` run while /health is probed every `everyMs`: its time, the longest probe meanwhile, its value. */
export async function whileProbing<T>(
  url: string,
  request: () => Promise<T>,
  everyMs = 5,
): Promise<{ ms: number; health: number; value: T }> {
  const probe = healthProbe(url, everyMs);
  const t = performance.now();
  const value = await request();
  const ms = performance.now() - t;
  return { ms, health: Math.max(...(await probe.stop())), value };
}

/** The server's RSS now, and a reading of its peak from now on (VmHWM, reset through /proc's clear_refs). */
export function rssFromHere(pid: number): { before: number; peak: () => number } {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  return { before: rssBytes(pid), peak: () => rssBytes(pid, 'VmHWM') };
}

/**
 * GET download-trajectory to its last byte: ms, the zip's bytes, the longest `/health` round trip
 * meanwhile, and the server's RSS before and its peak meanwhile.
 */
export async function trajectoryDownload(
  b: Binary,
  id: string,
): Promise<{ ms: number; bytes: number; healthWorst: number; before: number; peak: number }> {
  const rss = rssFromHere(b.pid);
  const download = await whileProbing(
    b.url,
    async () => {
      const res = await fetch(`${b.url}/api/file/download-trajectory/${id}`, { headers: auth });
      if (res.status !== 200) throw new Error(`download-trajectory answered ${res.status}`);
      return (await res.arrayBuffer()).byteLength;
    },
    10,
  );
  return {
    ms: download.ms,
    bytes: download.value,
    healthWorst: download.health,
    before: rss.before,
    peak: rss.peak(),
  };
}

export async function post<T = { id: string }>(
  base: string,
  path: string,
  body: unknown,
): Promise<{ status: number; json: T }> {
  const res = await rawRequest(base, { method: 'POST', path, headers: auth, body: JSON.stringify(body) });
  return { status: res.status, json: res.text ? JSON.parse(res.text) : null };
}

export async function get<T>(base: string, path: string): Promise<T> {
  const res = await rawRequest(base, { method: 'GET', path, headers: auth });
  if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${res.text}`);
  return JSON.parse(res.text);
}

/** A conversation through the API; `llm` is a base URL (the scripted LLM, or a dead port). */
export async function createConversation(
  base: string,
  llm: { url: string; key: string },
  extra: Record<string, unknown> = {},
): Promise<string> {
  const res = await post(base, '/api/conversations', {
    agent: {
      llm: { model: 'openai/bench', api_key: llm.key, base_url: llm.url, num_retries: 0 },
      tools: [{ name: 'terminal' }],
    },
    workspace: { working_dir: tempDir('agentd-bench-ws-') },
    max_iterations: 1000,
    ...extra,
  });
  if (res.status >= 300) throw new Error(`start answered ${res.status}: ${JSON.stringify(res.json)}`);
  return res.json.id;
}

/** Appends user messages through the API (each is a MessageEvent plus a state update event). */
export async function sendMessages(base: string, id: string, count: number, concurrency = 8): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const res = await post(base, `/api/conversations/${id}/events`, {
        role: 'user',
        content: [{ type: 'text', text: `message number ${i}: ${'lorem ipsum '.repeat(20)}` }],
        run: false,
      });
      if (res.status !== 200) throw new Error(`send answered ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** Every event id of a conversation, in order (pages of 100 through the search route). */
export async function eventIds(base: string, id: string): Promise<string[]> {
  const ids: string[] = [];
  let page: string | null = null;
  do {
    const q: string = page ? `&page_id=${page}` : '';
    const res = await get<{ items: { id: string }[]; next_page_id: string | null }>(
      base,
      `/api/conversations/${id}/events/search?limit=100${q}`,
    );
    for (const e of res.items) ids.push(e.id);
    page = res.next_page_id;
  } while (page);
  return ids;
}

/** ms from connect to the frame carrying `lastId`, replaying from the start. */
export function replayOnce(base: string, id: string, lastId: string): Promise<number> {
  const t = performance.now();
  const ws = new WebSocket(
    `${base.replace('http', 'ws')}/sockets/events/${id}?session_api_key=${KEY}&resend_all=true`,
  );
  return new Promise((resolve, reject) => {
    ws.on('message', (data) => {
      // The last frame is the one whose id is lastId; a cheap test before any parse.
      if (data.toString().includes(lastId)) {
        resolve(performance.now() - t);
        ws.close();
      }
    });
    ws.once('error', reject);
  });
}

/** Resolves when the conversation's full_state says finished (rejects on error or stuck). */
export function untilFinished(base: string, id: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/sockets/events/${id}?session_api_key=${KEY}`);
    ws.on('message', (data) => {
      const text = data.toString();
      if (!text.includes('execution_status')) return;
      const e = JSON.parse(text) as { key?: string; value?: unknown };
      const status =
        e.key === 'full_state'
          ? (e.value as { execution_status?: string }).execution_status
          : e.key === 'execution_status'
            ? e.value
            : undefined;
      if (status === 'finished') {
        ws.close();
        resolve();
      } else if (status === 'error' || status === 'stuck') {
        ws.close();
        reject(new Error(`run ended ${status}`));
      }
    });
    ws.once('error', reject);
  });
}

/** The bare Fastify process answering GET /bare with the contents of `file`. */
export async function startBare(file: string): Promise<{ url: string; pid: number; stop(): void }> {
  const proc = killOnExit(
    spawn(process.execPath, [fileURLToPath(new URL('./bare-server.mjs', import.meta.url)), file], {
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    proc.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(`${m[1]}/bare`);
    });
    proc.once('exit', (code) => reject(new Error(`bare server exited ${code}`)));
  });
  return { url, pid: proc.pid!, stop: () => proc.kill('SIGKILL') };
}

export const dataDir = (name: string) => tempDir(`agentd-bench-${name}-`);
