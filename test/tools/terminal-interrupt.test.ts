// An interrupted conversation stops the terminal's command: the tool's wait ends on the abort signal
// and the shell gets C-c, even for a command whose steady output keeps the no-output timer from firing.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Tool, terminalTool } from '../../src/tools/index.js';
import { tempDir } from '../support/server.js';
import { type Obs, text, toolContext } from '../support/tools.js';

describe('terminal interrupted', () => {
  const tool: Tool = terminalTool({ noChangeTimeoutSeconds: 1 });
  afterEach(() => tool.close?.());

  it('sends C-c to a never-ending command with steady output and is ready for the next one', async () => {
    const dir = tempDir('agentd-terminal-interrupt-');
    const abort = new AbortController();
    const ctx = { ...toolContext(dir), signal: abort.signal };
    const run = (command: string, context = ctx) =>
      tool.execute(
        { kind: 'TerminalAction', command, is_input: false, reset: false },
        context,
      ) as Promise<Obs>;
    const running = run('touch started; yes');
    // Abort once the command runs (the file it made is there).
    while (!existsSync(join(dir, 'started'))) await new Promise((resolve) => setTimeout(resolve, 50));
    abort.abort(new Error('interrupted'));
    const out = await running;
    expect(out.exit_code).toBe(130);
    expect(text(out)).toContain('y\ny\n');
    expect(text(await run('echo alive', toolContext(dir)))).toBe('alive');
  });
});
