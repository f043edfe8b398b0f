export { LOCAL_USER, userIdForSessionKey } from './identity.js';
export {
  CustomSecret,
  GETSettingsResponse,
  MCPConfig,
  ProviderToken,
  type Settings,
  SettingsSchema,
  SettingsStoredResponse,
  UserSecrets,
} from './schemas.js';
export { loadSecretBox, SecretBox, SecretKeyError } from './secret-box.js';
export { SettingsService } from './service.js';
