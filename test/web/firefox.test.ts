// The web UI in Firefox (Debian's firefox-esr, driven over WebDriver BiDi by puppeteer-core, which
// downloads no browser; AGENTD_FIREFOX names another): sign in through the printed URL, start a
// conversation from the page and see its terminal output arrive over the WebSocket.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningCli, runCli } from '../support/cli.js';
import { finishStep, terminalStep } from '../support/conversation.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { tempDir } from '../support/server.js';

const FIREFOX = process.env.AGENTD_FIREFOX ?? '/usr/bin/firefox-esr';
const shots = process.env.AGENTD_SCREENSHOT_DIR ?? tempDir('agentd-web-shots-');
const llm = new ScriptedLLM();
let cli: RunningCli;
let browser: Browser;

beforeAll(async () => {
  await llm.start();
  cli = await runCli(['serve', '--port', '0', '--data-dir', tempDir('agentd-web-ff-')]);
  browser = await puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX, headless: true });
});
afterAll(async () => {
  await browser?.close();
  await cli?.stop();
  await llm.stop();
});

describe('the web UI in Firefox', () => {
  it('signs in through the printed URL and shows a conversation started from the page, live', async () => {
    const key = `sk-${randomUUID()}`;
    llm.script(key, [terminalStep('echo hello-from-firefox'), finishStep]);
    const stored = await fetch(`${cli.url}/api/settings`, {
      method: 'POST',
      headers: { 'X-Session-API-Key': cli.key!, 'content-type': 'application/json' },
      body: JSON.stringify({
        llm_model: 'openai/scripted-model',
        llm_base_url: llm.openaiBaseUrl,
        llm_api_key: key,
      }),
    });
    expect(stored.status).toBe(200);

    const signIn = /web UI: (http:\/\/\S+)/.exec(cli.output())?.[1] ?? '';
    const page = await browser.newPage();
    await page.goto(signIn);
    await page.waitForSelector('nav[aria-label="Main"]');
    expect(page.url()).toBe(`${cli.url}/`);

    // Firefox applies the page's Content-Security-Policy (script-src 'self', no eval: agentd's stays
    // strict) to the function puppeteer's locators poll to see an element is enabled; so this test
    // says "enabled" in the selector instead.
    const enabled = (selector: string) =>
      page.locator(`${selector}:not([disabled])`).setWaitForEnabled(false);
    await enabled('nav a[href="/ui/new"]').click();
    await enabled('textarea[name="task"]').fill('Say hello from Firefox');
    await enabled('input[name="working-dir"]').fill(tempDir('agentd-web-ff-work-'));
    await enabled('button[type="submit"]').click();
    const terminal = await page.waitForSelector('pre.terminal ::-p-text(hello-from-firefox)');
    expect(await terminal?.evaluate((e) => e.textContent)).toBe('hello-from-firefox');
    await page.waitForSelector('.badge.status-finished');
    await page.screenshot({ path: join(shots, 'firefox-conversation.png') });
    await page.close();
  });
});
