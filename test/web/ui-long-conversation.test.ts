// A long conversation in the web UI, in a real Chromium against the real binary: the page opens on
// its newest events (not a replay of all of them), reaches older ones page by page up to the first,
// pairs each tool call with its output across the pages' seams, and stays live; at each step the
// rows are the stored events in order, none missing or twice. The events go into the stopped
// server's data folder through the store (thousands of API calls would take minutes).
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/index.js';
import { tempDir } from '../support/server.js';
import { finishing, webUiInChromium } from './ui-harness.js';

const ui = webUiInChromium();
const { llm, api, storedEvents, signedInPage, shot } = ui;

/** Events added to the conversation: the newest 100 then start with a call's output, its call just before. */
const ADDED = 3002;
/** The events the page opens with (web/events/use-history.ts). */
const FIRST_PAGE = 100;

/** The i-th added event: a terminal call, its output, a user message, in turn. */
function addedEvent(i: number) {
  const base = {
    id: randomUUID(),
    timestamp: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString().replace('Z', '000'),
  };
  const call = `call_${i - (i % 3)}`;
  if (i % 3 === 0)
    return {
      ...base,
      source: 'agent',
      thought: [],
      action: { command: `echo ${i}`, is_input: false, reset: false, kind: 'TerminalAction' },
      tool_name: 'terminal',
      tool_call_id: call,
      tool_call: { id: call, name: 'terminal', arguments: `{"command":"echo ${i}"}`, origin: 'completion' },
      llm_response_id: `resp_${i}`,
      security_risk: 'UNKNOWN',
      kind: 'ActionEvent',
    };
  if (i % 3 === 1)
    return {
      ...base,
      source: 'environment',
      tool_name: 'terminal',
      tool_call_id: call,
      observation: {
        content: [{ type: 'text', text: `out ${i - 1}` }],
        is_error: false,
        command: `echo ${i - 1}`,
        exit_code: 0,
        timeout: false,
        metadata: { exit_code: 0, pid: 42, working_dir: '/work', prefix: '', suffix: '' },
        kind: 'TerminalObservation',
      },
      action_id: randomUUID(),
      kind: 'ObservationEvent',
    };
  return {
    ...base,
    source: 'user',
    llm_message: { role: 'user', content: [{ type: 'text', text: `message ${i}` }] },
    activated_skills: [],
    extended_content: [],
    kind: 'MessageEvent',
  };
}

/** A conversation on the scripted LLM with `ADDED` events after its own; the added events. */
async function longConversation(key: string): Promise<{ id: string; added: { id: string }[] }> {
  const res = await api('/api/conversations', {
    method: 'POST',
    body: {
      agent: {
        kind: 'Agent',
        llm: { model: 'openai/scripted-model', api_key: key, base_url: llm.openaiBaseUrl, num_retries: 0 },
        tools: [{ name: 'terminal' }],
        // No summary of the long history before the agent's answer (the LLM would be asked for one).
        condenser: null,
      },
      workspace: { working_dir: tempDir('agentd-web-work-') },
    },
  });
  expect(res.status).toBe(201);
  const { id } = (await res.json()) as { id: string };
  await ui.cli.stop();
  const store = openSqliteStore({ path: join(ui.dataDir, 'agentd.db') });
  const added = Array.from({ length: ADDED }, (_, i) => addedEvent(i));
  for (let i = 0; i < ADDED; i += 1000) await store.events.append(id, added.slice(i, i + 1000));
  await store.close();
  await ui.serve(ui.port);
  return { id, added };
}

describe('a long conversation in the web UI', () => {
  it('opens on its newest events, loads older ones up to the first, and stays live', async () => {
    const key = `sk-${randomUUID()}`;
    llm.script(key, [finishing('live answer')]);
    const { id, added } = await longConversation(key);
    const stored = (await storedEvents(id)).map((e) => e.id);
    const page = await signedInPage();
    await page.goto(`${ui.cli.url}/ui/conversations/${id}`);
    const rows = page.locator('ol.timeline > li[data-event-id]');
    const shown = () => rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-event-id')));
    const output = (call: { id: string }) => page.locator(`li[data-event-id="${call.id}"] pre.terminal`);

    // The newest call, with its output, and only the newest page of events.
    await output(added[ADDED - 2]!).waitFor();
    expect(await output(added[ADDED - 2]!).textContent()).toBe(`out ${ADDED - 2}`);
    expect(await shown()).toEqual(stored.slice(-FIRST_PAGE));
    // The page's first event is the output of a call before it: not drawn alone, but with its call.
    expect(await page.locator('pre.orphan').count()).toBe(0);
    await shot(page, 'long-conversation-newest');

    // Older events go in above what is read, which stays where it was on the screen.
    const earlier = page.getByRole('button', { name: 'Load earlier events' });
    await earlier.scrollIntoViewIfNeeded();
    const read = page.locator(`li[data-event-id="${added[ADDED - FIRST_PAGE + 1]!.id}"]`);
    const top = (await read.boundingBox())!.y;
    await earlier.click();
    const seamCall = added[ADDED - FIRST_PAGE - 1]!;
    await output(seamCall).waitFor();
    expect(await output(seamCall).textContent()).toBe(`out ${ADDED - FIRST_PAGE - 1}`);
    expect(await shown()).toEqual(stored.slice(-(2 * FIRST_PAGE - 1)));
    expect(Math.abs((await read.boundingBox())!.y - top)).toBeLessThan(1);

    // Page after page back to the first event, where the button goes.
    while (await earlier.isVisible()) {
      const count = await rows.count();
      await earlier.click();
      await expect.poll(() => rows.count()).toBeGreaterThan(count);
    }
    expect(await shown()).toEqual(stored);

    await page.getByLabel('Message to the agent').fill('Please go on');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.message.final', { hasText: 'live answer' }).waitFor();
    await page.locator('.badge.status-finished').first().waitFor();
    const now = (await storedEvents(id)).map((e) => e.id);
    await expect.poll(() => rows.count()).toBeGreaterThanOrEqual(now.length);
    expect(await shown()).toEqual(now);
    await page.close();
  }, 120_000);
});
