// POST /api/hooks (OpenHands'): a project's .openhands/hooks.json, normalized to what a start's
// hook_config takes; null when there is none, it is empty or it is not a hook configuration.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close({ remove: true }));

const hooksOf = async (project_dir: unknown) => {
  const res = await api(server, '/api/hooks', { method: 'POST', body: JSON.stringify({ project_dir }) });
  return { status: res.status, body: (await res.json()) as { hook_config: Record<string, unknown> | null } };
};

function project(hooksJson: string | null): string {
  const dir = tempDir('agentd-hooks-');
  if (hooksJson !== null) {
    mkdirSync(join(dir, '.openhands'));
    writeFileSync(join(dir, '.openhands', 'hooks.json'), hooksJson);
  }
  return dir;
}

describe('POST /api/hooks', () => {
  it("answers the project's hooks in the form a start takes them", async () => {
    const dir = project(
      JSON.stringify({
        hooks: { PreToolUse: [{ matcher: 'terminal', hooks: [{ type: 'command', command: 'exit 0' }] }] },
      }),
    );
    const { status, body } = await hooksOf(dir);
    expect(status).toBe(200);
    expect(body.hook_config).toMatchObject({
      pre_tool_use: [{ matcher: 'terminal', hooks: [{ type: 'command', command: 'exit 0' }] }],
      stop: [],
    });
    // What it answers, a start takes as it is.
    const start = await api(server, '/api/conversations', {
      method: 'POST',
      body: JSON.stringify({
        agent: { kind: 'Agent', llm: { model: 'openai/gpt-4o', api_key: 'sk-unused' }, tools: [] },
        workspace: { working_dir: dir },
        hook_config: body.hook_config,
      }),
    });
    expect(start.status).toBe(201);
  });

  it('answers null for no project, no file, an empty or a wrong one; the key is needed', async () => {
    const file = join(tempDir('agentd-hooks-file-'), 'a-file');
    writeFileSync(file, 'not a folder');
    for (const dir of [
      file,
      null,
      undefined,
      tempDir('agentd-hooks-none-'),
      project('{}'),
      project('not json'),
      project('[1]'),
    ])
      expect((await hooksOf(dir)).body, String(dir)).toEqual({ hook_config: null });
    expect((await hooksOf(42)).status).toBe(422);
    expect((await api(server, '/api/hooks', { method: 'POST', body: '{}', key: null })).status).toBe(401);
  });
});
