// Resolves the server configuration from command-line options and the environment.
// Precedence: command line, then environment, then defaults. Session keys are read the way
// OpenHands reads them (OH_SESSION_API_KEYS_0..n, OH_SESSION_API_KEYS as a JSON list, legacy SESSION_API_KEY).
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { repositoryLocation } from '../agent/index.js';
import { type HookConfig, HookConfigError, loadHookFile } from '../hooks/index.js';
import { loadPriceTable, type PriceTable, PricingError } from '../llm/index.js';
import {
  bwrapUnavailable,
  SANDBOX_PROVIDER_KINDS,
  type SandboxProviderKind,
  SandboxSpecs,
  SpecConfigError,
} from '../sandbox/index.js';
import { parseCorsOrigins } from '../server/cors.js';
import { LOG_LEVELS } from '../server/logging.js';
import { ConfigError } from './config-error.js';

// Named here too: callers that resolve a configuration catch its error from the same module.
export { ConfigError };

export interface ServerOptions {
  host?: string;
  port?: number | string;
  dataDir?: string;
  /** false when `--no-auth` was given. */
  auth?: boolean;
  maxSandboxes?: number | string;
  logLevel?: string;
  sandboxProvider?: string;
  /** true when `--expose-secrets` was given. */
  exposeSecrets?: boolean;
  redisUrl?: string;
  databaseUrl?: string;
}

export interface ServerConfig {
  host: string;
  port: number;
  dataDir: string;
  /** Accepted session keys; empty means auth is off (only with an explicit --no-auth). */
  sessionApiKeys: string[];
  /** Where the keys came from, for the start-up message. */
  keySource: 'environment' | 'generated' | 'data-dir' | 'none';
  /** Sandboxes STARTING or RUNNING at once. */
  maxSandboxes: number;
  /** The sandbox provider asked for (--sandbox-provider, AGENTD_SANDBOX_PROVIDER); unset: bwrap where it runs. */
  sandboxProvider: SandboxProviderKind | undefined;
  /** Sandbox spec presets (AGENTD_SANDBOX_SPECS), the built-in `process` spec first. */
  specs: SandboxSpecs;
  /** Server-wide hooks (AGENTD_HOOKS_FILE, a hooks.json in OpenHands' format). */
  hooks: HookConfig | null;
  /** Price overrides (AGENTD_PRICING_FILE: model or /regex/ → LiteLLM-style per-token prices). */
  prices: PriceTable;
  /** Seconds an unused terminal shell lives (AGENTD_TERMINAL_IDLE_SECONDS, default 60). */
  terminalIdleSeconds: number;
  /** Conversation runtimes kept in memory (AGENTD_MAX_LIVE_CONVERSATIONS, default 64). */
  maxLiveConversations: number;
  /** Largest upload to /api/file/upload in bytes (AGENTD_MAX_UPLOAD_BYTES, default 1 GiB). */
  maxUploadBytes: number;
  /** The lowest log level written (--log-level, AGENTD_LOG_LEVEL; default info). */
  logLevel: string;
  /**
   * Callers may read secrets in clear (--expose-secrets, AGENTD_EXPOSE_SECRETS=1): GET /api/settings
   * with X-Expose-Secrets: plaintext, GET /api/settings/secrets/{name}. Default off.
   */
  exposeSecrets: boolean;
  /** More browser origins allowed cross-origin calls (AGENTD_CORS_ORIGINS, comma-separated). */
  corsOrigins: string[];
  /**
   * The origin browsers reach this server at (AGENTD_PUBLIC_URL, e.g. behind a proxy): MCP OAuth's
   * redirect URI is its /ui/oauth/callback. Unset: the host each start request was sent to.
   */
  publicUrl: string | undefined;
  /** The MCP server a user's search_api_key connects for web search (AGENTD_SEARCH_MCP_URL); unset: Tavily's. */
  searchMcpUrl: string | undefined;
  /** The GitHub API every user's token goes to (AGENTD_GITHUB_API_URL); unset: by the token's host. */
  githubApiUrl: string | undefined;
  /** The Redis bus for several replicas (--redis-url, AGENTD_REDIS_URL); unset: the in-memory bus. */
  redisUrl: string | undefined;
  /** How long a replica's conversation lease lasts without a heartbeat (AGENTD_LEASE_SECONDS, default 7). */
  leaseSeconds: number;
  /** PostgreSQL instead of SQLite (--database-url, AGENTD_DATABASE_URL): the store replicas share. */
  databaseUrl: string | undefined;
  /**
   * The public extensions repository: public skills and the marketplaces (AGENTD_EXTENSIONS_REPO,
   * default OpenHands/extensions; empty: none) at AGENTD_EXTENSIONS_REF (default main).
   */
  extensions: { url: string; ref: string } | null;
}

type Env = Record<string, string | undefined>;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

export function defaultDataDir(env: Env = process.env): string {
  const base = env.XDG_DATA_HOME || join(homedir(), '.local', 'share');
  return join(base, 'agentd');
}

/** Session keys from the environment, in OpenHands' order; duplicates removed. */
export function sessionKeysFromEnv(env: Env): string[] {
  const keys: string[] = [];
  const list = env.OH_SESSION_API_KEYS;
  if (list) {
    try {
      const parsed: unknown = JSON.parse(list);
      if (!Array.isArray(parsed) || !parsed.every((k) => typeof k === 'string'))
        throw new Error('not a list');
      keys.push(...parsed);
    } catch {
      throw new ConfigError('OH_SESSION_API_KEYS must be a JSON list of strings');
    }
  }
  for (let i = 0; env[`OH_SESSION_API_KEYS_${i}`] !== undefined; i++)
    keys.push(env[`OH_SESSION_API_KEYS_${i}`]!);
  if (keys.length === 0 && env.SESSION_API_KEY) keys.push(env.SESSION_API_KEY);
  return [...new Set(keys.filter((k) => k.length > 0))];
}

/** A yes/no environment variable: on when `1` or `true` (any case). */
const envFlag = (value: string | undefined): boolean => value === '1' || value?.toLowerCase() === 'true';

function parsePositive(name: string, value: number | string, integer: boolean): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n)))
    throw new ConfigError(`Invalid ${name}: ${value} (a ${integer ? 'whole ' : ''}number above 0)`);
  return n;
}

function parseLogLevel(value: string): string {
  const level = value.toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(level))
    throw new ConfigError(`Invalid log level: ${value} (one of ${LOG_LEVELS.join(', ')})`);
  return level;
}

/** Creates the data folder (mode 0700); a path that cannot be one is a clear error, not a stack. */
function makeDataDir(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new ConfigError(`cannot create the data folder ${dataDir}: ${(error as Error).message}`);
  }
}

function parsePort(value: number | string): number {
  const port = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`Invalid port: ${value}`);
  return port;
}

/** Reads the key kept in the data folder, or generates and stores one (mode 0600). */
function dataDirKey(dataDir: string): { key: string; generated: boolean } {
  const file = join(dataDir, 'session_api_key');
  if (existsSync(file)) {
    const key = readFileSync(file, 'utf8').trim();
    if (key) {
      chmodSync(file, 0o600);
      return { key, generated: false };
    }
  }
  const key = `agentd-${randomBytes(24).toString('base64url')}`;
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return { key, generated: true };
}

export function resolveConfig(options: ServerOptions, env: Env = process.env): ServerConfig {
  const noAuth = options.auth === false || envFlag(env.AGENTD_NO_AUTH);
  const host = options.host ?? env.AGENTD_HOST ?? '127.0.0.1';
  const port = parsePort(options.port ?? env.AGENTD_PORT ?? 8000);
  const dataDir = resolve(options.dataDir ?? env.AGENTD_DATA_DIR ?? defaultDataDir(env));
  const maxSandboxes = parsePositive(
    'sandbox limit',
    options.maxSandboxes ?? env.AGENTD_MAX_SANDBOXES ?? 10,
    true,
  );
  const logLevel = parseLogLevel(options.logLevel ?? env.AGENTD_LOG_LEVEL ?? 'info');
  makeDataDir(dataDir);
  const exposeSecrets = options.exposeSecrets === true || envFlag(env.AGENTD_EXPOSE_SECRETS);
  const databaseUrl = databaseUrlOf(options.databaseUrl ?? env.AGENTD_DATABASE_URL, env);
  const common = {
    databaseUrl,
    host,
    exposeSecrets,
    corsOrigins: parseCorsOrigins(env.AGENTD_CORS_ORIGINS),
    publicUrl: publicUrlOf(env.AGENTD_PUBLIC_URL),
    searchMcpUrl: optionalHttpUrl('AGENTD_SEARCH_MCP_URL', env.AGENTD_SEARCH_MCP_URL),
    githubApiUrl: optionalHttpUrl('AGENTD_GITHUB_API_URL', env.AGENTD_GITHUB_API_URL),
    redisUrl: redisUrlOf(options.redisUrl ?? env.AGENTD_REDIS_URL),
    leaseSeconds: parsePositive('AGENTD_LEASE_SECONDS', env.AGENTD_LEASE_SECONDS ?? '7', false),
    port,
    dataDir,
    maxSandboxes,
    logLevel,
    sandboxProvider: sandboxProviderOf(options.sandboxProvider ?? env.AGENTD_SANDBOX_PROVIDER),
    specs: specsFromEnv(env),
    hooks: hooksFromEnv(env),
    prices: pricesFromEnv(env),
    terminalIdleSeconds: parsePositive(
      'AGENTD_TERMINAL_IDLE_SECONDS',
      env.AGENTD_TERMINAL_IDLE_SECONDS ?? '60',
      false,
    ),
    maxLiveConversations: parsePositive(
      'AGENTD_MAX_LIVE_CONVERSATIONS',
      env.AGENTD_MAX_LIVE_CONVERSATIONS ?? '64',
      true,
    ),
    maxUploadBytes: parsePositive(
      'AGENTD_MAX_UPLOAD_BYTES',
      env.AGENTD_MAX_UPLOAD_BYTES ?? String(1024 ** 3),
      true,
    ),
    extensions: extensionsFromEnv(env),
  };

  if (noAuth) {
    if (!LOOPBACK.has(host)) {
      throw new ConfigError(
        `--no-auth serves on loopback only; refusing to bind ${host} without a session key`,
      );
    }
    return { ...common, sessionApiKeys: [], keySource: 'none' };
  }
  const envKeys = sessionKeysFromEnv(env);
  if (envKeys.length > 0) return { ...common, sessionApiKeys: envKeys, keySource: 'environment' };
  const { key, generated } = dataDirKey(dataDir);
  return { ...common, sessionApiKeys: [key], keySource: generated ? 'generated' : 'data-dir' };
}

/** The http(s) URL an environment variable holds, without credentials; a ConfigError naming it otherwise. */
function httpUrlOf(name: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ConfigError(`${name}: not a URL: ${value}`);
  }
  if (!/^https?:$/.test(url.protocol) || url.username || url.password)
    throw new ConfigError(`${name}: an http(s) URL without credentials: ${value}`);
  return url;
}

/** An http(s) origin (a trailing `/` allowed; no path: the web UI lives at the origin's root). */
function publicUrlOf(value: string | undefined): string | undefined {
  if (!value?.trim()) return undefined;
  const url = httpUrlOf('AGENTD_PUBLIC_URL', value);
  if (url.pathname !== '/' || url.search || url.hash)
    throw new ConfigError(
      `AGENTD_PUBLIC_URL: an http(s) origin without a path, e.g. https://agentd.example: ${value}`,
    );
  return url.origin;
}

/** An http(s) URL an environment variable may hold; unset or empty: undefined (the default is its user's). */
function optionalHttpUrl(name: string, value: string | undefined): string | undefined {
  return value?.trim() ? httpUrlOf(name, value).href : undefined;
}

/** OpenHands' public extensions repository, which its clients' marketplaces read. */
const EXTENSIONS_REPO = 'https://github.com/OpenHands/extensions';

function extensionsFromEnv(env: Env): ServerConfig['extensions'] {
  const source = (env.AGENTD_EXTENSIONS_REPO ?? EXTENSIONS_REPO).trim();
  if (source === '') return null;
  const ref = (env.AGENTD_EXTENSIONS_REF ?? 'main').trim();
  if (!/^[\w][\w./-]{0,199}$/.test(ref))
    throw new ConfigError(`AGENTD_EXTENSIONS_REF: not a branch, tag or commit: ${ref}`);
  try {
    return { url: repositoryLocation(source).location, ref };
  } catch (error) {
    throw new ConfigError(`AGENTD_EXTENSIONS_REPO: ${(error as Error).message}`);
  }
}

/**
 * A postgres:// URL, or undefined for SQLite. Replicas sharing a database must share the secret key
 * too (settings secrets are encrypted with it), so the data folder's own key will not do.
 */
function databaseUrlOf(value: string | undefined, env: Env): string | undefined {
  if (value === undefined || value === '') return undefined;
  let protocol: string;
  try {
    protocol = new URL(value).protocol;
  } catch {
    throw new ConfigError('Invalid database URL (expected postgres://user:password@host:port/database)');
  }
  if (protocol !== 'postgres:' && protocol !== 'postgresql:')
    throw new ConfigError(`Invalid database URL: ${protocol} (expected postgres://…)`);
  if (!env.OH_SECRET_KEY)
    throw new ConfigError(
      'a database URL needs OH_SECRET_KEY (the same on every replica): it encrypts the stored secrets',
    );
  return value;
}

function sandboxProviderOf(value: string | undefined): SandboxProviderKind | undefined {
  if (value === undefined || value === '') return undefined;
  const kind = SANDBOX_PROVIDER_KINDS.find((k) => k === value);
  if (!kind) {
    throw new ConfigError(`Invalid sandbox provider: ${value} (one of ${SANDBOX_PROVIDER_KINDS.join(', ')})`);
  }
  return kind;
}

/** An explicit bwrap must run here (`agentd serve` checks it once, at start-up). */
export async function checkSandboxProvider(config: Pick<ServerConfig, 'sandboxProvider'>): Promise<void> {
  const problem = config.sandboxProvider === 'bwrap' ? await bwrapUnavailable() : null;
  if (problem) throw new ConfigError(`--sandbox-provider bwrap: ${problem}`);
}

function hooksFromEnv(env: Env): HookConfig | null {
  if (!env.AGENTD_HOOKS_FILE) return null;
  try {
    return loadHookFile(resolve(env.AGENTD_HOOKS_FILE));
  } catch (error) {
    if (error instanceof HookConfigError) throw new ConfigError(`AGENTD_HOOKS_FILE: ${error.message}`);
    throw error;
  }
}

/** AGENTD_SANDBOX_SPECS: the JSON list itself (it starts with `[`), else the path of a file holding it. */
function specsFromEnv(env: Env): SandboxSpecs {
  const value = env.AGENTD_SANDBOX_SPECS?.trim();
  if (!value) return new SandboxSpecs();
  try {
    return value.startsWith('[') ? SandboxSpecs.fromJson(value) : SandboxSpecs.fromFile(resolve(value));
  } catch (error) {
    if (error instanceof SpecConfigError) throw new ConfigError(`AGENTD_SANDBOX_SPECS: ${error.message}`);
    throw error;
  }
}

function pricesFromEnv(env: Env): PriceTable {
  if (!env.AGENTD_PRICING_FILE) return {};
  try {
    return loadPriceTable(resolve(env.AGENTD_PRICING_FILE));
  } catch (error) {
    if (error instanceof PricingError) throw new ConfigError(`AGENTD_PRICING_FILE: ${error.message}`);
    throw error;
  }
}

function redisUrlOf(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^rediss?:\/\//.test(value))
    throw new ConfigError(
      'Invalid Redis URL: it must start with redis:// or rediss:// (--redis-url, AGENTD_REDIS_URL)',
    );
  return value;
}
