// `agentd serve`: the embedded default — one process, SQLite in the data folder, local sandboxes.
import { startAgentd } from '../server/start.js';
import { resolveConfig, type ServerOptions } from './config.js';

export async function serve(options: ServerOptions): Promise<void> {
  const config = resolveConfig(options);
  const agentd = await startAgentd({
    dataDir: config.dataDir,
    sessionApiKeys: config.sessionApiKeys,
    controlPlane: { maxSandboxes: config.maxSandboxes },
    hooks: config.hooks,
    prices: config.prices,
  });
  const { app } = agentd;

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    await agentd.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ host: config.host, port: config.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const lines = [`agentd listening on http://${host}:${port}`, `  data folder: ${config.dataDir}`];
  if (config.keySource === 'none') lines.push('  auth: OFF (--no-auth); loopback only');
  else if (config.keySource === 'environment') lines.push('  session keys: from the environment');
  else lines.push(`  session key: ${config.sessionApiKeys[0]}  (send it as X-Session-API-Key)`);
  lines.push(`  API docs: http://${host}:${port}/docs`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
