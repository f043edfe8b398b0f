// The error of a mistake in how agentd was called or configured: one line on stderr, no stack. In a
// file of its own so the command's entry (main.ts) names it without loading the configuration code.
export class ConfigError extends Error {
  override name = 'ConfigError';
  /** 2: how agentd was called; 1: what it was pointed at failed (e.g. an unreachable database). */
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
  }
}
