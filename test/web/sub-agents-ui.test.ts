// A sub-agent task in the web UI, in a real Chromium against the real binary (dist/cli.js) and the
// scripted LLM (set up by ui-harness.ts): the parent's page shows the task (its type, description and
// report) and lists the task's conversation among its sub-conversations; that conversation's page
// shows the sub-agent's own work and links back to its parent. AGENTD_SCREENSHOT_DIR, when set, gets
// a picture of the task.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../src/llm/index.js';
import type { RunningCli } from '../support/cli.js';
import type { ScriptStep } from '../support/scripted-llm.js';
import { tempDir } from '../support/server.js';
import { webUiInChromium } from './ui-harness.js';

const home = tempDir('agentd-web-subagents-home-');
mkdirSync(join(home, '.agents', 'agents'), { recursive: true });
writeFileSync(
  join(home, '.agents', 'agents', 'reviewer.md'),
  '---\nname: reviewer\ndescription: Reviews a diff\ntools: [terminal]\n---\nReview it.\n',
);

const ui = webUiInChromium({ home });
const { llm, api } = ui;
let cli: RunningCli;
let browser: Browser;
beforeAll(() => {
  ({ cli, browser } = ui);
});

const post = (path: string, body: unknown) => api(path, { method: 'POST', body });

describe('a sub-agent task in the web UI', () => {
  it("shows the task with its report, and the sub-agent's conversation under its parent", async () => {
    const workspace = tempDir('agentd-web-subagents-ws-');
    mkdirSync(join(workspace, '.agents', 'agents'), { recursive: true });
    writeFileSync(
      join(workspace, '.agents', 'agents', 'counter.md'),
      '---\nname: counter\ndescription: Counts files\ntools: [terminal]\n---\nCOUNTER: count what you are asked to.\n',
    );
    // One key for both (a sub-agent runs on its parent's LLM); the counter's requests carry its prompt.
    const parent: ScriptStep[] = [
      {
        toolCalls: [
          {
            name: 'task',
            arguments: {
              prompt: 'Count the files here',
              subagent_type: 'counter',
              description: 'Count files',
            },
          },
        ],
      },
      { toolCalls: [{ name: 'finish', arguments: { message: 'The counter says 1.' } }] },
    ];
    const child: ScriptStep[] = [
      // Slow enough for the page to show the task while it runs.
      {
        delayMs: 2000,
        toolCalls: [{ name: 'terminal', arguments: { command: 'echo counted-by-sub-agent' } }],
      },
      { toolCalls: [{ name: 'finish', arguments: { message: 'There is **1** file.' } }] },
    ];
    const key = `sk-${randomUUID()}`;
    llm.script(
      key,
      (request: RecordedRequest) =>
        (JSON.stringify(request.body.messages).includes('COUNTER:') ? child.shift() : parent.shift()) ?? {
          text: 'no more steps',
        },
    );
    const started = await post('/api/conversations', {
      agent: {
        llm: { model: 'openai/scripted', api_key: key, base_url: llm.openaiBaseUrl, num_retries: 0 },
        tools: [{ name: 'terminal' }, { name: 'task_tool_set' }],
      },
      workspace: { working_dir: workspace },
      initial_message: { role: 'user', content: [{ type: 'text', text: 'How many files?' }] },
    });
    expect(started.status).toBe(201);
    const { id } = (await started.json()) as { id: string };

    const page = await browser.newPage();
    await page.goto(`${cli.url}/ui/conversations/${id}#key=${cli.key}`);
    // While it runs: its conversation is listed, running, and the task's card links to it.
    const running = page
      .getByRole('navigation', { name: 'Sub-conversations' })
      .locator('li', { hasText: 'Count files' });
    await running.locator('.badge.status-running').waitFor();
    await running.getByText('sub-agent counter').waitFor();
    const link = page
      .locator('.tool', { hasText: 'sub-agent counter' })
      .getByRole('link', { name: 'open its conversation' });
    await link.waitFor();
    expect(await page.locator('.message.final').count()).toBe(0);
    await page.locator('.message.final', { hasText: 'The counter says 1.' }).waitFor();
    const task = page.locator('.tool', { hasText: 'sub-agent counter' });
    await task.locator('code.detail', { hasText: 'Count files' }).waitFor();
    await task.getByText('task_00000001 · completed', { exact: false }).waitFor();
    // The report is markdown: its emphasis is drawn, not shown as stars.
    expect(await task.locator('strong', { hasText: '1' }).count()).toBe(1);
    const shots = process.env.AGENTD_SCREENSHOT_DIR;
    if (shots) await page.screenshot({ path: join(shots, 'sub-agent-task.png'), fullPage: true });

    // The task's own conversation: listed under the parent, titled with the description.
    await page.getByRole('link', { name: 'Count files' }).click();
    await page.waitForURL(/\/ui\/conversations\/[0-9a-f-]+$/);
    expect(page.url()).not.toContain(id);
    await page.locator('pre.terminal', { hasText: 'counted-by-sub-agent' }).waitFor();
    await page.getByRole('link', { name: 'its parent' }).click();
    await page.waitForURL(new RegExp(`/ui/conversations/${id}$`));
    await page.close();
  });

  it('lists the sub-agent types on the settings page, and saves its sub-agents checkbox', async () => {
    const page = await browser.newPage();
    await page.goto(`${cli.url}/ui/settings#key=${cli.key}`);
    await page.getByRole('heading', { name: 'Sub-agent types' }).waitFor();
    await page.getByText('Show them').click();
    const list = page.getByRole('list', { name: 'Sub-agent types' });
    await list.getByText('general-purpose').waitFor();
    await list.locator('li', { hasText: 'reviewer' }).getByText('terminal · yours').waitFor();
    await list.locator('li', { hasText: 'code-explorer' }).getByText('built in', { exact: false }).waitFor();
    const shots = process.env.AGENTD_SCREENSHOT_DIR;
    if (shots) await list.screenshot({ path: join(shots, 'sub-agent-types.png') });

    await page.getByLabel(/Sub-agents \(the agent may hand tasks/).check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').getByText('Saved').waitFor();
    await page.close();
    const settings = (await (
      await fetch(`${cli.url}/api/settings`, { headers: { 'X-Session-API-Key': cli.key! } })
    ).json()) as { agent_settings: { enable_sub_agents: boolean } };
    expect(settings.agent_settings.enable_sub_agents).toBe(true);
  });
});
