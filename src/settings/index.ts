export { LOCAL_USER, userIdForSessionKey } from './identity.js';
export { InvalidSettingsError, parseSettings } from './parse.js';
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
export {
  KEY_FILE_NAME,
  type LoadSecretBoxOptions,
  loadSecretBox,
  SecretBox,
  SecretKeyError,
} from './secret-box.js';
export { type EffectiveSettings, SettingsService } from './service.js';
