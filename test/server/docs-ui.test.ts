// The interactive docs in a real Chromium: after "Authorize" with the session key, "Try it out" on a
// protected operation sends the key and gets the answer, not a 401; what it refuses is in the {detail} shape.
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_PATH } from '../../src/tools/browser/session.js';
import { startServer, type TestServer } from '../support/server.js';

describe('/docs in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startServer({ keys: ['docs-key'] });
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await server.close({ remove: true });
  });

  it('sends the key on "Try it out" after Authorize', async () => {
    const page = await browser.newPage();
    const sent: (string | undefined)[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/conversations/count') {
        sent.push(request.headers()['x-session-api-key']);
      }
    });
    await page.goto(`${server.url}/docs`);
    await page.locator('button.authorize').first().click();
    // One form per scheme (the key header, the bearer token): the header's.
    const headerScheme = page.locator('form', { hasText: 'APIKeyHeader' });
    await headerScheme.locator('input').fill('docs-key');
    await headerScheme.locator('button.authorize').click();
    await page.locator('button.btn-done').first().click();

    const operation = page.locator('.opblock', { hasText: '/api/conversations/count' }).first();
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('button.execute').click();
    const status = operation.locator('.live-responses-table tr.response .response-col_status').first();
    await status.waitFor();
    expect((await status.textContent())?.trim()).toBe('200');
    expect(sent).toEqual(['docs-key']);
    await page.close();
  });

  it("answers what it refuses in the app's {detail} shape", async () => {
    for (const [path, status] of [
      ['/docs/static/....//....//package.json', 403],
      ['/docs/static/no-such-file.js', 404],
    ] as const) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(status);
      expect(await res.json()).toEqual({ detail: expect.any(String) });
    }
  });
});
