// One ConversationSync per mirrored conversation whose sandbox runs. A sandbox that (re)starts gets
// fresh syncs (its agent server may have a new address); one that stops, fails or is deleted loses
// them. A paused sandbox keeps its syncs: their sockets are simply quiet until it resumes.
import type { EventLog } from '../conversation/event-log.js';
import type { SandboxRecord, SandboxService } from '../sandbox/index.js';
import { allItems, type Store } from '../store/index.js';
import { ConversationSync } from './sync.js';

export class MirrorSyncs {
  private readonly syncs = new Map<string, ConversationSync>();
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly log: EventLog,
    private readonly sandboxes: SandboxService,
    private readonly logError: (error: Error, context: string) => void = () => {},
  ) {
    sandboxes.onChange((record, change) => {
      if (change === 'deleted' || record.status === 'MISSING' || record.status === 'ERROR') {
        void this.unfollowSandbox(record.id);
      } else if (record.status === 'RUNNING') {
        void this.unfollowSandbox(record.id).then(() => this.followSandbox(record));
      }
    });
  }

  follow(conversationId: string, sandbox: SandboxRecord): void {
    if (this.closed || this.syncs.has(conversationId) || !sandbox.agentUrl) return;
    const sync = new ConversationSync(
      conversationId,
      sandbox.id,
      { agentUrl: sandbox.agentUrl, sessionKey: this.sandboxes.sessionKey(sandbox) },
      this.store,
      this.log,
      (error) => this.logError(error, `event sync of ${conversationId}`),
      async () => {
        const current = await this.sandboxes.get(sandbox.ownerId, sandbox.id);
        return current !== null && current.status !== 'MISSING' && current.status !== 'ERROR';
      },
    );
    this.syncs.set(conversationId, sync);
    sync.start();
  }

  async followSandbox(sandbox: SandboxRecord): Promise<void> {
    const mirrors = allItems((pageId) =>
      this.store.conversations.search({ sandboxId: sandbox.id, sort: 'CREATED_AT', limit: 100, pageId }),
    );
    for await (const record of mirrors) this.follow(record.id, sandbox);
  }

  async unfollow(conversationId: string): Promise<void> {
    const sync = this.syncs.get(conversationId);
    this.syncs.delete(conversationId);
    await sync?.stop();
  }

  async unfollowSandbox(sandboxId: string): Promise<void> {
    const stopping: Promise<void>[] = [];
    for (const [id, sync] of this.syncs) {
      if (sync.sandboxId !== sandboxId) continue;
      this.syncs.delete(id);
      stopping.push(sync.stop());
    }
    await Promise.all(stopping);
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.syncs.values()];
    this.syncs.clear();
    await Promise.all(all.map((s) => s.stop()));
  }
}
