// The OpenHands agent server's settings API, as its SDK reads it (`SettingsResponse`,
// `SettingsUpdateRequest`, the secrets models): the same stored record seen another way. GET
// /api/settings answers `SettingsView`, the web UI's flat members and the SDK's together.
import { type Static, Type } from 'typebox';
import { ProfileName } from './profile-schemas.js';
import { GETSettingsResponse, MAX_SETTINGS_ENTRIES, MAX_SETTINGS_STRING } from './schemas.js';

/** OpenHands' secret names: a letter, then letters, digits and underscores, 64 at most. */
export const SECRET_NAME_PATTERN = '^[A-Za-z][A-Za-z0-9_]{0,63}$';

/** Where a secret would be in clear, GET answers this (OpenHands' redaction) unless exposure is asked. */
export const REDACTED = '**********';

const open = { additionalProperties: true };
const Text = () => Type.String({ maxLength: MAX_SETTINGS_STRING });

/** The SDK members of GET / PATCH /api/settings (OpenHands' `SettingsResponse`). */
const sdkSettingsMembers = {
  agent_settings: Type.Object(
    {
      schema_version: Type.Integer({ minimum: 1 }),
      agent_kind: Type.Literal('openhands'),
      llm: Type.Object({}, { ...open, description: 'model, api_key (redacted unless exposed), base_url' }),
      mcp_config: Type.Record(Type.String(), Type.Object({}, open), {
        description:
          'MCP servers by name: stdio servers by their name, remote ones by theirs when they have one, else as sse_<n> / shttp_<n>',
      }),
    },
    { ...open, description: "OpenHandsAgentSettings (agent_kind 'openhands')" },
  ),
  conversation_settings: Type.Object({}, { ...open, description: 'ConversationSettings' }),
  llm_api_key_is_set: Type.Boolean(),
  active_profile: Type.Union([Type.String(), Type.Null()], {
    description: 'The LLM profile activated last (/api/profiles), null when none is',
  }),
  active_agent_profile_id: Type.Union([Type.String(), Type.Null()], {
    description: 'The id of the active agent profile (/api/agent-profiles), null when none is',
  }),
  misc_settings: Type.Object({}, { ...open, description: 'Not stored by agentd: always {}' }),
};

/**
 * GET and PATCH /api/settings: one answer for both clients. The web UI reads the flat members (the
 * seed's GETSettingsResponse: secrets null, *_set flags); the SDK reads agent_settings and the rest.
 */
export const SettingsView = Type.Object(
  { ...GETSettingsResponse.properties, ...sdkSettingsMembers },
  {
    $id: 'SettingsView',
    description:
      "The stored settings (defaults before the first write) for both clients: the web UI's flat members, secrets null, and the SDK's SettingsResponse members, secrets redacted unless X-Expose-Secrets asks for them.",
  },
);

/**
 * GET /api/v1/users/me (OpenHands app-server's UserInfo): the same settings with the user's id, the
 * flat LLM and search keys masked when set (OpenHands' serializers), the LLM key in clear when
 * exposure is asked and allowed. The SDK's OpenHandsCloudWorkspace reads its LLM and MCP servers here.
 */
export const UserInfo = Type.Object(
  {
    ...SettingsView.properties,
    id: Type.String({ description: "agentd's id of the session key's user" }),
  },
  { $id: 'UserInfo', description: 'The caller: its settings (see SettingsView) and its user id' },
);

export const SettingsUpdateRequest = Type.Object(
  {
    agent_settings_diff: Type.Optional(
      Type.Union([
        Type.Object(
          {
            llm: Type.Optional(
              Type.Object(
                {
                  model: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_SETTINGS_STRING })),
                  api_key: Type.Optional(
                    Type.Union([Type.String({ maxLength: MAX_SETTINGS_STRING }), Type.Null()]),
                  ),
                  base_url: Type.Optional(Type.Union([Text(), Type.Null()])),
                },
                { additionalProperties: false },
              ),
            ),
            agent: Type.Optional(Text()),
            condenser: Type.Optional(
              Type.Object(
                {
                  enabled: Type.Optional(Type.Boolean()),
                  max_size: Type.Optional(Type.Union([Type.Integer({ minimum: 20 }), Type.Null()])),
                },
                { additionalProperties: false },
              ),
            ),
            enable_sub_agents: Type.Optional(Type.Boolean()),
            schema_version: Type.Optional(Type.Integer({ minimum: 1 })),
            agent_kind: Type.Optional(Type.Literal('openhands')),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ]),
    ),
    conversation_settings_diff: Type.Optional(
      Type.Union([
        Type.Object(
          {
            max_iterations: Type.Optional(Type.Integer({ minimum: 1 })),
            confirmation_mode: Type.Optional(Type.Boolean()),
            security_analyzer: Type.Optional(
              Type.Union([Type.Literal('llm'), Type.Literal('none'), Type.Null()]),
            ),
            schema_version: Type.Optional(Type.Integer({ minimum: 1 })),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ]),
    ),
    active_profile: Type.Optional(
      Type.Union([ProfileName, Type.Null()], {
        description:
          "A saved LLM profile to make active; without agent_settings_diff.llm its LLM becomes the settings' LLM (as POST /api/profiles/{name}/activate). null: none active",
      }),
    ),
    active_agent_profile_id: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 128 }), Type.Null()], {
        description: "An agent profile's id to make active (it must exist: 404 otherwise); null: none active",
      }),
    ),
  },
  {
    $id: 'SettingsUpdateRequest',
    additionalProperties: false,
    description:
      'Diffs merged into the stored settings (the record POST /api/settings writes). agentd stores the members listed; any other is a 422, not silently dropped. llm.api_key: null or "" clears the key, "**********" (redacted) or a sealed value keeps it.',
  },
);
export type SettingsUpdateRequest = Static<typeof SettingsUpdateRequest>;

export const SecretItem = Type.Object(
  { name: Type.String(), description: Type.Union([Type.String(), Type.Null()]) },
  { $id: 'SecretItemResponse' },
);
export type SecretItem = Static<typeof SecretItem>;

export const SecretsList = Type.Object(
  { secrets: Type.Array(Type.Ref('SecretItemResponse')) },
  { $id: 'SecretsListResponse' },
);

export const SecretCreateRequest = Type.Object(
  {
    name: Type.String({ pattern: SECRET_NAME_PATTERN, maxLength: 64 }),
    value: Type.String({ minLength: 1, maxLength: MAX_SETTINGS_STRING, format: 'password' }),
    description: Type.Optional(Type.Union([Type.String({ maxLength: MAX_SETTINGS_STRING }), Type.Null()])),
  },
  { $id: 'SecretCreateRequest' },
);
export type SecretCreateRequest = Static<typeof SecretCreateRequest>;

/** Most custom secrets one user may hold (the secrets map's bound). */
export const MAX_SECRETS = MAX_SETTINGS_ENTRIES;
