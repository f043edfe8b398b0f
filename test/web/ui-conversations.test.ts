// The web UI's conversations in a real Chromium against the real binary (dist/cli.js) and the scripted
// LLM (set up by ui-harness.ts): start one from the page and watch its terminal output, see file edits
// and patches as diffs, keep what was chosen on the New page before the settings came, approve and
// reject in confirmation mode, interrupt and resume, live through a server restart without a gap or a
// duplicate (the tests after it run on the restarted server, on the same port), start a
// sub-conversation, work toward a goal, and open the working folder's page.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningCli } from '../support/cli.js';
import { finishStep, terminalStep } from '../support/conversation.js';
import { tempDir } from '../support/server.js';
import { finishing, webUiInChromium } from './ui-harness.js';

const ui = webUiInChromium();
const { llm, serve, api, scriptNext, storedEvents, signedInPage, startFromPage, shot } = ui;
// The server as the tests name it: the restart's test replaces it (`cli = await serve(port)`).
let cli: RunningCli;
let port = 0;
beforeAll(() => {
  ({ cli, port } = ui);
});

describe('the web UI in Chromium', () => {
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

  it('keeps the model and confirmation mode chosen on the New page before the settings came', async () => {
    await scriptNext([finishStep]); // the settings name the scripted model, confirmation mode off
    const page = await signedInPage();
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/api/settings', async (route) => {
      await held;
      await route.continue();
    });
    await page.getByRole('link', { name: 'New', exact: true }).click();
    await page.getByLabel(/confirmation mode/).check();
    await page.locator('input[name="model"]').fill('openai/chosen-model');
    const answered = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/settings');
    release();
    await answered;
    // Two frames: the page has rendered what the settings changed.
    await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
    expect(await page.getByLabel(/confirmation mode/).isChecked()).toBe(true);
    expect(await page.locator('input[name="model"]').inputValue()).toBe('openai/chosen-model');
    await page.unroute('**/api/settings');
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
