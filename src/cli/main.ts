// The `agentd` command.
import { Command } from 'commander';
import { type AgentOptions, agent } from './agent.js';
import { ConfigError, type ServerOptions } from './config.js';
import { demo } from './demo.js';
import { serverOptions } from './lifecycle.js';
import { serve } from './serve.js';

const program = new Command();
program
  .name('agentd')
  .description('An agent server, wire-compatible with the OpenHands agent server')
  .version('0.1.0');

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
  .option(
    '--sandbox-provider <kind>',
    'bwrap (namespaces) or process (env AGENTD_SANDBOX_PROVIDER; default bwrap where it runs)',
  )
  .action(async (opts: ServerOptions) => {
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
    await agent(opts);
  });

program
  .command('demo')
  .description('run a whole scripted conversation on loopback (no LLM account needed) and print its events')
  .action(async () => {
    await demo();
  });

program.parseAsync().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`agentd: ${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(
    `agentd: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
