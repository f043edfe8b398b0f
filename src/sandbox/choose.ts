// Which kind of sandbox a control plane runs: bwrap where it works on this machine (checked once),
// else the plain process provider with one warning; a kind asked for explicitly must work.

import { bwrapProblem } from './bwrap/confinement.js';
import { agentdReadOnlyPaths, type BwrapProviderOptions, BwrapSandboxProvider } from './bwrap/provider.js';
import { agentdCommand, type ProcessProviderOptions, ProcessSandboxProvider } from './process/provider.js';
import type { SandboxProvider } from './types.js';

export const SANDBOX_PROVIDER_KINDS = ['bwrap', 'process'] as const;
export type SandboxProviderKind = (typeof SANDBOX_PROVIDER_KINDS)[number];

/** bwrap was asked for but cannot run here. */
export class SandboxProviderError extends Error {
  override name = 'SandboxProviderError';
}

const problems = new Map<string, Promise<string | null>>();

/**
 * Why bwrap cannot run sandboxes here (null: it can); checked once per process and binary. The
 * first call starts the check; `agentd serve` makes it early, so it runs while the server loads.
 */
export function bwrapUnavailable(
  options: Pick<BwrapProviderOptions, 'bwrap' | 'command'> = {},
): Promise<string | null> {
  const bwrap = options.bwrap ?? 'bwrap';
  let problem = problems.get(bwrap);
  if (!problem) {
    const readOnly = agentdReadOnlyPaths(options.command ?? agentdCommand());
    problem = bwrapProblem({ bwrap, readOnly });
    problems.set(bwrap, problem);
  }
  return problem;
}

export interface ChosenProvider {
  kind: SandboxProviderKind;
  provider: SandboxProvider;
  /** Set when bwrap was the default but cannot run here, so sandboxes are not isolated. */
  warning: string | null;
}

/** The provider of `kind`; without one, bwrap where it runs, else process (with a warning). */
export async function chooseSandboxProvider(
  kind: SandboxProviderKind | undefined,
  options: BwrapProviderOptions & ProcessProviderOptions = {},
): Promise<ChosenProvider> {
  if (kind === 'process') return { kind, provider: new ProcessSandboxProvider(options), warning: null };
  const problem = await bwrapUnavailable(options);
  if (problem === null) return { kind: 'bwrap', provider: new BwrapSandboxProvider(options), warning: null };
  if (kind === 'bwrap')
    throw new SandboxProviderError(`the bwrap sandbox provider cannot run here: ${problem}`);
  return {
    kind: 'process',
    provider: new ProcessSandboxProvider(options),
    warning: `sandboxes run as plain processes, without isolation (bwrap cannot run here: ${problem})`,
  };
}
