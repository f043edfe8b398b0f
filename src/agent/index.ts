export { Agent, type AgentSpec, type StepOutcome } from './agent.js';
export { agentError, PendingScan, pendingActions } from './agent-events.js';
export { AgentLlms, type SwitchedLlms } from './agent-llms.js';
export { builtinAgentDefinitions } from './builtin-sub-agents.js';
export {
  type CondensationReason,
  type CondenserConfig,
  condenserProblem,
  InvalidCondenserError,
  planForgetting,
  SummarizingCondenser,
} from './condenser.js';
export { needsConfirmation } from './confirmation.js';
export {
  type Critic,
  type CriticMode,
  type CriticResult,
  type CriticSubject,
  LLMCritic,
  PassCritic,
  parseVerdict,
} from './critic.js';
export {
  InvalidExtensionError,
  MAX_EXTENSION_BYTES,
  MAX_EXTENSION_FILES,
  repositoryLocation,
  SourceFetchError,
  type SourceSpec,
} from './extension-source.js';
export {
  ExtensionsRepository,
  type ExtensionsRepositoryOptions,
  ExtensionsUnavailableError,
} from './extensions-repository.js';
export {
  GOAL_RESUME_PROMPT,
  GoalController,
  type GoalStatus,
  type GoalStatusName,
  type GoalVerdict,
} from './goal.js';
export type { AgentHost } from './host.js';
export {
  AlreadyInstalledError,
  type Installation,
  Installations,
  type InstallRequest,
} from './installations.js';
export {
  marketplacePlugins,
  marketplaceSkills,
  readMarketplace,
} from './marketplace.js';
export {
  type MarketplaceRegistration,
  MarketplaceRegistry,
  PluginNotFoundError,
  PluginResolutionError,
} from './marketplace-registry.js';
export {
  ambientPlugins,
  installedPlugins,
  type LoadedPlugin,
  loadPlugin,
  pluginContents,
  readPluginAt,
} from './plugins.js';
export { dynamicContext, SYSTEM_PROMPT } from './prompt.js';
export { ResidentHistory } from './resident-history.js';
export { type RunOptions, recoverAfterCrash, rejectPending, run } from './run.js';
export {
  ConfirmationPolicy,
  EXECUTION_STATUSES,
  EXTENSION_NAME_PATTERN,
  ExecutionStatus,
  InstalledPluginResponse,
  InstalledSkillResponse,
  InstallSkillRequest,
  MarketplacePluginsResponse,
  MarketplaceSkillsResponse,
  PluginsRequest,
  PluginsResponse,
  RiskThreshold,
  SecurityAnalyzer,
  SkillInfo,
  SkillsRequest,
  SkillsResponse,
  SyncResponse,
} from './schemas.js';
export { skillCatalog } from './skill-catalog.js';
export { installedSkills, userSkills } from './skill-install.js';
export {
  AgentContext,
  type AgentContextSpec,
  parseSkillFile,
  type Skill,
  workspaceSkills,
} from './skills.js';
export { DEFAULT_STUCK_THRESHOLDS, isStuck, type StuckThresholds } from './stuck.js';
export {
  AgentDefinition,
  SubAgentInfo,
  SubAgentsRequest,
  SubAgentsResponse,
} from './sub-agent-schemas.js';
export {
  AgentDefinitionError,
  availableAgentDefinitions,
  type FileAgentOptions,
  fileAgentDefinitions,
  mergeAgentDefinitions,
  readAgentDefinition,
  subAgentCatalog,
} from './sub-agents.js';
export { MessageView, type ViewEvent } from './view.js';
