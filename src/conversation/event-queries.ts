// Reads of a conversation's events for REST: batch get, cursor search, count, get one.
// Answers are built from the stored JSON text, never parsed and re-serialized.
import { resolveEventKind } from '../events/index.js';
import type { EventFilter, EventIds, EventJson, EventSearch, Store } from '../store/index.js';
import { ConversationNotFoundError } from './errors.js';

export interface EventQuery {
  kind?: string;
  source?: string;
  body?: string;
  timestampGte?: string;
  timestampLt?: string;
}

/** A kind given as a short name or OpenHands' long path; an unknown kind matches nothing (null). */
function eventFilter(query: EventQuery): EventFilter | null {
  const filter: EventFilter = {
    source: query.source,
    body: query.body,
    timestampGte: query.timestampGte,
    timestampLt: query.timestampLt,
  };
  if (query.kind !== undefined) {
    const kind = resolveEventKind(query.kind);
    if (kind === null) return null;
    filter.kind = kind;
  }
  return filter;
}

export class EventQueries {
  constructor(private readonly store: Store) {}

  private async owned(userId: string, conversationId: string): Promise<void> {
    if ((await this.store.conversations.owner(conversationId)) !== userId)
      throw new ConversationNotFoundError(conversationId);
  }

  /** The JSON array in UTF-8, as the store made it. */
  async batch(userId: string, conversationId: string, ids: EventIds): Promise<Buffer> {
    const answer = await this.store.events.getManyJson(conversationId, userId, ids);
    if (answer === null) throw new ConversationNotFoundError(conversationId);
    return answer;
  }

  /** The page as JSON text: `{"items":[…],"next_page_id":…}`. */
  async search(
    userId: string,
    conversationId: string,
    query: EventQuery & Pick<EventSearch, 'pageId' | 'limit' | 'order'>,
  ): Promise<string> {
    await this.owned(userId, conversationId);
    const filter = eventFilter(query);
    if (filter === null) return EMPTY_PAGE;
    const page = await this.store.events.search(conversationId, {
      ...filter,
      pageId: query.pageId,
      limit: query.limit,
      order: query.order,
    });
    return `{"items":${jsonArray(page.items)},"next_page_id":${JSON.stringify(page.nextPageId)}}`;
  }

  async count(userId: string, conversationId: string, query: EventQuery): Promise<number> {
    await this.owned(userId, conversationId);
    const filter = eventFilter(query);
    return filter === null ? 0 : this.store.events.count(conversationId, filter);
  }

  async get(userId: string, conversationId: string, eventId: string): Promise<string | null> {
    await this.owned(userId, conversationId);
    return (await this.store.events.get(conversationId, eventId))?.json ?? null;
  }
}

/** Reads across all of a user's conversations (the V1 /api/v1/events routes). */
export class OwnerEventQueries {
  constructor(
    private readonly store: Store,
    private readonly queries: EventQueries,
  ) {}

  batch(userId: string, ids: readonly string[]): Promise<string> {
    return this.store.events.getManyOfOwner(userId, ids).then(jsonArray);
  }

  /** With a conversation: that conversation's events (an unknown one has none, as in OpenHands). */
  async search(
    userId: string,
    conversationId: string | undefined,
    query: EventQuery & Pick<EventSearch, 'pageId' | 'limit' | 'order'>,
  ): Promise<string> {
    if (conversationId !== undefined) {
      if ((await this.store.conversations.owner(conversationId)) !== userId) return EMPTY_PAGE;
      return this.queries.search(userId, conversationId, query);
    }
    const filter = eventFilter(query);
    if (filter === null) return EMPTY_PAGE;
    const page = await this.store.events.searchOfOwner(userId, {
      ...filter,
      pageId: query.pageId,
      limit: query.limit,
      order: query.order,
    });
    return `{"items":${jsonArray(page.items)},"next_page_id":${JSON.stringify(page.nextPageId)}}`;
  }

  async count(userId: string, conversationId: string | undefined, query: EventQuery): Promise<number> {
    if (conversationId !== undefined) {
      if ((await this.store.conversations.owner(conversationId)) !== userId) return 0;
      return this.queries.count(userId, conversationId, query);
    }
    const filter = eventFilter(query);
    return filter === null ? 0 : this.store.events.countOfOwner(userId, filter);
  }
}

const EMPTY_PAGE = '{"items":[],"next_page_id":null}';

function jsonArray(events: readonly (EventJson | null)[]): string {
  let out = '[';
  for (let i = 0; i < events.length; i++) {
    if (i > 0) out += ',';
    out += events[i]?.json ?? 'null';
  }
  return `${out}]`;
}
