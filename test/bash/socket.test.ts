// /sockets/bash-events as OpenHands serves it: its auth (query key, header, first frame; 4001 on
// failure), resend_mode=all, live BashCommand/BashOutput frames with nulls kept, commands sent as
// frames, BashError frames for bad ones, and the reader limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startServer, type TestServer } from '../support/server.js';
import { connect, wsUrl } from '../support/ws.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ sockets: { authTimeoutMs: 2000 } });
});
afterAll(() => server.close({ remove: true }));

type Frame = Record<string, unknown>;
const url = (query = '') => wsUrl(server.url, `/sockets/bash-events${query}`);

describe('/sockets/bash-events', () => {
  it('refuses a wrong or missing key with 4001', async () => {
    const wrong = await connect(url('?session_api_key=nope'));
    expect((await wrong.closed).code).toBe(4001);
    const silent = await connect(url());
    silent.send({ type: 'auth', session_api_key: 'nope' });
    expect((await silent.closed).code).toBe(4001);
  });

  it('resends kept events, streams new ones, and runs commands sent as frames', async () => {
    const old = (await (
      await api(server, '/api/bash/execute_bash_command', {
        method: 'POST',
        body: JSON.stringify({ command: 'echo before' }),
      })
    ).json()) as Frame;
    const ws = await connect(url(`?session_api_key=${server.key}&resend_mode=all`));
    const resent = (await ws.next((f) => (f as Frame).id === old.id)) as Frame;
    expect(resent).toEqual(old);

    ws.send({ command: 'echo live; exit 4' });
    const command = (await ws.next((f) => (f as Frame).command === 'echo live; exit 4')) as Frame;
    expect(command).toMatchObject({ kind: 'BashCommand', cwd: null, timeout: 300 });
    const output = (await ws.next((f) => (f as Frame).command_id === command.id)) as Frame;
    // Nulls are kept in frames, as OpenHands sends them.
    expect(output).toMatchObject({
      kind: 'BashOutput',
      stdout: 'live\n',
      stderr: null,
      exit_code: 4,
      order: 0,
    });

    ws.send('not json');
    expect(await ws.next((f) => (f as Frame).code === 'JSONDecodeError')).toMatchObject({
      kind: 'BashError',
    });
    ws.send({ command: 5 });
    expect(await ws.next((f) => (f as Frame).code === 'ValidationError')).toMatchObject({
      kind: 'BashError',
    });
    // A redundant auth frame is skipped, not answered.
    ws.send({ type: 'auth', session_api_key: server.key });
    ws.send({ command: 'echo after-auth-frame' });
    await ws.next((f) => (f as Frame).stdout === 'after-auth-frame\n');
    expect(ws.frames.filter((f) => (f as Frame).kind === 'BashError')).toHaveLength(2);
    ws.close();
  });

  it('authenticates by header or first frame; commands started over REST reach readers', async () => {
    const byHeader = await connect(url(), { 'X-Session-API-Key': server.key });
    const byFrame = await connect(url());
    byFrame.send({ type: 'auth', session_api_key: server.key });
    // A reader is subscribed once the command it sent comes back (sent in the same read as the auth frame).
    for (const [i, ws] of [byHeader, byFrame].entries()) {
      ws.send({ command: `echo hello-${i}` });
      await ws.next((f) => (f as Frame).stdout === `hello-${i}\n`);
    }
    const started = (await (
      await api(server, '/api/bash/start_bash_command', {
        method: 'POST',
        body: JSON.stringify({ command: 'echo from-rest' }),
      })
    ).json()) as Frame;
    for (const ws of [byHeader, byFrame]) {
      const out = (await ws.next((f) => (f as Frame).command_id === started.id)) as Frame;
      expect(out).toMatchObject({ stdout: 'from-rest\n', exit_code: 0 });
      ws.close();
    }
  });

  it('closes a reader past the limit (50, as OpenHands) with 1013', async () => {
    const readers = await Promise.all(
      Array.from({ length: 50 }, () => connect(url(`?session_api_key=${server.key}`))),
    );
    // Each reader is subscribed once the command it sent comes back.
    await Promise.all(
      readers.map((r, i) => {
        r.send({ command: `true ${i}` });
        return r.next((f) => (f as Frame).command === `true ${i}`);
      }),
    );
    const extra = await connect(url(`?session_api_key=${server.key}`));
    expect(await extra.closed).toEqual({ code: 1013, reason: 'Too many bash event connections' });
    readers[0]!.close();
    await readers[0]!.closed;
    for (const r of readers.slice(1)) r.close();
  });
});
