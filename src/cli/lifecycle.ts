// What `serve` and `agent` share: listening, and closing cleanly on SIGINT/SIGTERM (or on request).
import { createServer } from 'node:net';
import type { Command } from 'commander';
import type { Agentd } from '../server/start.js';
import { ConfigError } from './config-error.js';

/** The options both servers take. */
export function serverOptions(command: Command, portHelp: string, dataDirHelp: string): Command {
  return command
    .option('--host <host>', 'address to bind (env AGENTD_HOST)', undefined)
    .option('--port <port>', portHelp, undefined)
    .option('--data-dir <dir>', dataDirHelp, undefined)
    .option('--no-auth', 'serve without a session key (loopback only)')
    .option(
      '--expose-secrets',
      'let callers read stored secrets in clear (X-Expose-Secrets: plaintext, /api/settings/secrets/{name}; env AGENTD_EXPOSE_SECRETS=1); default off',
    )
    .option(
      '--log-level <level>',
      'fatal, error, warn, info, debug, trace or silent (env AGENTD_LOG_LEVEL; default info)',
    );
}

/** Why the server cannot listen, in one line that says what to change. */
export function listenErrorMessage(error: NodeJS.ErrnoException, host: string, port: number): string {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return `cannot listen on ${where}: the port is in use (another agentd?); choose another with --port or AGENTD_PORT`;
    case 'EACCES':
      return `cannot listen on ${where}: permission denied (ports below 1024 need privileges); choose another with --port`;
    case 'EADDRNOTAVAIL':
      return `cannot listen on ${where}: ${host} is not an address of this machine (--host, AGENTD_HOST)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot listen on ${where}: unknown host ${host} (--host, AGENTD_HOST)`;
    default:
      return `cannot listen on ${where}: ${error.message}`;
  }
}

/**
 * Fails fast when the address cannot be bound, before the store is opened: starting recovers
 * conversations and reconciles sandboxes, which must not happen for a server that cannot serve
 * (say, a second agentd on the same data folder and port).
 */
export async function assertCanListen(host: string, port: number): Promise<void> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(new ConfigError(listenErrorMessage(error, host, port))),
    );
    probe.listen({ host, port }, () => probe.close(() => resolve()));
  });
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
  try {
    await app.listen({ host, port });
  } catch (error) {
    // Taken between the probe and now: close what was started, then say why in one line.
    await agentd.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined) throw error;
    throw new ConfigError(listenErrorMessage(error as NodeJS.ErrnoException, host, port));
  }
  const address = app.server.address();
  return { port: typeof address === 'object' && address ? address.port : port, shutdown };
}
