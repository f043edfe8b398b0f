// The warm spare: one sandbox of the default spec started ahead of need, not yet anyone's (not in
// the store until a start takes it), so a start takes a booted process instead of waiting for one.
// The first start boots it (a server that never starts sandboxes runs no extra process), and each
// start that takes it boots the next.
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_SPEC_ID, type SandboxSpecs } from './specs.js';
import type { Launched, SandboxProvider } from './types.js';

/** A sandbox's id, session key and folder. */
export interface SandboxIdentity {
  id: string;
  key: string;
  dir: string;
}

/** A sandbox started ahead of need. */
export interface Spare extends SandboxIdentity {
  launching: Promise<Launched>;
}

/** A new sandbox id (22 alphanumerics), session key and folder. */
export function newIdentity(dataDir: string): SandboxIdentity {
  const id = randomBytes(24).toString('base64url').replace(/[-_]/g, '').slice(0, 22);
  const dir = join(dataDir, 'sandboxes', id);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return { id, key: randomBytes(32).toString('base64url'), dir };
}

export class WarmSpare {
  private spare: Spare | null = null;
  private closing = false;

  constructor(
    private readonly options: {
      provider: SandboxProvider;
      specs: SandboxSpecs;
      dataDir: string;
      /** Off: every start boots its own process. */
      enabled: boolean;
    },
  ) {}

  /** The spare there now, for a start to take once admitted (`take`); null when there is none. */
  get current(): Spare | null {
    return this.spare;
  }

  /** Hands `spare` over to a start: it is not stopped with the spares any more. */
  take(spare: Spare): void {
    if (this.spare === spare) this.spare = null;
  }

  /** Starts a new spare when enabled and none is there (after each start of a sandbox). */
  refill(): void {
    if (!this.options.enabled || this.closing || this.spare) return;
    const identity = newIdentity(this.options.dataDir);
    const launching = this.options.provider.launch({
      ...identity,
      spec: this.options.specs.get(DEFAULT_SPEC_ID),
      sessionKey: identity.key,
      spare: true,
    });
    const spare: Spare = { ...identity, launching };
    this.spare = spare;
    // A spare that failed is dropped; the next start boots its own process.
    launching.catch(() => {
      if (this.spare === spare) this.spare = null;
      rmSync(identity.dir, { recursive: true, force: true });
    });
  }

  /** A taken spare's process as the sandbox's: claimed when ready, or `instead` when it failed. */
  async claim(spare: Spare, instead: () => Promise<Launched>): Promise<Launched> {
    try {
      const launched = await spare.launching;
      launched.claim?.();
      return { pid: launched.pid, agentUrl: launched.agentUrl };
    } catch {
      return instead();
    }
  }

  /** Stops the spare there (graceful shutdown); none is started after. */
  async close(): Promise<void> {
    this.closing = true;
    const spare = this.spare;
    this.spare = null;
    if (!spare) return;
    const launched = await spare.launching.catch(() => null);
    if (launched) await this.options.provider.stop({ pid: launched.pid, dir: spare.dir });
    rmSync(spare.dir, { recursive: true, force: true });
  }
}
