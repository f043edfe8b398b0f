// `agentd agent`: the agent server alone, as it runs inside a sandbox. The control plane starts it
// with `--port 0` and a session key in the environment, and learns the port from one JSON line
// written to `--ready-fd` (a pipe that carries nothing else, so logs can go anywhere).
import { closeSync, writeSync } from 'node:fs';
import { Socket } from 'node:net';
import { startAgentd } from '../server/start.js';
import { resolveConfig, type ServerOptions } from './config.js';
import { ConfigError } from './config-error.js';
import { assertCanListen, listenUntilStopped } from './lifecycle.js';

export interface AgentOptions extends ServerOptions {
  readyFd?: string;
  /**
   * A warm spare: the ready pipe stays open until the control plane writes `claim`; if the pipe
   * closes first (the control plane is gone), this server exits instead of running unclaimed.
   */
  spare?: boolean;
}

export async function agent(options: AgentOptions): Promise<void> {
  const config = resolveConfig({ ...options, port: options.port ?? process.env.AGENTD_PORT ?? 0 });
  if (config.keySource === 'generated' || config.keySource === 'data-dir') {
    throw new ConfigError(
      'agentd agent needs its session key in the environment (OH_SESSION_API_KEYS_0), or --no-auth',
    );
  }
  await assertCanListen(config.host, config.port);
  const agentd = await startAgentd({
    dataDir: config.dataDir,
    logger: { level: config.logLevel },
    sessionApiKeys: config.sessionApiKeys,
    controlPlane: false,
    docsUi: false,
    hooks: config.hooks,
    searchMcpUrl: config.searchMcpUrl,
    prices: config.prices,
    toolOptions: { terminalIdleSeconds: config.terminalIdleSeconds },
    maxLiveConversations: config.maxLiveConversations,
    exposeSecrets: config.exposeSecrets,
    // The control plane that launched this sandbox puts its own origin here (its web UI calls us).
    corsOrigins: config.corsOrigins,
    maxUploadBytes: config.maxUploadBytes,
  });
  const { port, shutdown } = await listenUntilStopped(agentd, config.host, config.port);
  const line = `${JSON.stringify({ listening: true, host: config.host, port, pid: process.pid })}\n`;
  if (options.readyFd !== undefined && options.spare) {
    const pipe = new Socket({ fd: Number(options.readyFd), readable: true, writable: true });
    pipe.write(line);
    let claimed = false;
    pipe.on('data', (chunk) => {
      if (chunk.toString().includes('claim')) {
        claimed = true;
        pipe.destroy();
      }
    });
    pipe.on('close', () => {
      if (!claimed) void shutdown('unclaimed spare');
    });
  } else if (options.readyFd !== undefined) {
    const fd = Number(options.readyFd);
    writeSync(fd, line);
    closeSync(fd);
  } else {
    process.stdout.write(`agentd agent listening on http://${config.host}:${port}\n`);
  }
}
