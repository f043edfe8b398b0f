// Opening a sign-in link (`/#key=…`) in a browser that holds another key, in a real Chromium against
// the real binary (ui-harness.ts): the page asks first, since a link from someone else would sign the
// browser in as them and what the user then saves would be theirs. Declined, the browser keeps its
// key; accepted, it takes the link's; the same key again asks nothing. The key leaves the address bar.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { webUiInChromium } from './ui-harness.js';

const ui = webUiInChromium();
const storedKey = (page: Page) => page.evaluate<string | null>("localStorage.getItem('agentd.sessionKey')");

describe('a sign-in link in a browser that holds another key', () => {
  it('asks before it switches, and keeps the key it holds when told no', async () => {
    const context = await ui.browser.newContext();
    const open = async (url: string, answer: 'accept' | 'dismiss' | null) => {
      const page = await context.newPage();
      const asked: string[] = [];
      page.on('dialog', (dialog) => {
        asked.push(dialog.message());
        void (answer === 'accept' ? dialog.accept() : dialog.dismiss());
      });
      // The page's script (a module: run before DOMContentLoaded) has taken the key by then.
      await page.goto(url, { waitUntil: 'load' });
      expect(page.url()).toBe(`${ui.cli.url}/`);
      return { page, asked };
    };
    const first = await open(ui.signInUrl, null);
    expect(first.asked).toEqual([]);
    expect(await storedKey(first.page)).toBe(ui.cli.key);

    const declined = await open(`${ui.cli.url}/#key=someone-elses-key`, 'dismiss');
    expect(declined.asked).toEqual([expect.stringContaining('another session key')]);
    expect(await storedKey(declined.page)).toBe(ui.cli.key);

    const accepted = await open(`${ui.cli.url}/#key=someone-elses-key`, 'accept');
    expect(accepted.asked).toHaveLength(1);
    expect(await storedKey(accepted.page)).toBe('someone-elses-key');

    const again = await open(`${ui.cli.url}/#key=someone-elses-key`, 'dismiss');
    expect(again.asked).toEqual([]);
    await context.close();
  });
});
