// /api/profiles: the caller's named LLM configurations, as OpenHands' agent server serves them (its
// web UI's LLM profiles, the SDK's RemoteWorkspace.get_llm(profile_name)). Kept in the user's settings
// document, secrets sealed; a profile's key leaves in clear only on a server started with secret
// exposure, as with GET /api/settings.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { PROBE_TIMEOUT_S, probeLLM } from '../../llm/index.js';
import {
  MAX_PROFILES,
  type ProfileLLM,
  ProfileNameParams,
  type SaveProfileRequest,
  type SettingsService,
} from '../../settings/index.js';
import { detailResponse, errorResponses } from '../schemas.js';
import { ExposeHeaders, exposeMode, exposureErrors } from './settings-exposure.js';

export interface ProfileRoutesOptions {
  settings: SettingsService;
  exposeSecrets: boolean;
}

const tags = ['Profiles'];
const notFound = { 404: detailResponse('No profile by that name') };
const name = (request: { params: unknown }) => (request.params as { name: string }).name;

export const profileRoutes: FastifyPluginAsync<ProfileRoutesOptions> = async (
  app,
  { settings, exposeSecrets },
) => {
  app.get(
    '/api/profiles',
    {
      schema: {
        tags,
        summary: 'List Profiles',
        description:
          "The caller's LLM profiles (no secret: api_key_set says whether one holds a key), and the active one.",
        response: { 200: Type.Ref('ProfileListResponse'), 401: errorResponses[401] },
      },
    },
    async (request) => settings.listProfiles(request.userId),
  );

  app.get(
    '/api/profiles/:name',
    {
      schema: {
        tags,
        summary: 'Get Profile',
        description:
          'A profile as saved. X-Expose-Secrets: none → api_key null; encrypted → sealed values; plaintext → in clear (a server started with secret exposure only, else 403).',
        params: ProfileNameParams,
        headers: ExposeHeaders,
        response: {
          200: Type.Ref('ProfileDetailResponse'),
          400: detailResponse('Invalid X-Expose-Secrets header value'),
          ...notFound,
          ...exposureErrors,
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const mode = exposeMode(request.headers['x-expose-secrets'] as string | undefined, exposeSecrets);
      const profile = await settings.profile(request.userId, name(request), mode);
      if (mode === 'plaintext')
        request.log.warn({ profile: profile.name }, 'LLM profile read with secrets in clear');
      return profile;
    },
  );

  app.post(
    '/api/profiles/:name',
    {
      schema: {
        tags,
        summary: 'Save Profile',
        description: `Saves an LLM under the name, replacing a profile of that name. An api_key or header value of "**********" keeps the stored one; a sealed one (from an \`encrypted\` read) is kept as it is. At most ${MAX_PROFILES} profiles.`,
        params: ProfileNameParams,
        body: Type.Ref('SaveProfileRequest'),
        response: {
          201: Type.Ref('ProfileMutationResponse'),
          409: detailResponse(
            `Profile limit reached (${MAX_PROFILES}), or a sealed secret that does not open here`,
          ),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const body = request.body as SaveProfileRequest;
      reply.code(201);
      return settings.saveProfile(request.userId, name(request), body);
    },
  );

  app.delete(
    '/api/profiles/:name',
    {
      schema: {
        tags,
        summary: 'Delete Profile',
        description:
          'Deletes the profile (none by that name is no error); it is no longer the active one. One an agent profile runs on is a 409 naming them.',
        params: ProfileNameParams,
        response: {
          200: Type.Ref('ProfileMutationResponse'),
          409: detailResponse('Agent profiles run on it'),
          ...errorResponses,
        },
      },
    },
    async (request) => settings.deleteProfile(request.userId, name(request)),
  );

  app.post(
    '/api/profiles/:name/rename',
    {
      schema: {
        tags,
        summary: 'Rename Profile',
        description: 'Renames the profile; the active profile and the agent profiles that run on it follow.',
        params: ProfileNameParams,
        body: Type.Ref('RenameProfileRequest'),
        response: {
          200: Type.Ref('ProfileMutationResponse'),
          ...notFound,
          409: detailResponse('A profile of the new name exists'),
          ...errorResponses,
        },
      },
    },
    async (request) =>
      settings.renameProfile(request.userId, name(request), (request.body as { new_name: string }).new_name),
  );

  app.post(
    '/api/profiles/:name/activate',
    {
      schema: {
        tags,
        summary: 'Activate Profile',
        description:
          "The profile's model, key and base URL become the settings' LLM (what a conversation started without an agent uses), and it becomes the active profile.",
        params: ProfileNameParams,
        response: { 200: Type.Ref('ActivateProfileResponse'), ...notFound, ...errorResponses },
      },
    },
    async (request) => settings.activateProfile(request.userId, name(request)),
  );

  app.post(
    '/api/profiles/:name/validate',
    {
      schema: {
        tags,
        summary: 'Validate Profile',
        description: `Pre-flight check of an LLM before it is saved as the profile: one tiny completion (no retry, ${PROBE_TIMEOUT_S} s at most). A redacted or sealed secret echoed back is the stored profile's. valid false with the error's class and message (never the key); a rate limit or a timeout counts as valid (it says nothing about the configuration). Nothing is stored.`,
        params: ProfileNameParams,
        body: Type.Ref('ValidateProfileRequest'),
        response: {
          200: Type.Ref('ValidateProfileResponse'),
          409: detailResponse("A sealed secret that does not open with this server's key"),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { llm } = request.body as { llm: ProfileLLM };
      // A failed check is the client's answer, not a server error: one line says how it went.
      const probe = await probeLLM(await settings.unsavedProfileLlm(request.userId, name(request), llm));
      request.log.info(
        { profile: name(request), valid: probe.valid, error: probe.error?.type },
        'LLM profile checked',
      );
      return probe;
    },
  );
};
