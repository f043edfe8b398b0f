// The web UI in a real Chromium against the real binary (dist/cli.js) and the scripted LLM (set up by
// ui-harness.ts): sign in through the URL the banner prints, or in the form with the key, which stays
// out of the address, the cookies and the server's log; a server started with --no-auth asks for no
// key; the V1 sandboxes page lists a sandbox with its conversation, pauses, resumes and deletes it.
import type { Browser } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { type RunningCli, runCli } from '../support/cli.js';
import { tempDir } from '../support/server.js';
import { postJson, waitForTask } from '../support/v1.js';
import { webUiInChromium } from './ui-harness.js';

const ui = webUiInChromium();
const { scriptNext, signedInPage, shot } = ui;
let cli: RunningCli;
let signInUrl = '';
let browser: Browser;
beforeAll(() => {
  ({ cli, signInUrl, browser } = ui);
});

describe('the web UI in Chromium', () => {
  it('signs in through the printed URL, keeps the key out of the address, and asks for it otherwise', async () => {
    expect(signInUrl).toBe(`${cli.url}/#key=${cli.key}`);
    const page = await signedInPage();
    expect(page.url()).toBe(`${cli.url}/`);
    expect(await page.evaluate<string | null>("localStorage.getItem('agentd.sessionKey')")).toBe(cli.key);
    expect(await page.evaluate<string>('document.cookie')).toBe('');
    await page.getByRole('heading', { name: 'Conversations' }).waitFor();
    await shot(page, 'conversations-empty');

    const fresh = await browser.newPage();
    await fresh.goto(`${cli.url}/ui/settings`);
    await fresh.getByLabel('Session key').fill('not-the-key');
    await fresh.getByRole('button', { name: 'Sign in' }).click();
    await fresh.getByText('The server did not accept that key.').waitFor();
    await shot(fresh, 'sign-in');
    await fresh.getByLabel('Session key').fill(cli.key!);
    await fresh.getByRole('button', { name: 'Sign in' }).click();
    await fresh.getByRole('heading', { name: 'Settings' }).waitFor();
    await fresh.close();
    await page.close();
    // The key went to the server only in headers and the socket's first frame: never in a logged line.
    expect(cli.output().split(cli.key!).length - 1).toBe(2); // the banner's two lines
  });

  it('needs no key on a server started with --no-auth', async () => {
    const open = await runCli([
      'serve',
      '--no-auth',
      '--port',
      '0',
      '--data-dir',
      tempDir('agentd-web-noauth-'),
    ]);
    try {
      const page = await browser.newPage();
      await page.goto(/web UI: (http:\/\/\S+)/.exec(open.output())?.[1] ?? '');
      await page.getByRole('heading', { name: 'Conversations' }).waitFor();
      await page.getByRole('link', { name: 'Settings' }).click();
      await page.getByLabel('Max iterations').waitFor();
      expect(await page.evaluate<string | null>("localStorage.getItem('agentd.sessionKey')")).toBeNull();
      await page.close();
    } finally {
      await open.stop();
    }
  });

  it('lists the V1 sandboxes with their conversations; pauses, resumes and deletes one', async () => {
    await scriptNext([{ toolCalls: [{ name: 'finish', arguments: { message: 'sandboxed and done' } }] }]);
    const who = { url: cli.url, key: cli.key! };
    const task = await postJson(who, '/api/v1/app-conversations', {
      initial_message: { role: 'user', content: [{ type: 'text', text: 'Finish in a sandbox' }] },
    });
    const ready = await waitForTask(who, task.id as string);
    const sandboxId = ready.sandbox_id as string;
    const page = await signedInPage();
    await page.getByRole('link', { name: 'Sandboxes' }).click();
    const row = page.locator(`li[data-sandbox-id="${sandboxId}"]`);
    await row.locator('.badge', { hasText: 'running' }).waitFor();
    await shot(page, 'sandboxes');
    await row.getByRole('button', { name: 'Pause' }).click();
    await row.locator('.badge', { hasText: 'paused' }).waitFor();
    await row.getByRole('button', { name: 'Resume' }).click();
    await row.locator('.badge', { hasText: 'running' }).waitFor();
    await row.getByRole('link').first().click();
    await page.waitForURL(/\/ui\/conversations\//);
    await page.locator('.message.final', { hasText: 'sandboxed and done' }).waitFor();
    await shot(page, 'sandbox-conversation');
    await page.getByRole('link', { name: 'Sandboxes' }).click();
    await row.getByRole('button', { name: 'Delete' }).click();
    await row.waitFor({ state: 'detached' });
    await page.close();
  });
});
