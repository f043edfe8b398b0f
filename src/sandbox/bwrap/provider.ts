// The bwrap provider: the process provider (same launch, ready pipe, health check, process-tree
// pause/resume/stop and liveness) with every command run inside a bubblewrap sandbox. The pid it
// records is the PID namespace's init (see BwrapConfinement.sandboxPid); its command line holds the
// sandbox's folder (the binds), so liveness still tells a reused pid apart, and the whole tree under
// it is visible from here.
import { isAbsolute, join } from 'node:path';
import {
  agentdCommand,
  type ProcessProviderOptions,
  ProcessSandboxProvider,
  packageRoot,
} from '../process/provider.js';
import { BwrapConfinement, type BwrapOptions } from './confinement.js';

export interface BwrapProviderOptions extends ProcessProviderOptions, Pick<BwrapOptions, 'bwrap' | 'hide'> {}

/**
 * What `agentd agent` needs to read: this package's code (dist/, node_modules/, and package.json, by
 * which it finds its folder) and the command's files. Not the rest of the folder: a checkout may keep
 * a `.env`, workspaces or another server's data folder there.
 */
export function agentdReadOnlyPaths(command: readonly string[]): string[] {
  const root = packageRoot();
  return [
    ...['dist', 'node_modules', 'package.json'].map((name) => join(root, name)),
    ...command.filter((arg) => isAbsolute(arg)),
  ];
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
