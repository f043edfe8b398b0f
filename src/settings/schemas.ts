// The Settings record (body of POST /api/settings) and the shape GET /api/settings answers, after
// OpenHands' `Settings` / `GETSettingsModel`. Request objects accept unknown members, as pydantic's
// default does; `parseSettings` drops them (at every depth) so they are neither stored nor echoed.
// Strings are at most 64 KB and maps and lists at most 1,000 entries (a 422 beyond).
import { type Static, type TSchema, Type } from 'typebox';
import { McpOAuth } from '../tools/index.js';

/** A nullable scalar as `type: [t, 'null']`: one clean validation error instead of an anyOf pair. */
const NullableScalar = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [(schema as unknown as { type: string }).type, 'null'] });

/** A nullable object: a real union, so that TypeBox's Clean and Default descend into it. */
const NullableObject = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Longest string a settings member may hold (64 KB): a settings document stays small to store and read. */
export const MAX_SETTINGS_STRING = 64 * 1024;
/** Most entries in a settings map (secrets, env) or list (MCP servers, args). */
export const MAX_SETTINGS_ENTRIES = 1000;

const Text = (options: { minLength?: number; format?: string } = {}) =>
  Type.String({ maxLength: MAX_SETTINGS_STRING, ...options });
const Str = () => NullableScalar(Text());
/** A secret: sealed at rest, never returned in clear. */
const Secret = () => NullableScalar(Text({ format: 'password' }));
const List = <T extends TSchema>(item: T) =>
  Type.Array(item, { default: [], maxItems: MAX_SETTINGS_ENTRIES });

export const ProviderToken = Type.Object(
  {
    token: Type.Optional(Secret()),
    host: Type.Optional(Str()),
    user_id: Type.Optional(Str()),
  },
  { $id: 'ProviderToken', description: 'A git provider token; a null or empty token keeps the stored one.' },
);
export type ProviderToken = Static<typeof ProviderToken>;

export const CustomSecret = Type.Object(
  {
    secret: Type.Optional(Secret()),
    description: Type.Optional(Str()),
  },
  { $id: 'CustomSecret', description: 'A named secret; a null or empty value keeps the stored one.' },
);
export type CustomSecret = Static<typeof CustomSecret>;

export const UserSecrets = Type.Object(
  {
    provider_tokens: Type.Optional(
      Type.Record(Type.String(), NullableObject(ProviderToken), {
        description: 'By provider (github, gitlab, bitbucket, ...). A null entry removes the provider.',
        maxProperties: MAX_SETTINGS_ENTRIES,
      }),
    ),
    custom_secrets: Type.Optional(
      Type.Record(Type.String(), NullableObject(CustomSecret), {
        description: 'By name. A null entry removes the secret.',
        maxProperties: MAX_SETTINGS_ENTRIES,
      }),
    ),
  },
  {
    $id: 'UserSecrets',
    description: 'Merged into the stored secrets: entries left out are kept (nothing is lost).',
  },
);
export type UserSecrets = Static<typeof UserSecrets>;

const remoteServer = {
  // Its key in the SDK's map by name when it has one (mcp-servers.ts), else its kind and position.
  name: Type.Optional(Text({ minLength: 1 })),
  url: Text({ minLength: 1 }),
  api_key: Type.Optional(Secret()),
  // The SDK's oauth2 credential (its authentication and state); its tokens and client secrets are secrets.
  oauth: Type.Optional(NullableObject(McpOAuth)),
};

export const MCPConfig = Type.Object(
  {
    sse_servers: Type.Optional(List(Type.Object(remoteServer))),
    stdio_servers: Type.Optional(
      List(
        Type.Object({
          name: Text({ minLength: 1 }),
          command: Text({ minLength: 1 }),
          args: Type.Optional(List(Text())),
          env: Type.Optional(
            Type.Record(Type.String(), Text(), { default: {}, maxProperties: MAX_SETTINGS_ENTRIES }),
          ),
        }),
      ),
    ),
    shttp_servers: Type.Optional(
      List(
        Type.Object({ ...remoteServer, timeout: Type.Optional(Type.Integer({ minimum: 1, default: 60 })) }),
      ),
    ),
  },
  {
    $id: 'MCPConfig',
    description:
      "MCP servers. A server api_key is a secret: null in GET; a null or empty one keeps the stored key of the server with the same url. A server's oauth (OpenHands' oauth2 credential: authentication and state) keeps its tokens and client secrets the same way.",
  },
);
export type MCPConfig = Static<typeof MCPConfig>;

/** Members and their defaults, per the spec's Settings table (plus OpenHands' condenser_max_size). */
const settingsMembers = {
  language: Type.Optional(Str()),
  agent: Type.Optional(Str()),
  max_iterations: Type.Optional(NullableScalar(Type.Integer({ minimum: 1 }))),
  security_analyzer: Type.Optional(Str()),
  confirmation_mode: Type.Optional(NullableScalar(Type.Boolean())),
  llm_model: Type.Optional(Str()),
  llm_api_key: Type.Optional(Secret()),
  llm_base_url: Type.Optional(Str()),
  remote_runtime_resource_factor: Type.Optional(NullableScalar(Type.Integer())),
  secrets_store: Type.Optional(UserSecrets),
  enable_default_condenser: Type.Optional(Type.Boolean({ default: true })),
  /** OpenHands' agent_settings.enable_sub_agents: a start from the settings gets the task tool. */
  enable_sub_agents: Type.Optional(Type.Boolean({ default: false })),
  enable_sound_notifications: Type.Optional(Type.Boolean({ default: false })),
  enable_proactive_conversation_starters: Type.Optional(Type.Boolean({ default: true })),
  enable_solvability_analysis: Type.Optional(Type.Boolean({ default: true })),
  user_consents_to_analytics: Type.Optional(NullableScalar(Type.Boolean())),
  sandbox_base_container_image: Type.Optional(Str()),
  sandbox_runtime_container_image: Type.Optional(Str()),
  mcp_config: Type.Optional(NullableObject(MCPConfig)),
  search_api_key: Type.Optional(Secret()),
  sandbox_api_key: Type.Optional(Secret()),
  max_budget_per_task: Type.Optional(NullableScalar(Type.Number())),
  condenser_max_size: Type.Optional(NullableScalar(Type.Integer({ minimum: 20 }))),
  email: Type.Optional(Str()),
  email_verified: Type.Optional(NullableScalar(Type.Boolean())),
  git_user_name: Type.Optional(Str()),
  git_user_email: Type.Optional(Str()),
};

export const SETTINGS_KEYS = Object.keys(settingsMembers) as (keyof typeof settingsMembers)[];

/** The POST body. Unknown members pass validation (OpenHands ignores them) and are dropped by the service. */
export const SettingsSchema = Type.Object(settingsMembers, { $id: 'Settings', additionalProperties: true });
export type Settings = Static<typeof SettingsSchema>;

/** The same members, closed: what is stored and what TypeBox's Clean projects onto. */
export const StoredSettingsShape = Type.Object(settingsMembers);

/** A user's whole stored document: the settings, and the LLM profiles and provider connections kept beside them. */
export const StoredDocumentShape = Type.Object({
  ...settingsMembers,
  llm_profiles: Type.Optional(Type.Record(Type.String(), Type.Object({}, { additionalProperties: true }))),
  active_profile: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  provider_connections: Type.Optional(
    Type.Record(Type.String(), Type.Object({}, { additionalProperties: true })),
  ),
  agent_profiles: Type.Optional(Type.Record(Type.String(), Type.Object({}, { additionalProperties: true }))),
  active_agent_profile_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

export const GETSettingsResponse = Type.Object(
  {
    ...settingsMembers,
    llm_api_key_set: Type.Boolean(),
    search_api_key_set: Type.Boolean(),
    provider_tokens_set: Type.Union([Type.Record(Type.String(), Str()), Type.Null()]),
  },
  {
    $id: 'GETSettingsResponse',
    description:
      'The stored settings without any secret: llm_api_key, search_api_key and sandbox_api_key are null, secrets_store is {provider_tokens: {}}, MCP api keys are null.',
  },
);
export type GETSettingsResponse = Static<typeof GETSettingsResponse>;

export const SettingsStoredResponse = Type.Object(
  { message: Type.String({ examples: ['Settings stored'] }) },
  { $id: 'SettingsStoredResponse' },
);
export type SettingsStoredResponse = Static<typeof SettingsStoredResponse>;
