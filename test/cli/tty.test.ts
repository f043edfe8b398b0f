// `agentd run` in a pseudo-terminal, as a person runs it: colours, a spinner while the LLM thinks, and
// the terminal left clean (spinner line erased, cursor shown again); NO_COLOR turns the colours off.
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { ScriptStep } from '../support/scripted-llm.js';
import { tempDir } from '../support/server.js';
import { agentdInPty, scriptedLLMEnv } from './command.js';

const ESC = '\x1b';
const llm = scriptedLLMEnv('cli-tty');

// The first answer comes late, so the spinner turns while the LLM "thinks".
const script = (): ScriptStep[] => [
  { toolCalls: [{ name: 'terminal', arguments: { command: 'echo coloured' } }], delayMs: 1500 },
  { toolCalls: [{ name: 'finish', arguments: { message: 'Shown in colour.' } }] },
];

function run(env: Record<string, string> = {}, steps = script()) {
  return agentdInPty(['run', 'show colours', '--data-dir', tempDir('agentd-cli-tty-'), '--dir', tempDir()], {
    ...llm.env(steps),
    ...env,
  });
}

const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] thinking/g;
const HIDE = '\x1b[?25l';
const SHOW = '\x1b[?25h';

describe('agentd run in a terminal', () => {
  it('colours the lines, spins while the LLM thinks, and cleans up after itself', async () => {
    const tty = run();
    expect(await tty.exited, tty.output()).toBe(0);
    const out = tty.output();
    expect(out).toContain('\x1b[36m$ echo coloured\x1b[39m'); // the action in cyan
    expect(out).toContain('\x1b[1mShown in colour.\x1b[22m'); // the final message in bold
    expect(out.match(SPINNER)!.length).toBeGreaterThan(2); // it turned
    expect(out).toContain(HIDE);
    // At the end the cursor is back, after the last spinner frame, which was erased.
    expect(out.lastIndexOf(SHOW)).toBeGreaterThan(out.lastIndexOf(HIDE));
    const afterFinal = out.slice(out.lastIndexOf('Shown in colour.'));
    expect(afterFinal).not.toMatch(new RegExp(`[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \\w+${ESC}\\[22m$`));
    // What a person sees, escapes taken out: the lines in order, no spinner left on the last line.
    const visible = out
      .split('\r\n')
      .map((line) => stripVTControlCharacters(line.slice(line.lastIndexOf(`\r${ESC}[2K`) + 1)))
      .filter(Boolean);
    expect(visible.slice(1)).toEqual(['> show colours', '$ echo coloured', '  coloured', 'Shown in colour.']);
  });

  it('keeps the spinner but drops the colours with NO_COLOR', async () => {
    const tty = run({ NO_COLOR: '1' });
    expect(await tty.exited, tty.output()).toBe(0);
    const out = tty.output();
    expect(out).toMatch(SPINNER);
    expect(out).not.toMatch(new RegExp(`${ESC}\\[[0-9;]*m`)); // no SGR (colour) sequence at all
    expect(out).toContain('$ echo coloured');
  });

  it('Ctrl-C typed in the terminal pauses the conversation, exits 130 and shows the cursor again', async () => {
    const tty = run({}, [
      { toolCalls: [{ name: 'terminal', arguments: { command: 'sleep 30' } }] },
      { toolCalls: [{ name: 'finish', arguments: { message: 'never reached' } }] },
    ]);
    await tty.waitFor('running terminal');
    tty.type('\x03');
    expect(await tty.exited).toBe(130);
    const out = tty.output();
    expect(out).toMatch(/paused conversation [0-9a-f-]{36}/);
    expect(out).toContain('resume with: agentd run --resume');
    expect(out.lastIndexOf(SHOW)).toBeGreaterThan(out.lastIndexOf(HIDE));
  });
});
