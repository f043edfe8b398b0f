// /api/bash driven as the OpenHands SDK drives it (RemoteWorkspace.execute_command: start, then poll
// bash_events/search), plus execute_bash_command, get, search filters and pages, delete, and limits.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BASH_LIMITS } from '../../src/bash/index.js';
import { getWithBody } from '../support/http.js';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';
import { connect, wsUrl } from '../support/ws.js';
import { sdkExecuteCommand } from './sdk-client.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close({ remove: true }));

const post = (path: string, body: unknown) =>
  api(server, path, { method: 'POST', body: JSON.stringify(body) });
const search = async (query: string) =>
  (await (await api(server, `/api/bash/bash_events/search?${query}`)).json()) as {
    items: Record<string, unknown>[];
    next_page_id: string | null;
  };

/** Running (a zombie waiting for a reaper that is not ours counts as ended). */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('RemoteWorkspace.execute_command', () => {
  it('answers stdout, stderr and a non-zero exit code, in the given cwd', async () => {
    const dir = tempDir();
    const result = await sdkExecuteCommand(server, 'pwd; echo out; echo err >&2; exit 3', dir, 60);
    expect(result.exit_code).toBe(3);
    expect(result.stdout).toBe(`${dir}\nout\n`);
    expect(result.stderr).toBe('err\n');
    expect(result.timeout_occurred).toBe(false);
  });

  it("runs in the server's cwd without cwd, with the server's rights and without its secrets", async () => {
    const secrets = {
      SESSION_API_KEY: 'must-not-leak',
      AGENTD_DATABASE_URL: 'postgres://agentd:db-password@127.0.0.1/agentd',
      AGENTD_REDIS_URL: 'redis://:redis-password@127.0.0.1:6379',
    };
    const saved = Object.fromEntries(Object.keys(secrets).map((name) => [name, process.env[name]]));
    Object.assign(process.env, secrets);
    try {
      const echo = 'echo "key=$SESSION_API_KEY db=$AGENTD_DATABASE_URL redis=$AGENTD_REDIS_URL"';
      const result = await sdkExecuteCommand(server, `pwd; id -u; ${echo}`, null, 60);
      expect(result).toMatchObject({ exit_code: 0, stderr: '' });
      expect(result.stdout).toBe(`${process.cwd()}\n${process.getuid?.()}\nkey= db= redis=\n`);
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('a command past its timeout is killed with its process group: exit code -1, timeout_occurred', async () => {
    const dir = tempDir();
    const pidFile = join(dir, 'pid');
    const started = await post('/api/bash/start_bash_command', {
      command: `echo started; sleep 600 & echo $! > ${pidFile}; wait`,
      cwd: dir,
      timeout: 1,
    });
    const command = (await started.json()) as { id: string; timeout: number; kind: string };
    expect(command).toMatchObject({ kind: 'BashCommand', timeout: 1, cwd: dir });
    // Poll as the SDK does, with a client budget larger than the server's timeout.
    let final: Record<string, unknown> | undefined;
    while (!final) {
      const page = await search(
        `command_id__eq=${command.id}&kind__eq=BashOutput&sort_order=TIMESTAMP&limit=100`,
      );
      final = page.items.find((e) => e.exit_code !== null);
      if (!final) await new Promise((r) => setTimeout(r, 100));
    }
    expect(final.exit_code).toBe(-1);
    expect(final.stdout).toBe('started\n');
    expect(final.stderr).toContain('Command timed out after 1 seconds');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(pid)).toBe(false);
  });

  it('the SDK reads the server-side timeout as a timeout', async () => {
    const result = await sdkExecuteCommand(server, 'sleep 600', null, 2);
    // The server's timeout is the SDK's; whichever side ends it first, the SDK sees a timeout.
    expect(result.exit_code).toBe(-1);
    expect(result.timeout_occurred).toBe(true);
  });

  it('a cwd that does not exist ends at once with exit code -1 and the reason', async () => {
    const result = await sdkExecuteCommand(server, 'echo never', join(tempDir(), 'missing'), 30);
    expect(result.exit_code).toBe(-1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^Error executing command: No such directory/);
  });
});

describe('execute_bash_command', () => {
  it('waits and answers the last BashOutput', async () => {
    const response = await post('/api/bash/execute_bash_command', { command: 'printf "a\\nb"; exit 7' });
    expect(response.status).toBe(200);
    const output = (await response.json()) as Record<string, unknown>;
    expect(output).toMatchObject({
      kind: 'BashOutput',
      order: 0,
      exit_code: 7,
      stdout: 'a\nb',
      stderr: null,
    });
    expect(output.id).toMatch(/^[0-9a-f]{32}$/);
    expect(output.command_id).toMatch(/^[0-9a-f]{32}$/);
    expect(output.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const timedOut = (await (
      await post('/api/bash/execute_bash_command', { command: 'sleep 600', timeout: 1 })
    ).json()) as Record<string, unknown>;
    expect(timedOut.exit_code).toBe(-1);
  });
});

describe('bash events', () => {
  it('get by id, search filters and cursor pages, delete', async () => {
    await api(server, '/api/bash/bash_events', { method: 'DELETE' });
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const out = (await (await post('/api/bash/execute_bash_command', { command: `echo ${n}` })).json()) as {
        command_id: string;
      };
      ids.push(out.command_id);
    }
    const command = (await (await api(server, `/api/bash/bash_events/${ids[0]}`)).json()) as Record<
      string,
      unknown
    >;
    expect(command).toMatchObject({ kind: 'BashCommand', command: 'echo 1', cwd: null, timeout: 300 });
    expect((await api(server, `/api/bash/bash_events/${'0'.repeat(32)}`)).status).toBe(404);

    // Batch get as OpenHands takes it: a JSON list of ids in the body of a GET (or repeated event_ids).
    const missing = 'f'.repeat(32);
    const keyed = { 'X-Session-API-Key': server.key, 'content-type': 'application/json' };
    const batch = await getWithBody(
      `${server.url}/api/bash/bash_events/`,
      JSON.stringify([ids[2], missing]),
      keyed,
    );
    expect(batch.status).toBe(200);
    expect(
      (JSON.parse(batch.text) as (Record<string, unknown> | null)[]).map((e) => e?.command ?? null),
    ).toEqual(['echo 3', null]);
    const byQuery = await api(server, `/api/bash/bash_events/?event_ids=${ids[0]}&event_ids=${missing}`);
    expect(((await byQuery.json()) as unknown[])[1]).toBeNull();
    expect((await getWithBody(`${server.url}/api/bash/bash_events/`, '{"not":"a list"}', keyed)).status).toBe(
      422,
    );

    const commands = await search('kind__eq=BashCommand');
    expect(commands.items.map((e) => e.command)).toEqual(['echo 1', 'echo 2', 'echo 3']);
    const desc = await search('kind__eq=BashCommand&sort_order=TIMESTAMP_DESC');
    expect(desc.items.map((e) => e.command)).toEqual(['echo 3', 'echo 2', 'echo 1']);
    // A dashed command id is the same id.
    const dashed = ids[1]!.replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-');
    expect((await search(`command_id__eq=${dashed}`)).items.map((e) => e.stdout)).toEqual(['2\n']);
    expect((await search(`command_id__eq=${ids[1]}&order__gt=0`)).items).toEqual([]);

    const seen: unknown[] = [];
    let query = 'limit=2';
    for (;;) {
      const page = await search(query);
      seen.push(...page.items.map((e) => e.id));
      if (!page.next_page_id) break;
      expect(page.items).toHaveLength(2);
      query = `limit=2&page_id=${page.next_page_id}`;
    }
    expect(seen).toEqual((await search('limit=100')).items.map((e) => e.id));
    expect(seen).toHaveLength(6);

    const first = (await search('limit=1')).items[0]!.timestamp as string;
    expect((await search(`timestamp__lt=${encodeURIComponent(first)}`)).items).toEqual([]);
    expect((await search(`timestamp__gte=${encodeURIComponent(first)}`)).items).toHaveLength(6);

    const cleared = await api(server, '/api/bash/bash_events', { method: 'DELETE' });
    expect(await cleared.json()).toEqual({ cleared_count: 6 });
    expect((await search('')).items).toEqual([]);
  });

  it('bounds what a search page and a batch get answer: 1 Mi chunks of NULs, 6 MB of JSON each', async () => {
    await api(server, '/api/bash/bash_events', { method: 'DELETE' });
    const bound = DEFAULT_BASH_LIMITS.maxPageBytes;
    // Three 1 Mi-character chunks, each 6 MiB of JSON (a NUL is \u0000): together past the bound.
    const result = await sdkExecuteCommand(server, 'head -c 3M /dev/zero', null, 60);
    expect(result.stdout).toBe('\0'.repeat(3 * 1024 * 1024));
    const all = (await search('kind__eq=BashOutput&limit=1')).items[0]!;
    const commandId = all.command_id as string;
    for (const order of ['TIMESTAMP', 'TIMESTAMP_DESC']) {
      const seen: number[] = [];
      let query = `command_id__eq=${commandId}&sort_order=${order}&limit=100`;
      for (;;) {
        const text = await (await api(server, `/api/bash/bash_events/search?${query}`)).text();
        expect(Buffer.byteLength(text)).toBeLessThan(bound + 100); // the items, then the page's own fields
        const page = JSON.parse(text) as { items: { order: number }[]; next_page_id: string | null };
        expect(page.items.length).toBeGreaterThan(0);
        seen.push(...page.items.map((e) => e.order));
        if (!page.next_page_id) break;
        query = `command_id__eq=${commandId}&sort_order=${order}&limit=100&page_id=${page.next_page_id}`;
      }
      // Every chunk once, in order: the early ends lose and repeat nothing.
      expect(seen).toEqual(order === 'TIMESTAMP' ? [0, 1, 2] : [2, 1, 0]);
    }

    const keyed = { 'X-Session-API-Key': server.key, 'content-type': 'application/json' };
    const batch = (ids: unknown[]) =>
      getWithBody(`${server.url}/api/bash/bash_events/`, JSON.stringify(ids), keyed);
    const big = all.id as string;
    // One big event alone is answered; the same one three times is past the bound: a 400 that says so.
    expect(JSON.parse((await batch([big])).text)[0].order).toBe(0);
    const refused = await batch([big, big, big]);
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text).detail).toMatch(
      /add up to more than \d+ bytes of JSON; ask for fewer ids/,
    );
    // A repeated small id is answered at each place it was asked.
    const command = (await search('kind__eq=BashCommand')).items[0]!.id as string;
    const twice = JSON.parse((await batch([command, 'f'.repeat(32), command])).text) as ({
      id: string;
    } | null)[];
    expect(twice.map((e) => e?.id ?? null)).toEqual([command, null, command]);
  });

  it('refuses bad input with a clear 4xx and needs the session key', async () => {
    expect((await api(server, '/api/bash/bash_events/search?limit=0')).status).toBe(422);
    expect((await api(server, '/api/bash/bash_events/search?limit=101')).status).toBe(422);
    expect((await api(server, '/api/bash/bash_events/search?page_id=nope')).status).toBe(400);
    expect((await api(server, '/api/bash/bash_events/search?command_id__eq=x')).status).toBe(422);
    expect((await post('/api/bash/start_bash_command', { command: 'true', timeout: -1 })).status).toBe(422);
    expect((await post('/api/bash/start_bash_command', { timeout: 1 })).status).toBe(422);
    expect((await post('/api/bash/start_bash_command', { command: 'x'.repeat(100_001) })).status).toBe(422);
    const marker = join(tempDir(), 'ran');
    const anonymous = await api(server, '/api/bash/start_bash_command', {
      method: 'POST',
      key: null,
      body: JSON.stringify({ command: `touch ${marker}` }),
    });
    expect(anonymous.status).toBe(401);
    expect((await api(server, '/api/bash/bash_events/search', { key: null })).status).toBe(401);
    expect(existsSync(marker)).toBe(false);
  });
});

describe('two users of one server', () => {
  let two: TestServer;
  beforeAll(async () => {
    two = await startServer({ keys: ['key-a', 'key-b'] });
  });
  afterAll(() => two.close({ remove: true }));
  const as = (key: string, path: string, init: RequestInit = {}) => api(two, path, { ...init, key });

  it('each reads, follows and clears only the events of the commands they ran', async () => {
    const ran = await as('key-b', '/api/bash/execute_bash_command', {
      method: 'POST',
      body: JSON.stringify({ command: 'echo B-SECRET-OUTPUT' }),
    });
    const output = (await ran.json()) as { id: string; command_id: string };
    const searchAs = async (key: string) =>
      JSON.stringify(await (await as(key, '/api/bash/bash_events/search')).json());
    expect(await searchAs('key-a')).not.toContain('B-SECRET');
    expect(await searchAs('key-b')).toContain('B-SECRET-OUTPUT');
    expect((await as('key-a', `/api/bash/bash_events/${output.id}`)).status).toBe(404);
    expect(await (await as('key-a', `/api/bash/bash_events/?event_ids=${output.id}`)).json()).toEqual([null]);
    const socket = await connect(wsUrl(two.url, '/sockets/bash-events?resend_mode=all'), {
      'X-Session-API-Key': 'key-a',
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(JSON.stringify(socket.frames)).not.toContain('B-SECRET');
    socket.close();
    const cleared = await as('key-a', '/api/bash/bash_events', { method: 'DELETE' });
    expect(await cleared.json()).toEqual({ cleared_count: 0 });
    expect(await searchAs('key-b')).toContain('B-SECRET-OUTPUT');
  });
});
