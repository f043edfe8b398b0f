// Which process holds a data folder. Two processes on one folder would each recover the other's
// running conversations and run them twice, so `agentd serve` and an in-process `agentd run` each
// claim the folder in `agentd.owner.json` ({pid, kind, url}) and give it back when they exit. A claim
// whose process is gone (a crash, kill -9) is stale and taken over.
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from './config-error.js';

export interface DataOwner {
  pid: number;
  kind: 'serve' | 'run';
  /** Where a serving owner answers (loopback-reachable); null until it listens. */
  url: string | null;
}

const fileOf = (dataDir: string) => join(dataDir, 'agentd.owner.json');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function read(dataDir: string): DataOwner | null {
  try {
    const owner = JSON.parse(readFileSync(fileOf(dataDir), 'utf8')) as DataOwner;
    return Number.isInteger(owner.pid) ? owner : null;
  } catch {
    return null;
  }
}

/** The live process holding the folder (not this one), or null. */
export function dataOwner(dataDir: string): DataOwner | null {
  const owner = read(dataDir);
  return owner && owner.pid !== process.pid && alive(owner.pid) ? owner : null;
}

/** Why the folder cannot be used here, in one line that says what to do instead. */
export function ownerMessage(dataDir: string, owner: DataOwner): string {
  const who =
    owner.kind === 'serve'
      ? `agentd serve${owner.url ? ` at ${owner.url}` : ''} (pid ${owner.pid})`
      : `an in-process agentd run (pid ${owner.pid})`;
  return `the data folder ${dataDir} is in use by ${who}; stop it, use another folder with --data-dir, or talk to a running server with agentd run --url`;
}

export interface Claim {
  /** Records where this process serves, so `agentd run` can use it. */
  setUrl(url: string): void;
}

/**
 * Claims the folder for this process, or throws a ConfigError naming the live holder. The claim is
 * given back when the process exits, however it exits short of a kill -9.
 */
export function claimDataDir(dataDir: string, kind: DataOwner['kind']): Claim {
  const file = fileOf(dataDir);
  const write = (owner: DataOwner, flag: 'wx' | 'w') =>
    writeFileSync(file, `${JSON.stringify(owner)}\n`, { mode: 0o600, flag });
  const mine: DataOwner = { pid: process.pid, kind, url: null };
  try {
    write(mine, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const owner = dataOwner(dataDir);
    if (owner) throw new ConfigError(ownerMessage(dataDir, owner));
    write(mine, 'w'); // stale: its process is gone
  }
  process.once('exit', () => {
    if (read(dataDir)?.pid === process.pid) unlinkSync(file);
  });
  return {
    setUrl(url) {
      mine.url = url;
      write(mine, 'w');
    },
  };
}
