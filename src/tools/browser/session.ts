// One browser per conversation: Debian's Chromium driven by playwright-core (never a downloaded
// browser), started on first use and closed with the conversation. Tabs have 4-character ids;
// interactive elements get indexes from the last state listing.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.AGENTD_CHROMIUM ?? '/usr/bin/chromium';

const FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export class BrowserError extends Error {}

/** Marks the visible interactive elements with indexes and describes them, one per line. */
const LIST_ELEMENTS = `(() => {
  const selector = 'a[href], button, input, select, textarea, [role="button"], [role="link"], [onclick], [contenteditable="true"]';
  document.querySelectorAll('[data-agentd-index]').forEach((e) => e.removeAttribute('data-agentd-index'));
  const out = [];
  let i = 0;
  for (const el of document.querySelectorAll(selector)) {
    const r = el.getBoundingClientRect();
    const style = getComputedStyle(el);
    if (r.width === 0 || r.height === 0 || style.visibility === 'hidden' || style.display === 'none') continue;
    el.setAttribute('data-agentd-index', String(i));
    const tag = el.tagName.toLowerCase();
    const type = el.getAttribute('type');
    const label = (el.innerText || el.value || el.getAttribute('aria-label') || el.getAttribute('placeholder') || el.getAttribute('name') || '').trim().replace(/\\s+/g, ' ').slice(0, 80);
    const href = tag === 'a' ? ' href=' + el.getAttribute('href') : '';
    out.push('[' + i + '] <' + tag + (type ? ' type=' + type : '') + href + '> ' + label);
    i++;
  }
  return out;
})()`;

/** The page as markdown: headings, paragraphs, list items, and links when asked. */
const TO_MARKDOWN = `((withLinks) => {
  const skip = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG']);
  const lines = [];
  const inline = (node) => {
    if (node.nodeType === 3) return node.textContent.replace(/\\s+/g, ' ');
    if (node.nodeType !== 1 || skip.has(node.tagName)) return '';
    const inner = Array.from(node.childNodes).map(inline).join('');
    if (node.tagName === 'A' && withLinks && node.getAttribute('href')) return '[' + inner.trim() + '](' + node.href + ')';
    if (node.tagName === 'STRONG' || node.tagName === 'B') return '**' + inner + '**';
    if (node.tagName === 'CODE') return '\`' + inner + '\`';
    return inner;
  };
  const block = (node) => {
    if (node.nodeType !== 1 || skip.has(node.tagName)) return;
    const t = node.tagName;
    const h = /^H([1-6])$/.exec(t);
    if (h) return lines.push('#'.repeat(Number(h[1])) + ' ' + inline(node).trim());
    if (t === 'P' || t === 'PRE' || t === 'BLOCKQUOTE') return lines.push(inline(node).trim());
    if (t === 'LI') return lines.push('- ' + inline(node).trim());
    const blockChildren = Array.from(node.children).some((c) => /^(DIV|P|H[1-6]|UL|OL|LI|SECTION|ARTICLE|MAIN|HEADER|FOOTER|NAV|TABLE|TR|PRE|BLOCKQUOTE|FORM)$/.test(c.tagName));
    if (!blockChildren) {
      const text = inline(node).trim();
      if (text) lines.push(text);
      return;
    }
    for (const child of node.children) block(child);
  };
  block(document.body);
  return '# ' + document.title + '\\n\\n' + lines.filter((l) => l && l !== '-').join('\\n\\n');
})`;

export class BrowserSession {
  private browser: Browser | null = null;
  private context: BrowserContext | null = null;
  private readonly tabs = new Map<string, Page>();
  private current: string | null = null;
  private recording: { dir: string; timer: NodeJS.Timeout; frames: number } | null = null;

  constructor(private readonly persistenceDir: string) {}

  private async start(): Promise<BrowserContext> {
    if (this.context) return this.context;
    const { chromium } = await import('playwright-core');
    // The server's own shutdown closes the browser (and Playwright then removes its temp profile);
    // Playwright's signal handlers would race it, and on SIGINT exit before the server has closed.
    this.browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: FLAGS,
      headless: true,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    this.context = await this.browser.newContext({ viewport: { width: 1280, height: 800 } });
    return this.context;
  }

  private newTabId(): string {
    for (;;) {
      const id = Math.random().toString(36).slice(2, 6).padEnd(4, '0');
      if (!this.tabs.has(id)) return id;
    }
  }

  private async openTab(): Promise<Page> {
    const context = await this.start();
    const page = await context.newPage();
    const id = this.newTabId();
    this.tabs.set(id, page);
    this.current = id;
    page.on('close', () => {
      this.tabs.delete(id);
      if (this.current === id) this.current = this.tabs.keys().next().value ?? null;
    });
    return page;
  }

  async page(): Promise<Page> {
    const page = this.current ? this.tabs.get(this.current) : undefined;
    return page ?? this.openTab();
  }

  async navigate(url: string, newTab: boolean): Promise<string> {
    const page = newTab ? await this.openTab() : await this.page();
    const response = await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 30_000 });
    return `Navigated to ${page.url()} (status ${response?.status() ?? 'unknown'}). Title: ${await page.title()}`;
  }

  async state(includeScreenshot: boolean): Promise<{ text: string; screenshot: string | null }> {
    const page = await this.page();
    const elements = (await page.evaluate(LIST_ELEMENTS)) as string[];
    const text = `URL: ${page.url()}\nTitle: ${await page.title()}\nTab: ${this.current}\nInteractive elements:\n${elements.join('\n') || '(none)'}`;
    const screenshot = includeScreenshot ? (await page.screenshot({ type: 'png' })).toString('base64') : null;
    return { text, screenshot };
  }

  private async element(index: number) {
    const page = await this.page();
    const locator = page.locator(`[data-agentd-index="${index}"]`);
    if ((await locator.count()) === 0) {
      throw new BrowserError(
        `No element with index ${index}; call browser_get_state to list the current elements.`,
      );
    }
    return { page, locator };
  }

  async click(index: number, newTab: boolean): Promise<string> {
    const { page, locator } = await this.element(index);
    if (newTab) {
      const href = await locator.evaluate((el) => (el as unknown as { href?: string }).href ?? null);
      if (!href) throw new BrowserError(`Element ${index} is not a link; it cannot be opened in a new tab.`);
      return this.navigate(href, true);
    }
    await locator.click({ timeout: 10_000 });
    await page.waitForLoadState('domcontentloaded').catch(() => undefined);
    return `Clicked element ${index}. Now at ${page.url()}`;
  }

  async type(index: number, text: string): Promise<string> {
    const { locator } = await this.element(index);
    await locator.fill(text, { timeout: 10_000 });
    return `Typed into element ${index}.`;
  }

  async content(extractLinks: boolean, startFromChar: number): Promise<string> {
    const page = await this.page();
    const markdown = (await page.evaluate(`${TO_MARKDOWN}(${extractLinks})`)) as string;
    const chunk = markdown.slice(startFromChar, startFromChar + 20_000);
    const rest = markdown.length - startFromChar - chunk.length;
    return rest > 0
      ? `${chunk}\n\n[${rest} more characters; call again with start_from_char=${startFromChar + chunk.length}.]`
      : chunk;
  }

  async scroll(direction: 'up' | 'down'): Promise<string> {
    const page = await this.page();
    const y = (await page.evaluate(
      `(() => { window.scrollBy(0, ${direction === 'down' ? 1 : -1} * window.innerHeight); return window.scrollY; })()`,
    )) as number;
    return `Scrolled ${direction}; now at y=${Math.round(y)}.`;
  }

  async back(): Promise<string> {
    const page = await this.page();
    await page.goBack({ waitUntil: 'domcontentloaded' });
    return `Went back to ${page.url()}`;
  }

  async listTabs(): Promise<string> {
    const rows = await Promise.all(
      [...this.tabs].map(
        async ([id, p]) => `${id === this.current ? '*' : ' '} ${id}  ${await p.title()}  ${p.url()}`,
      ),
    );
    return rows.length ? `Tabs (* = current):\n${rows.join('\n')}` : 'No open tabs.';
  }

  async switchTab(id: string): Promise<string> {
    const page = this.tabs.get(id);
    if (!page) throw new BrowserError(`No tab ${id}; call browser_list_tabs.`);
    this.current = id;
    await page.bringToFront();
    return `Switched to tab ${id}: ${page.url()}`;
  }

  async closeTab(id: string): Promise<string> {
    const page = this.tabs.get(id);
    if (!page) throw new BrowserError(`No tab ${id}; call browser_list_tabs.`);
    await page.close();
    return `Closed tab ${id}.`;
  }

  async getStorage(): Promise<string> {
    const context = await this.start();
    return JSON.stringify(await context.storageState(), null, 2);
  }

  async setStorage(state: {
    cookies?: Record<string, unknown>[];
    origins?: Record<string, unknown>[];
  }): Promise<string> {
    const context = await this.start();
    if (state.cookies?.length)
      await context.addCookies(state.cookies as unknown as Parameters<BrowserContext['addCookies']>[0]);
    for (const origin of (state.origins ?? []) as {
      origin: string;
      localStorage?: { name: string; value: string }[];
    }[]) {
      const page = await context.newPage();
      await page.goto(origin.origin, { waitUntil: 'domcontentloaded' }).catch(() => undefined);
      await page.evaluate((items) => {
        const storage = (
          globalThis as unknown as { localStorage: { setItem(name: string, value: string): void } }
        ).localStorage;
        for (const { name, value } of items) storage.setItem(name, value);
      }, origin.localStorage ?? []);
      await page.close();
    }
    return `Storage set: ${state.cookies?.length ?? 0} cookie(s), ${state.origins?.length ?? 0} origin(s).`;
  }

  async startRecording(): Promise<string> {
    if (this.recording) throw new BrowserError('Already recording; stop it first.');
    const dir = join(
      this.persistenceDir,
      'browser-recordings',
      new Date().toISOString().replace(/[:.]/g, '-'),
    );
    mkdirSync(dir, { recursive: true });
    const recording = { dir, frames: 0, timer: setInterval(() => void this.frame(), 500) };
    this.recording = recording;
    await this.frame();
    return `Recording started; frames go to ${dir}.`;
  }

  private async frame(): Promise<void> {
    const recording = this.recording;
    if (!recording) return;
    const page = this.current ? this.tabs.get(this.current) : undefined;
    if (!page) return;
    const image = await page.screenshot({ type: 'png' }).catch(() => null);
    if (image && this.recording === recording)
      writeFileSync(join(recording.dir, `frame-${String(recording.frames++).padStart(5, '0')}.png`), image);
  }

  async stopRecording(): Promise<string> {
    const recording = this.recording;
    if (!recording) throw new BrowserError('Not recording.');
    clearInterval(recording.timer);
    this.recording = null;
    return `Recording stopped: ${recording.frames} frame(s) in ${recording.dir}.`;
  }

  async close(): Promise<void> {
    if (this.recording) clearInterval(this.recording.timer);
    this.recording = null;
    const browser = this.browser;
    this.browser = null;
    this.context = null;
    this.tabs.clear();
    await browser?.close().catch(() => undefined);
  }
}
