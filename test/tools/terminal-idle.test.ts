// The terminal gives its shell back when unused: the shell ends after the idle time, and the next
// command starts a new one in the directory the old one was in. A shell leaves no file behind.
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Tool, type ToolContext, terminalTool } from '../../src/tools/index.js';
import { isAlive, waitUntil } from '../support/process.js';
import { tempDir } from '../support/server.js';
import { toolContext } from '../support/tools.js';

type Obs = { content: { text: string }[]; exit_code: number; metadata: { pid: number; prefix: string } };

let tool: Tool | null = null;
afterEach(async () => {
  await tool?.close?.();
  tool = null;
});

const context = () => toolContext(tempDir('agentd-idle-'));

const run = (t: Tool, ctx: ToolContext, command: string) =>
  t.execute({ kind: 'TerminalAction', command, is_input: false, reset: false }, ctx) as Promise<Obs>;
const text = (o: Obs) => o.content.map((c) => c.text).join('');

describe('terminal idle close', () => {
  // First in the file: a shell used to leave its startup file in the temp folder (one per process).
  it('starts a shell without leaving anything in the temp folder', async () => {
    const ctx = context();
    const previous = process.env.TMPDIR;
    const tmp = tempDir('agentd-tmpdir-');
    process.env.TMPDIR = tmp;
    try {
      tool = terminalTool();
      expect(text(await run(tool, ctx, 'echo ok'))).toBe('ok');
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('closes an unused shell and starts a new one, in the same directory, on the next command', async () => {
    tool = terminalTool({ terminalIdleSeconds: 0.05 });
    const ctx = context();
    mkdirSync(join(ctx.workingDir, 'sub'));
    const first = await run(tool, ctx, 'cd sub && export GREETING=hi && echo $$');
    const pid = Number(text(first));
    expect(pid).toBe(first.metadata.pid);
    expect(first.metadata.prefix).toBe('');

    await waitUntil(() => !isAlive(pid));

    const second = await run(tool, ctx, 'echo "[$GREETING] $(pwd)"');
    expect(second.exit_code).toBe(0);
    expect(text(second)).toBe(`[] ${join(ctx.workingDir, 'sub')}`);
    expect(second.metadata.pid).not.toBe(pid);
    expect(second.metadata.prefix).toContain('new shell');
    const third = await run(tool, ctx, 'echo again');
    expect(text(third)).toBe('again');
    expect(third.metadata.prefix).toBe('');
  });
});
