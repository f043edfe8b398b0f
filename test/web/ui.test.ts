// The web UI in a real Chromium against the real binary (dist/cli.js) and the scripted LLM: sign in
// through the URL the banner prints, start a conversation from the page and watch its terminal output,
// see file edits and patches as diffs, approve and reject in confirmation mode, live through a server
// restart without a gap or a duplicate, change settings (with an MCP server tested), and save, use and
// switch to LLM profiles. Screenshots go to AGENTD_SCREENSHOT_DIR when set, else to a temp folder
// removed after the run.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_PATH } from '../../src/tools/browser/session.js';
import { type RunningCli, runCli } from '../support/cli.js';
import { finishStep, terminalStep } from '../support/conversation.js';
import { ScriptedLLM, type ScriptStep } from '../support/scripted-llm.js';
import { tempDir } from '../support/server.js';
import { postJson, waitForTask } from '../support/v1.js';

const llm = new ScriptedLLM();
const dataDir = tempDir('agentd-web-ui-');
const shots = process.env.AGENTD_SCREENSHOT_DIR ?? tempDir('agentd-web-shots-');
let cli: RunningCli;
let port = 0;
let signInUrl = '';
let browser: Browser;

type Ev = { id: string; kind: string; [k: string]: unknown };

/** The server's home: where it installs skills (never the machine's ~/.openhands). */
const home = tempDir('agentd-web-home-');

/** The server's extensions repository: a marketplace offering one skill. */
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

function serve(at = 0): Promise<RunningCli> {
  return runCli(['serve', '--port', String(at), '--data-dir', dataDir], {
    env: { HOME: home, AGENTD_EXTENSIONS_REPO: market },
  });
}

async function api(path: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
  return fetch(`${cli.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { 'X-Session-API-Key': cli.key!, 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

/** The LLM of the settings is the scripted one, with a fresh key (answered) whose script is `steps`. */
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
  cli = await serve();
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

  it('starts a conversation from the page and shows the terminal output live', async () => {
    await scriptNext([terminalStep("printf '\\033[31mred\\033[0m hello-from-terminal\\n'"), finishStep]);
    const page = await signedInPage();
    const id = await startFromPage(page, 'Say hello in red');
    // The terminal tool strips colour codes before the LLM sees the output (src/tools/terminal), so
    // the observation holds the plain text; the escape codes never show up as garbage.
    const terminal = page.locator('pre.terminal', { hasText: 'hello-from-terminal' });
    await terminal.waitFor();
    expect(await terminal.textContent()).toBe('red hello-from-terminal');
    await page.getByText('exit code 0').waitFor();
    await page.locator('.message.final', { hasText: 'done' }).waitFor();
    await page.locator('.badge.status-finished').first().waitFor();
    await page.locator('.message.user', { hasText: 'Say hello in red' }).waitFor();
    await shot(page, 'conversation-terminal');

    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, 'conversation-phone');
    await page.getByRole('link', { name: 'Conversations' }).click();
    const row = page.locator(`li[data-conversation-id="${id}"]`);
    await row.locator('.badge.status-finished').waitFor();
    await shot(page, 'conversations-phone');
    await page.close();
  });

  it('shows a file edit as a diff, a task list and Markdown; the list searches by title and deletes', async () => {
    const dir = tempDir('agentd-web-work-');
    await scriptNext([
      {
        toolCalls: [
          {
            name: 'file_editor',
            arguments: {
              command: 'create',
              path: join(dir, 'notes.txt'),
              file_text: 'first line\nsecond line\n',
            },
          },
        ],
      },
      {
        toolCalls: [
          {
            name: 'task_tracker',
            arguments: {
              command: 'plan',
              task_list: [
                { title: 'Write the notes', status: 'done' },
                { title: 'Read them again', status: 'todo' },
              ],
            },
          },
        ],
      },
      { toolCalls: [{ name: 'finish', arguments: { message: 'All **done**, see `notes.txt`.' } }] },
    ]);
    const page = await signedInPage();
    const id = await startFromPage(page, 'Write notes for the diff test', false, dir);
    const diff = page.locator('pre.diff');
    await diff.locator('.add', { hasText: '+first line' }).waitFor();
    await diff.locator('.hunk').first().waitFor();
    await page.locator('ul.tasks li.task-done', { hasText: 'Write the notes' }).waitFor();
    await page.locator('ul.tasks li.task-todo', { hasText: 'Read them again' }).waitFor();
    await page.locator('.message.final strong', { hasText: 'done' }).waitFor();
    await page.locator('.message.final code', { hasText: 'notes.txt' }).waitFor();
    await shot(page, 'conversation-diff-tasks');

    await page.getByRole('link', { name: 'Conversations' }).click();
    const row = page.locator(`li[data-conversation-id="${id}"]`);
    await row.waitFor();
    const search = page.getByLabel('Search by title');
    await search.fill('zzz-no-such-title');
    await row.waitFor({ state: 'detached' });
    await search.fill('notes for the DIFF');
    await row.waitFor();
    await row.getByRole('button', { name: /^Delete/ }).click();
    await row.getByRole('button', { name: 'Delete it' }).click();
    await row.waitFor({ state: 'detached' });
    expect((await api(`/api/conversations/${id}`)).status).toBe(404);
    await page.close();
  });

  it('shows an apply_patch call as the diffs of the files it changed, and a refused patch as its text', async () => {
    const dir = tempDir('agentd-web-work-');
    writeFileSync(join(dir, 'greet.py'), 'def greet(name):\n    return "hi " + name\n');
    const patch = [
      '*** Begin Patch',
      '*** Update File: greet.py',
      '@@ def greet(name):',
      '-    return "hi " + name',
      '+    return f"hello {name}"',
      '*** Add File: NOTES.md',
      '+patched by the agent',
      '*** End Patch',
    ].join('\n');
    const key = `sk-${randomUUID()}`;
    // The same patch twice: the second no longer fits (the line it removes is gone).
    const call = { toolCalls: [{ name: 'apply_patch', arguments: { patch } }] };
    llm.script(key, [call, call, finishStep]);
    const llmConfig = {
      model: 'openai/scripted-model',
      api_key: key,
      base_url: llm.openaiBaseUrl,
      num_retries: 0,
    };
    const res = await api('/api/conversations', {
      method: 'POST',
      body: {
        agent: { kind: 'Agent', llm: llmConfig, tools: [{ name: 'apply_patch' }] },
        workspace: { working_dir: dir },
        initial_message: { role: 'user', content: [{ type: 'text', text: 'Patch the greeting' }] },
      },
    });
    expect(res.status).toBe(201);
    const { id } = (await res.json()) as { id: string };
    const page = await signedInPage();
    await page.goto(`${cli.url}/ui/conversations/${id}`);
    const [applied, refused] = [page.locator('.tool').nth(0), page.locator('.tool').nth(1)];
    await applied.locator('.badge', { hasText: 'patch' }).waitFor();
    await applied.locator('.detail', { hasText: 'greet.py, NOTES.md' }).waitFor();
    const diffs = applied.locator('pre.diff:not(.patch)');
    await diffs.locator('.del', { hasText: '-    return "hi " + name' }).waitFor();
    await diffs.locator('.add', { hasText: '+    return f"hello {name}"' }).waitFor();
    await diffs.locator('.add', { hasText: '+patched by the agent' }).waitFor();
    expect(await diffs.count()).toBe(2);
    await refused.locator('pre.error', { hasText: 'Invalid Context in greet.py' }).waitFor();
    await refused.locator('pre.diff.patch .file', { hasText: '*** Update File: greet.py' }).waitFor();
    await refused.locator('pre.diff.patch .add', { hasText: '+patched by the agent' }).waitFor();
    await page.locator('.badge.status-finished').first().waitFor();
    await shot(page, 'conversation-apply-patch');
    await page.close();
  });

  it('approves one action and rejects another in confirmation mode', async () => {
    await scriptNext([terminalStep('echo approved-run'), terminalStep('echo rejected-run'), finishStep]);
    const page = await signedInPage();
    const id = await startFromPage(page, 'Run two commands', true);
    const panel = page.getByRole('region', { name: 'Actions waiting for approval' });
    await panel.getByText('$ echo approved-run').waitFor();
    await panel.getByText(/risk: /).waitFor();
    await shot(page, 'confirmation-pending');
    await panel.getByRole('button', { name: 'Approve' }).click();
    await page.locator('pre.terminal', { hasText: 'approved-run' }).waitFor();

    await panel.getByText('$ echo rejected-run').waitFor();
    await panel.getByLabel('Reason for rejecting').fill('not this one');
    await panel.getByRole('button', { name: 'Reject' }).click();
    await page.getByText('Rejected: not this one').waitFor();
    // A rejection stops the run: the agent waits for the user's next word.
    await page.locator('.badge.status-idle').first().waitFor();
    await shot(page, 'confirmation-done');

    const events = await storedEvents(id);
    const outputs = events
      .filter((e) => e.kind === 'ObservationEvent' && e.tool_name === 'terminal')
      .map((e) => JSON.stringify(e.observation));
    expect(outputs).toHaveLength(1);
    expect(outputs[0]).toContain('approved-run');
    expect(events.filter((e) => e.kind === 'UserRejectObservation')).toEqual([
      expect.objectContaining({ rejection_reason: 'not this one' }),
    ]);
    await page.close();
  });

  it('interrupts a slow LLM call and resumes the run', async () => {
    await scriptNext([{ delayMs: 60_000, text: 'too slow' }, terminalStep('echo resumed'), finishStep]);
    const page = await signedInPage();
    await startFromPage(page, 'Be interrupted');
    await page.locator('.badge.status-running').first().waitFor();
    await page.getByRole('button', { name: 'Interrupt' }).click();
    await page.locator('.marker', { hasText: 'Interrupted' }).waitFor();
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('pre.terminal', { hasText: 'resumed' }).waitFor();
    await page.locator('.badge.status-finished').first().waitFor();
    await page.close();
  });

  it('resumes after a server restart mid-conversation with no event missing or shown twice', async () => {
    const key = await scriptNext([
      terminalStep('echo before-restart'),
      // The server stops while the LLM takes its time over this answer.
      { delayMs: 60_000, text: 'too late' },
      terminalStep('echo after-restart'),
      finishStep,
    ]);
    const page = await signedInPage();
    const id = await startFromPage(page, 'Work across a restart');
    await page.locator('pre.terminal', { hasText: 'before-restart' }).waitFor();
    await page.locator('.badge.status-running').first().waitFor();
    // The slow answer's request has reached the LLM: stopped before it was sent, the server would
    // make it again after the restart, and wait the 60 s (the page shows the output first).
    await expect.poll(() => llm.requestsFor(key).length).toBe(2);
    await cli.stop();
    await page.locator('.link-reconnecting').waitFor();

    cli = await serve(port);
    await page.getByText('ServerRestarted', { exact: false }).waitFor();
    await page.getByLabel('Message to the agent').fill('Please go on');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('pre.terminal', { hasText: 'after-restart' }).waitFor();
    await page.locator('.badge.status-finished').first().waitFor();
    await shot(page, 'after-restart');

    const rows = page.locator('ol.timeline > li[data-event-id]');
    const shown = () => rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-event-id')));
    const stored = (await storedEvents(id)).map((e) => e.id);
    // The page may still be receiving the last events: wait until it has as many as are stored.
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(stored.length);
    expect(await shown()).toEqual(stored);

    await page.reload();
    await page.locator('pre.terminal', { hasText: 'after-restart' }).waitFor();
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(stored.length);
    expect(await shown()).toEqual(stored);
    await page.close();
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
    await page.getByLabel('Max iterations').fill('42');
    await page.getByLabel(/Confirmation mode/).check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const stored = (await (await api('/api/settings')).json()) as Record<string, unknown>;
    expect(stored).toMatchObject({ max_iterations: 42, confirmation_mode: true, llm_api_key_set: true });

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

  it('starts a sub-conversation from a conversation, in its folder, and links the two both ways', async () => {
    await scriptNext([finishing('parent done'), finishing('child done')]);
    const page = await signedInPage();
    const folder = tempDir('agentd-web-work-');
    const parentId = await startFromPage(page, 'The parent task', false, folder);
    await page.locator('.message.final', { hasText: 'parent done' }).waitFor();
    await page.getByRole('button', { name: 'New sub-conversation' }).click();
    await page.getByRole('heading', { name: 'New sub-conversation' }).waitFor();
    await page.locator('.note', { hasText: 'Under' }).waitFor();
    expect(await page.getByLabel('Working folder').inputValue()).toBe(folder);
    await page.getByLabel('Task').fill('The child task');
    await page.getByRole('button', { name: 'Start' }).click();
    await page.waitForURL(
      (url) => !url.pathname.endsWith(parentId) && /conversations\/[0-9a-f-]+$/.test(url.pathname),
    );
    const childId = page.url().split('/').pop()!;
    await page.locator('.message.final', { hasText: 'child done' }).waitFor();
    const child = (await (await api(`/api/conversations/${childId}`)).json()) as Record<string, unknown>;
    expect(child.parent_conversation_id).toBe(parentId);

    await page.getByRole('link', { name: 'its parent' }).click();
    await page.waitForURL((url) => url.pathname.endsWith(parentId));
    const subs = page.getByRole('navigation', { name: 'Sub-conversations' });
    await subs.getByRole('link').first().waitFor();
    await shot(page, 'conversation-subconversations');
    await subs.getByRole('link').first().click();
    await page.waitForURL((url) => url.pathname.endsWith(childId));
    // The New link after a sub-conversation's start is a plain new conversation again.
    await page.getByRole('link', { name: 'New', exact: true }).click();
    await page.getByRole('heading', { name: 'New conversation' }).waitFor();
    // A parent that is no conversation id is no parent (the page would read it from the API).
    await page.goto(`${cli.url}/ui/new?parent=..%2F..%2Fapi%2Fsettings`);
    await page.getByRole('heading', { name: 'New conversation' }).waitFor();
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

  it('works toward a goal from the page: audits shown as they come, complete at the end', async () => {
    const verdict = (score: number, complete: boolean, missing = '') => ({
      text: JSON.stringify({ score, complete, missing }),
    });
    await scriptNext([
      finishing('first answer'),
      finishing('second try'),
      verdict(0.5, false, 'no tests yet'),
      finishing('tests added'),
      verdict(1, true),
    ]);
    const page = await signedInPage();
    await startFromPage(page, 'Start with this');
    await page.locator('.message.final', { hasText: 'first answer' }).waitFor();
    await page.getByText('Work toward a goal…').click();
    await page.getByLabel('Goal objective').fill('The code has tests');
    await page.getByRole('button', { name: 'Start goal' }).click();
    await page.locator('.marker', { hasText: 'Goal audit 1/10: 50% done · missing: no tests yet' }).waitFor();
    await page.locator('.goal-status', { hasText: 'Goal complete' }).waitFor();
    await page.locator('.message.final', { hasText: 'tests added' }).waitFor();
    await shot(page, 'conversation-goal');
    await page.close();
  });

  it("opens the working folder's page in a tab: its styles and script load, sandboxed from the key", async () => {
    await scriptNext([finishing('made a page')]);
    const folder = tempDir('agentd-web-work-');
    // A page as an agent might write one, trying to read what the web UI keeps in this origin.
    writeFileSync(join(folder, 'style.css'), 'h1 { color: rgb(0, 128, 0); }');
    writeFileSync(
      join(folder, 'app.js'),
      `let key;
       try { key = localStorage.getItem('agentd.sessionKey'); } catch (e) { key = 'blocked: ' + e.name; }
       document.getElementById('out').textContent = 'script ran; storage ' + key;`,
    );
    writeFileSync(
      join(folder, 'index.html'),
      '<link rel="stylesheet" href="style.css"><h1>Agent report</h1><p id="out">no script</p><script src="app.js"></script>',
    );
    const page = await signedInPage();
    await startFromPage(page, 'Make a page', false, folder);
    await page.locator('.message.final', { hasText: 'made a page' }).waitFor();
    const [tab] = await Promise.all([
      page.waitForEvent('popup'),
      page.getByRole('button', { name: 'Open workspace' }).click(),
    ]);
    await tab.waitForURL(/\/workspace\/~[^/]+\/$/);
    await tab.getByRole('heading', { name: 'Agent report' }).waitFor();
    await tab.getByText('script ran; storage blocked: SecurityError').waitFor();
    expect(
      await tab.locator('h1').evaluate((h) => h.ownerDocument.defaultView!.getComputedStyle(h).color),
    ).toBe('rgb(0, 128, 0)');
    await shot(tab, 'workspace-page');
    await tab.close();
    await page.close();
  });
});

const finishing = (message: string) => ({ toolCalls: [{ name: 'finish', arguments: { message } }] });
