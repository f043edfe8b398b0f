// What `serve` and `agent` share: listening, and closing cleanly on SIGINT/SIGTERM (or on request).
import type { Command } from 'commander';
import type { Agentd } from '../server/start.js';

/** The options both servers take. */
export function serverOptions(command: Command, portHelp: string, dataDirHelp: string): Command {
  return command
    .option('--host <host>', 'address to bind (env AGENTD_HOST)', undefined)
    .option('--port <port>', portHelp, undefined)
    .option('--data-dir <dir>', dataDirHelp, undefined)
    .option('--no-auth', 'serve without a session key (loopback only)');
}

/** Listens, installs the signal handlers, and returns the bound port and a shutdown function. */
export async function listenUntilStopped(
  agentd: Agentd,
  host: string,
  port: number,
): Promise<{ port: number; shutdown(reason: string): Promise<void> }> {
  const { app } = agentd;
  let closing = false;
  const shutdown = async (reason: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ reason }, 'shutting down');
    await agentd.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  await app.listen({ host, port });
  const address = app.server.address();
  return { port: typeof address === 'object' && address ? address.port : port, shutdown };
}
