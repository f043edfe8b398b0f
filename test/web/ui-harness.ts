// What the web UI's Chromium tests share. webUiInChromium() gives a test file its own scripted LLM,
// real binary (dist/cli.js, with a temp data folder and home) and Chromium, started before its tests
// and stopped after; a failed test leaves a screenshot of each page it had open. Its helpers reach
// them: serve (a server on this data folder, e.g. again on the same port after a stop), dataDir, api,
// scriptNext, storedEvents, signedInPage, startFromPage and shot. Also marketplace(), an extensions
// repository offering one skill, and finishing(), an LLM step that finishes with a message.
// Screenshots go to AGENTD_SCREENSHOT_DIR when set, else to a temp folder removed after the run.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { CHROMIUM_PATH } from '../../src/tools/browser/session.js';
import { type RunningCli, runCli } from '../support/cli.js';
import { ScriptedLLM, type ScriptStep } from '../support/scripted-llm.js';
import { tempDir } from '../support/server.js';

export type Ev = { id: string; kind: string; [k: string]: unknown };

export interface WebUi {
  readonly llm: ScriptedLLM;
  /** The server the helpers talk to: started before the file's tests, replaced by each serve(). */
  readonly cli: RunningCli;
  /** The first server's port (a restart may take it again). */
  readonly port: number;
  /** The servers' data folder (agentd.db: a test may append events there while none runs). */
  readonly dataDir: string;
  /** The URL with the key that the first server's banner prints. */
  readonly signInUrl: string;
  readonly browser: Browser;
  /** A server on the file's data folder, which the helpers then talk to. */
  serve(at?: number): Promise<RunningCli>;
  api(path: string, init?: { method?: string; body?: unknown }): Promise<Response>;
  /** The LLM of the settings is the scripted one, with a fresh key (answered) whose script is `steps`. */
  scriptNext(steps: ScriptStep[]): Promise<string>;
  storedEvents(id: string): Promise<Ev[]>;
  signedInPage(): Promise<Page>;
  startFromPage(page: Page, task: string, confirm?: boolean, dir?: string): Promise<string>;
  shot(page: Page, name: string): Promise<Buffer>;
}

/**
 * Registers the file's beforeAll, afterAll and afterEach hooks (call it at the top of the file,
 * before its own hooks). `home` is the server's home (where it installs skills; never the machine's
 * ~/.openhands), a temp folder unless given; `extensionsRepo` its AGENTD_EXTENSIONS_REPO (none unless given).
 */
export function webUiInChromium(options: { home?: string; extensionsRepo?: string } = {}): WebUi {
  const llm = new ScriptedLLM();
  const dataDir = tempDir('agentd-web-ui-');
  const shots = process.env.AGENTD_SCREENSHOT_DIR ?? tempDir('agentd-web-shots-');
  const home = options.home ?? tempDir('agentd-web-home-');
  const env: Record<string, string> = { HOME: home };
  if (options.extensionsRepo !== undefined) env.AGENTD_EXTENSIONS_REPO = options.extensionsRepo;
  let cli: RunningCli;
  let port = 0;
  let signInUrl = '';
  let browser: Browser;

  async function serve(at = 0): Promise<RunningCli> {
    cli = await runCli(['serve', '--port', String(at), '--data-dir', dataDir], { env });
    return cli;
  }

  async function api(path: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
    return fetch(`${cli.url}${path}`, {
      method: init.method ?? 'GET',
      headers: { 'X-Session-API-Key': cli.key!, 'content-type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  }

  async function scriptNext(steps: ScriptStep[]): Promise<string> {
    const key = `sk-${randomUUID()}`;
    llm.script(key, steps);
    const res = await api('/api/settings', {
      method: 'POST',
      body: { llm_model: 'openai/scripted-model', llm_base_url: llm.openaiBaseUrl, llm_api_key: key },
    });
    expect(res.status).toBe(200);
    return key;
  }

  async function storedEvents(id: string): Promise<Ev[]> {
    const all: Ev[] = [];
    let pageId: string | null = null;
    do {
      const res = await api(
        `/api/conversations/${id}/events/search?limit=100${pageId ? `&page_id=${pageId}` : ''}`,
      );
      const page = (await res.json()) as { items: Ev[]; next_page_id: string | null };
      all.push(...page.items);
      pageId = page.next_page_id;
    } while (pageId);
    return all;
  }

  async function signedInPage(): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(signInUrl);
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    return page;
  }

  async function startFromPage(
    page: Page,
    task: string,
    confirm = false,
    dir = tempDir('agentd-web-work-'),
  ): Promise<string> {
    await page.getByRole('link', { name: 'New', exact: true }).click();
    await page.getByLabel('Task').fill(task);
    await page.getByLabel('Working folder').fill(dir);
    if (confirm) await page.getByLabel(/confirmation mode/).check();
    await page.getByRole('button', { name: 'Start' }).click();
    await page.waitForURL(/\/ui\/conversations\/[0-9a-f-]+$/);
    return page.url().split('/').pop()!;
  }

  const shot = (page: Page, name: string) =>
    page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    await llm.start();
    await serve();
    port = Number(new URL(cli.url).port);
    signInUrl = /web UI: (http:\/\/\S+)/.exec(cli.output())?.[1] ?? '';
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await cli?.stop();
    await llm.stop();
  });

  // A failed test leaves a picture of each page it had open, to see what the page showed instead.
  afterEach(async (context) => {
    if (context.task.result?.state !== 'fail') return;
    const pages = browser.contexts().flatMap((c) => c.pages());
    await Promise.all(pages.map((p, i) => shot(p, `failed-${context.task.name.slice(0, 30)}-${i}`)));
    await Promise.all(pages.map((p) => p.close()));
  });

  return {
    llm,
    get cli() {
      return cli;
    },
    get port() {
      return port;
    },
    dataDir,
    get signInUrl() {
      return signInUrl;
    },
    get browser() {
      return browser;
    },
    serve,
    api,
    scriptNext,
    storedEvents,
    signedInPage,
    startFromPage,
    shot,
  };
}

/** An extensions repository (a git repository in a temp folder) whose marketplace offers one skill. */
export function marketplace(): string {
  const market = tempDir('agentd-web-market-');
  mkdirSync(join(market, '.plugin'));
  mkdirSync(join(market, 'skills', 'market-skill'), { recursive: true });
  writeFileSync(
    join(market, 'skills', 'market-skill', 'SKILL.md'),
    '---\nname: market-skill\ndescription: From the marketplace\n---\nBe brief.\n',
  );
  writeFileSync(
    join(market, '.plugin', 'marketplace.json'),
    JSON.stringify({
      name: 'web-market',
      plugins: [{ name: 'market-skill', source: './skills/market-skill', description: 'Offered here' }],
    }),
  );
  for (const args of [
    ['init', '-q', '-b', 'main'],
    ['add', '-A'],
    ['commit', '-q', '-m', 'market'],
  ])
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-C', market, ...args]);
  return market;
}

export const finishing = (message: string) => ({
  toolCalls: [{ name: 'finish', arguments: { message } }],
});
