// The control plane's sandboxes: records in the store, processes through the provider. A sandbox's
// status is what the store recorded, corrected by what the OS says (a process that is gone reads
// MISSING, never a stale RUNNING). Starting returns at once in STARTING; `settled(id)` resolves when
// the start ends. A MISSING or ERROR sandbox is started again by resume, with the same id, key and
// folder, so its agent server finds its conversations where it left them.
import { readdirSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { SecretBox } from '../settings/index.js';
import { allItems, type DocumentStore, type Store } from '../store/index.js';
import type { SandboxInfo, SandboxStatus } from './schemas.js';
import { DEFAULT_SPEC_ID, type SandboxSpecs } from './specs.js';
import {
  type Launched,
  SandboxError,
  SandboxLimitError,
  SandboxNotFoundError,
  type SandboxProvider,
  type SandboxRecord,
} from './types.js';
import { newIdentity, WarmSpare } from './warm-spare.js';

/** How long a call waits for another replica's start to end (a provider's start times out at 30 s). */
const OTHER_REPLICA_START_WAIT_MS = 35_000;

export interface SandboxServiceOptions {
  store: Store;
  provider: SandboxProvider;
  specs: SandboxSpecs;
  secretBox: SecretBox;
  /** Sandboxes live in `<dataDir>/sandboxes/<id>/`. */
  dataDir: string;
  /** At most this many sandboxes STARTING or RUNNING at once (server-wide); default 10. */
  maxRunning?: number;
  /**
   * This replica's name among those sharing the store: the processes it starts are its own, and
   * only it probes, adopts or stops them. Default `<hostname>:<dataDir>`, stable across restarts.
   */
  replica?: string;
  /**
   * Keep one sandbox of the default spec started ahead (a warm spare), so a start takes it
   * instead of waiting for a process to boot; default true.
   */
  warmSpare?: boolean;
}

/** Statuses that hold a place under the limit. */
const ACTIVE: readonly SandboxStatus[] = ['STARTING', 'RUNNING'];
/** Statuses under which a process should exist. */
const LIVE: readonly SandboxStatus[] = ['STARTING', 'RUNNING', 'PAUSED'];

export type SandboxListener = (record: SandboxRecord, change: 'status' | 'deleted') => void;

export class SandboxService {
  private readonly records: DocumentStore<SandboxRecord>;
  private readonly maxRunning: number;
  /** This replica's name (see SandboxServiceOptions.replica); the app layer tags its start tasks with it. */
  readonly replica: string;
  /** Starts in progress in this process, by sandbox id. */
  private readonly starting = new Map<string, Promise<SandboxRecord>>();
  private readonly listeners: SandboxListener[] = [];
  private readonly spares: WarmSpare;

  constructor(private readonly options: SandboxServiceOptions) {
    this.records = options.store.documents<SandboxRecord>('sandboxes');
    this.maxRunning = options.maxRunning ?? 10;
    this.replica = options.replica ?? `${hostname()}:${options.dataDir}`;
    this.spares = new WarmSpare({ ...options, enabled: options.warmSpare !== false });
  }

  onChange(listener: SandboxListener): void {
    this.listeners.push(listener);
  }

  // ---- reads -------------------------------------------------------------------------------------

  /** The record as the OS confirms it; null when unknown or owned by someone else. */
  async get(ownerId: string, id: string): Promise<SandboxRecord | null> {
    const record = await this.records.get(id);
    if (!record || record.ownerId !== ownerId) return null;
    return this.checked(record);
  }

  async getMany(ownerId: string, ids: readonly string[]): Promise<(SandboxRecord | null)[]> {
    const records = await this.records.getMany(ids);
    return Promise.all(records.map((r) => (r && r.ownerId === ownerId ? this.checked(r) : null)));
  }

  async search(
    ownerId: string,
    query: { pageId?: string; limit: number },
  ): Promise<{ items: SandboxRecord[]; nextPageId: string | null }> {
    const page = await this.records.search({ ownerId, sort: 'CREATED_AT_DESC', ...query });
    return { items: await Promise.all(page.items.map((r) => this.checked(r))), nextPageId: page.nextPageId };
  }

  info(record: SandboxRecord): SandboxInfo {
    const running = record.status === 'RUNNING' && record.agentUrl !== null;
    return {
      id: record.id,
      created_by_user_id: record.ownerId,
      sandbox_spec_id: record.specId,
      status: record.status,
      session_api_key: running ? this.sessionKey(record) : null,
      exposed_urls: running ? [{ name: 'AGENT_SERVER', url: record.agentUrl! }] : null,
      created_at: record.createdAt,
    };
  }

  /**
   * Who a sandbox's own key speaks for: the owner and the key of the sandbox `id` while it is starting
   * or running (its agent server reads the owner's secrets through the control plane with that key,
   * as OpenHands Cloud's sandboxes do); null otherwise. The caller compares the key it was offered.
   */
  async liveCredentials(id: string): Promise<{ ownerId: string; key: string } | null> {
    const stored = await this.records.get(id);
    if (!stored) return null;
    const record = await this.checked(stored);
    if (!ACTIVE.includes(record.status)) return null;
    return { ownerId: record.ownerId, key: this.sessionKey(record) };
  }

  /** The agent server's key in clear, for the control plane's own calls and for the owner. */
  sessionKey(record: SandboxRecord): string {
    return this.options.secretBox.decrypt(record.sessionKey, `sandbox:${record.id}`);
  }

  /** Resolves when a start in progress ends (at once when none is). */
  async settled(ownerId: string, id: string): Promise<SandboxRecord> {
    const pending = this.starting.get(id);
    if (pending) await pending.catch(() => undefined);
    let record = await this.get(ownerId, id);
    // Another replica's start ends in the shared store: wait for it there (bounded, in case that
    // replica died mid-start), so a pause or delete through this replica acts on the started process.
    const deadline = Date.now() + OTHER_REPLICA_START_WAIT_MS;
    while (record?.status === 'STARTING' && !this.ours(record) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      record = await this.get(ownerId, id);
    }
    if (!record) throw new SandboxNotFoundError(id);
    return record;
  }

  // ---- lifecycle ---------------------------------------------------------------------------------

  /** Creates a sandbox in STARTING and starts it in the background (or takes the warm spare). */
  async start(ownerId: string, specId?: string | null): Promise<SandboxRecord> {
    const spec = this.options.specs.get(specId);
    const spare = spec.id === DEFAULT_SPEC_ID ? this.spares.current : null;
    const { id, key, dir } = spare ?? newIdentity(this.options.dataDir);
    const now = new Date().toISOString();
    const record: SandboxRecord = {
      id,
      ownerId,
      status: 'STARTING',
      specId: spec.id,
      sessionKey: this.options.secretBox.encrypt(key, `sandbox:${id}`),
      dir,
      agentUrl: null,
      pid: null,
      detail: null,
      replica: this.replica,
      createdAt: now,
      updatedAt: now,
    };
    await this.admit(() => this.records.put(record));
    if (spare) {
      this.spares.take(spare);
      this.launch(
        record,
        this.spares.claim(spare, () => this.options.provider.launch(this.launchRequest(record))),
      );
    } else {
      this.launch(record);
    }
    // The first start boots the spare: a server that never starts sandboxes runs no extra process.
    this.spares.refill();
    return record;
  }

  async pause(ownerId: string, id: string): Promise<boolean> {
    let record = await this.get(ownerId, id);
    if (!record) return false;
    if (record.status === 'STARTING') record = await this.settled(ownerId, id);
    if (record.status !== 'RUNNING') return true;
    this.options.provider.pause(record);
    await this.save(record, { status: 'PAUSED' });
    return true;
  }

  /** Continues a paused sandbox, or starts a MISSING or ERROR one again. */
  async resume(ownerId: string, id: string): Promise<boolean> {
    const record = await this.get(ownerId, id);
    if (!record) return false;
    if (record.status === 'RUNNING' || record.status === 'STARTING') return true;
    if (record.status === 'PAUSED') {
      await this.admit(async () => {
        this.options.provider.resume(record);
        await this.save(record, { status: 'RUNNING' });
      });
      return true;
    }
    const restarting = await this.admit(() => this.save(record, { status: 'STARTING', detail: null }));
    this.launch(restarting);
    return true;
  }

  async delete(ownerId: string, id: string): Promise<boolean> {
    let record = await this.get(ownerId, id);
    if (!record) return false;
    if (record.status === 'STARTING') record = await this.settled(ownerId, id);
    await this.options.provider.stop(record);
    await this.records.delete(id);
    rmSync(record.dir, { recursive: true, force: true });
    this.emit(record, 'deleted');
    return true;
  }

  /**
   * After a restart: sandboxes whose process is gone read MISSING; live ones (the previous control
   * plane crashed) are adopted as they are; one caught mid-start is stopped and reads MISSING.
   */
  async reconcile(): Promise<SandboxRecord[]> {
    const live: SandboxRecord[] = [];
    for await (const record of this.live()) {
      if (!this.ours(record)) continue;
      if (record.status === 'STARTING') {
        await this.options.provider.stop(record);
        await this.save(record, { status: 'MISSING', pid: null, agentUrl: null });
        continue;
      }
      const checked = await this.checked(record);
      if (checked.status !== 'MISSING') live.push(checked);
    }
    await this.removeOrphanFolders();
    return live;
  }

  /** Folders of spares a crashed control plane left behind (a spare exits when its parent is gone). */
  private async removeOrphanFolders(): Promise<void> {
    const root = join(this.options.dataDir, 'sandboxes');
    let names: string[];
    try {
      names = readdirSync(root);
    } catch {
      return;
    }
    const records = await this.records.getMany(names);
    for (const [i, name] of names.entries()) {
      if (records[i]) continue;
      const dir = join(root, name);
      // Its process ended with the old control plane; this frees what the provider kept (cgroups).
      await this.options.provider.stop({ pid: null, dir });
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** Stops every sandbox process (graceful shutdown); they read MISSING until resumed. */
  async close(): Promise<void> {
    await this.spares.close();
    await Promise.allSettled([...this.starting.values()]);
    // Recorded as MISSING, so that replicas sharing the store do not read them RUNNING meanwhile.
    const stopping: Promise<unknown>[] = [];
    for await (const record of this.live()) {
      if (!this.ours(record)) continue;
      stopping.push(
        this.options.provider
          .stop(record)
          .then(() => this.save(record, { status: 'MISSING', pid: null, agentUrl: null })),
      );
    }
    await Promise.all(stopping);
  }

  /** The sandbox's working folder (its spec's) as its processes see it. */
  workingDir(record: SandboxRecord): string {
    return this.options.provider.workingDir(record.dir, this.options.specs.get(record.specId).working_dir);
  }

  /** Runs a shell command in a sandbox (the setup steps of an app conversation's start). */
  exec(
    record: SandboxRecord,
    command: string,
    options: { cwd: string; timeoutMs: number },
  ): Promise<{ exitCode: number | null; output: string }> {
    return this.options.provider.exec(record, command, options);
  }

  // ---- internals ---------------------------------------------------------------------------------

  /** Every sandbox a process should exist for, oldest first. */
  private live(): AsyncGenerator<SandboxRecord> {
    return allItems((pageId) =>
      this.records.search({ status: LIVE, sort: 'CREATED_AT', limit: 100, pageId }),
    );
  }

  private launchRequest(record: SandboxRecord) {
    return {
      id: record.id,
      dir: record.dir,
      spec: this.options.specs.get(record.specId),
      sessionKey: this.sessionKey(record),
    };
  }

  private launch(record: SandboxRecord, launching?: Promise<Launched>): void {
    const start = (async () => {
      try {
        const { pid, agentUrl } = await (launching ??
          this.options.provider.launch(this.launchRequest(record)));
        return await this.save(record, { status: 'RUNNING', pid, agentUrl, detail: null });
      } catch (error) {
        const detail =
          error instanceof SandboxError ? error.message : `Sandbox failed to start: ${String(error)}`;
        return this.save(record, { status: 'ERROR', pid: null, agentUrl: null, detail });
      }
    })();
    this.starting.set(record.id, start);
    void start.finally(() => this.starting.delete(record.id));
  }

  /**
   * Runs `work` if a place under the limit is free, one admission at a time across every replica
   * sharing the store (the limit is server-wide, whichever replica a start reaches).
   */
  private admit<T>(work: () => Promise<T>): Promise<T> {
    return this.options.store.exclusive('sandbox-admission', async () => {
      const active = await this.records.count({ status: ACTIVE });
      if (active >= this.maxRunning) throw new SandboxLimitError(this.maxRunning);
      return work();
    });
  }

  /** Whether this replica runs the sandbox's process (another replica's is not probed or stopped here). */
  private ours(record: SandboxRecord): boolean {
    return record.replica === undefined || record.replica === this.replica;
  }

  /** Corrects a record whose process is gone to MISSING (persisted); another replica's reads as stored. */
  private async checked(record: SandboxRecord): Promise<SandboxRecord> {
    if (!LIVE.includes(record.status) || this.starting.has(record.id) || !this.ours(record)) return record;
    if (this.options.provider.liveness(record) !== 'gone') return record;
    return this.save(record, { status: 'MISSING', pid: null, agentUrl: null });
  }

  private async save(record: SandboxRecord, changes: Partial<SandboxRecord>): Promise<SandboxRecord> {
    const next = { ...record, ...changes, updatedAt: new Date().toISOString() };
    await this.records.put(next);
    if (changes.status && changes.status !== record.status) this.emit(next, 'status');
    return next;
  }

  private emit(record: SandboxRecord, change: 'status' | 'deleted'): void {
    for (const listener of this.listeners) listener(record, change);
  }
}
