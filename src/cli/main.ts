// The `agentd` command. A mistake in how it was called (an unknown command or option, a bad value,
// a port in use) is one line on stderr and exit code 2; only an unexpected failure prints a stack.
// Each command's code is imported when it runs: in the one bundle (dist/agentd.cjs) a module's
// top-level code runs on its import, so `serve` does not set up the client commands, nor they the server.
import { Command, CommanderError } from 'commander';
import { markPhase } from '../runtime/heap.js';
import { bwrapUnavailable } from '../sandbox/choose.js';
import type { AgentOptions } from './agent.js';
import type { ServerOptions } from './config.js';
import { ConfigError } from './config-error.js';
import { serverOptions } from './lifecycle.js';
import { registerClientCommands } from './run/index.js';

const program = new Command();
program
  .name('agentd')
  .description('An agent server, wire-compatible with the OpenHands agent server')
  .version('0.1.0')
  // Commander's errors are thrown (not printed and exited) so that fail() prints them once, as one
  // line; the subcommands below inherit both settings.
  .exitOverride()
  .configureOutput({ outputError: () => {} });

// The subcommand being run, for naming an unexpected argument (serve runs when none is named).
let invoked: Command | undefined;
program.hook('preSubcommand', (_program, subcommand) => {
  invoked = subcommand;
});

serverOptions(
  program
    .command('serve', { isDefault: true })
    .description('serve the API on the embedded default (SQLite, local sandboxes)'),
  'port to listen on, 0 for any free port (env AGENTD_PORT)',
  'data folder (env AGENTD_DATA_DIR; default ~/.local/share/agentd)',
)
  .option(
    '--max-sandboxes <n>',
    'sandboxes starting or running at once (env AGENTD_MAX_SANDBOXES; default 10)',
  )
  .option('--redis-url <url>', 'Redis for events across replicas (env AGENTD_REDIS_URL; default in-memory)')
  .option(
    '--sandbox-provider <kind>',
    'bwrap (namespaces) or process (env AGENTD_SANDBOX_PROVIDER; default bwrap where it runs)',
  )
  .option(
    '--database-url <url>',
    'PostgreSQL (postgres://…) shared by replicas, instead of SQLite (env AGENTD_DATABASE_URL)',
  )
  .action(async (opts: ServerOptions) => {
    // The bwrap check (a child process) runs while the server's code loads; the control plane
    // waits for its answer before it makes a sandbox or the server answers /ready.
    if ((opts.sandboxProvider ?? process.env.AGENTD_SANDBOX_PROVIDER) !== 'process') void bwrapUnavailable();
    const { serve } = await import('./serve.js');
    markPhase('agentd:server code loaded');
    await serve(opts);
  });

serverOptions(
  program
    .command('agent')
    .description('serve the agent-server API only, as inside a sandbox (no V1 control plane)'),
  'port to listen on; default 0, any free port (env AGENTD_PORT)',
  'data folder (env AGENTD_DATA_DIR)',
)
  .option('--ready-fd <fd>', 'write one JSON line {port, pid} to this file descriptor once listening')
  .option('--spare', 'a warm spare: exit if the ready pipe closes before the control plane claims it')
  .action(async (opts: AgentOptions) => {
    const { agent } = await import('./agent.js');
    await agent(opts);
  });

program
  .command('demo')
  .description('run a whole scripted conversation on loopback (no LLM account needed) and print its events')
  .action(async () => {
    const { demo } = await import('./demo.js');
    await demo();
  });

registerClientCommands(program);

/** Commander's message as one line, naming an unknown command as such (not as an extra argument of serve). */
function usageMessage(error: CommanderError): string {
  if (error.code === 'commander.excessArguments' && invoked) {
    const unexpected = invoked.args[0] ?? '';
    const commands = program.commands.map((c) => c.name()).join(', ');
    if (invoked.name() === 'serve' && program.args[0] !== 'serve')
      return `unknown command '${unexpected}' (commands: ${commands}; see agentd --help)`;
    return `unexpected argument '${unexpected}' for '${invoked.name()}' (see agentd ${invoked.name()} --help)`;
  }
  const message = error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ');
  return message.includes('(Did you mean') ? message : `${message} (see agentd --help)`;
}

function fail(error: unknown): never {
  if (error instanceof CommanderError) {
    // --help and --version end this way too, with exit code 0.
    if (error.exitCode === 0) process.exit(0);
    process.stderr.write(`agentd: ${usageMessage(error)}\n`);
    process.exit(2);
  }
  if (error instanceof ConfigError) {
    process.stderr.write(`agentd: ${error.message}\n`);
    process.exit(error.exitCode);
  }
  process.stderr.write(
    `agentd: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
}

program.parseAsync().catch(fail);
