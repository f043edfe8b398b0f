// The Settings record (body of POST /api/settings) and the shape GET /api/settings answers.
// Unknown members are accepted and dropped, as OpenHands' request model ignores them.
import { type Static, Type } from 'typebox';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);
const Secret = Nullable(Type.String({ format: 'password' }));

export const ProviderToken = Type.Object(
  {
    token: Type.Optional(Nullable(Type.String({ format: 'password' }))),
    host: Type.Optional(Nullable(Type.String())),
    user_id: Type.Optional(Nullable(Type.String())),
  },
  { $id: 'ProviderToken' },
);

export const CustomSecret = Type.Object(
  {
    secret: Type.Optional(Nullable(Type.String({ format: 'password' }))),
    description: Type.Optional(Nullable(Type.String())),
  },
  { $id: 'CustomSecret' },
);

export const UserSecrets = Type.Object(
  {
    provider_tokens: Type.Optional(Type.Record(Type.String(), ProviderToken)),
    custom_secrets: Type.Optional(Type.Record(Type.String(), CustomSecret)),
  },
  { $id: 'UserSecrets' },
);

const RemoteServer = Type.Object({
  url: Type.String({ minLength: 1 }),
  api_key: Type.Optional(Nullable(Type.String())),
});

export const MCPConfig = Type.Object(
  {
    sse_servers: Type.Optional(Type.Array(RemoteServer, { default: [] })),
    stdio_servers: Type.Optional(
      Type.Array(
        Type.Object({
          name: Type.String({ minLength: 1 }),
          command: Type.String({ minLength: 1 }),
          args: Type.Optional(Type.Array(Type.String(), { default: [] })),
          env: Type.Optional(Type.Record(Type.String(), Type.String(), { default: {} })),
        }),
        { default: [] },
      ),
    ),
    shttp_servers: Type.Optional(
      Type.Array(
        Type.Object({
          ...RemoteServer.properties,
          timeout: Type.Optional(Type.Integer({ minimum: 1, default: 60 })),
        }),
        {
          default: [],
        },
      ),
    ),
  },
  { $id: 'MCPConfig' },
);

/** Members and their defaults, per the spec's Settings table (plus OpenHands' condenser_max_size). */
const settingsMembers = {
  language: Type.Optional(Nullable(Type.String())),
  agent: Type.Optional(Nullable(Type.String())),
  max_iterations: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
  security_analyzer: Type.Optional(Nullable(Type.String())),
  confirmation_mode: Type.Optional(Nullable(Type.Boolean())),
  llm_model: Type.Optional(Nullable(Type.String())),
  llm_api_key: Type.Optional(Secret),
  llm_base_url: Type.Optional(Nullable(Type.String())),
  remote_runtime_resource_factor: Type.Optional(Nullable(Type.Integer())),
  secrets_store: Type.Optional(UserSecrets),
  enable_default_condenser: Type.Optional(Type.Boolean({ default: true })),
  enable_sound_notifications: Type.Optional(Type.Boolean({ default: false })),
  enable_proactive_conversation_starters: Type.Optional(Type.Boolean({ default: true })),
  enable_solvability_analysis: Type.Optional(Type.Boolean({ default: true })),
  user_consents_to_analytics: Type.Optional(Nullable(Type.Boolean())),
  sandbox_base_container_image: Type.Optional(Nullable(Type.String())),
  sandbox_runtime_container_image: Type.Optional(Nullable(Type.String())),
  mcp_config: Type.Optional(Nullable(MCPConfig)),
  search_api_key: Type.Optional(Secret),
  sandbox_api_key: Type.Optional(Secret),
  max_budget_per_task: Type.Optional(Nullable(Type.Number())),
  condenser_max_size: Type.Optional(Nullable(Type.Integer({ minimum: 20 }))),
  email: Type.Optional(Nullable(Type.String())),
  email_verified: Type.Optional(Nullable(Type.Boolean())),
  git_user_name: Type.Optional(Nullable(Type.String())),
  git_user_email: Type.Optional(Nullable(Type.String())),
};

export const SETTINGS_KEYS = Object.keys(settingsMembers) as (keyof typeof settingsMembers)[];

export const SettingsSchema = Type.Object(settingsMembers, { $id: 'Settings', additionalProperties: true });
export type Settings = Static<typeof SettingsSchema>;

export const GETSettingsResponse = Type.Object(
  {
    ...settingsMembers,
    llm_api_key_set: Type.Boolean(),
    search_api_key_set: Type.Boolean(),
    provider_tokens_set: Nullable(Type.Record(Type.String(), Nullable(Type.String()))),
  },
  { $id: 'GETSettingsResponse' },
);
export type GETSettingsResponse = Static<typeof GETSettingsResponse>;

export const SettingsStoredResponse = Type.Object(
  { message: Type.String() },
  { $id: 'SettingsStoredResponse' },
);
