// Public surface of the V1 app layer.
export * from './records.js';
export * from './schemas.js';
export {
  type AppConversationFilter,
  AppConversationService,
  type AppConversationServiceOptions,
  type StartTaskFilter,
} from './service.js';
