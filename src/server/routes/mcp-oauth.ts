// OpenHands' install-time OAuth for a remote MCP server: POST /api/mcp/oauth/start (the server spec
// /api/mcp/test takes, its auth an oauth2 credential) starts a job and answers the URL the user opens;
// the authorization server sends the browser back to agentd's own page /ui/oauth/callback, which
// POSTs that URL to /api/mcp/oauth/callback/{job_id}; GET /api/mcp/oauth/status/{job_id} says how far
// the job is and, once it succeeded, its tools and the oauth_state to keep under the server's
// auth.state (secrets sealed for the caller). The jobs are tools/mcp/oauth/jobs.ts. A job lives in the
// replica that started it; status and callback requests that land on another replica are answered by
// that one (replica-calls.ts), so the flow works behind a load balancer without sticky sessions.
//
// The redirect URI is AGENTD_PUBLIC_URL's /ui/oauth/callback when configured, else the origin the
// start request was addressed to (its Host, on the connection's scheme): nothing a query or body says.
// Whoever can start a job can only point its own job's redirect somewhere; completing a job takes the
// key of the user who started it and the job's `state`, and the page never redirects anywhere.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import type { SettingsService } from '../../settings/index.js';
import {
  hasOAuthValues,
  McpOAuthJobs,
  McpOAuthState,
  mapOAuthSecrets,
  OAuthCallbackError,
  type OAuthJobView,
  TooManyOAuthJobsError,
} from '../../tools/index.js';
import { HttpError } from '../errors.js';
import { type ReplicaCalls, ReplicaGoneError } from '../replica-calls.js';
import { detailResponse, errorResponses } from '../schemas.js';
import { CandidateRequest, candidateServers, toolCallOf } from './mcp-schemas.js';

/** Where the browser comes back: the web UI's callback page. */
export const OAUTH_CALLBACK_PATH = '/ui/oauth/callback';

/** How long start waits for the authorization URL (OpenHands: the test timeout, within 1..30 s). */
const startWaitMs = (timeoutS: number) => Math.min(Math.max(timeoutS, 1), 30) * 1000;
/** How long the callback waits for the job to end before answering its status (the client polls on). */
const CALLBACK_WAIT_MS = 30_000;

const ErrorKind = Type.Union([Type.Literal('timeout'), Type.Literal('connection'), Type.Literal('unknown')]);

const StartResponse = Type.Object(
  {
    ok: Type.Boolean(),
    job_id: Type.Optional(Type.String()),
    authorization_url: Type.Optional(Type.String({ description: 'Open it in the browser' })),
    error: Type.Optional(Type.String()),
    error_kind: Type.Optional(ErrorKind),
  },
  { $id: 'MCPOAuthStartResponse' },
);

const StatusResponse = Type.Object(
  {
    ok: Type.Boolean(),
    status: Type.Union([
      Type.Literal('pending'),
      Type.Literal('authorizing'),
      Type.Literal('succeeded'),
      Type.Literal('failed'),
    ]),
    job_id: Type.String(),
    authorization_url: Type.Optional(Type.String()),
    callback_ready: Type.Boolean({ description: 'The job waits for the browser to come back' }),
    tools: Type.Optional(Type.Array(Type.String())),
    tool_result: Type.Optional(Type.Object({ is_error: Type.Boolean(), text: Type.String() })),
    oauth_state: Type.Optional(McpOAuthState),
    error: Type.Optional(Type.String()),
    error_kind: Type.Optional(ErrorKind),
  },
  { $id: 'MCPOAuthStatusResponse' },
);
type StatusResponse = Static<typeof StatusResponse>;

const JobParams = Type.Object({ job_id: Type.String({ minLength: 1, maxLength: 64 }) });

const CallbackRequest = Type.Object(
  {
    callback_url: Type.String({
      minLength: 1,
      maxLength: 8192,
      description: 'The URL the browser was sent back to, with its code and state',
    }),
  },
  { additionalProperties: true, $id: 'MCPOAuthCallbackRequest' },
);

const NOT_FOUND_DETAIL = 'MCP OAuth job not found';
const notFound = () => new HttpError(404, NOT_FOUND_DETAIL);

/** A job route's answer as it travels between replicas (replica-calls.ts): the body, or the HTTP error. */
type JobAnswer = { body: StatusResponse } | { status: 400 | 404 | 409; detail: string };
const NOT_FOUND: JobAnswer = { status: 404, detail: NOT_FOUND_DETAIL };

/** Where the authorization server sends the browser back (see the header). */
export function redirectUri(request: FastifyRequest, publicUrl: string | undefined): string {
  if (publicUrl) return new URL(OAUTH_CALLBACK_PATH, publicUrl).href;
  const host = request.host;
  let origin: URL | null = null;
  // A host and maybe a port, nothing that would make the URL go on (a path, a query, userinfo).
  if (/^[^\s/?#@\\]+$/.test(host)) {
    try {
      origin = new URL(`${request.protocol}://${host}`);
    } catch {
      // Not a host: refused below.
    }
  }
  if (!origin)
    throw new HttpError(
      400,
      'The request names no usable host for the OAuth redirect URI; set AGENTD_PUBLIC_URL',
    );
  return new URL(OAUTH_CALLBACK_PATH, origin).href;
}

export const mcpOAuthRoutes: FastifyPluginAsync<{
  settings: SettingsService;
  jobs: McpOAuthJobs;
  /** Where a job started on another replica is asked (its id says which). */
  replicas: ReplicaCalls;
  publicUrl?: string;
}> = async (app, { settings, jobs, replicas, publicUrl }) => {
  /** A job as its owner reads it, the state's secrets sealed for them. */
  const statusOf = (userId: string, view: OAuthJobView): StatusResponse => {
    const failed = view.status === 'failed';
    const sealed =
      hasOAuthValues(view.state) &&
      mapOAuthSecrets({ state: view.state }, (v) => settings.sealFor(userId, v)).state;
    return {
      ok: !failed,
      status: view.status,
      job_id: view.id,
      ...(view.authorizationUrl ? { authorization_url: view.authorizationUrl } : {}),
      callback_ready: view.callbackReady,
      ...(view.tools ? { tools: view.tools } : {}),
      ...(view.toolResult ? { tool_result: view.toolResult } : {}),
      ...(sealed ? { oauth_state: sealed } : {}),
      ...(failed ? { error: view.error ?? 'failed', error_kind: view.errorKind ?? 'unknown' } : {}),
    };
  };

  // The job calls, run on the replica that runs the job.
  replicas.serve('mcpOAuth.status', async (userId, [jobId]) => {
    const view = jobs.view(userId, jobId as string);
    return view ? { body: statusOf(userId, view) } : NOT_FOUND;
  });
  replicas.serve('mcpOAuth.callback', async (userId, [jobId, callbackUrl]): Promise<JobAnswer> => {
    try {
      const view = await jobs.callback(userId, jobId as string, callbackUrl as string, CALLBACK_WAIT_MS);
      return view ? { body: statusOf(userId, view) } : NOT_FOUND;
    } catch (error) {
      if (error instanceof OAuthCallbackError) return { status: error.status, detail: error.message };
      throw error;
    }
  });
  /** A job call's answer from the replica its id names; a replica that is gone took its jobs with it. */
  const onJobReplica = async (op: string, userId: string, jobId: string, ...args: unknown[]) => {
    const tag = McpOAuthJobs.replicaOf(jobId);
    if (!tag) throw notFound();
    let answer: JobAnswer;
    try {
      answer = (await replicas.call(tag, op, userId, [jobId, ...args])) as JobAnswer;
    } catch (error) {
      if (error instanceof ReplicaGoneError) throw notFound();
      throw error;
    }
    if ('body' in answer) return answer.body;
    throw new HttpError(answer.status, answer.detail);
  };

  app.post(
    '/api/mcp/oauth/start',
    {
      schema: {
        tags: ['MCP'],
        summary: 'Start an MCP OAuth install probe',
        description: `OpenHands': starts OAuth for the remote MCP server given (as /api/mcp/test takes it, its auth {strategy: "oauth2", authentication?, state?}) and answers the authorization_url to open in a browser, once the authorization server was found (the server's protected-resource metadata, then the authorization server's own) and agentd registered with it. The browser comes back to ${OAUTH_CALLBACK_PATH} on this server (AGENTD_PUBLIC_URL, else the host this request was sent to), which completes the job. A state whose tokens still work (or refresh) needs no browser: ok without authorization_url. ok:false with the reason when the server or its authorization server cannot be used. 400 a server that is not oauth2, 429 too many jobs at once (5 per user).`,
        body: CandidateRequest,
        response: {
          200: StartResponse,
          400: detailResponse('Not an oauth2 server, or no usable host for the redirect URI'),
          409: detailResponse('A sealed value sent back does not open with this server’s key'),
          429: detailResponse('Too many OAuth jobs at once'),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const body = request.body as CandidateRequest;
      if (body.server.auth?.strategy !== 'oauth2')
        throw new HttpError(400, "MCP OAuth start requires auth.strategy='oauth2'");
      const { spec, config } = candidateServers(body, (v) => settings.openSealed(request.userId, v));
      const timeout = body.timeout ?? 15;
      const probe = {
        config,
        url: spec.url as string,
        oauth: spec.oauth ?? {},
        timeoutMs: timeout * 1000,
        redirectUrl: redirectUri(request, publicUrl),
        ...(body.tool_call ? { toolCall: toolCallOf(body) } : {}),
      };
      let id: string;
      try {
        id = jobs.start(request.userId, probe);
      } catch (error) {
        if (error instanceof TooManyOAuthJobsError) throw new HttpError(429, error.message);
        throw error;
      }
      const view = await jobs.settled(request.userId, id, startWaitMs(timeout));
      if (!view) return { ok: false, job_id: id, error: 'The job expired', error_kind: 'timeout' as const };
      if (view.authorizationUrl) return { ok: true, job_id: id, authorization_url: view.authorizationUrl };
      if (view.status === 'succeeded') return { ok: true, job_id: id };
      if (view.status === 'failed')
        return { ok: false, job_id: id, error: view.error, error_kind: view.errorKind ?? 'unknown' };
      return {
        ok: false,
        job_id: id,
        error: 'Timed out waiting for the OAuth authorization URL',
        error_kind: 'timeout' as const,
      };
    },
  );

  app.get(
    '/api/mcp/oauth/status/:job_id',
    {
      schema: {
        tags: ['MCP'],
        summary: 'Get an MCP OAuth install probe status',
        description:
          "OpenHands': the job's status; once succeeded, the server's tools, the tool_call's result and the oauth_state to keep under the server's auth.state (its tokens and client secret sealed for you: they open only on this server). 404 for a job that is not yours, or expired (15 minutes after its start).",
        params: JobParams,
        response: { 200: StatusResponse, 404: detailResponse('No such job of yours'), ...errorResponses },
      },
    },
    async (request) =>
      onJobReplica('mcpOAuth.status', request.userId, (request.params as { job_id: string }).job_id),
  );

  app.post(
    '/api/mcp/oauth/callback/:job_id',
    {
      schema: {
        tags: ['MCP'],
        summary: 'Submit an MCP OAuth callback URL',
        description: `OpenHands': the URL the browser was sent back to (${OAUTH_CALLBACK_PATH}?code=…&state=…, as agentd's callback page sends it). Its code is exchanged, the server connected and its tools listed; answers the job's status once it has ended (or after 30 s: poll the status). An error the authorization server sent back fails the job. 400 a URL that is not the job's redirect URI, or whose state is not the job's; 404 no such job of yours; 409 the job is not waiting for a callback.`,
        params: JobParams,
        body: CallbackRequest,
        response: {
          200: StatusResponse,
          400: detailResponse('Not this job’s redirect URI, or not its state'),
          404: detailResponse('No such job of yours'),
          409: detailResponse('The job is not waiting for a callback'),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { job_id } = request.params as { job_id: string };
      const { callback_url } = request.body as { callback_url: string };
      return onJobReplica('mcpOAuth.callback', request.userId, job_id, callback_url);
    },
  );
};
