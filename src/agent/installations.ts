// Installed extensions (OpenHands' installed skills and plugins): an extension's folder copied from
// where it came from (extension-source.ts) into `<dir>/<name>`, tracked in that folder's
// `.installed.json` (OpenHands' file: `{extensions: {name: info}}`), so the SDK's own tools read the
// same installation; enabled or disabled, removed, fetched again. One change at a time per process.
import { randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyExtension, fetchSource, InvalidExtensionError, type SourceSpec } from './extension-source.js';
import { EXTENSION_NAME_PATTERN } from './schemas.js';

const METADATA = '.installed.json';

/** OpenHands' InstallationInfo, as it answers it and keeps it in `.installed.json`. */
export interface Installation {
  name: string;
  version: string;
  description: string;
  enabled: boolean;
  source: string;
  requested_ref: string | null;
  resolved_ref: string | null;
  repo_path: string | null;
  installed_at: string;
  install_path: string;
}

export interface InstallRequest extends SourceSpec {
  force?: boolean;
}

/** One of that name is installed already (409). */
export class AlreadyInstalledError extends Error {
  override name = 'AlreadyInstalledError';
}

/** What a kind of extension says of its folder; an InvalidExtensionError when it is none. */
export type ReadExtension = (
  root: string,
  fallbackName: string,
) => {
  name: string;
  version: string;
  description: string;
};

export class Installations {
  /** One change at a time: installations and the metadata file are read, changed and written whole. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    /** The folder they are installed in, one folder each and `.installed.json`. */
    private readonly dir: string,
    /** What they are, for messages: 'Skill', 'Plugin'. */
    private readonly kind: string,
    private readonly read: ReadExtension,
  ) {}

  private inTurn<T>(work: () => Promise<T> | T): Promise<T> {
    const next = this.turn.then(work, work);
    this.turn = next.catch(() => undefined);
    return next;
  }

  /**
   * Fetches the source and installs what is in it (SourceFetchError, InvalidExtensionError,
   * AlreadyInstalledError unless `force`); a reinstall keeps whether it is enabled.
   */
  install(request: InstallRequest): Promise<Installation> {
    return this.inTurn(async () => {
      const scratch = join(tmpdir(), `agentd-install-${randomUUID()}`);
      try {
        const fetched = await fetchSource(request, scratch);
        const { name, version, description } = this.read(fetched.root, fetched.name);
        if (!new RegExp(EXTENSION_NAME_PATTERN).test(name))
          throw new InvalidExtensionError(
            `Invalid ${this.kind.toLowerCase()} name '${name}': lowercase letters and digits in hyphen-separated words`,
          );
        const target = join(this.dir, name);
        const metadata = this.readMetadata();
        if (existsSync(target) && !request.force)
          throw new AlreadyInstalledError(
            `${this.kind} '${name}' is already installed: use force=true to overwrite`,
          );
        copyExtension(fetched.root, target);
        const info: Installation = {
          name,
          version,
          description,
          enabled: metadata[name]?.enabled ?? true,
          source: request.source,
          requested_ref: request.ref ?? null,
          resolved_ref: fetched.resolvedRef,
          repo_path: request.repo_path ?? null,
          installed_at: new Date().toISOString(),
          install_path: target,
        };
        this.writeMetadata({ ...metadata, [name]: info });
        return info;
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    });
  }

  /** Every installation, the metadata reconciled with the folder (gone ones dropped, untracked found). */
  list(): Installation[] {
    const metadata = this.readMetadata();
    const present = new Set(this.folders());
    // Where each one is, from its name: never the metadata's word (OpenHands' tools write that file too).
    const tracked = Object.values(metadata)
      .filter((info) => present.has(info.name))
      .map((info) => ({ ...info, install_path: join(this.dir, info.name) }));
    const found = [...present]
      .filter((name) => !Object.hasOwn(metadata, name))
      .flatMap((name): Installation[] => {
        try {
          const path = join(this.dir, name);
          const { name: named, version, description } = this.read(path, name);
          if (named !== name) return [];
          return [
            {
              name,
              version,
              description,
              enabled: true,
              source: 'local',
              requested_ref: null,
              resolved_ref: null,
              repo_path: null,
              installed_at: statSync(path).mtime.toISOString(),
              install_path: path,
            },
          ];
        } catch {
          return [];
        }
      });
    return [...tracked, ...found].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  get(name: string): Installation | null {
    return this.list().find((info) => info.name === name) ?? null;
  }

  /** Enables or disables one; false when it is not installed. */
  setEnabled(name: string, enabled: boolean): Promise<boolean> {
    return this.inTurn(() => {
      const info = this.get(name);
      if (!info) return false;
      this.writeMetadata({ ...this.readMetadata(), [name]: { ...info, enabled } });
      return true;
    });
  }

  /** Removes one (only a tracked or found installation, never another folder); false when none. */
  uninstall(name: string): Promise<boolean> {
    return this.inTurn(() => {
      const metadata = this.readMetadata();
      const known = Object.hasOwn(metadata, name) || this.get(name) !== null;
      if (!known) return false;
      rmSync(join(this.dir, name), { recursive: true, force: true });
      const { [name]: _gone, ...rest } = metadata;
      this.writeMetadata(rest);
      return true;
    });
  }

  /** Fetches it again from where it came from (its requested ref); null when it is not installed. */
  async refresh(name: string): Promise<Installation | null> {
    const info = this.get(name);
    if (!info) return null;
    return this.install({
      source: info.source,
      ref: info.requested_ref,
      repo_path: info.repo_path,
      force: true,
    });
  }

  /** The enabled installations (read when asked: the folder may change under the server). */
  enabled(): Installation[] {
    return this.list().filter((info) => info.enabled);
  }

  private folders(): string[] {
    try {
      return readdirSync(this.dir, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && new RegExp(EXTENSION_NAME_PATTERN).test(entry.name))
        .map((entry) => entry.name);
    } catch {
      return [];
    }
  }

  private readMetadata(): Record<string, Installation> {
    try {
      const parsed = JSON.parse(readFileSync(join(this.dir, METADATA), 'utf8')) as {
        extensions?: Record<string, Installation>;
        skills?: Record<string, Installation>;
      };
      // OpenHands' older files kept them under `skills`.
      return { ...parsed.skills, ...parsed.extensions };
    } catch {
      return {};
    }
  }

  private writeMetadata(extensions: Record<string, Installation>): void {
    mkdirSync(this.dir, { recursive: true });
    const file = join(this.dir, METADATA);
    writeFileSync(`${file}.tmp`, `${JSON.stringify({ extensions }, null, 2)}\n`);
    renameSync(`${file}.tmp`, file);
  }
}
