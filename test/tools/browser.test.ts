import { existsSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allEvents, type Ev, startConversation, waitForStatus } from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { startServer, type TestServer } from '../support/server.js';

const PAGES: Record<string, string> = {
  '/': `<html><head><title>Home</title></head><body>
    <h1>Welcome</h1><p>Some <b>bold</b> text.</p>
    <a href="/next">Next page</a>
    <form action="/search"><input name="q" placeholder="query"><button type="submit">Go</button></form>
    <div style="height: 3000px"></div></body></html>`,
  '/next':
    '<html><head><title>Next</title></head><body><h2>Second page</h2><ul><li>one</li><li>two</li></ul></body></html>',
};

let server: TestServer;
let site: Server;
let base = '';
const llm = new ScriptedLLM();

beforeAll(async () => {
  await llm.start();
  server = await startServer();
  site = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/search') {
      res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'seen=yes; Path=/' });
      res.end(
        `<html><head><title>Results</title></head><body><p>You searched for ${url.searchParams.get('q')}</p></body></html>`,
      );
      return;
    }
    res.writeHead(PAGES[url.pathname] ? 200 : 404, { 'content-type': 'text/html' });
    res.end(PAGES[url.pathname] ?? 'not found');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const address = site.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});
afterAll(async () => {
  await server.close({ remove: true });
  await llm.stop();
  site.closeAllConnections();
  await new Promise((r) => site.close(r));
});

const texts = (o: Ev) =>
  (o.content as { type: string; text?: string }[])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('');

describe('browser tools with real Chromium', () => {
  it('navigates, lists elements, types, clicks, reads markdown, handles tabs, storage and recording', async () => {
    const call = (name: string, args: Record<string, unknown> = {}) => ({
      toolCalls: [{ name, arguments: args }],
    });
    const { id } = await startConversation(
      server,
      llm,
      [
        call('browser_navigate', { url: `${base}/` }),
        call('browser_get_state', { include_screenshot: true }),
        call('browser_type', { index: 1, text: 'zebras' }),
        call('browser_click', { index: 2 }),
        call('browser_get_content'),
        call('browser_get_storage'),
        call('browser_set_storage', {
          storage_state: {
            cookies: [{ name: 'planted', value: 'by-agent', domain: '127.0.0.1', path: '/' }],
            origins: [],
          },
        }),
        call('browser_go_back'),
        call('browser_get_state'),
        call('browser_click', { index: 0, new_tab: true }),
        call('browser_get_content', { extract_links: true }),
        call('browser_list_tabs'),
        call('browser_start_recording'),
        call('browser_scroll', { direction: 'down' }),
        call('browser_stop_recording'),
        call('browser_click', { index: 99 }),
        call('finish', { message: 'browsed' }),
      ],
      { tools: ['browser_tool_set'], max_iterations: 30 },
    );
    await waitForStatus(server, id, ['finished', 'error'], 60_000);
    const events = await allEvents(server, id);
    const system = events[0] as Ev & { tools: { kind: string }[] };
    expect(system.tools.filter((t) => t.kind.startsWith('Browser'))).toHaveLength(14);
    const obs = events.filter((e) => e.kind === 'ObservationEvent').map((e) => e.observation as Ev);
    expect(obs.slice(0, -1).every((o) => o.kind === 'BrowserObservation')).toBe(true);
    expect(texts(obs[0]!)).toContain('Title: Home');
    expect(texts(obs[1]!)).toMatch(/\[0\] <a href=\/next> Next page/);
    expect(texts(obs[1]!)).toMatch(/\[1\] <input> query/);
    expect(obs[1]!.screenshot_data).toBeTruthy();
    expect((obs[1]!.content as { type: string }[]).some((c) => c.type === 'image')).toBe(true);
    expect(texts(obs[4]!)).toContain('You searched for zebras');
    expect(texts(obs[5]!)).toContain('"seen"');
    expect(texts(obs[6]!)).toContain('1 cookie(s)');
    expect(texts(obs[7]!)).toContain(`${base}/`);
    expect(texts(obs[9]!)).toContain('/next');
    expect(texts(obs[10]!)).toContain('## Second page');
    expect(texts(obs[10]!)).toContain('- one');
    const tabs = texts(obs[11]!);
    expect(tabs.match(/^\* [a-z0-9]{4} /m)).toBeTruthy();
    expect(tabs.split('\n').filter((l) => /^[ *] [a-z0-9]{4} /.test(l))).toHaveLength(2);
    expect(texts(obs[14]!)).toMatch(/Recording stopped: \d+ frame/);
    const dir = /in (\S+)\.$/.exec(texts(obs[14]!))?.[1];
    expect(dir && existsSync(dir) && readdirSync(dir).length).toBeGreaterThan(0);
    expect(obs[15]!.is_error).toBe(true);
    expect(texts(obs[15]!)).toContain('No element with index 99');
    expect(await waitForStatus(server, id, ['finished'])).toBe('finished');
  });
});
