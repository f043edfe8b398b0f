// LookupSecret (OpenHands): a conversation secret whose value is fetched from a URL with the given
// headers when the terminal first needs it. Over real HTTP: a loopback server that answers the value
// only to the right header, and agentd's own GET /api/settings/secrets/{name}, the route an SDK
// LookupSecret points at. The value reaches the shell and is masked in outputs; the headers are
// never shown, stored in clear or logged; a failed lookup is an error observation.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEvents, type Ev, info, startConversation, waitForStatus } from '../support/conversation.js';
import { RecordingLogger } from '../support/recording-logger.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { api, startServer, type TestServer } from '../support/server.js';

const VALUE = 'lookup-value-42';
const CREDENTIAL = 'Bearer hdr-cred-XYZ-987';

let server: TestServer;
const llm = new ScriptedLLM();
const logger = new RecordingLogger();
let lookup: Server;
let lookupUrl: string;
let hits = 0;

beforeAll(async () => {
  await llm.start();
  server = await startServer({ exposeSecrets: true, serviceLogger: logger });
  lookup = createServer((req, res) => {
    hits++;
    if (req.url === '/secret' && req.headers.authorization === CREDENTIAL) {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(VALUE);
    } else if (req.url === '/secret') {
      res.writeHead(401).end('no');
    } else if (req.url === '/huge') {
      res.writeHead(200).end('x'.repeat(100 * 1024));
    } else {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise<void>((resolve) => lookup.listen(0, '127.0.0.1', resolve));
  lookupUrl = `http://127.0.0.1:${(lookup.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
  await new Promise((resolve) => lookup.close(resolve));
});

/** A conversation with `secrets` whose agent runs each command in the terminal, then finishes. */
async function runWith(secrets: Record<string, unknown>, commands: string[]) {
  const { id } = await startConversation(
    server,
    llm,
    [
      ...commands.map((command) => ({ toolCalls: [{ name: 'terminal', arguments: { command } }] })),
      { toolCalls: [{ name: 'finish', arguments: { message: 'done' } }] },
    ],
    { extra: { secrets } },
  );
  expect(await waitForStatus(server, id, ['finished', 'error'])).toBe('finished');
  const events = await allEvents(server, id);
  const observations = events
    .filter((e) => e.kind === 'ObservationEvent')
    .map((e) => e.observation as Record<string, unknown>)
    .filter((o) => o.kind === 'TerminalObservation');
  return { id, events, observations, text: (o: Record<string, unknown>) => JSON.stringify(o.content) };
}

const lookupSecret = (path: string, headers: Record<string, string> = { Authorization: CREDENTIAL }) => ({
  kind: 'LookupSecret',
  url: `${lookupUrl}${path}`,
  headers,
  description: 'from the app server',
});

describe('LookupSecret', () => {
  it('fetches the value once for the shell, masks it in outputs and never shows the headers', async () => {
    hits = 0;
    const { id, events, observations, text } = await runWith({ MY_SECRET: lookupSecret('/secret') }, [
      `test "$MY_SECRET" = ${VALUE} && echo MATCHED; echo "v=$MY_SECRET"`,
      'echo "again=$MY_SECRET"',
    ]);
    expect(observations).toHaveLength(2);
    expect(text(observations[0]!)).toContain('MATCHED');
    expect(text(observations[0]!)).toContain('v=<secret-hidden>');
    expect(text(observations[1]!)).toContain('again=<secret-hidden>');
    for (const o of observations) expect(text(o)).not.toContain(VALUE);
    expect(hits).toBe(1);

    const shown = await info(server, id);
    expect(shown.secret_registry).toEqual({
      secret_sources: {
        MY_SECRET: {
          kind: 'LookupSecret',
          url: `${lookupUrl}/secret`,
          headers: { Authorization: '**********' },
          description: 'from the app server',
        },
      },
    });
    const listed = await (await api(server, '/api/conversations/search')).text();
    for (const text of [JSON.stringify(shown), JSON.stringify(events), listed, logger.text()])
      expect(text).not.toContain('hdr-cred-XYZ-987');
    const db =
      readFileSync(join(server.dataDir, 'agentd.db-wal')).toString('latin1') +
      readFileSync(join(server.dataDir, 'agentd.db')).toString('latin1');
    expect(db).not.toContain('hdr-cred-XYZ-987');
  });

  it('resolves a LookupSecret that points at GET /api/settings/secrets/{name} with the session key', async () => {
    const put = await api(server, '/api/settings/secrets', {
      method: 'PUT',
      body: JSON.stringify({ name: 'APP_TOKEN', value: 'app-token-value-77' }),
    });
    expect(put.status).toBe(200);
    const { observations, text } = await runWith(
      {
        APP_TOKEN: {
          kind: 'LookupSecret',
          url: `${server.url}/api/settings/secrets/APP_TOKEN`,
          headers: { 'X-Session-API-Key': server.key },
        },
      },
      ['test "$APP_TOKEN" = app-token-value-77 && echo MATCHED; echo "$APP_TOKEN"'],
    );
    expect(text(observations[0]!)).toContain('MATCHED');
    expect(text(observations[0]!)).toContain('<secret-hidden>');
    expect(text(observations[0]!)).not.toContain('app-token-value-77');
  });

  it.each([
    ['a 404', '/missing', 'HTTP 404'],
    ['a refused header', '/secret', 'HTTP 401'],
    ['a value over 64 KB', '/huge', 'the value is larger than 65536 bytes'],
  ])('turns %s into an error observation; the command is not run', async (_name, path, cause) => {
    const { id, observations, text } = await runWith(
      {
        MY_SECRET: lookupSecret(
          path,
          path === '/secret' ? { Authorization: 'Bearer wrong-cred-55' } : undefined,
        ),
      },
      ['echo should-not-run'],
    );
    expect(observations[0]).toMatchObject({ is_error: true });
    expect(text(observations[0]!)).toContain(
      `Could not look up secret 'MY_SECRET' at ${lookupUrl}${path}: ${cause}`,
    );
    expect(text(observations[0]!)).not.toContain('should-not-run');
    const logged = logger.about(id).filter((l) => l.message === 'secret lookup failed');
    expect(logged[0]?.fields).toMatchObject({ secret_name: 'MY_SECRET' });
    expect(logger.text()).not.toContain('wrong-cred-55');
  });

  it('turns an unreachable URL into an error observation', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const { observations, text } = await runWith(
      { GONE: { kind: 'LookupSecret', url: `http://127.0.0.1:${port}/x` } },
      ['echo hi'],
    );
    expect(observations[0]).toMatchObject({ is_error: true });
    expect(text(observations[0]!)).toContain(
      `Could not look up secret 'GONE' at http://127.0.0.1:${port}/x: ECONNREFUSED`,
    );
  });

  it('refuses URLs that are not http(s) and bad headers, at start and in POST .../secrets (422)', async () => {
    const bad = [
      { kind: 'LookupSecret', url: 'file:///etc/passwd' },
      { kind: 'LookupSecret', url: 'not a url' },
      { kind: 'LookupSecret', url: `${lookupUrl}/secret`, headers: { 'Bad Name': 'x' } },
      { kind: 'LookupSecret', url: `${lookupUrl}/secret`, headers: { Authorization: 'a\r\nX-Evil: 1' } },
    ];
    for (const secret of bad) {
      await expect(startConversation(server, llm, [], { extra: { secrets: { S: secret } } })).rejects.toThrow(
        /start answered 422: .*"secrets","S"/,
      );
    }
    const { id } = await runWith({}, []);
    for (const secret of bad) {
      const res = await api(server, `/api/conversations/${id}/secrets`, {
        method: 'POST',
        body: JSON.stringify({ secrets: { S: secret } }),
      });
      expect(res.status).toBe(422);
    }
    const ok = await api(server, `/api/conversations/${id}/secrets`, {
      method: 'POST',
      body: JSON.stringify({ secrets: { LATER: lookupSecret('/secret') } }),
    });
    expect(ok.status).toBe(200);
    const shown = await info(server, id);
    expect(
      (shown.secret_registry as { secret_sources: Record<string, Ev> }).secret_sources.LATER,
    ).toMatchObject({
      kind: 'LookupSecret',
      headers: { Authorization: '**********' },
    });
    expect(JSON.stringify(shown)).not.toContain('hdr-cred-XYZ-987');
  });
});
