// OpenHands' install-time OAuth probe of an MCP server (/api/mcp/oauth/*), as jobs: a job first
// tries the credential it was given (tokens still good, or refreshable: no browser needed), else
// makes the authorization URL the user opens, waits for the callback URL the browser was sent to
// (its `state` must be the job's), exchanges the code, connects, lists the tools (and calls the one
// asked for) and ends with the state to keep. Jobs are per user (another user's reads as missing),
// live 15 minutes, and a user has a few at once. Nothing here is stored: the client keeps the state.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { McpTimeoutError, type McpToolCallResult, type ToolCall } from '../connect.js';
import { type McpServers, testMcpServer } from '../pool.js';
import { BrowserAuthorization } from './authorize.js';
import { OAuthGrant } from './grant.js';
import { McpAuthorizationRequiredError } from './outbound.js';
import type { McpOAuth, McpOAuthState } from './schemas.js';

export type OAuthJobStatus = 'pending' | 'authorizing' | 'succeeded' | 'failed';
export type OAuthErrorKind = 'timeout' | 'connection' | 'unknown';

/** What a job probes: one remote server (its credential in clear), how long each step may take, where the browser returns. */
export interface OAuthProbe {
  /** The server as the pool connects one: a config of exactly that server. */
  config: McpServers;
  url: string;
  oauth: McpOAuth;
  timeoutMs: number;
  toolCall?: ToolCall;
  redirectUrl: string;
}

/** A job as its owner sees it (OpenHands' MCPOAuthStatusResponse, before the route seals the state). */
export interface OAuthJobView {
  id: string;
  status: OAuthJobStatus;
  authorizationUrl: string | null;
  /** Whether the job waits for the browser's callback now. */
  callbackReady: boolean;
  tools?: string[];
  toolResult?: McpToolCallResult;
  state?: McpOAuthState;
  error?: string;
  errorKind?: OAuthErrorKind;
}

/** A callback the job cannot take; `status` is the HTTP answer (400 bad URL or state, 409 not waiting). */
export class OAuthCallbackError extends Error {
  constructor(
    readonly status: 400 | 409,
    message: string,
  ) {
    super(message);
  }
}

/** A start past the limits (per user, or all together). */
export class TooManyOAuthJobsError extends Error {}

export interface OAuthJobLimits {
  /** How long a job lives (OpenHands: 15 minutes). */
  ttlMs: number;
  /** Jobs one user has at once; a new one past it drops the oldest finished one, else is refused. */
  perUser: number;
  /** Jobs of all users at once. */
  total: number;
}

export const OAUTH_JOB_LIMITS: OAuthJobLimits = { ttlMs: 15 * 60_000, perUser: 5, total: 500 };

interface Job {
  view: OAuthJobView;
  owner: string;
  stateParam: string;
  redirectUrl: URL;
  /** Set while the job waits for the browser: hands it the code (or the refusal). */
  deliver: ((outcome: { code: string } | { error: string }) => void) | null;
  /** Settles when the job has ended, succeeded or failed. */
  done: Promise<void>;
  timer: NodeJS.Timeout;
}

/** A job id: the replica that runs the job (32 hex digits), then 32 random ones. */
const JOB_ID = /^([0-9a-f]{32})[0-9a-f]{32}$/;

export class McpOAuthJobs {
  private readonly jobs = new Map<string, Job>();

  /**
   * `replica`: this replica's tag (32 hex digits), the start of every job id here: a job lives in
   * the memory of the replica that started it, and another replica reads in its id where to send
   * the job's status and callback calls.
   */
  constructor(
    private readonly limits: OAuthJobLimits = OAUTH_JOB_LIMITS,
    readonly replica: string = randomBytes(16).toString('hex'),
  ) {}

  /** The tag of the replica that runs the job `id`; null for what is no job id. */
  static replicaOf(id: string): string | null {
    return JOB_ID.exec(id)?.[1] ?? null;
  }

  /** Starts a job for `owner`; TooManyOAuthJobsError past the limits. */
  start(owner: string, probe: OAuthProbe): string {
    this.makeRoom(owner);
    const id = `${this.replica}${randomBytes(16).toString('hex')}`;
    let finish = () => {};
    const job: Job = {
      view: { id, status: 'pending', authorizationUrl: null, callbackReady: false },
      owner,
      // The callback page finds the job by the part before the dot; the rest is the secret part.
      stateParam: `${id}.${randomBytes(24).toString('base64url')}`,
      redirectUrl: new URL(probe.redirectUrl),
      deliver: null,
      done: new Promise<void>((resolve) => {
        finish = resolve;
      }),
      timer: setTimeout(() => this.expire(id), this.limits.ttlMs),
    };
    job.timer.unref();
    this.jobs.set(id, job);
    void this.run(job, probe).finally(finish);
    return id;
  }

  /** The owner's job, or null (none, expired, or another user's). */
  view(owner: string, id: string): OAuthJobView | null {
    const job = this.jobs.get(id);
    return job && job.owner === owner ? { ...job.view } : null;
  }

  /** Waits (at most `ms`) until the job has an authorization URL or has ended; then its view. */
  async settled(owner: string, id: string, ms: number): Promise<OAuthJobView | null> {
    const job = this.jobs.get(id);
    if (!job || job.owner !== owner) return null;
    const deadline = Date.now() + ms;
    while (job.view.status === 'pending' && Date.now() < deadline)
      await Promise.race([job.done, delay(Math.min(100, deadline - Date.now()))]);
    return this.view(owner, id);
  }

  /**
   * The URL the browser was sent back to: checked against the job's redirect URI and `state`, then
   * its code (or the authorization server's refusal) handed to the job; answers once the job has ended
   * or `waitMs` passed. Null when the owner has no such job.
   */
  async callback(
    owner: string,
    id: string,
    callbackUrl: string,
    waitMs: number,
  ): Promise<OAuthJobView | null> {
    const job = this.jobs.get(id);
    if (!job || job.owner !== owner) return null;
    if (!job.deliver) throw new OAuthCallbackError(409, 'This OAuth job is not waiting for a callback');
    let url: URL;
    try {
      url = new URL(callbackUrl);
    } catch {
      throw new OAuthCallbackError(400, 'callback_url is not a URL');
    }
    if (url.origin !== job.redirectUrl.origin || url.pathname !== job.redirectUrl.pathname)
      throw new OAuthCallbackError(
        400,
        `callback_url is not this job's redirect URI (${job.redirectUrl.href})`,
      );
    const state = url.searchParams.get('state') ?? '';
    if (!sameSecret(state, job.stateParam))
      throw new OAuthCallbackError(400, "callback_url's state is not this job's");
    const refused = url.searchParams.get('error');
    const code = url.searchParams.get('code');
    if (refused === null && !code)
      throw new OAuthCallbackError(400, 'callback_url has neither a code nor an error');
    const description = url.searchParams.get('error_description');
    job.deliver(
      refused !== null
        ? { error: `${refused}${description ? `: ${description}` : ''}`.slice(0, 500) }
        : { code: code as string },
    );
    await Promise.race([job.done, delay(waitMs)]);
    return this.view(owner, id);
  }

  /** Ends every job (the server is stopping). */
  close(): void {
    for (const id of [...this.jobs.keys()]) this.expire(id);
  }

  private async run(job: Job, probe: OAuthProbe): Promise<void> {
    const grant = new OAuthGrant(new URL(probe.url), probe.oauth);
    const test = () => testMcpServer(probe.config, probe.timeoutMs, probe.toolCall, grant);
    try {
      let result: Awaited<ReturnType<typeof test>>;
      try {
        // The credential may still work (or refresh): then no browser is needed.
        result = await test();
      } catch (error) {
        if (!(error instanceof McpAuthorizationRequiredError)) throw error;
        const authorization = new BrowserAuthorization(grant, probe.redirectUrl, job.stateParam);
        const url = await within(authorization.begin(), probe.timeoutMs);
        const outcome = await new Promise<{ code: string } | { error: string }>((resolve) => {
          // Expired while it made the URL (or the server is stopping): nothing would ever deliver.
          if (this.jobs.get(job.view.id) !== job) return resolve({ error: 'the job expired' });
          job.deliver = resolve;
          Object.assign(job.view, { status: 'authorizing', authorizationUrl: url.href, callbackReady: true });
        });
        job.deliver = null;
        job.view.callbackReady = false;
        if ('error' in outcome) throw new Error(`The authorization server refused: ${outcome.error}`);
        await within(authorization.finish(outcome.code), probe.timeoutMs);
        result = await test();
      }
      Object.assign(job.view, {
        status: 'succeeded',
        tools: result.tools,
        ...(result.toolResult ? { toolResult: result.toolResult } : {}),
        state: grant.current,
      });
    } catch (error) {
      job.deliver = null;
      Object.assign(job.view, {
        status: 'failed',
        callbackReady: false,
        error: (error as Error).message || String(error),
        errorKind: error instanceof McpTimeoutError ? 'timeout' : 'connection',
      });
    }
  }

  /** Room for one more of `owner`'s jobs: the oldest finished one goes when at the limit. */
  private makeRoom(owner: string): void {
    const own = [...this.jobs.values()].filter((j) => j.owner === owner);
    if (own.length >= this.limits.perUser) {
      const finished = own.find((j) => j.view.status === 'succeeded' || j.view.status === 'failed');
      if (!finished)
        throw new TooManyOAuthJobsError(
          `At most ${this.limits.perUser} MCP OAuth jobs at once: finish one, or wait until one expires`,
        );
      this.expire(finished.view.id);
    }
    if (this.jobs.size >= this.limits.total)
      throw new TooManyOAuthJobsError('Too many MCP OAuth jobs are under way; try again later');
  }

  /** Forgets a job; one still waiting for its browser fails. */
  private expire(id: string): void {
    const job = this.jobs.get(id);
    if (!job) return;
    this.jobs.delete(id);
    clearTimeout(job.timer);
    job.deliver?.({ error: 'the job expired' });
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)).unref());

/** `work`, or McpTimeoutError past `ms`. */
async function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new McpTimeoutError(ms)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
