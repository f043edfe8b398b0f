// Starts agentd in-process on a random loopback port, with a real SQLite file in a temp data folder.
// What a test file makes here is undone after it (test/support/cleanup.ts): servers it left open are
// closed, and every folder tempDir() made is removed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Agentd, type AgentdOptions, startAgentd } from '../../src/server/start.js';
import { CLOSED_LOOPBACK_GITHUB, CLOSED_LOOPBACK_MCP } from './cli.js';
import { killProcessesIn } from './process.js';

export interface TestServer extends Agentd {
  url: string;
  key: string;
  dataDir: string;
  /** Stops the server and closes the store; keeps the data folder unless `remove` is set. */
  close(options?: { remove?: boolean }): Promise<void>;
}

const madeDirs: string[] = [];
const openServers = new Set<TestServer>();

/** A fresh folder under the temp folder, removed after the test file (or earlier by the test). */
export function tempDir(prefix = 'agentd-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  madeDirs.push(dir);
  return dir;
}

/**
 * After a test file: closes the servers it left open, kills what still runs inside the folders
 * tempDir() made (sandbox agents of a server killed with -9), then removes those folders.
 */
export async function cleanUpTestFile(): Promise<void> {
  await Promise.allSettled([...openServers].map((s) => s.close()));
  const dirs = madeDirs.splice(0);
  killProcessesIn(dirs);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}

export async function startServer(
  options: { keys?: string[]; dataDir?: string } & Partial<
    Omit<AgentdOptions, 'dataDir' | 'sessionApiKeys'>
  > = {},
): Promise<TestServer> {
  const { keys = ['test-key-1'], dataDir = tempDir(), ...rest } = options;
  // No warm spare unless a test asks: each would be one more agentd process per test server.
  const agentd = await startAgentd({
    dataDir,
    sessionApiKeys: keys,
    logger: false,
    env: {},
    controlPlane: { warmSpare: false },
    // A search key or a GitHub token in a test's settings must not reach Tavily or GitHub: closed
    // ports on loopback.
    searchMcpUrl: CLOSED_LOOPBACK_MCP,
    githubApiUrl: CLOSED_LOOPBACK_GITHUB,
    ...rest,
  });
  await agentd.app.listen({ host: '127.0.0.1', port: 0 });
  const address = agentd.app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  const server: TestServer = {
    ...agentd,
    url: `http://127.0.0.1:${address.port}`,
    key: keys[0] ?? '',
    dataDir,
    async close({ remove = false } = {}) {
      openServers.delete(server);
      await agentd.close();
      if (remove) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  openServers.add(server);
  return server;
}

/** fetch with the session key header set (pass key: null to send none). */
export function api(
  server: Pick<TestServer, 'url' | 'key'>,
  path: string,
  init: RequestInit & { key?: string | null } = {},
) {
  const { key = server.key, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (key !== null) headers.set('X-Session-API-Key', key);
  if (rest.body !== undefined && !headers.has('content-type'))
    headers.set('content-type', 'application/json');
  return fetch(`${server.url}${path}`, { ...rest, headers });
}
