import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/cli/config.js';
import { HookConfigError, hooksFor, matches, normalizeHookConfig } from '../../src/hooks/index.js';
import { tempDir } from '../support/server.js';

describe('hook matchers', () => {
  it('follow OpenHands: wildcard, exact, /regex/, and patterns with regex characters', () => {
    expect(matches('*', 'terminal')).toBe(true);
    expect(matches('', null)).toBe(true);
    expect(matches('terminal', 'terminal')).toBe(true);
    expect(matches('terminal', 'terminal2')).toBe(false);
    expect(matches('/file_.*/', 'file_editor')).toBe(true);
    expect(matches('terminal|file_editor', 'file_editor')).toBe(true);
    expect(matches('term', 'terminal')).toBe(false); // whole-name match only
    expect(matches('terminal', null)).toBe(false);
  });
});

describe('hook configuration', () => {
  it('accepts snake_case, PascalCase and the hooks wrapper, with defaults filled', () => {
    const config = normalizeHookConfig({ hooks: { PreToolUse: [{ hooks: [{ command: 'true' }] }] } });
    expect(config.pre_tool_use).toEqual([
      { matcher: '*', hooks: [{ type: 'command', command: 'true', timeout: 60 }] },
    ]);
    expect(hooksFor(config, 'pre_tool_use', 'anything')).toHaveLength(1);
    expect(hooksFor(config, 'stop')).toHaveLength(0);
  });

  it('refuses unknown events and an event given twice', () => {
    expect(() => normalizeHookConfig({ Whenever: [] })).toThrow(HookConfigError);
    expect(() => normalizeHookConfig({ stop: [], Stop: [] })).toThrow(/twice/);
  });

  it('server-wide hooks come from AGENTD_HOOKS_FILE', () => {
    const dir = tempDir();
    const file = join(dir, 'hooks.json');
    writeFileSync(file, JSON.stringify({ stop: [{ hooks: [{ command: 'exit 0' }] }] }));
    const config = resolveConfig({ dataDir: dir }, { AGENTD_HOOKS_FILE: file });
    expect(config.hooks?.stop).toHaveLength(1);
    expect(() => resolveConfig({ dataDir: dir }, { AGENTD_HOOKS_FILE: join(dir, 'missing.json') })).toThrow(
      ConfigError,
    );
  });
});
