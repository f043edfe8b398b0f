import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, runCliToExit } from '../support/cli.js';
import { tempDir } from '../support/server.js';

const newDir = () => tempDir('agentd-cli-');

describe('agentd serve (the real binary)', () => {
  it('generates a session key, stores it 0600, prints URL and key, and enforces it', async () => {
    const dataDir = newDir();
    const cli = await runCli(['serve', '--port', '0', '--data-dir', dataDir]);
    try {
      expect(cli.key).toBeTruthy();
      const keyFile = join(dataDir, 'session_api_key');
      expect(readFileSync(keyFile, 'utf8').trim()).toBe(cli.key);
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      expect((await fetch(`${cli.url}/api/settings`)).status).toBe(401);
      expect(
        (await fetch(`${cli.url}/api/settings`, { headers: { 'X-Session-API-Key': cli.key! } })).status,
      ).toBe(200);
      expect(cli.output()).not.toMatch(/"level":50/); // no error lines
    } finally {
      expect(await cli.stop()).toBe(0);
    }
    // The same key is reused on the next start.
    const again = await runCli(['serve', '--port', '0', '--data-dir', dataDir]);
    expect(again.key).toBe(cli.key);
    await again.stop();
  });

  it('reads OH_SESSION_API_KEYS_n and SESSION_API_KEY from the environment and never prints them', async () => {
    const cli = await runCli(['--port', '0', '--data-dir', newDir()], {
      env: {
        OH_SESSION_API_KEYS_0: 'env-key-zero',
        OH_SESSION_API_KEYS_1: 'env-key-one',
        SESSION_API_KEY: 'legacy-ignored',
      },
    });
    try {
      expect(cli.output()).not.toContain('env-key-zero');
      for (const key of ['env-key-zero', 'env-key-one']) {
        expect(
          (await fetch(`${cli.url}/api/settings`, { headers: { 'X-Session-API-Key': key } })).status,
        ).toBe(200);
      }
      expect(
        (await fetch(`${cli.url}/api/settings`, { headers: { 'X-Session-API-Key': 'legacy-ignored' } }))
          .status,
      ).toBe(401);
    } finally {
      await cli.stop();
    }
    const legacy = await runCli(['--port', '0', '--data-dir', newDir()], {
      env: { SESSION_API_KEY: 'legacy-key' },
    });
    expect(
      (await fetch(`${legacy.url}/api/settings`, { headers: { 'X-Session-API-Key': 'legacy-key' } })).status,
    ).toBe(200);
    await legacy.stop();
  });

  it('serves without a key only with --no-auth, and then only on loopback', async () => {
    const cli = await runCli(['--no-auth', '--port', '0', '--data-dir', newDir()]);
    expect(cli.key).toBeNull();
    expect((await fetch(`${cli.url}/api/settings`)).status).toBe(200);
    await cli.stop();

    const refused = spawnSync(
      process.execPath,
      ['dist/cli.js', '--no-auth', '--host', '0.0.0.0', '--port', '0', '--data-dir', newDir()],
      {
        encoding: 'utf8',
      },
    );
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('loopback only');
  });

  it('rejects a bad port with a clear message', () => {
    const res = spawnSync(process.execPath, ['dist/cli.js', '--port', 'eighty', '--data-dir', newDir()], {
      encoding: 'utf8',
    });
    expect(res.status).toBe(2);
    expect(res.stderr).toContain('Invalid port');
  });

  it('agentd demo runs a whole scripted conversation to the end', () => {
    const res = spawnSync(process.execPath, ['dist/cli.js', 'demo'], { encoding: 'utf8', timeout: 60_000 });
    expect(res.status).toBe(0);
    expect(res.stdout).toContain('$ pwd && ls -la');
    expect(res.stdout).toContain('hello from agentd');
    expect(res.stdout).toContain('status → finished');
    expect(res.stdout).toContain('I wrote hello.py and ran it');
  });

  it('runs `npm start` from a clean clone of the committed tree, building only when a source changed', async () => {
    const clone = newDir();
    execFileSync('git', ['clone', '--quiet', '--local', process.cwd(), clone]);
    symlinkSync(join(process.cwd(), 'node_modules'), join(clone, 'node_modules'));
    const start = async () => {
      const cli = await runCli(['--port', '0', '--data-dir', join(clone, '.data')], {
        cwd: clone,
        command: ['npm', 'start', '--silent', '--'],
        // npm turns on Node's compile cache (Node 22 and later), by default in the temp folder.
        env: { NODE_COMPILE_CACHE: join(clone, '.node-compile-cache') },
      });
      try {
        const res = await fetch(`${cli.url}/alive`);
        expect(await res.json()).toEqual({ status: 'ok' });
      } finally {
        await cli.stop();
      }
      return statSync(join(clone, 'dist', 'cli.js')).mtimeMs;
    };
    const built = await start();
    expect(await start()).toBe(built);
    const source = join(clone, 'src', 'cli', 'main.ts');
    const later = new Date(built + 2000);
    utimesSync(source, later, later);
    expect(await start()).toBeGreaterThan(built);
  });

  it('agentd agent serves the agent-server API only, with the key from the environment', async () => {
    const refused = spawnSync(process.execPath, ['dist/cli.js', 'agent', '--data-dir', newDir()], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('OH_SESSION_API_KEYS_0');

    const cli = await runCli(['agent', '--data-dir', newDir()], {
      env: { OH_SESSION_API_KEYS_0: 'sandbox-key' },
    });
    try {
      expect(cli.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/); // port 0: any free port
      const headers = { 'X-Session-API-Key': 'sandbox-key' };
      expect((await fetch(`${cli.url}/api/conversations/count`, { headers })).status).toBe(200);
      expect((await fetch(`${cli.url}/api/v1/sandboxes/search`, { headers })).status).toBe(404);
      expect((await fetch(`${cli.url}/api/conversations/count`)).status).toBe(401);
      // The OpenAPI document, but no interactive docs inside a sandbox.
      expect((await fetch(`${cli.url}/openapi.json`)).status).toBe(200);
      expect((await fetch(`${cli.url}/docs`)).status).toBe(404);
    } finally {
      await cli.stop();
    }
  });
});

/** A usage mistake: exit code 2 and exactly one line on stderr, no stack trace. */
function expectOneLineError(res: { status: number | null; stderr: string }, text: string | RegExp): void {
  expect(res.status).toBe(2);
  const lines = res.stderr.split('\n').filter((l) => l.length > 0);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^agentd: /);
  expect(lines[0]).toMatch(text);
  expect(res.stderr).not.toMatch(/^\s+at /m);
}

describe('agentd usage errors (the real binary)', () => {
  it('names an unknown command as one, and an unexpected argument as one', () => {
    expectOneLineError(runCliToExit(['bogus']), "unknown command 'bogus' (commands: serve, agent, demo");
    expectOneLineError(runCliToExit(['serve', 'bogus']), "unexpected argument 'bogus' for 'serve'");
    expectOneLineError(runCliToExit(['demo', 'extra']), "unexpected argument 'extra' for 'demo'");
  });

  it('rejects an unknown option, a missing value and a bad value in one line each', () => {
    expectOneLineError(runCliToExit(['--bogus']), "unknown option '--bogus'");
    expectOneLineError(runCliToExit(['--prot', '80']), /unknown option '--prot' \(Did you mean --port\?\)/);
    expectOneLineError(runCliToExit(['serve', '--port']), "option '--port <port>' argument missing");
    expectOneLineError(
      runCliToExit(['--log-level', 'loud', '--data-dir', newDir()]),
      'Invalid log level: loud',
    );
    expectOneLineError(
      runCliToExit(['--data-dir', newDir()], { AGENTD_LOG_LEVEL: 'chatty' }),
      'Invalid log level: chatty',
    );
    expectOneLineError(
      runCliToExit(['--max-sandboxes', '0', '--data-dir', newDir()]),
      'Invalid sandbox limit',
    );
    const aFile = join(newDir(), 'a-file');
    writeFileSync(aFile, '');
    expectOneLineError(
      runCliToExit(['--data-dir', join(aFile, 'x')]),
      /cannot create the data folder .*a-file\/x: ENOTDIR/,
    );
    // --help and --version still end well.
    expect(runCliToExit(['--help']).status).toBe(0);
    expect(runCliToExit(['--version']).stdout.trim()).toBe('0.1.0');
  });

  it('says a port is in use in one line, before opening anything in the data folder', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const dataDir = newDir();
      const res = runCliToExit(['serve', '--port', String(port), '--data-dir', dataDir]);
      expectOneLineError(res, `cannot listen on 127.0.0.1:${port}: the port is in use`);
      expect(existsSync(join(dataDir, 'agentd.db'))).toBe(false);
      expectOneLineError(
        runCliToExit(['agent', '--port', String(port), '--data-dir', newDir()], {
          OH_SESSION_API_KEYS_0: 'k',
        }),
        'the port is in use',
      );
    } finally {
      taken.close();
    }
    expectOneLineError(
      runCliToExit(['--host', 'no-such-host.invalid', '--port', '0', '--data-dir', newDir()]),
      'unknown host no-such-host.invalid',
    );
  });

  it('takes AGENTD_SANDBOX_SPECS as the JSON list the README shows, or a file holding it', async () => {
    const specs = [
      { id: 'python', initial_env: { PYTHONUNBUFFERED: '1' } },
      { id: 'tmp', working_dir: '/tmp' },
    ];
    const cli = await runCli(['--port', '0', '--data-dir', newDir()], {
      env: { SESSION_API_KEY: 'k', AGENTD_SANDBOX_SPECS: JSON.stringify(specs) },
    });
    try {
      const res = await fetch(`${cli.url}/api/v1/sandbox-specs/search`, {
        headers: { 'X-Session-API-Key': 'k' },
      });
      const page = (await res.json()) as {
        items: { id: string; initial_env: object; working_dir: string }[];
      };
      expect(page.items.map((s) => s.id)).toEqual(['process', 'python', 'tmp']);
      expect(page.items[1]!.initial_env).toEqual({ PYTHONUNBUFFERED: '1' });
      expect(page.items[2]!.working_dir).toBe('/tmp');
    } finally {
      await cli.stop();
    }
    expectOneLineError(
      runCliToExit(['--data-dir', newDir()], { AGENTD_SANDBOX_SPECS: '[{"id": "python"' }),
      'AGENTD_SANDBOX_SPECS: not valid JSON',
    );
    expectOneLineError(
      runCliToExit(['--data-dir', newDir()], { AGENTD_SANDBOX_SPECS: '[{"id": "bad id!"}]' }),
      /AGENTD_SANDBOX_SPECS: 0\.id: /,
    );
    expectOneLineError(
      runCliToExit(['--data-dir', newDir()], { AGENTD_SANDBOX_SPECS: '[{"id": "process"}]' }),
      'AGENTD_SANDBOX_SPECS: Sandbox spec id given twice: process',
    );
    expectOneLineError(
      runCliToExit(['--data-dir', newDir()], { AGENTD_SANDBOX_SPECS: join(newDir(), 'none.json') }),
      /AGENTD_SANDBOX_SPECS: cannot read .*none\.json/,
    );
  });
});
