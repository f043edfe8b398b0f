// The persistence ports. Callers depend only on these interfaces; `sqlite/` implements them
// for the embedded default and a PostgreSQL adapter can implement them for the scaled-out mode.
// Every method is async so that a networked database fits without touching callers. Several
// processes (replicas) may share one PostgreSQL store: `exclusive` is how they take turns.

/** The members of an event the store reads to index it; the rest is stored as JSON as-is. */
export interface StorableEvent {
  id: string;
  kind: string;
  timestamp: string;
  source?: string;
}

/** An event as it sits in the log: its per-conversation sequence number and its JSON text. */
export interface StoredEvent {
  /** 1-based, assigned at append, unique and gap-free within a conversation. */
  seq: number;
  id: string;
  kind: string;
  source: string | null;
  timestamp: string;
  /** The event serialized exactly as it goes on the wire. */
  json: string;
}

/** The part of a stored event that batch reads return. */
export type EventJson = Pick<StoredEvent, 'seq' | 'id' | 'json'>;

export interface EventFilter {
  /** Exact event kind (the short name, e.g. `MessageEvent`). */
  kind?: string;
  source?: string;
  /** Case-insensitive substring over a MessageEvent's text (content, extended content, reasoning). */
  body?: string;
  /** Inclusive lower bound, compared with the stored timestamp string. */
  timestampGte?: string;
  /** Exclusive upper bound. */
  timestampLt?: string;
}

export interface EventSearch extends EventFilter {
  /** Id of the first event of the page (inclusive), as returned in `nextPageId`. */
  pageId?: string;
  limit: number;
  order: 'asc' | 'desc';
}

/** A read of one conversation's events between two sequence numbers (EventStore.range). */
export interface RangeRead extends Pick<EventFilter, 'kind' | 'source'> {
  /** Only events numbered above this; 0 (the default): from the first. */
  afterSeq?: number;
  /** Only events numbered below this; absent: to the last. */
  beforeSeq?: number;
  order: 'asc' | 'desc';
  limit: number;
}

export interface EventPage {
  items: StoredEvent[];
  /** Id of the first event of the next page, or null at the end. */
  nextPageId: string | null;
}

/** Raised when a cursor names no event of the conversation; servers answer 400. */
export class UnknownCursorError extends Error {
  constructor(readonly cursor: string) {
    super(`Unknown page_id: ${cursor}`);
    this.name = 'UnknownCursorError';
  }
}

/** Raised when an operation names a conversation the store does not hold. */
export class UnknownConversationError extends Error {
  constructor(readonly conversationId: string) {
    super(`Conversation not found: ${conversationId}`);
    this.name = 'UnknownConversationError';
  }
}

export interface ConversationRecord {
  /** Dashed lower-case UUID. */
  id: string;
  /** The user (see settings/) that owns the conversation. */
  ownerId: string;
  title: string | null;
  tags: Record<string, string>;
  executionStatus: string;
  /** Everything else the conversation layer keeps (agent, workspace, policies, stats, ...). */
  state: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  /**
   * Set for a conversation that runs inside a sandbox (a V1 app conversation): this store holds its
   * mirror (record and synced events), and only the sandbox's agent server runs it.
   */
  sandboxId?: string | null;
  /** The conversation this one was started from (V1 sub-conversations). */
  parentId?: string | null;
}

export type ConversationPatch = Partial<
  Pick<ConversationRecord, 'title' | 'tags' | 'executionStatus' | 'state' | 'updatedAt'>
>;

export interface ConversationFilter {
  ownerId?: string;
  executionStatus?: string;
  /** true: only sandboxed (app) conversations; false: only the ones this server runs itself. */
  sandboxed?: boolean;
  sandboxId?: string;
  /** false: only conversations without a parent. */
  hasParent?: boolean;
  /** Case-insensitive substring of the title. */
  titleContains?: string;
  createdAtGte?: string;
  createdAtLt?: string;
  updatedAtGte?: string;
  updatedAtLt?: string;
}

export interface ConversationSearch extends ConversationFilter {
  /** Id of the first conversation of the page (inclusive). */
  pageId?: string;
  limit: number;
  sort: 'CREATED_AT' | 'UPDATED_AT' | 'CREATED_AT_DESC' | 'UPDATED_AT_DESC';
}

export interface ConversationPage {
  items: ConversationRecord[];
  nextPageId: string | null;
}

export interface ConversationStore {
  create(record: ConversationRecord): Promise<void>;
  get(id: string): Promise<ConversationRecord | null>;
  getMany(ids: readonly string[]): Promise<(ConversationRecord | null)[]>;
  /** The owner of a conversation, or null when it does not exist (cheap: hot reads check it). */
  owner(id: string): Promise<string | null>;
  /**
   * The conversations started as sub-conversations of each of `parentIds` (their `parentId`), oldest
   * first; a parent with none is absent from the map. One query for a page of conversations.
   */
  children(parentIds: readonly string[]): Promise<Map<string, string[]>>;
  update(id: string, patch: ConversationPatch): Promise<void>;
  /** Deletes the conversation and all its events. Returns false when it did not exist. */
  delete(id: string): Promise<boolean>;
  search(query: ConversationSearch): Promise<ConversationPage>;
  count(filter: ConversationFilter): Promise<number>;
}

/**
 * The ids of a batch get, and the JSON text of that list: the text the client sent when the ids came
 * as a JSON body (SQLite's json_each reads it as it is), else written out when first asked for.
 */
export class EventIds {
  constructor(
    readonly list: readonly string[],
    /** The JSON text that parses to exactly `list`, when the caller has it. */
    private text?: string,
  ) {}

  get json(): string {
    this.text ??= JSON.stringify(this.list);
    return this.text;
  }
}

export interface EventStore {
  /**
   * Appends a batch in one transaction: each event gets the conversation's next sequence number.
   * With `update`, the conversation record changes in the same transaction.
   * Throws UnknownConversationError when the conversation does not exist.
   */
  append(
    conversationId: string,
    events: readonly StorableEvent[],
    update?: ConversationPatch,
  ): Promise<StoredEvent[]>;
  /**
   * Creates a conversation together with its first events (sequence numbers from 1), in one
   * transaction: a start stores its record, system prompt and message at once, or nothing.
   */
  create(record: ConversationRecord, events: readonly StorableEvent[]): Promise<StoredEvent[]>;
  /**
   * The batch get's answer, made by the database in one query: a JSON array in UTF-8 with one item
   * per id, in order, the stored text of the event or null where the id is not in this conversation.
   * Bytes, since this is a hot path: no row objects, and no text decoded only to be encoded again.
   * Null when the conversation does not exist or is not `ownerId`'s: the owner check is part of the
   * same query, not a read of its own before it.
   */
  getManyJson(conversationId: string, ownerId: string, ids: EventIds): Promise<Buffer | null>;
  get(conversationId: string, id: string): Promise<StoredEvent | null>;
  /** Cursor pages in O(page). Throws UnknownCursorError for a page id that is not an event of the conversation. */
  search(conversationId: string, query: EventSearch): Promise<EventPage>;
  count(conversationId: string, filter: EventFilter): Promise<number>;
  /**
   * Whether any event matches, reading only up to the first that does: a search of one item still
   * looks for a second (its next page), through the whole history when there is none.
   */
  exists(conversationId: string, filter: EventFilter): Promise<boolean>;
  /**
   * Events with seq > afterSeq in order, at most `limit` of them (replay from a cursor). Only the
   * members a replay needs: building the other columns tripled the cost of reading a long history.
   * What `range` with only `afterSeq` answers, kept apart as the replay's one statement prepared once.
   */
  after(conversationId: string, afterSeq: number, limit: number): Promise<EventJson[]>;
  /**
   * Events with afterSeq < seq < beforeSeq in `order`, at most `limit`, only of `kind` and `source`
   * where given (the members `after` answers). For a reader that wants one end of a log, or of a
   * branch of it, and stops as soon as it has what it looks for: a search page also looks for the
   * next page (through the whole history when nothing further matches) and cannot stop at a
   * sequence number.
   */
  range(conversationId: string, read: RangeRead): Promise<EventJson[]>;
  /** The highest sequence number of the conversation, 0 when it has no events. */
  lastSeq(conversationId: string): Promise<number>;
  /** Events by id across all of an owner's conversations (one entry per id, null where not found). */
  getManyOfOwner(ownerId: string, ids: readonly string[]): Promise<(EventJson | null)[]>;
  /**
   * Cursor pages over all of an owner's conversations, ordered by (timestamp, id). The page id is
   * the id of the page's first event. Costs a sort over the owner's matching events.
   */
  searchOfOwner(ownerId: string, query: EventSearch): Promise<EventPage>;
  countOfOwner(ownerId: string, filter: EventFilter): Promise<number>;
}

/** A record kept as a JSON document, with the members the store indexes copied into columns. */
export interface Document {
  id: string;
  ownerId: string;
  /** A status or state name the store can filter on. */
  status: string;
  /** One secondary reference the store can filter on (e.g. a start task's conversation id). */
  ref?: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface DocumentFilter {
  ownerId?: string;
  /** Any of these statuses. */
  status?: readonly string[];
  ref?: string;
  createdAtGte?: string;
}

export interface DocumentSearch extends DocumentFilter {
  sort: ConversationSearch['sort'];
  /** Id of the first document of the page (inclusive). */
  pageId?: string;
  limit: number;
}

/** Upsert, batch get and cursor search over one kind of document (sandboxes, start tasks). */
export interface DocumentStore<T extends Document> {
  put(document: T): Promise<void>;
  get(id: string): Promise<T | null>;
  getMany(ids: readonly string[]): Promise<(T | null)[]>;
  delete(id: string): Promise<boolean>;
  search(query: DocumentSearch): Promise<{ items: T[]; nextPageId: string | null }>;
  count(filter: DocumentFilter): Promise<number>;
}

export type DocumentKind = 'sandboxes' | 'start_tasks';

export interface SettingsStore {
  /** The stored settings document of a user (already encrypted where needed), or null. */
  get(userId: string): Promise<string | null>;
  put(userId: string, document: string): Promise<void>;
  /**
   * Runs `work` (a read-modify-write of the user's settings) while no other `exclusive` of the same
   * user runs, in this process or in any other sharing the store: no write is lost.
   */
  exclusive<T>(userId: string, work: () => Promise<T>): Promise<T>;
}

export interface Store {
  conversations: ConversationStore;
  events: EventStore;
  settings: SettingsStore;
  /** Documents of the V1 control plane; their shapes belong to sandbox/ and app/. */
  documents<T extends Document>(kind: DocumentKind): DocumentStore<T>;
  /**
   * Runs `work` while no other `exclusive` of the same name runs, in this process or in any other
   * sharing the store (e.g. a limit check and the write that takes a place under it).
   */
  exclusive<T>(name: string, work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
