// The bwrap provider: the process provider (same launch, ready pipe, health check, process-tree
// pause/resume/stop and liveness) with every command run inside a bubblewrap sandbox. The pid it
// records is the PID namespace's init (see BwrapConfinement.sandboxPid); its command line holds the
// sandbox's folder (the binds), so liveness still tells a reused pid apart, and the whole tree under
// it is visible from here.
import { isAbsolute } from 'node:path';
import {
  agentdCommand,
  type ProcessProviderOptions,
  ProcessSandboxProvider,
  packageRoot,
} from '../process/provider.js';
import { BwrapConfinement, type BwrapOptions } from './confinement.js';

export interface BwrapProviderOptions extends ProcessProviderOptions, Pick<BwrapOptions, 'bwrap' | 'hide'> {}

/** What `agentd agent` needs to read: this package (dist/ and node_modules) and the command's files. */
export function agentdReadOnlyPaths(command: readonly string[]): string[] {
  return [packageRoot(), ...command.filter((arg) => isAbsolute(arg))];
}

export class BwrapSandboxProvider extends ProcessSandboxProvider {
  constructor(options: BwrapProviderOptions = {}) {
    const command = options.command ?? agentdCommand();
    super(
      { ...options, command },
      new BwrapConfinement({
        bwrap: options.bwrap,
        hide: options.hide,
        readOnly: agentdReadOnlyPaths(command),
      }),
    );
  }
}
