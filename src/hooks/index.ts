export {
  emptyHookConfig,
  HookConfigError,
  hooksFor,
  isEmptyHookConfig,
  loadHookFile,
  matches,
  mergeHookConfigs,
  normalizeHookConfig,
} from './config.js';
export {
  blockingReason,
  type HookInput,
  type HookResult,
  type HookRun,
  HookRunner,
  runHookCommand,
} from './runner.js';
export {
  HOOK_EVENT_TYPES,
  HOOK_EVENTS,
  type HookConfig,
  HookConfigInput,
  HookDefinition,
  type HookEventName,
  HookMatcher,
} from './schemas.js';
