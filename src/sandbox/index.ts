// Public surface of the sandbox domain.
export { type ProcessProviderOptions, ProcessSandboxProvider, workingDirOf } from './process/provider.js';
export * from './schemas.js';
export { type SandboxListener, SandboxService, type SandboxServiceOptions } from './service.js';
export { DEFAULT_SPEC_ID, SandboxSpecs, SpecConfigError } from './specs.js';
export * from './types.js';
