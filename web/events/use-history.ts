// A conversation's events for its page: the newest ones first, then live, older ones on demand.
// The page opened on a replay of every event from the first: a 100k-event conversation kept the
// browser busy for minutes. Now the stored count says where the newest PAGE events start, and the
// socket replays from there and goes on live with its exact cursor (stream.ts): REST's events carry
// no seq, so no seam between a REST page and the socket can lose or repeat one. Older events come
// from REST's search, newest first from the first one here; its page_id is inclusive, so that one
// comes again and is dropped. Store seqs are 1-based and gap-free: the count is the last seq.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, errorText } from '../api.js';
import type { Ev } from '../types.js';
import { History } from './history.js';
import { type Frame, openStream, type StreamState } from './stream.js';

/** Events the page opens with, and how many an older page holds (REST's most, less the repeated one). */
const PAGE = 100;

export interface ConversationEvents {
  history: History;
  /** The history's version, which the page renders by. */
  version: number;
  /** The agent's message as it is streamed, until its event is stored. */
  streaming: string;
  link: { state: StreamState; detail?: string };
  earlier: { loading: boolean; error: string | null };
  loadEarlier(): void;
}

export interface EventHandlers {
  /** A ConversationStateUpdateEvent (status, stats, agent, goal), stored or a snapshot. */
  onStateUpdate(event: Ev): void;
  /** The socket was refused (no such conversation, or not signed in). */
  onRefused(): void;
}

/** The agent's streamed text after `frames`: deltas add to it, a stored agent event ends it. */
function streamedAfter(text: string, frames: readonly Frame[]): string {
  let out = text;
  for (const { event, seq } of frames) {
    if (event.kind === 'StreamingDeltaEvent' && typeof event.content === 'string') out += event.content;
    else if (seq !== null && event.source === 'agent') out = '';
  }
  return out;
}

export function useHistory(id: string, handlers: EventHandlers): ConversationEvents {
  // The page is keyed by the conversation's id: one history for its life.
  const [history] = useState(() => new History());
  /** Counts the history's changes: the page renders by it (the history changes in place). */
  const [version, setVersion] = useState(0);
  const [streaming, setStreaming] = useState('');
  const [link, setLink] = useState<ConversationEvents['link']>({ state: 'connecting' });
  const [earlier, setEarlier] = useState<ConversationEvents['earlier']>({ loading: false, error: null });

  const onFrames = (frames: Frame[]) => {
    const stored: Ev[] = [];
    let firstSeq = 0;
    for (const { event, seq } of frames) {
      if (event.kind === 'ConversationStateUpdateEvent') handlers.onStateUpdate(event);
      if (seq === null) continue;
      if (stored.length === 0) firstSeq = seq;
      stored.push(event);
    }
    setStreaming((text) => streamedAfter(text, frames));
    if (stored.length === 0) return;
    history.append(stored, firstSeq);
    setVersion((v) => v + 1);
  };

  useEffect(() => {
    let close = () => {};
    let gone = false;
    // Without the count (a failed read), every event is replayed: slower, never wrong.
    const count = api<number>(`/api/conversations/${id}/events/count`).catch(() => 0);
    void count.then((n) => {
      if (gone) return;
      close = openStream(id, Math.max(0, n - PAGE), {
        onFrames,
        onState: (state, detail) => {
          setLink({ state, detail });
          if (state === 'refused') handlers.onRefused();
        },
      });
    });
    return () => {
      gone = true;
      close();
    };
  }, [id]);

  // One read at a time, whatever the clicks: two would put the same page in twice.
  const reading = useRef(false);
  const loadEarlier = () => {
    const first = history.events[0];
    if (!first || reading.current) return;
    reading.current = true;
    setEarlier({ loading: true, error: null });
    const query = `sort_order=TIMESTAMP_DESC&limit=${PAGE}&page_id=${encodeURIComponent(first.id)}`;
    api<{ items: Ev[]; next_page_id: string | null }>(`/api/conversations/${id}/events/search?${query}`)
      .then((page) => {
        const older = page.items.filter((e) => e.id !== first.id).reverse();
        history.prepend(older, page.next_page_id !== null);
        setVersion((v) => v + 1);
        setEarlier({ loading: false, error: null });
      })
      .catch((e: unknown) => setEarlier({ loading: false, error: errorText(e) }))
      .finally(() => {
        reading.current = false;
      });
  };

  return { history, version, streaming, link, earlier, loadEarlier };
}
