// WebSocket /sockets/events/{conversation_id}: OpenHands' event stream.
//  - Auth: `session_api_key` query parameter, else the X-Session-API-Key header, else a first frame
//    {"type":"auth","session_api_key":…} within 10 s. Failure closes with 4001; an unknown
//    conversation closes with 4004.
//  - First frame: the full_state snapshot. Resend: resend_mode=all | since&after_timestamp=…,
//    resend_all=true (legacy).
//  - agentd's exact cursor: `after_seq=N` replays every persisted event after N, then continues live,
//    with no gap and no duplicate (also across restarts). With after_seq every frame is an envelope
//    {"seq": N | null, "event": {...}} (null for events that are not persisted, like full_state).
//  - Client frames that are user Messages are appended and start a run; a bad frame gets a
//    ServerErrorEvent frame and the socket stays open.
//  - A reader that falls behind by more than a bounded buffer is disconnected (close 1008); it never
//    slows the agent or other readers.
//  - On shutdown every socket is closed with 1001; a peer that does not answer within 2 s is cut.
import websocket, { type WebsocketPluginOptions } from '@fastify/websocket';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { WebSocket } from 'ws';
import type { BashService } from '../../bash/index.js';
import type { BusMessage, EventBus } from '../../bus/index.js';
import { ConversationNotFoundError } from '../../conversation/errors.js';
import type { ConversationService } from '../../conversation/service.js';
import { type Resend, subscribe } from '../../conversation/subscription.js';
import { newEventId, normalizeTimestamp, nowTimestamp } from '../../events/index.js';
import type { Store } from '../../store/index.js';
import type { SessionKeys } from '../auth.js';
import { ConversationIdParams, conversationIdOf } from '../schemas.js';
import { bashSocketRoutes } from './bash-socket.js';
import { frameText, tcpSocketOf, writeFrames } from './event-frames.js';
import { isAuthFrame, socketUser } from './socket-auth.js';

export interface SocketRoutesOptions {
  sessionKeys: SessionKeys;
  conversations: ConversationService;
  bus: EventBus;
  store: Store;
  /** Bytes a connection may have queued before it is dropped as too slow. */
  maxBufferedBytes?: number;
  /** Readers per conversation. */
  maxSubscribers?: number;
  authTimeoutMs?: number;
  /** Serves /sockets/bash-events too (registered here, where the WebSocket plugin lives). */
  bash?: BashService;
}

const AUTH_FAILED = 4001;
const NOT_FOUND = 4004;
const POLICY = 1008;
const GOING_AWAY = 1001;
/** How long a peer has to answer a close frame before its connection is cut. */
const CLOSE_TIMEOUT_MS = 2_000;
/** ws's server options: ws (8.19 and later) takes closeTimeout, which @types/ws 8.18 does not declare. */
type WsServerOptions = NonNullable<WebsocketPluginOptions['options']> & { closeTimeout: number };
const TRY_AGAIN = 1013;

const SocketQuery = Type.Object({
  session_api_key: Type.Optional(Type.String()),
  resend_mode: Type.Optional(Type.Union([Type.Literal('all'), Type.Literal('since')])),
  after_timestamp: Type.Optional(Type.String()),
  resend_all: Type.Optional(Type.Boolean()),
  after_seq: Type.Optional(Type.Integer({ minimum: 0 })),
});
type SocketQuery = {
  session_api_key?: string;
  resend_mode?: 'all' | 'since';
  after_timestamp?: string;
  resend_all?: boolean;
  after_seq?: number;
};

/**
 * Frames sent in one tick go out in one write: the first corks the TCP socket, the tick's end
 * uncorks it. A replay delivers a page of 500 frames at once, which was 500 write(2)s; now it is
 * one writev. Live events, one per tick, are not delayed (the uncork comes before any I/O wait).
 */
function frameBatcher(socket: object): () => void {
  const raw = tcpSocketOf(socket);
  let corked = false;
  return () => {
    if (corked || !raw) return;
    corked = true;
    raw.cork();
    process.nextTick(() => {
      corked = false;
      raw.uncork();
    });
  };
}

/**
 * Resolves once the socket has at most `bytes` queued, or is no longer open: a replay's next page
 * waits for a stalled reader. It waits for its TCP socket's 'drain' (its queue emptied), which
 * ws's frames and the replay's pages both go through; polling every 1 ms cost 10 stalled readers
 * ~3% of a core. 'drain' comes only once a write found the queue at its high-water mark (Node's
 * default for a socket): below that nothing is left to wait for.
 */
async function queuedAtMost(socket: WebSocket, bytes: number): Promise<void> {
  const raw = tcpSocketOf(socket);
  while (raw && socket.readyState === socket.OPEN && socket.bufferedAmount > bytes && raw.writableNeedDrain) {
    await new Promise<void>((resolve) => {
      const done = () => {
        raw.off('drain', done);
        raw.off('close', done);
        resolve();
      };
      raw.on('drain', done);
      raw.on('close', done);
    });
  }
}

function resendOf(q: SocketQuery): Resend {
  if (q.after_seq !== undefined) return { mode: 'after_seq', afterSeq: q.after_seq };
  if (q.resend_mode === 'since') {
    const after = q.after_timestamp ? normalizeTimestamp(q.after_timestamp) : null;
    return after ? { mode: 'since', afterTimestamp: after } : { mode: 'none' };
  }
  if (q.resend_mode === 'all' || q.resend_all) return { mode: 'all' };
  return { mode: 'none' };
}

function serverError(code: string, detail: string): string {
  return JSON.stringify({
    id: newEventId(),
    timestamp: nowTimestamp(),
    source: 'environment',
    code,
    detail,
    kind: 'ServerErrorEvent',
  });
}

type ClientMessage = { role?: unknown; content?: unknown };

/** A client frame as a user message request (content may be a plain string, as OpenHands accepts). */
function messageFromFrame(
  frame: ClientMessage,
): { role: 'user'; content: { type: 'text'; text: string }[] } | string {
  if (typeof frame !== 'object' || frame === null) return 'Message must be a JSON object';
  if (frame.role === undefined) return 'Field required: role';
  if (frame.role !== 'user') return "Only messages with role 'user' can be sent";
  if (typeof frame.content === 'string')
    return { role: 'user', content: [{ type: 'text', text: frame.content }] };
  if (Array.isArray(frame.content))
    return { role: 'user', content: frame.content as { type: 'text'; text: string }[] };
  return 'Field required: content (a string or a list of content items)';
}

/**
 * Encoded frames, shared by every subscriber of a message: fan-out to N sockets encodes once.
 * Keyed by the bus message, so an envelope frame and a plain frame are cached apart.
 */
const plainFrames = new WeakMap<BusMessage, Buffer>();
const envelopeFrames = new WeakMap<BusMessage, Buffer>();

function encodedFrame(message: BusMessage, envelope: boolean): Buffer {
  const cache = envelope ? envelopeFrames : plainFrames;
  let frame = cache.get(message);
  if (!frame) {
    frame = Buffer.from(frameText(message.seq, message.json, envelope), 'utf8');
    cache.set(message, frame);
  }
  return frame;
}

export const socketRoutes: FastifyPluginAsync<SocketRoutesOptions> = async (app, options) => {
  const maxBuffered = options.maxBufferedBytes ?? 8 * 1024 * 1024;
  const maxSubscribers = options.maxSubscribers ?? 1024;
  const authTimeoutMs = options.authTimeoutMs ?? 10_000;
  // On shutdown each socket is told why (1001, Going Away; clients reconnect, to a successor) before
  // the plugin's own preClose closes what is still open, without a code. A peer that does not answer
  // a close frame is cut after CLOSE_TIMEOUT_MS: ws's own 30 s held the process's exit that long (a
  // replica's whole grace period under Kubernetes), measured with a peer that never answers.
  app.addHook('preClose', async () => {
    for (const client of app.websocketServer.clients) client.close(GOING_AWAY, 'Server shutting down');
  });
  const serverOptions: WsServerOptions = { maxPayload: 4 * 1024 * 1024, closeTimeout: CLOSE_TIMEOUT_MS };
  await app.register(websocket, { options: serverOptions });
  if (options.bash) {
    await app.register(bashSocketRoutes, {
      sessionKeys: options.sessionKeys,
      bash: options.bash,
      maxBufferedBytes: maxBuffered,
      authTimeoutMs,
    });
  }

  app.get(
    '/sockets/events/:conversation_id',
    {
      websocket: true,
      // Authenticated in the handler: browsers cannot set headers on a WebSocket, so the key may
      // also come as a query parameter or a first frame.
      config: { access: 'own' },
      schema: { hide: true, params: ConversationIdParams, querystring: SocketQuery },
    },
    async (socket, request) => {
      const query = request.query as SocketQuery;
      const conversationId = conversationIdOf(request);
      // Frames that arrive with the auth frame (one TCP read) or while the conversation is looked up
      // are held, not lost; the auth frame among them is skipped as a redundant one.
      const held: [Buffer, boolean][] = [];
      const hold = (data: Buffer, isBinary: boolean) => held.push([data, isBinary]);
      socket.on('message', hold);
      const userId = await socketUser(socket, request, options.sessionKeys, authTimeoutMs);
      if (userId === null) return socket.close(AUTH_FAILED, 'Authentication failed');

      let record: Awaited<ReturnType<ConversationService['get']>>;
      try {
        record = await options.conversations.get(userId, conversationId);
      } catch (error) {
        if (error instanceof ConversationNotFoundError)
          return socket.close(NOT_FOUND, 'Conversation not found');
        throw error;
      }
      if (options.bus.subscriberCount(conversationId) >= maxSubscribers) {
        return socket.close(TRY_AGAIN, 'Too many connections for this conversation');
      }

      const resend = resendOf(query);
      const envelope = resend.mode === 'after_seq';
      const batch = frameBatcher(socket);
      const subscription = subscribe({
        bus: options.bus,
        store: options.store,
        conversationId,
        resend,
        first: () => ({ seq: null, json: JSON.stringify(options.conversations.snapshot(record)) }),
        deliver: (m) => {
          if (socket.readyState !== socket.OPEN) return true;
          if (socket.bufferedAmount > maxBuffered) return false;
          batch();
          socket.send(encodedFrame(m, envelope), { binary: false });
          return true;
        },
        deliverPage: (events) => {
          if (socket.readyState !== socket.OPEN) return true;
          if (socket.bufferedAmount > maxBuffered) return false;
          // A page is one write already, so it does not cork the socket (a cork of the tick's
          // earlier frames, the full_state snapshot, still holds it until the replay first waits).
          if (writeFrames(socket, events, envelope)) return true;
          batch();
          for (const e of events) socket.send(frameText(e.seq, e.json, envelope), { binary: false });
          return true;
        },
        ready: () => queuedAtMost(socket, maxBuffered / 2),
        onOverflow: () => socket.close(POLICY, 'Slow consumer: send buffer overflow'),
      });
      socket.once('close', () => subscription.close());

      const onFrame = async (data: Buffer, isBinary: boolean) => {
        let value: unknown;
        try {
          value = JSON.parse(data.toString('utf8'));
        } catch (error) {
          if (!isBinary) socket.send(serverError('JSONDecodeError', (error as Error).message));
          return;
        }
        if (isAuthFrame(value)) return;
        const message = messageFromFrame(value as ClientMessage);
        if (typeof message === 'string') return socket.send(serverError('ValidationError', message));
        try {
          await options.conversations.sendMessage(userId, conversationId, { ...message, run: true });
        } catch (error) {
          if (socket.readyState === socket.OPEN) {
            socket.send(
              serverError((error as Error).name ?? 'Error', (error as Error).message ?? String(error)),
            );
          }
        }
      };
      socket.off('message', hold);
      socket.on('message', onFrame);
      for (const [data, isBinary] of held) void onFrame(data, isBinary);
      await subscription.live.catch((error: unknown) => {
        request.log.error({ err: error }, 'event stream replay failed');
        socket.close(1011, 'Internal error');
      });
    },
  );
};
