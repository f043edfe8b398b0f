// The OpenAPI 3.1 document, generated from the same TypeBox schemas that validate requests.
// Shared schemas are registered by their $id so they appear once under components/schemas.
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { TSchema } from 'typebox';
import * as agent from '../agent/schemas.js';
import * as subAgents from '../agent/sub-agent-schemas.js';
import * as v1 from '../app/schemas.js';
import * as conversation from '../conversation/schemas.js';
import { EventUnionSchema, ServerEventSchema } from '../events/index.js';
import * as git from '../git/schemas.js';
import { HookConfigInput } from '../hooks/index.js';
import * as sandbox from '../sandbox/schemas.js';
import {
  ActivateProfileResponse,
  GETSettingsResponse,
  ProfileDetail,
  ProfileInfo,
  ProfileList,
  ProfileMutation,
  RenameProfileRequest,
  SaveProfileRequest,
  SecretCreateRequest,
  SecretItem,
  SecretsList,
  SettingsSchema,
  SettingsStoredResponse,
  SettingsUpdateRequest,
  SettingsView,
  UserInfo,
  ValidateProfileRequest,
  ValidateProfileResponse,
} from '../settings/index.js';
import { BEARER_SCHEME, SECURITY_SCHEME } from './auth.js';
import { installDocsUi } from './docs-ui.js';
import { documentFrameworkResponses } from './framework-errors.js';
import * as legacy from './legacy-conversation.js';
import { BatchEventIdsBody } from './routes/events.js';

const BATCH_EVENTS_PATH = '/api/conversations/{conversation_id}/events';
const BATCH_BASH_EVENTS_PATH = '/api/bash/bash_events/';

type OpenApiDoc = { paths?: Record<string, Record<string, Record<string, unknown>>> };

/** Fastify cannot declare a body on a GET route, so the batch get's request body is added here. */
function addBatchGetBody(doc: OpenApiDoc): OpenApiDoc {
  for (const path of [BATCH_EVENTS_PATH, BATCH_BASH_EVENTS_PATH]) {
    const op = doc.paths?.[path]?.get;
    if (!op) continue;
    op.requestBody = {
      required: false,
      description: 'Event ids as a JSON array (or pass them as repeated event_ids query parameters).',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/BatchEventIds' } } },
    };
  }
  return doc;
}

/** The upload reads its multipart body as a stream (no body schema for Fastify to validate); documented here. */
function addUploadBody(doc: OpenApiDoc): OpenApiDoc {
  const op = doc.paths?.['/api/file/upload']?.post;
  if (op) {
    op.requestBody = {
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            required: ['file'],
            properties: { file: { type: 'string', format: 'binary' } },
          },
        },
      },
    };
  }
  return doc;
}

/**
 * The OpenAPI document at /openapi.json, and the interactive docs at /docs unless `docsUi` is false
 * (a sandbox's agent server skips them: loading swagger-ui is a fifth of its start-up).
 */
export async function installOpenApi(
  app: FastifyInstance,
  options: { controlPlane: boolean; docsUi: boolean },
): Promise<void> {
  const { controlPlane } = options;
  const shared: TSchema[] = [
    EventUnionSchema,
    // Beside the spec's union: every kind agentd stores or sends (WebSocket-only kinds included).
    ServerEventSchema,
    SettingsSchema,
    GETSettingsResponse,
    SettingsStoredResponse,
    SettingsView,
    UserInfo,
    SettingsUpdateRequest,
    SecretItem,
    SecretsList,
    SecretCreateRequest,
    BatchEventIdsBody,
    conversation.ExecutionStatus,
    conversation.ConfirmationPolicy,
    conversation.SecurityAnalyzer,
    conversation.LLMSpec,
    conversation.CriticSpec,
    conversation.AgentContextSpec,
    conversation.CondenserSpec,
    SaveProfileRequest,
    ProfileInfo,
    ProfileList,
    ProfileDetail,
    ProfileMutation,
    RenameProfileRequest,
    ActivateProfileResponse,
    ValidateProfileRequest,
    ValidateProfileResponse,
    // Before the schemas that hold them: a plain Ajv (test/events/shared-subschemas.test.ts) meets
    // an $id first as a schema of its own, then again, the same, inside another.
    conversation.AgentMcpConfig,
    conversation.AgentSpec,
    conversation.AgentSettingsSpec,
    conversation.LocalWorkspace,
    HookConfigInput,
    conversation.SendMessageRequest,
    conversation.StuckDetectionThresholds,
    conversation.StartConversationRequest,
    conversation.UpdateConversationRequest,
    conversation.ForkConversationRequest,
    conversation.NavigateConversationRequest,
    conversation.UpdateSecretsRequest,
    conversation.SetConfirmationPolicyRequest,
    conversation.SetSecurityAnalyzerRequest,
    conversation.SwitchLlmRequest,
    conversation.SwitchProfileRequest,
    conversation.StartGoalRequest,
    conversation.ConfirmationResponseRequest,
    conversation.AskAgentRequest,
    conversation.AskAgentResponse,
    conversation.Success,
    conversation.ConversationInfo,
    conversation.ConversationPage,
    legacy.ConversationInfoBothShapes,
    legacy.LegacyConversationResultSet,
    legacy.LegacyConversationConfig,
    git.GitChangeStatus,
    git.GitChange,
    git.GitDiff,
    git.GitCommit,
    git.GitCommitsPage,
    agent.SkillsRequest,
    agent.SkillInfo,
    agent.SkillsResponse,
    subAgents.AgentDefinition,
    subAgents.SubAgentsRequest,
    subAgents.SubAgentInfo,
    subAgents.SubAgentsResponse,
  ];
  if (controlPlane) {
    shared.push(
      sandbox.SandboxStatus,
      sandbox.ExposedUrl,
      sandbox.SandboxInfo,
      sandbox.SandboxPage,
      sandbox.SandboxSpecInfo,
      sandbox.SandboxSpecInfoPage,
      v1.StartTaskStatus,
      v1.AppConversationStartRequest,
      v1.AppConversationStartTask,
      v1.AppConversationStartTaskPage,
      v1.MetricsSnapshot,
      v1.AppConversation,
      v1.AppConversationPage,
    );
  }
  for (const schema of shared) {
    app.addSchema(schema);
  }
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'agentd',
        description:
          'agentd: an agent server speaking the OpenHands agent-server interface (REST + WebSocket).',
        version: '0.1.0',
      },
      components: {
        securitySchemes: {
          [SECURITY_SCHEME]: { type: 'apiKey', in: 'header', name: 'X-Session-API-Key' },
          [BEARER_SCHEME]: {
            type: 'http',
            scheme: 'bearer',
            description: 'The same session key as a bearer token, as OpenHands Cloud clients send it',
          },
        },
      },
      // Every operation needs the key, in either header, unless it declares `security: []` (the
      // public routes do, from their route config; see auth.ts).
      security: [{ [SECURITY_SCHEME]: [] }, { [BEARER_SCHEME]: [] }],
    },
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
    transformObject: (documentObject) => {
      const doc = (documentObject as { openapiObject: OpenApiDoc }).openapiObject;
      documentFrameworkResponses(doc.paths ?? {});
      return addUploadBody(addBatchGetBody(doc)) as never;
    },
  });
  app.get('/openapi.json', { config: { access: 'public' }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
  if (options.docsUi) await installDocsUi(app);
}
