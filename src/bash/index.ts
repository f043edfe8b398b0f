export { BatchTooLargeError, InvalidPageIdError } from './event-log.js';
export type { BashEvent, BashSearch, ExecuteBashRequest } from './schemas.js';
export * as bashSchemas from './schemas.js';
export {
  type BashLimits,
  type BashListener,
  BashService,
  DEFAULT_BASH_LIMITS,
  TooManyCommandsError,
} from './service.js';
