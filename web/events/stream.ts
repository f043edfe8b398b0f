// The live event stream of a conversation over /sockets/events/{id} with agentd's exact cursor:
// `after_seq=N` replays every stored event after N and then goes on live, each frame {seq, event}.
// The stream remembers the last seq it delivered and reconnects from there (a dropped connection, a
// server restart), so nothing is missed or shown twice. The key goes in the first frame, not the URL.
// Frames are handed on together once per animation frame: a replay brings hundreds in a burst, and
// a page update for each one kept the browser's main thread busy long after the socket was done.
import { sessionKey } from '../api.js';
import type { Ev } from '../types.js';

export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'refused';

/** A stored event (seq > the last one delivered) or a transient one (seq null: snapshots, deltas). */
export interface Frame {
  event: Ev;
  seq: number | null;
}

export interface StreamHandlers {
  /** The frames that came since the last call, in order. */
  onFrames(frames: Frame[]): void;
  onState(state: StreamState, detail?: string): void;
}

const AUTH_FAILED = 4001;
const NOT_FOUND = 4004;

/** Opens the stream after the stored event `afterSeq` (0: from the first); answers its close. */
export function openStream(conversationId: string, afterSeq: number, handlers: StreamHandlers): () => void {
  let lastSeq = afterSeq;
  let socket: WebSocket | null = null;
  let closed = false;
  let retry = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let state: StreamState | null = null;
  // Told on a change only: every frame says 'live', and a page update for each undid the batching.
  const tell = (next: StreamState, detail?: string) => {
    if (next !== state) handlers.onState(next, detail);
    state = next;
  };
  let queued: Frame[] = [];
  /** The animation frame that will hand `queued` on; 0 when none is asked for. */
  let flushAt = 0;
  const flush = () => {
    flushAt = 0;
    const frames = queued;
    queued = [];
    handlers.onFrames(frames);
  };

  const connect = () => {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const url = `${scheme}//${location.host}/sockets/events/${conversationId}?after_seq=${lastSeq}`;
    const ws = new WebSocket(url);
    socket = ws;
    ws.onopen = () => {
      const key = sessionKey();
      if (key) ws.send(JSON.stringify({ type: 'auth', session_api_key: key }));
    };
    ws.onmessage = (message) => {
      let frame: Frame;
      try {
        frame = JSON.parse(String(message.data));
      } catch {
        return;
      }
      if (!frame?.event) return;
      retry = 0;
      tell('live');
      if (frame.seq !== null) {
        if (frame.seq <= lastSeq) return;
        lastSeq = frame.seq;
      }
      queued.push(frame);
      if (flushAt === 0) flushAt = requestAnimationFrame(flush);
    };
    ws.onclose = (event) => {
      if (closed || socket !== ws) return;
      if (event.code === AUTH_FAILED || event.code === NOT_FOUND) {
        tell('refused', event.code === NOT_FOUND ? 'No such conversation' : 'Not signed in');
        return;
      }
      tell('reconnecting');
      retry++;
      timer = setTimeout(connect, Math.min(5000, 250 * 2 ** Math.min(retry, 5)));
    };
  };
  tell('connecting');
  connect();
  return () => {
    closed = true;
    clearTimeout(timer);
    cancelAnimationFrame(flushAt);
    socket?.close();
  };
}
