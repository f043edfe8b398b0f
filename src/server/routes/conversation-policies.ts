// Per-conversation policies: secrets, confirmation policy, security analyzer, the agent's LLM
// (switch_llm, switch_profile; switch_acp_model, a 400 here), a plugin from its registered marketplaces (load_plugin). Split from conversations.ts (same prefix, same errors) to keep each
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
  conversationNotFound,
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
          "Adds a plugin from the marketplaces the conversation's agent_context registers (registered_marketplaces): plugin_ref is 'name@marketplace', or 'name' when one registered marketplace lists it. Its skills, commands, MCP servers and hooks join the stored agent, and the conversation's runtime is rebuilt on its next use (a shell it had starts afresh). Not while a run is going (409).",
        params: ConversationIdParams,
        body: Type.Object(
          { plugin_ref: Type.String({ minLength: 1, maxLength: 1000 }) },
          { additionalProperties: true },
        ),
        response: {
          ...success,
          400: detailResponse(
            'No marketplace is registered, the reference is malformed or names a plugin in several, or a marketplace or the plugin cannot be fetched or read',
          ),
          404: detailResponse('Unknown conversation, marketplace or plugin'),
        },
      },
    },
    async (request) => {
      const { plugin_ref } = request.body as { plugin_ref: string };
      await conversations.loadPlugin(request.userId, conversationIdOf(request), plugin_ref);
      return { success: true };
    },
  );

  // OpenHands switches an ACP agent's model with this, and answers 400 for its own agent, the only
  // kind agentd runs: the answer a client gets here for any conversation that exists.
  app.post(
    '/api/conversations/:conversation_id/switch_acp_model',
    {
      schema: {
        tags,
        summary: 'Switch Conversation Acp Model',
        description:
          "OpenHands' model switch for an ACP agent (an agent run by another program). agentd runs OpenHands' own agent only, so for a conversation that exists this is a 400: change its LLM with switch_llm or switch_profile.",
        params: ConversationIdParams,
        body: Type.Object(
          { model: Type.String({ minLength: 1, maxLength: 256 }) },
          { additionalProperties: true },
        ),
        response: {
          400: detailResponse('The conversation runs no ACP agent (none does in agentd)'),
          ...conversationNotFound,
          ...errorResponses,
        },
      },
    },
    async (request) => {
      await conversations.info(request.userId, conversationIdOf(request));
      throw new HttpError(
        400,
        "The conversation's agent is not an ACP agent: agentd runs OpenHands' own agent, whose LLM changes with switch_llm or switch_profile",
      );
    },
  );
};
