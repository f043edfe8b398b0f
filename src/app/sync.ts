// Keeps the control plane's mirror of a sandboxed conversation up to date: a WebSocket to the
// sandbox's agent server with agentd's `after_seq` cursor, starting from the mirror's last sequence
// number. Both logs assign 1, 2, 3… in the same order, so the cursor is exact: a restart of either
// side resumes with no gap and no duplicate. Events are appended through the EventLog, so readers of
// the mirror (REST, WebSocket) see them as they arrive.
import WebSocket from 'ws';
import type { EventLog } from '../conversation/event-log.js';
import { titleFromText } from '../conversation/state.js';
import type { AnyEvent } from '../events/index.js';
import type { ConversationPatch, ConversationRecord, Store } from '../store/index.js';
import { hex } from './records.js';

export interface SyncTarget {
  agentUrl: string;
  sessionKey: string;
}

export interface Envelope {
  seq: number | null;
  event: Record<string, unknown>;
}

/** Close codes after which retrying cannot help. */
const FINAL_CLOSE_CODES = new Set([4001, 4004]);
const MAX_RETRY_MS = 5_000;

export class ConversationSync {
  private socket: WebSocket | null = null;
  private stopped = false;
  private retryMs = 100;
  private retryTimer: NodeJS.Timeout | null = null;
  /** Frames received and not yet stored, in arrival order. */
  private pending: Envelope[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private flushQueued = false;

  constructor(
    readonly conversationId: string,
    readonly sandboxId: string,
    private readonly target: SyncTarget,
    private readonly store: Store,
    private readonly log: EventLog,
    private readonly onFailure: (error: Error) => void = () => {},
    /** Asked before reconnecting: false once the sandbox is gone (its status then reads MISSING). */
    private readonly sandboxAlive: () => Promise<boolean> = async () => true,
  ) {}

  start(): void {
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.socket?.terminate();
    await this.flushing;
  }

  private async connect(): Promise<void> {
    // Whatever was received must be stored first, or the cursor would ask for it again.
    await this.flushing;
    if (this.stopped) return;
    let expected = (await this.store.events.lastSeq(this.conversationId)) + 1;
    const url = `${this.target.agentUrl.replace(/^http/, 'ws')}/sockets/events/${hex(this.conversationId)}?after_seq=${expected - 1}`;
    const socket = new WebSocket(url, {
      headers: { 'X-Session-API-Key': this.target.sessionKey },
      handshakeTimeout: 10_000,
    });
    this.socket = socket;
    socket.on('open', () => {
      this.retryMs = 100;
    });
    socket.on('message', (data) => {
      let envelope: Envelope;
      try {
        envelope = JSON.parse(data.toString()) as Envelope;
      } catch {
        return socket.terminate();
      }
      if (envelope.seq !== null) {
        if (envelope.seq < expected) return; // already stored
        if (envelope.seq > expected) return socket.terminate(); // a gap: reconnect from the cursor
        expected++;
      } else if (envelope.event?.key !== 'full_state') {
        return; // other transient frames (server errors) are not the mirror's business
      }
      this.pending.push(envelope);
      this.queueFlush();
    });
    socket.on('error', () => {
      // 'close' follows and decides about retrying.
    });
    socket.on('close', (code) => {
      if (this.socket === socket) this.socket = null;
      if (this.stopped) return;
      if (FINAL_CLOSE_CODES.has(code)) {
        this.onFailure(new Error(`The sandbox closed the event stream of ${this.conversationId} (${code})`));
        return;
      }
      this.retryTimer = setTimeout(() => void this.retry(), this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    });
  }

  private async retry(): Promise<void> {
    if (this.stopped) return;
    if (await this.sandboxAlive().catch(() => true)) return this.connect();
    this.stopped = true;
  }

  /** Appends what arrived in one go (one transaction per burst), after the previous flush. */
  private queueFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    this.flushing = this.flushing.then(async () => {
      this.flushQueued = false;
      const frames = this.pending;
      this.pending = [];
      try {
        const record = await this.store.conversations.get(this.conversationId);
        if (!record) return;
        const patch = mirrorPatch(record, frames);
        const events = frames.filter((f) => f.seq !== null).map((f) => f.event as unknown as AnyEvent);
        if (events.length > 0) await this.log.append(this.conversationId, events, patch);
        else await this.store.conversations.update(this.conversationId, patch);
      } catch (error) {
        // Nothing was stored: drop the socket so the next one starts again from the stored cursor.
        this.onFailure(error as Error);
        this.socket?.terminate();
      }
    });
  }
}

/** The mirror record's changes implied by synced events and full_state snapshots, in order. */
export function mirrorPatch(record: ConversationRecord, frames: readonly Envelope[]): ConversationPatch {
  const patch: ConversationPatch = { updatedAt: new Date().toISOString() };
  let state = record.state;
  let title = record.title;
  const setState = (key: string, value: unknown) => {
    state = { ...state, [key]: value };
    patch.state = state;
  };
  for (const { event } of frames) {
    const e = event as {
      kind: string;
      source?: string;
      key?: string;
      value?: unknown;
      llm_message?: { content?: { text?: string }[] };
    };
    if (e.kind === 'ConversationStateUpdateEvent' && e.key === 'full_state') {
      const full = e.value as { execution_status?: unknown; stats?: unknown };
      if (typeof full.execution_status === 'string') patch.executionStatus = full.execution_status;
      if (full.stats) setState('stats', full.stats);
    } else if (e.kind === 'ConversationStateUpdateEvent') {
      if (e.key === 'execution_status') patch.executionStatus = e.value as string;
      else if (e.key === 'stats' || e.key === 'last_user_message_id') setState(e.key, e.value);
    } else if (e.kind === 'MessageEvent' && e.source === 'user' && title === null) {
      title = titleFromText((e.llm_message?.content ?? []).map((c) => c.text ?? '').join(' '));
      if (title) patch.title = title;
    }
  }
  return patch;
}
