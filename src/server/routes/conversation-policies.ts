// Per-conversation policies: secrets, confirmation policy, security analyzer, the agent's LLM
// (switch_llm, switch_profile). Split from conversations.ts (same prefix, same errors) to keep each
// route file small.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { ConfirmationPolicy, LLMSpec } from '../../conversation/schemas.js';
import type { ConversationService } from '../../conversation/service.js';
import { HttpError } from '../errors.js';
import {
  ConversationIdParams,
  conversationActionErrors,
  conversationIdOf,
  detailResponse,
  errorResponses,
} from '../schemas.js';

const tags = ['Conversations'];
const Ref = (id: string) => Type.Ref(id);
const success = { 200: Ref('Success'), ...conversationActionErrors, ...errorResponses };

export const conversationPolicyRoutes: FastifyPluginAsync<{ conversations: ConversationService }> = async (
  app,
  { conversations },
) => {
  app.post(
    '/api/conversations/:conversation_id/secrets',
    {
      schema: {
        tags,
        summary: 'Update Conversation Secrets',
        params: ConversationIdParams,
        body: Ref('UpdateSecretsRequest'),
        response: success,
      },
    },
    async (request) => {
      await conversations.updateSecrets(
        request.userId,
        conversationIdOf(request),
        (request.body as { secrets: Record<string, unknown> }).secrets,
      );
      return { success: true };
    },
  );

  app.post(
    '/api/conversations/:conversation_id/confirmation_policy',
    {
      schema: {
        tags,
        summary: 'Set Conversation Confirmation Policy',
        params: ConversationIdParams,
        body: Ref('SetConfirmationPolicyRequest'),
        response: success,
      },
    },
    async (request) => {
      const { policy } = request.body as { policy: ConfirmationPolicy };
      await conversations.setConfirmationPolicy(request.userId, conversationIdOf(request), policy);
      return { success: true };
    },
  );

  app.post(
    '/api/conversations/:conversation_id/security_analyzer',
    {
      schema: {
        tags,
        summary: 'Set Conversation Security Analyzer',
        description:
          'LLMSecurityAnalyzer keeps the risk the LLM predicts for each call on the action (ConfirmRisky uses it); null turns it off.',
        params: ConversationIdParams,
        body: Ref('SetSecurityAnalyzerRequest'),
        response: success,
      },
    },
    async (request) => {
      const { security_analyzer } = request.body as { security_analyzer: Record<string, unknown> | null };
      await conversations.setSecurityAnalyzer(request.userId, conversationIdOf(request), security_analyzer);
      return { success: true };
    },
  );

  app.post(
    '/api/conversations/:conversation_id/switch_llm',
    {
      schema: {
        tags,
        summary: 'Switch Conversation LLM',
        description:
          "The agent's next LLM calls go to this LLM (a call under way finishes on the old one); its key is sealed with the conversation. The condenser moves too when it ran on the agent's model. A ConversationStateUpdateEvent `agent` says so; the spend so far stays counted. A model agentd cannot route is a 422.",
        params: ConversationIdParams,
        body: Ref('SwitchLlmRequest'),
        response: success,
      },
    },
    async (request) => {
      await conversations.switchLlm(
        request.userId,
        conversationIdOf(request),
        (request.body as { llm: LLMSpec }).llm,
      );
      return { success: true };
    },
  );

  app.post(
    '/api/conversations/:conversation_id/switch_profile',
    {
      schema: {
        tags,
        summary: 'Switch Conversation Profile',
        description:
          "As switch_llm, to one of the caller's saved LLM profiles (/api/profiles), counted under the usage id `profile:<name>`.",
        params: ConversationIdParams,
        body: Ref('SwitchProfileRequest'),
        response: {
          ...success,
          404: detailResponse('No conversation of that id, or no profile of that name'),
        },
      },
    },
    async (request) => {
      const { profile_name } = request.body as { profile_name: string };
      await conversations.switchProfile(request.userId, conversationIdOf(request), profile_name);
      return { success: true };
    },
  );

  app.post(
    '/api/conversations/:conversation_id/load_plugin',
    {
      schema: {
        tags,
        summary: 'Load Conversation Plugin',
        description:
          "OpenHands loads a plugin into the running conversation here, from the marketplaces its agent_context registers; agentd takes plugins at the start only (`plugins`, by source: GET /api/plugins/marketplace gives the marketplace's coordinates), so the answer is a 400 that says so (404 for an unknown conversation), never a silent success.",
        params: ConversationIdParams,
        body: Type.Object(
          { plugin_ref: Type.String({ minLength: 1, maxLength: 1000 }) },
          { additionalProperties: true },
        ),
        response: {
          400: detailResponse('agentd loads plugins at the start only'),
          ...conversationActionErrors,
          ...errorResponses,
        },
      },
    },
    async (request) => {
      await conversations.info(request.userId, conversationIdOf(request));
      const { plugin_ref } = request.body as { plugin_ref: string };
      throw new HttpError(
        400,
        `agentd loads plugins at the start only, not ${JSON.stringify(plugin_ref.slice(0, 200))} into a conversation: start one with it in \`plugins\` ([{source, ref?, repo_path?}]; GET /api/plugins/marketplace gives the marketplace's)`,
      );
    },
  );
};
