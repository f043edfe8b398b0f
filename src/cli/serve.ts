// `agentd serve`: the embedded default — one process, SQLite in the data folder, local sandboxes.
import { prepareEventValidator } from '../events/index.js';
import { preloadOpenAI } from '../llm/index.js';
import { originsOf } from '../server/cors.js';
import { startAgentd } from '../server/start.js';
import { checkSandboxProvider, resolveConfig, type ServerOptions } from './config.js';
import { assertCanListen, listenUntilStopped } from './lifecycle.js';

export async function serve(options: ServerOptions): Promise<void> {
  const config = resolveConfig(options);
  checkSandboxProvider(config);
  await assertCanListen(config.host, config.port);
  const agentd = await startAgentd({
    dataDir: config.dataDir,
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
    prices: config.prices,
    toolOptions: { terminalIdleSeconds: config.terminalIdleSeconds },
    maxLiveConversations: config.maxLiveConversations,
    exposeSecrets: config.exposeSecrets,
    maxUploadBytes: config.maxUploadBytes,
    corsOrigins: config.corsOrigins,
  });
  const { port } = await listenUntilStopped(agentd, config.host, config.port);
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const lines = [`agentd listening on http://${host}:${port}`, `  data folder: ${config.dataDir}`];
  if (config.keySource === 'none') lines.push('  auth: OFF (--no-auth); loopback only');
  else if (config.keySource === 'environment') lines.push('  session keys: from the environment');
  else lines.push(`  session key: ${config.sessionApiKeys[0]}  (send it as X-Session-API-Key)`);
  if (config.exposeSecrets) lines.push('  secret exposure: ON (callers may read stored secrets in clear)');
  if (agentd.controlPlane) lines.push(`  sandboxes: ${agentd.controlPlane.sandboxProvider}`);
  lines.push(`  API docs: http://${host}:${port}/docs`);
  process.stdout.write(`${lines.join('\n')}\n`);
  // Warm-up once ready, a moment later so that the first /ready is answered first: what the first
  // task would otherwise load (the OpenAI SDK) and compile (the event validator) on its own path.
  setTimeout(() => {
    prepareEventValidator();
    void preloadOpenAI();
  }, 50).unref();
}
