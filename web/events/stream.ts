// The live event stream of a conversation over /sockets/events/{id} with agentd's exact cursor:
// `after_seq=N` replays every stored event after N and then goes on live, each frame {seq, event}.
// The stream remembers the last seq it delivered and reconnects from there (a dropped connection, a
// server restart), so nothing is missed or shown twice. The key goes in the first frame, not the URL.
import { sessionKey } from '../api.js';
import type { Ev } from '../types.js';

export type StreamState = 'connecting' | 'live' | 'reconnecting' | 'refused';

export interface StreamHandlers {
  /** A stored event (seq > the last one) or a transient one (seq null: snapshots, deltas). */
  onEvent(event: Ev, seq: number | null): void;
  onState(state: StreamState, detail?: string): void;
}

const AUTH_FAILED = 4001;
const NOT_FOUND = 4004;

export function openStream(conversationId: string, handlers: StreamHandlers): () => void {
  let lastSeq = 0;
  let socket: WebSocket | null = null;
  let closed = false;
  let retry = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

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
      let frame: { seq: number | null; event: Ev };
      try {
        frame = JSON.parse(String(message.data));
      } catch {
        return;
      }
      if (!frame?.event) return;
      retry = 0;
      handlers.onState('live');
      if (frame.seq !== null) {
        if (frame.seq <= lastSeq) return;
        lastSeq = frame.seq;
      }
      handlers.onEvent(frame.event, frame.seq);
    };
    ws.onclose = (event) => {
      if (closed || socket !== ws) return;
      if (event.code === AUTH_FAILED || event.code === NOT_FOUND) {
        handlers.onState('refused', event.code === NOT_FOUND ? 'No such conversation' : 'Not signed in');
        return;
      }
      handlers.onState('reconnecting');
      retry++;
      timer = setTimeout(connect, Math.min(5000, 250 * 2 ** Math.min(retry, 5)));
    };
  };
  handlers.onState('connecting');
  connect();
  return () => {
    closed = true;
    clearTimeout(timer);
    socket?.close();
  };
}
