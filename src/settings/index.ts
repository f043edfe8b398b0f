export {
  ActivateAgentProfileResponse,
  AgentProfileDetail,
  AgentProfileDiagnostics,
  AgentProfileIdParams,
  AgentProfileInput,
  AgentProfileList,
  AgentProfileMutation,
  AgentProfileNameParams,
  MAX_AGENT_PROFILES,
} from './agent-profile-schemas.js';
export {
  AgentProfileNotFoundError,
  agentProfileSettings,
  mcpSelection,
  type ProfileSkill,
} from './agent-profiles.js';
export type { ExposeMode } from './documents.js';
export { AGENT_SETTINGS_FORM, CONVERSATION_SETTINGS_FORM, SettingsFormSchema } from './form-schemas.js';
export { LOCAL_USER, userIdForSessionKey } from './identity.js';
export { type McpServerInput, mcpConfigOnly } from './mcp-servers.js';
export { defaultSettings, InvalidSettingsError, parseSettings } from './parse.js';
export {
  ActivateProfileResponse,
  MAX_PROFILES,
  PROFILE_NAME_PATTERN,
  ProfileDetail,
  ProfileInfo,
  ProfileList,
  type ProfileLLM,
  ProfileMutation,
  ProfileNameParams,
  RenameProfileRequest,
  SaveProfileRequest,
  ValidateProfileRequest,
  ValidateProfileResponse,
} from './profile-schemas.js';
export { ProfileConflictError, ProfileNotFoundError, settingsLlm } from './profiles.js';
export {
  ConnectionConflictError,
  ConnectionCreateRequest,
  ConnectionNotFoundError,
  ConnectionResponse,
  ConnectionUpdateRequest,
  MAX_CONNECTIONS,
} from './provider-connections.js';
export {
  CustomSecret,
  GETSettingsResponse,
  MAX_SETTINGS_ENTRIES,
  MAX_SETTINGS_STRING,
  MCPConfig,
  ProviderToken,
  type Settings,
  SettingsSchema,
  SettingsStoredResponse,
  UserSecrets,
} from './schemas.js';
export {
  REDACTED,
  SECRET_NAME_PATTERN,
  SecretCreateRequest,
  SecretItem,
  SecretsList,
  SettingsUpdateRequest,
  SettingsView,
  UserInfo,
} from './sdk-schemas.js';
export { isEmptyUpdate } from './sdk-view.js';
export { withSearchServer } from './search.js';
export {
  KEY_FILE_NAME,
  type LoadSecretBoxOptions,
  loadSecretBox,
  SecretBox,
  SecretKeyError,
} from './secret-box.js';
export { type EffectiveSettings, SettingsService } from './service.js';
export {
  AddWorkspaceParentsRequest,
  AddWorkspacesRequest,
  MAX_SAVED_WORKSPACES,
  SavedWorkspaces,
  TooManyWorkspacesError,
  WorkspacesList,
} from './workspaces.js';
