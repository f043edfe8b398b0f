// Public surface of the event catalogue.
export * from './actions.js';
export * from './content.js';
export * from './events.js';
export { dashedUuid, newEventId, normalizeTimestamp, nowTimestamp, randomInto } from './ids.js';
export { EVENT_KIND_PATHS, resolveEventKind } from './kinds.js';
export * from './observations.js';
export {
  type PrecompileEntry,
  precompiledValidator,
  schemaHash,
  standaloneValidators,
  usePrecompiledFile,
} from './precompiled.js';
export { Closed, Nullable } from './schema-helpers.js';
export { sharingCompiler } from './shared-subschemas.js';
export * from './tool-definitions.js';
export {
  createAjv,
  issuesFromAjv,
  type ParseResult,
  PRECOMPILED_EVENTS,
  parse,
  parseAnyEvent,
  parseEvent,
  parseMessageEvent,
  prepareMessageValidator,
  type ValidationIssue,
} from './validate.js';
