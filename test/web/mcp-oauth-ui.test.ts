// Adding a remote MCP server that signs in with OAuth, in a real Chromium against the real binary
// (dist/cli.js, set up by ui-harness.ts) and a real OAuth authorization server and MCP server on
// loopback (test/support/oauth-servers.ts): the settings page starts the sign-in and opens the
// authorization page in a new tab; the authorization server sends that tab back to agentd's
// /ui/oauth/callback, which completes the job with the key this browser keeps; the settings page sees
// the job succeed and saves the server with its state. No token or client secret reaches the server's log.
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningCli } from '../support/cli.js';
import { type OAuthServers, startOAuthServers } from '../support/oauth-servers.js';
import { webUiInChromium } from './ui-harness.js';

let oauth: OAuthServers;
// Registered before the harness's hooks: started before the server, closed after it.
beforeAll(async () => {
  oauth = await startOAuthServers();
});
afterAll(async () => {
  await oauth?.close();
});

const ui = webUiInChromium();
let cli: RunningCli;
let browser: Browser;
beforeAll(() => {
  ({ cli, browser } = ui);
});

describe('an MCP server that signs in with OAuth, in the web UI', () => {
  it('is signed in through the callback page and saved with its state', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${cli.url}/ui/settings#key=${cli.key}`);
    const form = page.getByRole('form', { name: 'Add an MCP server' });
    await form.getByLabel('Kind').selectOption('shttp');
    await form.getByLabel('URL').fill(oauth.mcpUrl);
    await form.getByLabel('Sign in with OAuth').check();
    await form.getByLabel(/^Name/).fill('linear');
    const opened = context.waitForEvent('page');
    await form.getByRole('button', { name: 'Sign in and add' }).click();

    // The new tab: the authorization server sends it straight back to agentd's callback page.
    const tab = await opened;
    await tab.getByText('Signed in to the MCP server.').waitFor();
    const landed = new URL(tab.url());
    expect(landed.origin).toBe(cli.url);
    expect(landed.pathname).toBe('/ui/oauth/callback');
    expect(landed.search).toBe(''); // the code left the address bar
    const shots = process.env.AGENTD_SCREENSHOT_DIR;
    if (shots) await tab.screenshot({ path: join(shots, 'mcp-oauth-callback.png') });
    await tab.close();

    // The settings page finishes: the server is saved, marked as signed in with OAuth.
    await page.getByText('Signed in and added: add, explode, die').waitFor();
    await page.getByText(`linear: ${oauth.mcpUrl} (OAuth)`).waitFor();
    if (shots) await page.screenshot({ path: join(shots, 'mcp-oauth-settings.png'), fullPage: true });
    await context.close();

    const settings = (await (
      await fetch(`${cli.url}/api/settings`, { headers: { 'X-Session-API-Key': cli.key! } })
    ).json()) as { agent_settings: { mcp_config: Record<string, { auth?: Record<string, unknown> }> } };
    expect(settings.agent_settings.mcp_config.linear?.auth).toMatchObject({
      strategy: 'oauth2',
      state: { tokens: { access_token: '**********', refresh_token: '**********' } },
    });
    expect(oauth.grants).toEqual(['authorization_code']);
    for (const secret of oauth.secrets) expect(cli.output()).not.toContain(secret);
  });
});
