// The process provider on its own: a real `agentd agent` child, its environment, and pause/resume
// of its whole process tree.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ProcessSandboxProvider, type SandboxHandle, SandboxSpecs } from '../../src/sandbox/index.js';
import { descendants, processState } from '../../src/sandbox/process-tree.js';
import { tempDir } from '../support/server.js';

const provider = new ProcessSandboxProvider();
const started: SandboxHandle[] = [];
afterAll(async () => {
  for (const sandbox of started) await provider.stop(sandbox);
});

function handleOf(dir: string, pid: number): SandboxHandle {
  started.push({ pid, dir });
  return { pid, dir };
}

describe('ProcessSandboxProvider', () => {
  it("passes the sandbox its key and the server configuration, never the control plane's secrets", async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      OH_SESSION_API_KEYS_0: 'control-plane-key',
      OH_SECRET_KEY: 'control-plane-secret',
      AGENTD_HOOKS_FILE: '/nonexistent/hooks.json',
      OPENAI_API_KEY: 'sk-control-plane',
    });
    const dir = tempDir('agentd-sbx-');
    const spec = new SandboxSpecs([{ id: 'custom', initial_env: { FROM_SPEC: 'yes' } }]).get('custom');
    try {
      // A hooks file that does not exist makes the child fail: proof that it reads the variable.
      await expect(provider.launch({ id: 'a', dir, spec, sessionKey: 'sandbox-key' })).rejects.toThrow(
        /AGENTD_HOOKS_FILE/,
      );
      delete process.env.AGENTD_HOOKS_FILE;
      const launched = await provider.launch({ id: 'b', dir, spec, sessionKey: 'sandbox-key' });
      handleOf(dir, launched.pid);
      const env = readFileSync(`/proc/${launched.pid}/environ`, 'utf8').split('\0');
      expect(env).toContain('OH_SESSION_API_KEYS_0=sandbox-key');
      expect(env).toContain('FROM_SPEC=yes');
      expect(env.join('\n')).not.toMatch(/control-plane/);
      const alive = await fetch(`${launched.agentUrl}/api/conversations/count`, {
        headers: { 'X-Session-API-Key': 'sandbox-key' },
      });
      expect(alive.status).toBe(200);
    } finally {
      process.env = saved;
    }
  });

  it('pauses and resumes every process of the sandbox, and stops them all', async () => {
    const dir = tempDir('agentd-sbx-');
    const spec = new SandboxSpecs().get('process');
    const launched = await provider.launch({ id: 'c', dir, spec, sessionKey: 'k' });
    const sandbox = handleOf(dir, launched.pid);
    const shell = await provider.exec(sandbox, 'true', { cwd: dir, timeoutMs: 5_000 });
    expect(shell.exitCode).toBe(0);
    expect(provider.liveness(sandbox)).toBe('running');
    provider.pause(sandbox);
    expect(provider.liveness(sandbox)).toBe('paused');
    for (const pid of [launched.pid, ...descendants(launched.pid)]) expect(processState(pid)).toBe('stopped');
    provider.resume(sandbox);
    expect(provider.liveness(sandbox)).toBe('running');
    expect((await fetch(`${launched.agentUrl}/alive`)).status).toBe(200);
    await provider.stop(sandbox);
    expect(provider.liveness(sandbox)).toBe('gone');
    // A pid that now names another program reads gone, too.
    expect(provider.liveness({ ...sandbox, pid: process.pid })).toBe('gone');
  });
});
