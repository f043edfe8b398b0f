// Tool figures: browser start plus first navigate (real Chromium, a page on loopback), and grep
// over a tree of 100k files.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parse } from '../src/events/index.js';
import { CHROMIUM_PATH } from '../src/tools/browser/session.js';
import { createTools, type Tool, type ToolContext } from '../src/tools/index.js';
import { tempDir } from '../test/support/server.js';
import { ms, percentile, record } from './lib.js';

function context(workingDir: string): ToolContext {
  return {
    workingDir,
    conversationId: 'bench',
    persistenceDir: join(workingDir, '.state'),
    signal: new AbortController().signal,
  };
}

async function call(
  tool: Tool,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<{ is_error: boolean }> {
  const action = parse(tool.actionSchema, { ...args, kind: tool.actionKind });
  if (!action.ok) throw new Error(JSON.stringify(action.errors));
  return (await tool.execute(action.value, ctx)) as { is_error: boolean };
}

export async function benchBrowser(): Promise<void> {
  // A fresh machine has no Chromium until `npm test` installs it: the row says so and the bench goes
  // on (it threw here, and the table of every other row was never printed).
  if (!existsSync(CHROMIUM_PATH)) {
    const why = `skipped (no Chromium at ${CHROMIUM_PATH}; \`npm test\` installs it, AGENTD_CHROMIUM names another)`;
    record({ name: 'browser start + first navigate', value: why });
    return;
  }
  const site = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><head><title>Bench</title></head><body><h1>Hello</h1><a href="/x">x</a></body></html>');
  });
  await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
  const address = site.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
  const dir = tempDir('agentd-bench-browser-');
  const cold: number[] = [];
  const warm: number[] = [];
  for (let run = 0; run < 3; run++) {
    const [navigate] = createTools(['browser_navigate'], {}, dir);
    const t = performance.now();
    const result = await call(navigate!, { url }, context(dir));
    cold.push(performance.now() - t);
    if (result.is_error) throw new Error('navigate failed');
    const t2 = performance.now();
    await call(navigate!, { url }, context(dir));
    warm.push(performance.now() - t2);
    await navigate!.close?.();
  }
  cold.sort((a, b) => a - b);
  warm.sort((a, b) => a - b);
  record({
    name: 'browser start + first navigate (Chromium, loopback page), p50 of 3',
    value: ms(percentile(cold, 50)),
  });
  record({ name: 'browser navigate, warm, p50 of 3', value: ms(percentile(warm, 50)) });
  site.close();
  rmSync(dir, { recursive: true, force: true });
}

export async function benchGrep(): Promise<void> {
  const root = tempDir('agentd-bench-grep-');
  const files = 100_000;
  for (let d = 0; d < files / 1000; d++) {
    const sub = join(root, `dir${d}`);
    mkdirSync(sub);
    for (let f = 0; f < 1000; f++) {
      const n = d * 1000 + f;
      writeFileSync(
        join(sub, `file${f}.txt`),
        n % 10_000 === 0 ? `needle_${n} in a haystack\n` : `plain line ${n}\n`,
      );
    }
  }
  const [grep] = createTools(['grep'], { allowPathsOutsideWorkspace: true });
  const ctx = context(root);
  const times: number[] = [];
  for (let run = 0; run < 3; run++) {
    const t = performance.now();
    const result = (await call(grep!, { pattern: 'needle_\\d+' }, ctx)) as {
      is_error: boolean;
      matches?: string[];
    };
    times.push(performance.now() - t);
    if (result.is_error || result.matches?.length !== 10)
      throw new Error(`grep found ${result.matches?.length}`);
  }
  times.sort((a, b) => a - b);
  record({ name: 'grep over a 100k-file tree (ripgrep), p50 of 3', value: ms(percentile(times, 50)) });
  rmSync(root, { recursive: true, force: true });
}
