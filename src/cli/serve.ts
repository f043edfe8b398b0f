// `agentd serve`: the embedded default — one process, SQLite in the data folder, local sandboxes —
// or, with --database-url, one replica of several on a shared PostgreSQL.
import { RedisBusError } from '../bus/index.js';
import { markPhase } from '../runtime/heap.js';
import { originsOf } from '../server/cors.js';
import { type AgentdOptions, startAgentd } from '../server/start.js';
import { warmUpWhenIdle } from '../server/warm-up.js';
import { DatabaseUnavailableError, redactUrl } from '../store/index.js';
import { SERVED_MARK } from './code-cache.js';
import { checkSandboxProvider, resolveConfig, type ServerConfig, type ServerOptions } from './config.js';
import { ConfigError } from './config-error.js';
import { claimDataDir } from './data-owner.js';
import { assertCanListen, listenUntilStopped } from './lifecycle.js';

export async function serve(options: ServerOptions): Promise<void> {
  const config = resolveConfig(options);
  await checkSandboxProvider(config);
  await assertCanListen(config.host, config.port);
  const claim = claimDataDir(config.dataDir, 'serve');
  const agentd = await startAgentd(startOptions(config)).catch((error: unknown) => {
    // An engine that cannot be reached is one line and exit code 1.
    if (error instanceof DatabaseUnavailableError || error instanceof RedisBusError)
      throw new ConfigError(error.message, 1);
    throw error;
  });
  const { port } = await listenUntilStopped(agentd, config.host, config.port);
  markPhase(SERVED_MARK);
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  claim.setUrl(`http://${loopbackOf(config.host)}:${port}`);
  const lines = [`agentd listening on http://${host}:${port}`, `  data folder: ${config.dataDir}`];
  if (config.databaseUrl) lines.push(`  database: ${redactUrl(config.databaseUrl)}`);
  if (config.keySource === 'none') lines.push('  auth: OFF (--no-auth); loopback only');
  else if (config.keySource === 'environment') lines.push('  session keys: from the environment');
  else lines.push(`  session key: ${config.sessionApiKeys[0]}  (send it as X-Session-API-Key)`);
  if (config.exposeSecrets) lines.push('  secret exposure: ON (callers may read stored secrets in clear)');
  if (config.redisUrl) lines.push('  bus: Redis');
  if (agentd.controlPlane) lines.push(`  sandboxes: ${agentd.controlPlane.sandboxProvider}`);
  // The key rides in the fragment, which the browser never sends: the page keeps it (localStorage).
  const signIn =
    config.keySource === 'generated' || config.keySource === 'data-dir'
      ? `#key=${encodeURIComponent(config.sessionApiKeys[0]!)}`
      : '';
  lines.push(`  web UI: http://${host}:${port}/${signIn}`);
  lines.push(`  API docs: http://${host}:${port}/docs`);
  process.stdout.write(`${lines.join('\n')}\n`);
  // Once ready and idle: what the first requests of a burst would otherwise compile on their path.
  warmUpWhenIdle(agentd.app);
}

/** An address of the bound host that this machine reaches (a wildcard bind answers on loopback). */
function loopbackOf(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

/** The embedded default's parts from the resolved configuration (`agentd run` starts the same). */
export function startOptions(config: ServerConfig): AgentdOptions {
  return {
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    logger: { level: config.logLevel },
    sessionApiKeys: config.sessionApiKeys,
    controlPlane: {
      maxSandboxes: config.maxSandboxes,
      specs: config.specs,
      sandboxProvider: config.sandboxProvider,
      // The web UI on this server's origin calls each sandbox's agent server directly.
      sandboxCorsOrigins: [...originsOf(config.host, config.port), ...config.corsOrigins],
    },
    hooks: config.hooks,
    searchMcpUrl: config.searchMcpUrl,
    githubApiUrl: config.githubApiUrl,
    prices: config.prices,
    toolOptions: { terminalIdleSeconds: config.terminalIdleSeconds },
    maxLiveConversations: config.maxLiveConversations,
    exposeSecrets: config.exposeSecrets,
    maxUploadBytes: config.maxUploadBytes,
    extensions: config.extensions,
    corsOrigins: config.corsOrigins,
    mcpOAuth: { publicUrl: config.publicUrl },
    redisUrl: config.redisUrl,
    cluster:
      config.databaseUrl && config.redisUrl
        ? { databaseUrl: config.databaseUrl, leaseSeconds: config.leaseSeconds }
        : undefined,
  };
}
