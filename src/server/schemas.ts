// Wire types that belong to the HTTP surface itself (not to a domain): health, server info,
// error bodies, and the path/query parameters shared by several routes.
import { Type } from 'typebox';
import { ValidationIssueSchema } from '../events/index.js';
import { MAX_JSON_DEPTH } from './json-body.js';

export const StatusOk = Type.Object({ status: Type.String() }, { $id: 'StatusResponse' });

export const ServerInfo = Type.Object(
  {
    uptime: Type.Number(),
    idle_time: Type.Number(),
    title: Type.String(),
    version: Type.String(),
    sdk_version: Type.String(),
    tools_version: Type.String(),
    workspace_version: Type.String(),
    build_git_sha: Type.String(),
    build_git_ref: Type.String(),
    python_version: Type.String(),
    node_version: Type.String(),
    usable_tools: Type.Array(Type.String()),
    runtime_idle_timeout_seconds: Type.Union([Type.Number(), Type.Null()]),
    capabilities: Type.Array(Type.String()),
    max_foreground_terminal_timeout_seconds: Type.Union([Type.Number(), Type.Null()]),
    docs: Type.String(),
    redoc: Type.String(),
  },
  { $id: 'ServerInfo' },
);

export const ErrorDetail = Type.Object({ detail: Type.Unknown() }, { $id: 'ErrorDetail' });

export const HTTPValidationErrorBody = Type.Object(
  { detail: Type.Array(ValidationIssueSchema) },
  { $id: 'HTTPValidationErrorBody' },
);

/** A UUID, dashed or as 32 hex digits (OpenHands accepts both). */
export const UUID_PATTERN =
  '^(?:[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12})$';

export const ConversationIdParams = Type.Object({
  conversation_id: Type.String({
    pattern: UUID_PATTERN,
    description: 'Conversation UUID (dashed or 32 hex digits)',
  }),
});

import { dashedUuid as dashedUuidOf } from '../events/index.js';

export { dashedUuid } from '../events/index.js';

/** The conversation a route's path names (`:conversation_id`, dashed or 32 hex digits), dashed. */
export const conversationIdOf = (request: { params: unknown }): string =>
  dashedUuidOf((request.params as { conversation_id: string }).conversation_id);

/** A documented `{detail}` error response. */
/** A response that is a file's bytes (streamed), of `mediaType`. */
export const binary = (description: string, mediaType: string) => ({
  description,
  content: { [mediaType]: { schema: { type: 'string', format: 'binary' } } },
});

export const detailResponse = (description: string) => ({
  description,
  ...Type.Object({ detail: Type.String() }),
});

export const errorResponses = {
  401: {
    description:
      'Missing or wrong X-Session-API-Key; on a server without keys (--no-auth): a request not addressed to loopback, or sent by a page on another origin',
    ...ErrorDetail,
  },
  422: {
    description: `Validation Error (a JSON body may nest at most ${MAX_JSON_DEPTH} levels deep: type json_too_deep)`,
    ...HTTPValidationErrorBody,
  },
};

/** The 404 of every route under /api/conversations/{conversation_id}. */
export const conversationNotFound = { 404: detailResponse('Unknown conversation') };

/**
 * Routes that act on a conversation: unknown (404), or it lives in a sandbox this server only mirrors
 * (409), or its replica is gone (503).
 */
export const conversationActionErrors = {
  ...conversationNotFound,
  409: detailResponse(
    'The conversation runs in a sandbox (send the request to its conversation_url), or is already running (run)',
  ),
  503: detailResponse(
    'Several replicas: the replica running the conversation does not answer; retry once its lease expired (AGENTD_LEASE_SECONDS)',
  ),
};
