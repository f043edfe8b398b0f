// The bwrap provider for real: a control plane whose sandboxes run under bubblewrap, probed from an
// agent's own terminal (the scripted LLM asks for the commands, so this also shows the agent reaches
// an LLM on loopback). The data folder lies inside the package folder, which sandboxes read, so
// the test also shows it stays hidden there. bwrap must be installed: these tests fail without it.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CGROUP_LIMITS } from '../../src/sandbox/bwrap/cgroups.js';
import {
  BwrapSandboxProvider,
  bwrapUnavailable,
  SANDBOX_LIMITS,
  SandboxSpecs,
} from '../../src/sandbox/index.js';
import { packageRoot } from '../../src/sandbox/process/provider.js';
import { descendants, processState } from '../../src/sandbox/process-tree.js';
import { runCli } from '../support/cli.js';
import { ScriptedLLM } from '../support/scripted-llm.js';
import { startServer, type TestServer, tempDir } from '../support/server.js';
import { eventually, getJson, type Json, postJson, useScriptedLLM, waitForTask } from '../support/v1.js';

const llm = new ScriptedLLM();
const root = packageRoot();
const cache = join(root, 'node_modules', '.cache');
mkdirSync(cache, { recursive: true });
const dataDir = mkdtempSync(join(cache, 'agentd-bwrap-'));
let server: TestServer;

beforeAll(async () => {
  await llm.start();
  server = await startServer({ dataDir, controlPlane: { warmSpare: false, sandboxProvider: 'bwrap' } });
});
afterAll(async () => {
  await server?.close({ remove: true });
  await llm.stop();
});

async function runningSandbox(): Promise<Json> {
  const { id } = await postJson(server, '/api/v1/sandboxes');
  return eventually(async () => {
    const [sandbox] = await getJson<Json[]>(server, `/api/v1/sandboxes?id=${id}`);
    if (sandbox?.status === 'ERROR') throw new Error(`sandbox failed: ${sandbox.detail}`);
    return sandbox?.status === 'RUNNING' ? sandbox : undefined;
  });
}

/** The record behind a sandbox (its pid and folder), as the control plane keeps it. */
async function recordOf(sandbox: Json) {
  const record = await server.controlPlane!.sandboxes.get(
    sandbox.created_by_user_id as string,
    sandbox.id as string,
  );
  return record!;
}

/** A folder under this process's v1 pids cgroup, when this machine lets it make one (else null). */
function ownPidsCgroup(name: string): string | null {
  const line = readFileSync('/proc/self/cgroup', 'utf8')
    .split('\n')
    .find((l) => l.split(':')[1]?.split(',').includes('pids'));
  if (!line) return null;
  const parent = join('/sys/fs/cgroup/pids', line.split(':')[2]!);
  const probe = join(parent, `agentd-probe-${process.pid}`);
  try {
    mkdirSync(probe);
    rmdirSync(probe);
  } catch {
    return null;
  }
  return join(parent, name);
}

/** Lines between `start` and `end` markers in a terminal's output. */
function section(text: string, start: string, end: string): string[] {
  const from = text.indexOf(`${start}\n`);
  const to = text.indexOf(`${end}\n`, from);
  return text
    .slice(from + start.length + 1, to)
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

describe('BwrapSandboxProvider', () => {
  it('runs on this machine (install bubblewrap where it is missing)', async () => {
    expect(await bwrapUnavailable()).toBeNull();
  });

  it("gives an agent's terminal its workspace and nothing of the control plane, other sandboxes or host processes", async () => {
    const other = await runningSandbox();
    const otherWorkspace = join(dataDir, 'sandboxes', other.id as string, 'workspace');
    writeFileSync(join(otherWorkspace, 'other.txt'), 'not yours');
    const probe = [
      'echo "PWD $(pwd) HOME $HOME"',
      'echo "LIMITS $(ulimit -n) $(ulimit -c)"',
      'echo FILES; ls -a1 /workspace/project; echo END',
      'echo READS',
      // The package folder beyond what the agent server runs from (a checkout's README, its sources).
      `for f in ${dataDir}/secret.key ${dataDir}/agentd.db ${otherWorkspace}/other.txt /etc/shadow ${root}/README.md ${root}/src/cli/main.ts; do cat "$f" >/dev/null 2>&1 && echo "read $f"; done`,
      'echo END; echo WRITES',
      `for d in / /etc /usr /var/lib /home ${dataDir}; do touch "$d/probe" 2>/dev/null && echo "wrote $d"; done`,
      'echo END',
      // The package folder: what the sandbox sees of it holds only its code (under /tmp, bwrap makes the
      // folder in the sandbox's own /tmp, where a write may land); the host's folder must stay untouched.
      `touch ${root}/probe 2>/dev/null`,
      'touch /workspace/project/probe ~/probe /tmp/probe && echo OWN-FOLDERS-WRITABLE',
      'echo PS; ps -e -o pid=,args=; echo END',
    ].join('; ');
    await useScriptedLLM(server, llm, [
      { toolCalls: [{ name: 'terminal', arguments: { command: probe, summary: 'probe' } }] },
      { toolCalls: [{ name: 'finish', arguments: { message: 'probed' } }] },
    ]);
    const task = await postJson(server, '/api/v1/app-conversations', {
      initial_message: { role: 'user', content: [{ type: 'text', text: 'Look around.' }] },
    });
    const ready = await waitForTask(server, task.id as string);
    expect(ready).toMatchObject({ status: 'READY', detail: null });
    const conversationId = ready.app_conversation_id as string;
    const observation = await eventually(async () => {
      const page = await getJson<{ items: Json[] }>(
        server,
        `/api/v1/events/search?conversation_id__eq=${conversationId}&kind__eq=ObservationEvent&limit=100`,
      );
      return page.items.find((e) => e.tool_name === 'terminal');
    });
    const output = JSON.stringify(observation.observation).replaceAll('\\n', '\n').replaceAll('\\"', '"');

    expect(output).toContain('PWD /workspace/project HOME /home/agent');
    expect(output).toContain(`LIMITS ${SANDBOX_LIMITS.openFiles} 0`);
    // The start task made the workspace a git repository, from inside the sandbox.
    expect(section(output, 'FILES', 'END')).toContain('.git');
    // Files that are there, on this machine, and that the sandbox cannot read.
    for (const file of ['secret.key', 'agentd.db']) expect(existsSync(join(dataDir, file))).toBe(true);
    expect(section(output, 'READS', 'END')).toEqual([]);
    expect(section(output, 'WRITES', 'END')).toEqual([]);
    expect(existsSync(join(root, 'probe'))).toBe(false);
    expect(output).toContain('OWN-FOLDERS-WRITABLE');
    // Named by the program each runs (Node 24 names its main thread, so a node process's comm
    // reads "MainThread" there).
    const processes = section(output, 'PS', 'END')
      .filter((line) => /^\d+ /.test(line)) // the section runs to the end of the output here
      .map((line) => {
        const [pid, program] = line.split(/\s+/);
        return { pid: Number(pid), name: basename(program!) };
      });
    // Its own PID namespace: bwrap is init, the agent server and its shell are in there, nothing else.
    expect(processes[0]).toEqual({ pid: 1, name: 'bwrap' });
    expect(processes.map((p) => p.name)).toContain('node');
    expect(processes.map((p) => p.pid)).not.toContain(process.pid);
    const record = await recordOf(other);
    expect(processes.length).toBeLessThan(10);
    expect(processes.length).toBeLessThan(descendants(1).length);
    expect(processes.map((p) => p.pid)).not.toContain(record.pid);

    const conversation = await getJson<Json[]>(server, `/api/v1/app-conversations?ids=${conversationId}`);
    const sandbox = (
      await getJson<Json[]>(server, `/api/v1/sandboxes?id=${conversation[0]!.sandbox_id}`)
    )[0]!;
    // The file the agent wrote is the sandbox's workspace on this machine.
    expect(existsSync(join(dataDir, 'sandboxes', sandbox.id as string, 'workspace', 'probe'))).toBe(true);
  });

  it('runs start-task commands inside the sandbox, pauses and resumes its whole tree, and stops it', async () => {
    const sandbox = await runningSandbox();
    const record = await recordOf(sandbox);
    // Where this machine lets agentd make cgroups (a v1 pids hierarchy), the sandbox is in its own.
    const pidsCgroup = ownPidsCgroup(`agentd-${sandbox.id}`);
    if (pidsCgroup) {
      expect(readFileSync(`/proc/${record.pid}/cgroup`, 'utf8')).toContain(`agentd-${sandbox.id}`);
      expect(readFileSync(join(pidsCgroup, 'pids.max'), 'utf8').trim()).toBe(CGROUP_LIMITS.pids[1]);
      const members = readFileSync(join(pidsCgroup, 'cgroup.procs'), 'utf8').split('\n').map(Number);
      for (const p of [record.pid!, ...descendants(record.pid!)]) expect(members).toContain(p);
    }
    const shell = await server.controlPlane!.sandboxes.exec(record, 'pwd; ls /; ls /workspace/project', {
      cwd: '/workspace/project',
      timeoutMs: 10_000,
    });
    expect(shell.exitCode).toBe(0);
    expect(shell.output.split('\n')[0]).toBe('/workspace/project');
    expect(shell.output).not.toContain('sandboxes');
    const outside = await server.controlPlane!.sandboxes.exec(record, `ls ${dataDir}/sandboxes`, {
      cwd: '/',
      timeoutMs: 10_000,
    });
    expect(outside.exitCode).not.toBe(0);

    const pid = record.pid!;
    expect(await postJson(server, `/api/v1/sandboxes/${sandbox.id}/pause`)).toEqual({ success: true });
    const tree = [pid, ...descendants(pid)];
    expect(tree.length).toBeGreaterThan(1);
    for (const p of tree) expect(processState(p)).toBe('stopped');
    expect(await postJson(server, `/api/v1/sandboxes/${sandbox.id}/resume`)).toEqual({ success: true });
    for (const p of tree) expect(processState(p)).toBe('running');
    const url = (sandbox.exposed_urls as Json[])[0]!.url as string;
    expect((await fetch(`${url}/alive`)).status).toBe(200);

    const deleted = await fetch(`${server.url}/api/v1/sandboxes/${sandbox.id}`, {
      method: 'DELETE',
      headers: { 'X-Session-API-Key': server.key },
    });
    expect(deleted.status).toBe(200);
    for (const p of tree) expect(processState(p)).toBe('gone');
    if (pidsCgroup) expect(existsSync(pidsCgroup)).toBe(false);
  });

  it('reads MISSING when the sandbox is killed: every process of it ends with it', async () => {
    const sandbox = await runningSandbox();
    const record = await recordOf(sandbox);
    const tree = [record.pid!, ...descendants(record.pid!)];
    process.kill(record.pid!, 'SIGKILL');
    const missing = await eventually(async () => {
      const [current] = await getJson<Json[]>(server, `/api/v1/sandboxes?id=${sandbox.id}`);
      return current?.status === 'MISSING' ? current : undefined;
    });
    expect(missing.session_api_key).toBeNull();
    await eventually(async () => (tree.every((p) => processState(p) === 'gone') ? true : undefined));
    const pidsCgroup = ownPidsCgroup(`agentd-${sandbox.id}`);
    const deleted = await fetch(`${server.url}/api/v1/sandboxes/${sandbox.id}`, {
      method: 'DELETE',
      headers: { 'X-Session-API-Key': server.key },
    });
    expect(deleted.status).toBe(200);
    if (pidsCgroup) expect(existsSync(pidsCgroup)).toBe(false);
  });
});

describe('BwrapSandboxProvider on its own', () => {
  it("puts spec working folders in the sandbox's workspace or home, never through a link", async () => {
    const provider = new BwrapSandboxProvider();
    const dir = tempDir('agentd-bwrap-');
    try {
      expect(provider.workingDir(dir, 'workspace')).toBe('/workspace/project');
      expect(provider.workingDir(dir, 'workspace/app')).toBe('/workspace/project/app');
      expect(provider.workingDir(dir, 'app')).toBe('/workspace/project/app');
      expect(provider.workingDir(dir, '/home/agent/code')).toBe('/home/agent/code');
      const launch = (working_dir: string) =>
        provider.launch({
          id: 'w',
          dir,
          spec: { ...new SandboxSpecs().get('process'), working_dir },
          sessionKey: 'k',
        });
      await expect(launch('/opt/code')).rejects.toThrow(/outside the sandbox's writable folders/);
      await expect(launch('../elsewhere')).rejects.toThrow(/outside the sandbox's writable folders/);
      // A link the sandbox made in its workspace is not followed on this machine.
      const elsewhere = tempDir('agentd-bwrap-elsewhere-');
      symlinkSync(elsewhere, join(dir, 'workspace', 'app'));
      await expect(launch('workspace/app/sub')).rejects.toThrow(/is not a folder/);
      expect(existsSync(join(elsewhere, 'sub'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("binds the server's configuration files read-only and passes no control-plane key", async () => {
    const saved = { ...process.env };
    const dir = tempDir('agentd-bwrap-');
    const hooks = join(tempDir('agentd-bwrap-hooks-'), 'hooks.json');
    writeFileSync(hooks, JSON.stringify({ stop: [{ hooks: [{ command: 'exit 0' }] }] }));
    Object.assign(process.env, { AGENTD_HOOKS_FILE: hooks, OH_SECRET_KEY: 'control-plane-secret' });
    const provider = new BwrapSandboxProvider();
    const spec = new SandboxSpecs().get('process');
    let sandbox: { pid: number; dir: string } | null = null;
    try {
      // The agent server reads the hooks file at start-up: it starts only if the file is there.
      const launched = await provider.launch({ id: 'h', dir, spec, sessionKey: 'sandbox-key' });
      sandbox = { pid: launched.pid, dir };
      const server = descendants(launched.pid).find((pid) =>
        readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('agent'),
      )!;
      const env = readFileSync(`/proc/${server}/environ`, 'utf8').split('\0');
      expect(env).toContain('OH_SESSION_API_KEYS_0=sandbox-key');
      expect(env).toContain('HOME=/home/agent');
      expect(env.join('\n')).not.toMatch(/control-plane/);
      const shell = await provider.exec(sandbox, `cat ${hooks} && echo more >> ${hooks}`, {
        cwd: provider.workingDir(dir, spec.working_dir),
        timeoutMs: 10_000,
      });
      expect(shell.output).toContain('exit 0');
      expect(shell.output).toMatch(/Read-only file system/);
      expect(shell.exitCode).not.toBe(0);
    } finally {
      process.env = saved;
      if (sandbox) await provider.stop(sandbox);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('agentd serve with --sandbox-provider', () => {
  it('keeps bwrap sandboxes running through a kill -9 of the control plane and adopts them', async () => {
    const dir = tempDir('agentd-bwrap-cli-');
    const env = { OH_SESSION_API_KEYS_0: 'cli-key', AGENTD_SANDBOX_PROVIDER: 'bwrap' };
    const serve = () => runCli(['serve', '--port', '0', '--data-dir', dir], { env });
    let cli = await serve();
    const call = (path: string, method = 'GET') =>
      fetch(`${cli.url}${path}`, { method, headers: { 'X-Session-API-Key': 'cli-key' } });
    try {
      const { id } = (await (await call('/api/v1/sandboxes', 'POST')).json()) as { id: string };
      const running = await eventually(async () => {
        const [s] = (await (await call(`/api/v1/sandboxes?id=${id}`)).json()) as Json[];
        return s?.status === 'RUNNING' ? s : undefined;
      });
      await cli.stop('SIGKILL');

      cli = await serve();
      const [adopted] = (await (await call(`/api/v1/sandboxes?id=${id}`)).json()) as Json[];
      expect(adopted).toMatchObject({ status: 'RUNNING', exposed_urls: running.exposed_urls });
      const url = (running.exposed_urls as Json[])[0]!.url as string;
      expect((await fetch(`${url}/alive`)).status).toBe(200);
      expect((await call(`/api/v1/sandboxes/${id}`, 'DELETE')).status).toBe(200);
      await expect(fetch(`${url}/alive`)).rejects.toThrow();
    } finally {
      await cli.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('falls back to plain processes with one warning when bwrap is missing and was not asked for', async () => {
    const dir = tempDir('agentd-bwrap-cli-');
    // No bwrap on the PATH; the check runs while the server loads and is answered before it listens.
    const cli = await runCli(['serve', '--port', '0', '--data-dir', dir], {
      env: { PATH: '/nonexistent', OH_SESSION_API_KEYS_0: 'cli-key' },
    });
    try {
      expect(cli.output()).toContain('  sandboxes: process');
      // stderr is a pipe of its own: its line may arrive after the banner.
      const warnings = await eventually(async () => cli.output().match(/agentd: warning: .*/g) ?? undefined);
      expect(warnings).toEqual([
        'agentd: warning: sandboxes run as plain processes, without isolation (bwrap cannot run here: bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap))',
      ]);
    } finally {
      await cli.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to start when the provider asked for cannot run, in one line', async () => {
    const dir = tempDir('agentd-bwrap-cli-');
    try {
      const unknown = runCli(['serve', '--port', '0', '--data-dir', dir, '--sandbox-provider', 'docker']);
      await expect(unknown).rejects.toThrow(/exited with 2[\s\S]*Invalid sandbox provider: docker/);
      // No bwrap on the PATH.
      const missing = runCli(['serve', '--port', '0', '--data-dir', dir], {
        env: { PATH: '/nonexistent', AGENTD_SANDBOX_PROVIDER: 'bwrap' },
      });
      await expect(missing).rejects.toThrow(/exited with 2[\s\S]*bwrap is not installed/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
