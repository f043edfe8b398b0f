// The sandbox domain: the record the control plane keeps per sandbox, the spec a sandbox starts
// from, and the provider port every kind of sandbox (process and bwrap now; docker, kubernetes later)
// implements.
import type { Document } from '../store/index.js';
import type { SandboxSpecInfo, SandboxStatus } from './schemas.js';

export type { SandboxSpecInfo, SandboxStatus };

/** What the store keeps per sandbox (the `sandboxes` documents). */
export interface SandboxRecord extends Document {
  status: SandboxStatus;
  specId: string;
  /** The session key of the sandbox's agent server, sealed with the SecretBox. */
  sessionKey: string;
  /** The sandbox's folder: its workspace and the agent server's own data. */
  dir: string;
  /** The agent server's base URL while it runs (loopback for the process provider). */
  agentUrl: string | null;
  /** The agent server's process id, for providers that run processes on this machine. */
  pid: number | null;
  /** Why the sandbox is in ERROR. */
  detail: string | null;
  /**
   * The replica whose provider runs the process (see SandboxServiceOptions.replica); absent in
   * records written before replicas, which belong to the one process there was.
   */
  replica?: string;
}

export interface LaunchRequest {
  id: string;
  dir: string;
  spec: SandboxSpecInfo;
  /** The agent server's session key, in clear (it goes into the child's environment only). */
  sessionKey: string;
  /** A warm spare: it ends by itself unless claimed before the control plane goes away. */
  spare?: boolean;
}

export interface Launched {
  pid: number;
  agentUrl: string;
  /** For a spare: makes it a sandbox of its own that outlives the control plane. */
  claim?: () => void;
}

/** What the operating system says about a sandbox: independent of what the store last recorded. */
export type Liveness = 'running' | 'paused' | 'gone';

/** What a provider needs to find a running sandbox again (a record has it; so does an unowned spare). */
export type SandboxHandle = Pick<SandboxRecord, 'pid' | 'dir'>;

export interface SandboxProvider {
  /** Starts the sandbox's agent server; resolves once its health check answers. */
  launch(request: LaunchRequest): Promise<Launched>;
  liveness(sandbox: SandboxHandle): Liveness;
  /** Suspends every process of the sandbox. */
  pause(sandbox: SandboxHandle): void;
  resume(sandbox: SandboxHandle): void;
  /** Ends every process of the sandbox (the files stay). */
  stop(sandbox: SandboxHandle): Promise<void>;
  /**
   * A spec's working folder as the sandbox's processes see it: conversations work there, and
   * `exec` takes a `cwd` in the same terms (`/workspace/project` inside a bwrap sandbox).
   */
  workingDir(dir: string, specWorkingDir: string): string;
  /** Runs a shell command in the sandbox (setup steps of a start task), in `cwd` as it sees it. */
  exec(
    sandbox: SandboxHandle,
    command: string,
    options: { cwd: string; timeoutMs: number },
  ): Promise<{ exitCode: number | null; output: string }>;
}

export class SandboxNotFoundError extends Error {
  override name = 'SandboxNotFoundError';
  constructor(readonly sandboxId: string) {
    super(`Sandbox not found: ${sandboxId}`);
  }
}

export class SandboxSpecNotFoundError extends Error {
  override name = 'SandboxSpecNotFoundError';
  constructor(readonly specId: string) {
    super(`Sandbox spec not found: ${specId}`);
  }
}

/** The configured limit of running sandboxes is reached (429). */
export class SandboxLimitError extends Error {
  override name = 'SandboxLimitError';
  constructor(readonly limit: number) {
    super(
      `Sandbox limit reached: ${limit} sandbox${limit === 1 ? ' is' : 'es are'} running. Pause or delete one, or raise the limit (--max-sandboxes / AGENTD_MAX_SANDBOXES).`,
    );
  }
}

/** A sandbox failed to start, or is in a state that cannot do what was asked. */
export class SandboxError extends Error {
  override name = 'SandboxError';
}
