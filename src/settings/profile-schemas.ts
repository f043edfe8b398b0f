// OpenHands' named LLM configurations ("LLM profiles", /api/profiles of its agent server), as its SDK
// and web UI read them: a user saves an LLM under a name, activates one (it becomes the settings'
// LLM), and the SDK's RemoteWorkspace.get_llm(profile_name) reads one back to build its LLM.
import { type Static, Type } from 'typebox';

/** OpenHands' profile names: a letter or digit, then letters, digits, `.`, `_`, `-`; 64 at most. */
export const PROFILE_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';

/** Most profiles one user may hold (OpenHands' MAX_PROFILES). */
export const MAX_PROFILES = 50;

/** Largest LLM a profile holds, as JSON (the whole settings document is read on each start). */
export const MAX_PROFILE_BYTES = 64 * 1024;

export const ProfileName = Type.String({ minLength: 1, maxLength: 64, pattern: PROFILE_NAME_PATTERN });

export const ProfileNameParams = Type.Object({ name: ProfileName });

export const SaveProfileRequest = Type.Object(
  {
    llm: Type.Ref('LLM'),
    include_secrets: Type.Optional(
      Type.Boolean({
        default: true,
        description:
          'Store the api_key and extra_headers with the profile (sealed); false stores the profile without them',
      }),
    ),
  },
  { $id: 'SaveProfileRequest' },
);
export type SaveProfileRequest = { llm: ProfileLLM; include_secrets?: boolean };

/** An LLM configuration as the SDK sends it: `model` and whatever else it sets. */
export type ProfileLLM = {
  model: string;
  api_key?: string | null;
  extra_headers?: Record<string, string> | null;
} & Record<string, unknown>;

export const ProfileInfo = Type.Object(
  {
    name: Type.String(),
    model: Type.Union([Type.String(), Type.Null()]),
    base_url: Type.Union([Type.String(), Type.Null()]),
    provider_connection_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The provider connection whose key and base URL it uses (/api/llm/provider-connections)',
    }),
    provider_connection_broken: Type.Boolean({ description: 'It names a connection that is gone' }),
    api_key_set: Type.Boolean(),
  },
  { $id: 'ProfileInfo' },
);
export type ProfileInfo = Static<typeof ProfileInfo>;

export const ProfileList = Type.Object(
  {
    profiles: Type.Array(Type.Ref('ProfileInfo')),
    active_profile: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'ProfileListResponse' },
);
export type ProfileList = { profiles: ProfileInfo[]; active_profile: string | null };

export const ProfileDetail = Type.Object(
  {
    name: Type.String(),
    config: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'The LLM as saved. api_key: null without X-Expose-Secrets (api_key_set says whether one is stored), sealed with `encrypted`, in clear with `plaintext`; extra_headers values likewise ("**********" without the header).',
      },
    ),
    api_key_set: Type.Boolean(),
  },
  { $id: 'ProfileDetailResponse' },
);
export type ProfileDetail = { name: string; config: Record<string, unknown>; api_key_set: boolean };

export const ProfileMutation = Type.Object(
  { name: Type.String(), message: Type.String() },
  { $id: 'ProfileMutationResponse' },
);
export type ProfileMutation = Static<typeof ProfileMutation>;

export const RenameProfileRequest = Type.Object({ new_name: ProfileName }, { $id: 'RenameProfileRequest' });

export const ActivateProfileResponse = Type.Object(
  { name: Type.String(), message: Type.String(), llm_applied: Type.Boolean() },
  { $id: 'ActivateProfileResponse' },
);
export type ActivateProfileResponse = Static<typeof ActivateProfileResponse>;

export const ValidateProfileRequest = Type.Object(
  { llm: Type.Ref('LLM') },
  { $id: 'ValidateProfileRequest' },
);

export const ValidateProfileResponse = Type.Object(
  {
    valid: Type.Boolean(),
    error: Type.Union([
      Type.Object({
        type: Type.String({
          description: 'The LLM error class, e.g. LLMAuthenticationError, LLMBadRequestError',
        }),
        message: Type.String(),
      }),
      Type.Null(),
    ]),
  },
  { $id: 'ValidateProfileResponse' },
);
