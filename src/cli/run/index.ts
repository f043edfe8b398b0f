// The client commands: `run`, `conversations`, `events`. Each talks to agentd through its HTTP and
// WebSocket API: a running server (--url) or the embedded default on the data folder.
// Their code loads when one runs, not when `agentd serve` starts.
import type { Command } from 'commander';
import type { RunOptions } from './run.js';

/** Where to find agentd: the options every client command takes. */
function targetOptions(command: Command): Command {
  return command
    .option(
      '--url <url>',
      'a running agentd server (env AGENTD_URL); default: the data folder, in this process',
    )
    .option('--key <key>', 'its session API key (env AGENTD_SESSION_API_KEY)')
    .option(
      '--data-dir <dir>',
      'data folder without --url (env AGENTD_DATA_DIR; default ~/.local/share/agentd)',
    );
}

export function registerClientCommands(program: Command): void {
  targetOptions(
    program
      .command('run')
      .description(
        'run a task in a conversation to its end, shown live (exit 0 finished, 1 error, 130 Ctrl-C)',
      )
      .argument('[task]', 'what the agent should do (with --resume: a further message, optional)'),
  )
    .option('--dir <dir>', 'working directory (default the current one)')
    .option('--model <model>', 'LLM model, e.g. openai/gpt-4o (env LLM_MODEL; default the settings)')
    .option(
      '--profile <name>',
      'a saved LLM profile (agentd serve: /api/profiles) to run on; with --resume, switch to it',
    )
    .option(
      '--agent <name>',
      'a saved agent profile (agentd serve: /api/agent-profiles) to run: its LLM profile, tools, skills and MCP servers',
    )
    .option(
      '--goal',
      "the task is a goal: after each run the agent's LLM checks it, and the agent goes on with what is missing until it is done (with --resume and no task: go on with an interrupted goal)",
    )
    .option('--audits <n>', 'with --goal: checks before giving up (default 10)', (v) =>
      Number.parseInt(v, 10),
    )
    .option('--confirm', 'ask on the terminal (y/n) before each action runs')
    .option('--resume <id>', 'continue a conversation (after Ctrl-C, say)')
    .action(async (task: string | undefined, opts: RunOptions) => {
      const { run } = await import('./run.js');
      await run(task, opts);
    });

  targetOptions(
    program.command('conversations').description('list the conversations: id, status, updated, title'),
  )
    .option('--json', 'one JSON object per line')
    .action(async (opts) => {
      const { conversations } = await import('./list.js');
      await conversations(opts);
    });

  targetOptions(
    program
      .command('events')
      .description("print a conversation's events; --follow keeps following them live")
      .argument('<id>', 'conversation id'),
  )
    .option('-f, --follow', 'follow new events live until Ctrl-C')
    .option('--json', 'each event as one JSON line')
    .action(async (id: string, opts) => {
      const { events } = await import('./list.js');
      await events(id, opts);
    });
}
