// Where the CLI's client commands talk to agentd. With --url (or AGENTD_URL) a running server, with
// --key (or AGENTD_SESSION_API_KEY). Otherwise the embedded default on the data folder: the server
// that holds it when one does (found in the folder's owner file), else one started in this process,
// the same way `agentd serve` starts it, on an ephemeral loopback port, so every command speaks the
// same HTTP and WebSocket API in every mode.
import { startAgentd } from '../../server/start.js';
import { resolveConfig } from '../config.js';
import { ConfigError } from '../config-error.js';
import { claimDataDir, dataOwner, ownerMessage } from '../data-owner.js';
import { startOptions } from '../serve.js';
import { Api } from './api.js';

export interface TargetOptions {
  url?: string;
  key?: string;
  dataDir?: string;
}

export interface Target {
  api: Api;
  /** How to reach this conversation again, as options of `agentd run` (empty for the data folder). */
  how: string;
  close(): Promise<void>;
}

type Env = Record<string, string | undefined>;

function checkedUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`Invalid --url: ${url} (an http:// or https:// address)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new ConfigError(`Invalid --url: ${url} (an http:// or https:// address)`);
  return parsed.href.replace(/\/+$/, '');
}

export async function connect(options: TargetOptions, env: Env = process.env): Promise<Target> {
  const url = options.url ?? env.AGENTD_URL;
  if (url) {
    const base = checkedUrl(url);
    const key = options.key ?? env.AGENTD_SESSION_API_KEY ?? null;
    return { api: new Api(base, key), how: ` --url ${base}`, close: async () => {} };
  }
  if (options.key) throw new ConfigError('--key goes with --url (the data folder has its own key)');
  const config = resolveConfig({ dataDir: options.dataDir, host: '127.0.0.1', port: 0 }, env);
  const key = config.sessionApiKeys[0] ?? null;
  const how = options.dataDir ? ` --data-dir ${config.dataDir}` : '';
  const owner = dataOwner(config.dataDir);
  if (owner?.kind === 'serve' && owner.url) {
    process.stderr.write(`agentd: using the server at ${owner.url} (it holds ${config.dataDir})\n`);
    return { api: new Api(owner.url, key), how, close: async () => {} };
  }
  if (owner) throw new ConfigError(ownerMessage(config.dataDir, owner));
  claimDataDir(config.dataDir, 'run');
  const agentd = await startAgentd({
    ...startOptions(config),
    // The terminal is this command's; the services' warnings (LLM retries, failures) go to stderr.
    logger: false,
    serviceLogger: {
      warn: (fields, message) => warn(message, fields),
      error: (fields, message) => warn(message, fields),
    },
    // One conversation at a time runs here, on this machine: no sandboxes to manage.
    controlPlane: false,
  });
  await agentd.app.listen({ host: '127.0.0.1', port: 0 });
  const address = agentd.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { api: new Api(`http://127.0.0.1:${port}`, key), how, close: () => agentd.close() };
}

function warn(message: string, fields: Record<string, unknown>): void {
  const cause = (fields.err as Error | undefined)?.message;
  process.stderr.write(`agentd: ${message}${cause ? `: ${cause}` : ''}\n`);
}
