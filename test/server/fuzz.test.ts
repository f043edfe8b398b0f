// Property-based fuzz of the whole HTTP API, generated from the server's own /openapi.json: for every
// operation, valid requests (from its documented parameter and body schemas) and mutated ones, sent
// over real HTTP on loopback with the session key. Every answer must be a documented status (never
// a 5xx) with a body that validates against that status's documented schema.
//
// Seeded and bounded: FUZZ_SEED replays a run (the seed is printed), FUZZ_RUNS scales the number of
// requests per operation (default 1), FUZZ_OP keeps only the operations whose key contains it.
// Operations that start real processes (sandboxes, app conversations) get a few runs only, and the
// server allows two sandboxes at once, so most of their requests end at the limit (429 / ERROR).
// The bash operations run only `:` (a no-op) in a temp folder, whatever the generated body says.
// The file routes (/api/file/*) act on any path the server may touch: every `path` they are sent is
// flattened into one name inside a temp folder (or left relative, which they refuse before any file
// operation), so generated input reads and writes nothing anywhere else. A multipart body (the upload)
// is generated as random bytes in each documented file field.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, expect, it } from 'vitest';
import { startConversation, waitForStatus } from '../support/conversation.js';
import { FakeGitHub } from '../support/fake-github.js';
import {
  DEEP_MARKER,
  httpRequest,
  type OpenApiDocument,
  type Operation,
  operationsOf,
} from '../support/fuzz/operations.js';
import { sendRaw } from '../support/fuzz/raw-http.js';
import { type FuzzContext, mutatedParts, validParts } from '../support/fuzz/requests.js';
import { ResponseChecker } from '../support/fuzz/responses.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, tempDir } from '../support/server.js';
import { postJson, useScriptedLLM } from '../support/v1.js';

const seed = Number(process.env.FUZZ_SEED ?? 20261123);
const scale = Number(process.env.FUZZ_RUNS ?? 1);
const only = process.env.FUZZ_OP;
console.log(`fuzz: seed ${seed} (replay with FUZZ_SEED=${seed}), runs x${scale}`);

/** Operations whose valid requests start processes: a couple of valid runs, then mutations. */
const HEAVY = new Set([
  'POST /api/v1/sandboxes',
  'POST /api/v1/sandboxes/{sandbox_id}/resume',
  'POST /api/v1/app-conversations',
  'POST /api/v1/app-conversations/stream-start',
]);
const runsFor = (op: Operation) =>
  HEAVY.has(op.key)
    ? { valid: 2, mutated: Math.round(8 * scale) }
    : { valid: Math.round(12 * scale), mutated: Math.round(24 * scale) };

const llm = new ScriptedLLM();
await llm.start();
// GitHub on loopback: a token the fuzzer makes up is refused there (a 400), as GitHub refuses it.
const github = new FakeGitHub();
await github.start();
// A home of its own: the skill routes install into it (never into the machine's ~/.openhands).
const server = await startServer({
  controlPlane: { maxSandboxes: 2, warmSpare: false },
  skillsHome: tempDir('agentd-fuzz-home-'),
  githubApiUrl: github.url,
});
const workspaces = tempDir('agentd-fuzz-ws-');
const fileRoot = tempDir('agentd-fuzz-files-');
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
  await github.stop();
  rmSync(workspaces, { recursive: true, force: true });
  rmSync(fileRoot, { recursive: true, force: true });
});

// Real resources for valid requests to reach: settings, two finished conversations and their events, a sandbox.
await useScriptedLLM(server, llm, []);
const conversations = await Promise.all(
  [0, 1].map(() =>
    startConversation(server, llm, [{ text: 'done' }], { tools: ['file_editor'], workingDir: workspaces }),
  ),
);
for (const c of conversations) await waitForStatus(server, c.id, ['finished', 'idle', 'error']);
const events = (await (
  await api(server, `/api/conversations/${conversations[0]!.id}/events/search`)
).json()) as {
  items: { id: string }[];
};
const sandbox = await postJson(server, '/api/v1/sandboxes');
const conversationIds = conversations.flatMap((c) => [c.id, c.id.replaceAll('-', '')]);

const doc = (await (await api(server, '/openapi.json')).json()) as OpenApiDocument;
const checker = new ResponseChecker(doc);

/** Tools a fuzzed conversation may have: none that starts a process. */
const SAFE_TOOLS = new Set(['file_editor', 'task_tracker']);

/**
 * The bash routes run what they are given with the server's rights, so a generated command never runs:
 * a string `command` becomes the no-op `:` padded to the same length (so length limits are still
 * probed), and a string `cwd` a folder under the temp folder.
 */
function harmlessBash(body: unknown): void {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return;
  const o = body as Record<string, unknown>;
  if (typeof o.command === 'string' && o.command !== DEEP_MARKER)
    o.command = `:${' '.repeat(Math.max(0, o.command.length - 1))}`;
  if (typeof o.cwd === 'string' && o.cwd !== DEEP_MARKER)
    o.cwd = join(workspaces, o.cwd.replaceAll('/', '_').replace(/^\.+$/, '_'));
}

/**
 * POST /api/mcp/test (and /api/mcp/oauth/start) starts the server it is given: its command becomes the no-op `:` as for bash (no
 * such executable, so a connection failure), its URL the scripted LLM's (loopback, no MCP there), and
 * a valid timeout at most 2 s, so a request never waits long.
 */
function harmlessMcpTest(body: unknown): void {
  const o = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  harmlessMcpServer(o.server);
  if (typeof o.timeout === 'number' && o.timeout > 0 && o.timeout <= 120) o.timeout = Math.min(o.timeout, 2);
}

/**
 * An MCP server given to be tested or saved (/api/settings/mcp/{key}: the conversations the fuzz starts
 * later connect to the saved ones): its command the no-op `:`, its URL the scripted LLM's.
 */
function harmlessMcpServer(server: unknown): void {
  if (!server || typeof server !== 'object' || Array.isArray(server)) return;
  harmlessBash(server);
  const s = server as Record<string, unknown>;
  if (typeof s.url === 'string' && s.url !== DEEP_MARKER) s.url = llm.url;
}

/** Keeps generated bodies harmless: the scripted LLM, workspaces under a temp folder, no hooks, no MCP, no clones. */
function sanitize(op: Operation, body: unknown): unknown {
  if (op.key.startsWith('POST /api/bash/')) harmlessBash(body);
  if (op.key === 'POST /api/mcp/test' || op.key === 'POST /api/mcp/oauth/start') harmlessMcpTest(body);
  if (/^(POST|PATCH) \/api\/settings\/mcp\/\{/.test(op.key)) harmlessMcpServer(body);
  const stack: unknown[] = [body];
  while (stack.length > 0) {
    const node = stack.pop();
    if (!node || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      stack.push(...node);
      continue;
    }
    const o = node as Record<string, unknown>;
    // The generated name stays (odd characters, huge lengths) but cannot leave the temp folder.
    if (typeof o.working_dir === 'string' && o.working_dir !== DEEP_MARKER)
      o.working_dir = join(workspaces, o.working_dir.replaceAll('/', '_').replace(/^\.+$/, '_'));
    for (const name of ['base_url', 'llm_base_url'])
      if (typeof o[name] === 'string') o[name] = llm.openaiBaseUrl;
    if (o.kind === 'LookupSecret' && typeof o.url === 'string') o.url = llm.url;
    for (const name of ['hook_config', 'mcp_config', 'selected_repository']) if (name in o) o[name] = null;
    if (Array.isArray(o.tools))
      o.tools = o.tools.filter(
        (t) => !t || typeof t !== 'object' || SAFE_TOOLS.has((t as { name?: string }).name ?? ''),
      );
    stack.push(...Object.values(o));
  }
  return body;
}

/**
 * A file route's `path` as one name inside fileRoot (`/` and `` are fileRoot itself). Relative paths of
 * odd length go as given, to be refused before any file operation; the others are made absolute, so
 * valid requests also reach real files and folders.
 */
function sanitizeQuery(op: Operation, query: Record<string, unknown>): Record<string, unknown> {
  const path = query.path;
  if (!op.path.startsWith('/api/file/') || typeof path !== 'string') return query;
  if (!path.startsWith('/') && path.length % 2 === 1) return query;
  const name = path.replaceAll('/', '_').replace(/^_+/, '').replace(/^\.+$/, '_');
  return { ...query, path: name === '' ? fileRoot : join(fileRoot, name) };
}

const ctx: FuzzContext = {
  components: doc.components.schemas,
  knownIds: {
    conversation_id: conversationIds,
    event_id: events.items.map((e) => e.id),
    sandbox_id: [sandbox.id as string],
    id: [sandbox.id as string],
  },
  sanitize,
  sanitizeQuery,
};

// Deletions last, so the other operations meet the seeded resources.
const operations = operationsOf(doc)
  .filter((op) => !only || op.key.includes(only))
  .sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));

/** Statuses seen per operation and kind of request, printed with FUZZ_STATS=1 (to see what the fuzz reaches). */
const seen = new Map<string, Map<number, number>>();
/** The first answer of each status to a valid request, to see why valid requests were refused. */
const samples = new Map<string, string>();
afterAll(() => {
  if (!process.env.FUZZ_STATS) return;
  for (const [key, statuses] of seen) console.log(key, Object.fromEntries(statuses));
  for (const [key, text] of samples) console.log(key, text);
});

async function check(op: Operation, parts: Parameters<typeof httpRequest>[1] & { mutation?: string }) {
  const request = httpRequest(op, parts, server.key);
  let answer: Awaited<ReturnType<typeof sendRaw>>;
  try {
    answer = await sendRaw(server.url, request);
  } catch (error) {
    throw new Error(`no answer: ${(error as Error).message}\n  to ${describe(request, parts.mutation)}`);
  }
  const tally = seen.get(`${op.key} ${parts.mutation ? 'mutated' : 'valid'}`) ?? new Map<number, number>();
  tally.set(answer.status, (tally.get(answer.status) ?? 0) + 1);
  seen.set(`${op.key} ${parts.mutation ? 'mutated' : 'valid'}`, tally);
  const sampleKey = `${op.key} valid ${answer.status}`;
  if (!parts.mutation && answer.status >= 400 && !samples.has(sampleKey))
    samples.set(sampleKey, answer.text.slice(0, 300));
  const problems = checker.problems(op, answer.status, answer.text);
  if (problems.length > 0)
    throw new Error(`${problems.join('\n  ')}\n  to ${describe(request, parts.mutation)}`);
}

function describe(request: ReturnType<typeof httpRequest>, mutation = 'valid') {
  const body = request.body
    ? ` body(${request.body.length} B): ${request.body.subarray(0, 200).toString('utf8')}`
    : '';
  return `[${mutation}] ${request.method} ${request.path.slice(0, 200)}${body}`;
}

for (const op of operations) {
  it(op.key, async () => {
    const runs = runsFor(op);
    const failures: string[] = [];
    for (const [kind, arbitrary, numRuns] of [
      ['valid', validParts(op, ctx), runs.valid],
      ['mutated', mutatedParts(op, ctx), runs.mutated],
    ] as const) {
      const result = await fc.check(
        fc.asyncProperty(arbitrary, (parts) => check(op, parts)),
        { seed, numRuns, endOnFailure: true },
      );
      if (result.failed) {
        const error =
          result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
        failures.push(`${kind} (seed ${seed}, path ${result.counterexamplePath}): ${error}`);
      }
    }
    expect(failures).toEqual([]);
  });
}
