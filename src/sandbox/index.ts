// Public surface of the sandbox domain.
export { SANDBOX_LIMITS, SANDBOX_PATHS } from './bwrap/confinement.js';
export { type BwrapProviderOptions, BwrapSandboxProvider } from './bwrap/provider.js';
export {
  bwrapUnavailable,
  type ChosenProvider,
  chooseSandboxProvider,
  SANDBOX_PROVIDER_KINDS,
  SandboxProviderError,
  type SandboxProviderKind,
} from './choose.js';
export { type ProcessProviderOptions, ProcessSandboxProvider, workingDirOf } from './process/provider.js';
export * from './schemas.js';
export { type SandboxListener, SandboxService, type SandboxServiceOptions } from './service.js';
export { DEFAULT_SPEC_ID, SandboxSpecs, SpecConfigError } from './specs.js';
export * from './types.js';
