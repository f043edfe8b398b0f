// The web UI in a real Chromium against the real binary (dist/cli.js) and the scripted LLM (set up by
// ui-harness.ts): sign in through the URL the banner prints, or in the form, the key kept out of the
// address, the cookies and the server's log; a server started with --no-auth asks for no key; the V1
// sandboxes page pauses, resumes and deletes a sandbox; change settings (with an MCP server tested);
// save, use and switch to LLM profiles, one on a shared key, and an agent profile; install skills (from
// a folder and from the server's marketplace) and a plugin; save a working folder for the New page.
// In this order on one server: the sign-in's settings page lists the agent profiles first, before any
// LLM key is stored (so the default agent profile they start with gets no LLM profile), and the
// settings' test finds the key a test before it stored and no LLM profile yet.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Browser } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { type RunningCli, runCli } from '../support/cli.js';
import { finishStep } from '../support/conversation.js';
import { tempDir } from '../support/server.js';
import { postJson, waitForTask } from '../support/v1.js';
import { finishing, marketplace, webUiInChromium } from './ui-harness.js';

const ui = webUiInChromium({ extensionsRepo: marketplace() });
const { llm, api, scriptNext, signedInPage, startFromPage, shot } = ui;
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

  it('changes settings through /api/settings, the key shown only as set, and tests an MCP server', async () => {
    const page = await signedInPage();
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Max iterations').waitFor();
    expect(await page.getByTestId('key-state').textContent()).toBe('set');
    expect(await page.getByLabel(/^API key/).inputValue()).toBe('');
    // The model field suggests the models that work with a key alone.
    const suggested = page.locator('datalist#known-models option');
    await suggested.first().waitFor({ state: 'attached' });
    expect(await suggested.evaluateAll((o) => o.map((e) => e.getAttribute('value')))).toContain(
      'anthropic/claude-sonnet-4-6',
    );
    expect(await page.getByTestId('search-key-state').textContent()).toBe('not set');
    await page.getByLabel('Max iterations').fill('42');
    await page.getByLabel(/Confirmation mode/).check();
    await page.getByLabel(/^Tavily API key/).fill('tvly-web-page-key');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const stored = (await (await api('/api/settings')).json()) as Record<string, unknown>;
    expect(stored).toMatchObject({
      max_iterations: 42,
      confirmation_mode: true,
      llm_api_key_set: true,
      search_api_key_set: true,
    });
    // Write-only: shown as set, the field empty again; a save that leaves it empty keeps the key.
    expect(await page.getByTestId('search-key-state').textContent()).toBe('set');
    expect(await page.getByLabel(/^Tavily API key/).inputValue()).toBe('');
    expect(JSON.stringify(stored)).not.toContain('tvly-web-page-key');

    const mcp = page.getByRole('form', { name: 'Add an MCP server' });
    await mcp.getByLabel('Name').fill('test-tools');
    await mcp.getByRole('textbox', { name: 'Command' }).fill(process.execPath);
    await mcp.getByLabel(/Arguments/).fill(`${join(process.cwd(), 'test/support/mcp-server.mjs')} stdio`);
    // Tried before it is added (POST /api/mcp/test): nothing is saved by that.
    await mcp.getByRole('button', { name: 'Test before adding' }).click();
    await mcp.getByText('works: add, explode, die').waitFor();
    const before = (await (await api('/api/settings')).json()) as {
      mcp_config: { stdio_servers?: unknown[] } | null;
    };
    expect(before.mcp_config?.stdio_servers ?? []).toHaveLength(0);
    await mcp.getByRole('button', { name: 'Add server' }).click();
    await page.getByText('test-tools:').waitFor();
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    await page.getByText(/works: .*add/).waitFor();
    await shot(page, 'settings');
    const after = (await (await api('/api/settings')).json()) as { mcp_config: { stdio_servers: unknown[] } };
    expect(after.mcp_config.stdio_servers).toHaveLength(1);
    // A server an OpenHands client saved under a key (/api/settings/mcp/{key}) shows its name.
    const saved = await api('/api/settings/mcp/docs', {
      method: 'POST',
      body: { url: 'https://docs.example/mcp' },
    });
    expect(saved.status).toBe(201);
    await page.reload();
    await page.getByText('docs: https://docs.example/mcp').waitFor();
    expect((await api('/api/settings/mcp/docs', { method: 'DELETE' })).status).toBe(200);
    await page.close();
  });

  it('saves the LLM as a profile, uses another, and switches a conversation to one from its page', async () => {
    const keyA = await scriptNext([finishStep]);
    const keyB = `sk-${randomUUID()}`;
    llm.script(keyB, [finishing('answered by model B'), finishing('started on model B')]);
    const b = { model: 'openai/model-b', api_key: keyB, base_url: llm.openaiBaseUrl };
    expect((await api('/api/profiles/model-b', { method: 'POST', body: { llm: b } })).status).toBe(201);

    const page = await signedInPage();
    await page.getByRole('link', { name: 'Settings' }).click();
    const form = page.getByRole('form', { name: 'Save the LLM as a profile' });
    await form.getByLabel('Profile name').fill('model-a');
    await form.getByRole('button', { name: 'Add profile' }).click();
    const rowA = page.locator('.profiles li', { hasText: 'model-a' });
    await rowA.getByText('key set').waitFor();
    // The page says how OpenAI's clients reach the profiles; what it names answers.
    const hint = (await page.getByLabel('OpenAI-compatible API').textContent()) ?? '';
    const baseUrl = /(http\S+\/v1)/.exec(hint)?.[1] ?? '';
    expect(baseUrl).toBe(`${cli.url}/v1`);
    const models = (await (
      await fetch(`${baseUrl}/models`, { headers: { authorization: `Bearer ${cli.key}` } })
    ).json()) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).toEqual(
      expect.arrayContaining(['openhands_model-a', 'openhands_model-b']),
    );
    // Saved with the stored key, sealed: the page never held it in clear.
    const saved = (await (await api('/api/profiles/model-a')).json()) as { config: Record<string, unknown> };
    expect(saved.config).toMatchObject({ model: 'openai/scripted-model', api_key: null });

    const rowB = page.locator('.profiles li', { hasText: 'model-b' });
    await rowB.getByRole('button', { name: 'Use' }).click();
    await rowB.getByText('in use').waitFor();
    // The settings form reloads after the profile list does: wait for it, not for the badge alone.
    await expect.poll(() => page.getByLabel('Model').first().inputValue()).toBe('openai/model-b');
    await shot(page, 'settings-profiles');
    await rowA.getByRole('button', { name: 'Use' }).click();
    await rowA.getByText('in use').waitFor();

    await startFromPage(page, 'Answer on model A first');
    await page.locator('.badge.status-finished').first().waitFor();
    expect(llm.requestsFor(keyA)).toHaveLength(1);
    await page.getByLabel('Switch the model').selectOption('model-b');
    await page.locator('.meta', { hasText: 'openai/model-b' }).waitFor();
    await page.locator('.marker', { hasText: 'Model: openai/model-b' }).waitFor();
    await page.getByLabel('Message to the agent').fill('Now on B');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.message.final', { hasText: 'answered by model B' }).waitFor();
    expect(llm.requestsFor(keyB)).toHaveLength(1);
    expect(llm.requestsFor(keyA)).toHaveLength(1);
    await shot(page, 'conversation-switched');

    // A new conversation on a profile from the start (the settings' LLM is model A's).
    await page.getByRole('link', { name: 'New', exact: true }).click();
    await page.getByLabel('Task').fill('Start on B');
    await page.getByLabel('Working folder').fill(tempDir('agentd-web-work-'));
    await page.getByLabel('LLM profile').selectOption('model-b');
    await page.getByRole('button', { name: 'Start' }).click();
    await page.locator('.message.final', { hasText: 'started on model B' }).waitFor();
    expect(llm.requestsFor(keyB)).toHaveLength(2);
    expect(llm.requestsFor(keyA)).toHaveLength(1);
    await page.close();
  });

  it('keeps a key once for several profiles: a profile on the shared key runs on it', async () => {
    await scriptNext([finishStep]);
    const shared = `sk-${randomUUID()}`;
    llm.script(shared, [finishing('ran on the shared key')]);
    const page = await signedInPage();
    await page.getByRole('link', { name: 'Settings' }).click();
    const add = page.getByRole('form', { name: 'Add a shared key' });
    await add.getByLabel('Name').fill('Team');
    await add.getByLabel(/Base URL/).fill(llm.openaiBaseUrl);
    await add.getByLabel('Key').fill(shared);
    await add.getByRole('button', { name: 'Add shared key' }).click();
    const keys = page.getByRole('list', { name: 'Shared keys' });
    await keys.getByText('Team').waitFor();
    expect(await keys.textContent()).not.toContain(shared);

    const form = page.getByRole('form', { name: 'Save the LLM as a profile' });
    await form.getByLabel('Profile name').fill('team-profile');
    await form.getByLabel('Key').selectOption({ label: 'Shared: Team' });
    await form.getByRole('button', { name: 'Add profile' }).click();
    await page.locator('.profiles li', { hasText: 'team-profile' }).getByText('shared key: Team').waitFor();
    await shot(page, 'settings-shared-keys');

    await page.getByRole('link', { name: 'New', exact: true }).click();
    await page.getByLabel('Task').fill('Run on the team key');
    await page.getByLabel('Working folder').fill(tempDir('agentd-web-work-'));
    await page.getByLabel('LLM profile').selectOption('team-profile');
    await page.getByRole('button', { name: 'Start' }).click();
    await page.locator('.message.final', { hasText: 'ran on the shared key' }).waitFor();
    expect(llm.requestsFor(shared)).toHaveLength(1);

    // Not deleted while a profile uses it: the page says why.
    await page.getByRole('link', { name: 'Settings' }).click();
    await keys.getByRole('button', { name: 'Delete' }).click();
    await page.getByText(/referenced by LLM profile\(s\): team-profile/).waitFor();
    await page.close();
  });

  it('saves an agent profile and starts a conversation on it from the New page', async () => {
    await scriptNext([finishStep]);
    const key = `sk-${randomUUID()}`;
    llm.script(key, [finishing('ran as the reviewer')]);
    const runsOn = { model: 'openai/reviewer-model', api_key: key, base_url: llm.openaiBaseUrl };
    expect((await api('/api/profiles/reviewer-llm', { method: 'POST', body: { llm: runsOn } })).status).toBe(
      201,
    );
    const page = await signedInPage();
    await page.getByRole('link', { name: 'Settings' }).click();
    const form = page.getByRole('form', { name: 'Save an agent profile' });
    await form.getByLabel('Agent profile name').fill('reviewer');
    await form.getByLabel('Runs on').selectOption('reviewer-llm');
    await form.getByLabel('Added instructions').fill('REVIEWER-MARK: only review, never edit.');
    await form.getByLabel('MCP servers').selectOption('none');
    await form.getByRole('button', { name: 'Save agent profile' }).click();
    const row = page.getByRole('list', { name: 'Agent profiles' }).locator('li', { hasText: 'reviewer' });
    await row.getByText('on reviewer-llm').waitFor();
    await row.getByText('no MCP servers').waitFor();
    expect(await row.getByText('no such LLM profile').count()).toBe(0);
    await shot(page, 'settings-agent-profiles');

    await page.getByRole('link', { name: 'New', exact: true }).click();
    await page.getByLabel('Task').fill('Review the change');
    await page.getByLabel('Working folder').fill(tempDir('agentd-web-work-'));
    await page.getByLabel('Agent profile').selectOption({ label: 'reviewer (on reviewer-llm)' });
    // An agent profile says what the agent runs on: no LLM profile or model to choose beside it.
    expect(await page.getByLabel('LLM profile').count()).toBe(0);
    await page.getByRole('button', { name: 'Start' }).click();
    await page.locator('.message.final', { hasText: 'ran as the reviewer' }).waitFor();
    expect(JSON.stringify(llm.requestsFor(key)[0]!.body.messages)).toContain('REVIEWER-MARK');
    const id = page.url().split('/').pop()!;
    const info = (await (await api(`/api/conversations/${id}`)).json()) as {
      launched_agent_profile: { agent_profile_id: string } | null;
    };
    const listed = (await (await api('/api/agent-profiles')).json()) as {
      profiles: { id: string; name: string }[];
    };
    expect(info.launched_agent_profile?.agent_profile_id).toBe(
      listed.profiles.find((p) => p.name === 'reviewer')?.id,
    );
    await page.close();
  });

  it('installs a skill from a folder, disables it and removes it; installs one from the marketplace, and a plugin', async () => {
    const folder = tempDir('agentd-web-skill-');
    writeFileSync(
      join(folder, 'SKILL.md'),
      '---\nname: web-skill\ndescription: From the page\nversion: 2.0.0\n---\nBe kind.\n',
    );
    const page = await signedInPage();
    await page.getByRole('link', { name: 'Settings' }).click();
    const form = page.getByRole('form', { name: 'Install a skill' });
    await form.getByLabel('Source').fill(folder);
    await form.getByRole('button', { name: 'Install skill' }).click();
    const list = page.getByRole('list', { name: 'Installed skills' });
    await list.getByText('From the page').waitFor();
    await shot(page, 'settings-installed-skills');
    const skillNames = async () =>
      (
        (await (await api('/api/skills', { method: 'POST', body: { load_project: false } })).json()) as {
          skills: { name: string }[];
        }
      ).skills.map((s) => s.name);
    expect(await skillNames()).toContain('web-skill');
    await list.getByLabel('web-skill enabled').uncheck();
    await expect.poll(skillNames).not.toContain('web-skill');
    expect(await list.getByLabel('web-skill enabled').isChecked()).toBe(false);
    // A source that holds no skill: the page says why.
    await form.getByLabel('Source').fill(tempDir('agentd-web-noskill-'));
    await form.getByRole('button', { name: 'Install skill' }).click();
    await page.getByText(/holds no SKILL.md/).waitFor();
    await list.getByRole('button', { name: 'Remove' }).click();
    await list.getByText('From the page').waitFor({ state: 'detached' });

    // From the marketplace (the server's extensions repository): installed with one click.
    await page.locator('.installed-skills summary', { hasText: 'Marketplace' }).click();
    const offered = page.getByRole('list', { name: 'Offered skills' });
    await offered.getByText('Offered here').waitFor();
    await offered.getByRole('button', { name: 'Install' }).click();
    await list.getByText('From the marketplace').waitFor();
    await offered.getByText('installed').waitFor();
    expect(await skillNames()).toContain('market-skill');
    await list.getByRole('button', { name: 'Remove' }).click();
    await list.getByText('From the marketplace').waitFor({ state: 'detached' });

    // A plugin the same way: installed, it joins every conversation.
    const plugin = tempDir('agentd-web-plugin-');
    mkdirSync(join(plugin, '.plugin'));
    writeFileSync(
      join(plugin, '.plugin', 'plugin.json'),
      JSON.stringify({ name: 'web-plugin', description: 'A page plugin' }),
    );
    const plugins = page.getByRole('form', { name: 'Install a plugin' });
    await plugins.getByLabel('Source').fill(plugin);
    await plugins.getByRole('button', { name: 'Install plugin' }).click();
    await page.getByRole('list', { name: 'Installed plugins' }).getByText('A page plugin').waitFor();
    const installed = (await (await api('/api/plugins/installed')).json()) as { plugins: { name: string }[] };
    expect(installed.plugins.map((p) => p.name)).toEqual(['web-plugin']);
    expect((await api('/api/plugins/installed/web-plugin', { method: 'DELETE' })).status).toBe(200);
    await page.close();
  });

  it('saves a working folder on the server and offers it on the New page of any browser', async () => {
    await scriptNext([finishing('ran in a kept folder')]);
    const folder = tempDir('agentd-web-saved-');
    const page = await signedInPage();
    await page.getByRole('link', { name: 'New', exact: true }).click();
    await page.getByLabel('Task').fill('Run in a folder to keep');
    await page.getByLabel('Working folder').fill(folder);
    await page.getByLabel('Save this folder for next time').check();
    await page.getByRole('button', { name: 'Start' }).click();
    await page.locator('.message.final', { hasText: 'ran in a kept folder' }).waitFor();
    const lists = (await (await api('/api/workspaces')).json()) as { workspaces: unknown[] };
    expect(lists.workspaces).toEqual([{ id: folder, name: basename(folder), path: folder }]);
    await page.close();

    // Another browser (its own storage, no last folder): the saved one is offered and fills the field.
    const other = await signedInPage();
    await other.getByRole('link', { name: 'New', exact: true }).click();
    const saved = other.getByRole('navigation', { name: 'Saved folders' });
    await saved.getByRole('button', { name: basename(folder), exact: true }).click();
    await expect.poll(() => other.getByLabel('Working folder').inputValue()).toBe(folder);
    expect(await other.getByLabel('Save this folder for next time').count()).toBe(0);
    await shot(other, 'new-saved-folders');
    await saved.getByRole('button', { name: `Forget ${basename(folder)}` }).click();
    await saved.waitFor({ state: 'detached' });
    expect(((await (await api('/api/workspaces')).json()) as { workspaces: unknown[] }).workspaces).toEqual(
      [],
    );
    await other.close();
  });
});
