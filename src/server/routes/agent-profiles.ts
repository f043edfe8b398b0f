// /api/agent-profiles (OpenHands' agent server): the caller's named agent launch specs, each naming
// an LLM profile, MCP servers and skills by reference (no secret), kept in the user's settings
// document. A start runs one with `agent_profile_id`; /materialize says what that start would run.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { userSkills } from '../../agent/index.js';
import {
  ActivateAgentProfileResponse,
  AgentProfileDetail,
  AgentProfileDiagnostics,
  AgentProfileIdParams,
  AgentProfileInput,
  AgentProfileList,
  AgentProfileMutation,
  AgentProfileNameParams,
  MAX_AGENT_PROFILES,
  type SettingsService,
} from '../../settings/index.js';
import { detailResponse, errorResponses } from '../schemas.js';

export interface AgentProfileRoutesOptions {
  settings: SettingsService;
  /** The home folder the user's skills are read from (what /materialize reports). */
  home: string;
}

const tags = ['Agent Profiles'];
const notFound = { 404: detailResponse('No agent profile by that name') };
const name = (request: { params: unknown }) => (request.params as { name: string }).name;

export const agentProfileRoutes: FastifyPluginAsync<AgentProfileRoutesOptions> = async (
  app,
  { settings, home },
) => {
  app.get(
    '/api/agent-profiles',
    {
      schema: {
        tags,
        summary: 'List Agent Profiles',
        description:
          "The caller's agent profiles and the active one's id. The first list that finds none and none active makes a `default` profile from the settings (on the active LLM profile, else on an LLM profile `default` made from the settings' LLM when it has a key or base URL) and makes it active, as OpenHands.",
        response: { 200: AgentProfileList, ...errorResponses },
      },
    },
    async (request) => settings.listAgentProfiles(request.userId),
  );

  app.get(
    '/api/agent-profiles/:name',
    {
      schema: {
        tags,
        summary: 'Get Agent Profile',
        params: AgentProfileNameParams,
        response: { 200: AgentProfileDetail, ...notFound, ...errorResponses },
      },
    },
    async (request) => settings.agentProfile(request.userId, name(request)),
  );

  app.post(
    '/api/agent-profiles/:name',
    {
      schema: {
        tags,
        summary: 'Save Agent Profile',
        description: `Saves the profile under the name (the path's name wins over the body's), replacing its namesake: the namesake's id stays and its revision goes up by one; a new profile gets a new id at revision 0. What agentd cannot run (sub-agents, iterative refinement, a remote critic, ACP agents) is a 422. At most ${MAX_AGENT_PROFILES} profiles (409).`,
        params: AgentProfileNameParams,
        body: AgentProfileInput,
        response: {
          201: AgentProfileMutation,
          409: detailResponse(`Agent profile limit reached (${MAX_AGENT_PROFILES})`),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return settings.saveAgentProfile(request.userId, name(request), request.body as AgentProfileInput);
    },
  );

  app.delete(
    '/api/agent-profiles/:name',
    {
      schema: {
        tags,
        summary: 'Delete Agent Profile',
        description:
          'Deletes the profile (none by that name is no error); if it was the active one, none is.',
        params: AgentProfileNameParams,
        response: { 200: AgentProfileMutation, ...errorResponses },
      },
    },
    async (request) => settings.deleteAgentProfile(request.userId, name(request)),
  );

  app.post(
    '/api/agent-profiles/:name/rename',
    {
      schema: {
        tags,
        summary: 'Rename Agent Profile',
        description: 'Renames the profile; its id stays, and so does the active pointer.',
        params: AgentProfileNameParams,
        body: Type.Ref('RenameProfileRequest'),
        response: {
          200: AgentProfileMutation,
          ...notFound,
          409: detailResponse('An agent profile of the new name exists'),
          ...errorResponses,
        },
      },
    },
    async (request) =>
      settings.renameAgentProfile(
        request.userId,
        name(request),
        (request.body as { new_name: string }).new_name,
      ),
  );

  app.post(
    '/api/agent-profiles/:profile_id/activate',
    {
      schema: {
        tags,
        summary: 'Activate Agent Profile',
        description:
          'Makes the profile of this id the active one (`active_agent_profile_id`); the settings stay as they are.',
        params: AgentProfileIdParams,
        response: {
          200: ActivateAgentProfileResponse,
          404: detailResponse('No agent profile of that id'),
          ...errorResponses,
        },
      },
    },
    async (request) =>
      settings.activateAgentProfile(request.userId, (request.params as { profile_id: string }).profile_id),
  );

  app.post(
    '/api/agent-profiles/:name/materialize',
    {
      schema: {
        tags,
        summary: 'Materialize Agent Profile',
        description:
          "A dry run of a start on the profile: its LLM profile and MCP servers resolved (the ones not there reported, valid false, not refused), the user's skills it keeps, and the agent settings a start would run, secrets redacted. Nothing is stored.",
        params: AgentProfileNameParams,
        response: { 200: AgentProfileDiagnostics, ...notFound, ...errorResponses },
      },
    },
    async (request) => settings.materializeAgentProfile(request.userId, name(request), userSkills(home)),
  );
};
