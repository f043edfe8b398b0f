// Sandbox spec presets from AGENTD_SANDBOX_SPECS, as the CLI reads them.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/cli/config.js';
import { tempDir } from '../support/server.js';

describe('AGENTD_SANDBOX_SPECS', () => {
  it('adds presets after the built-in process spec, and names what is wrong in a bad file', () => {
    const dir = tempDir('agentd-specs-');
    const file = join(dir, 'specs.json');
    writeFileSync(file, JSON.stringify([{ id: 'python', initial_env: { PYTHONUNBUFFERED: '1' } }]));
    const { specs } = resolveConfig({ dataDir: dir }, { AGENTD_SANDBOX_SPECS: file });
    expect(specs.specs.map((s) => s.id)).toEqual(['process', 'python']);
    expect(specs.get('python')).toMatchObject({
      initial_env: { PYTHONUNBUFFERED: '1' },
      working_dir: 'workspace',
    });
    expect(specs.get(null).id).toBe('process');
    expect(specs.page(undefined, 1)).toMatchObject({ items: [{ id: 'process' }], next_page_id: '1' });

    writeFileSync(file, JSON.stringify([{ id: 'bad id!' }]));
    expect(() => resolveConfig({ dataDir: dir }, { AGENTD_SANDBOX_SPECS: file })).toThrow(ConfigError);
    writeFileSync(file, JSON.stringify([{ id: 'process' }]));
    expect(() => resolveConfig({ dataDir: dir }, { AGENTD_SANDBOX_SPECS: file })).toThrow(/given twice/);
    expect(() => resolveConfig({ dataDir: dir }, { AGENTD_SANDBOX_SPECS: join(dir, 'none.json') })).toThrow(
      /AGENTD_SANDBOX_SPECS: cannot read/,
    );
  });
});
