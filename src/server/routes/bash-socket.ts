// WebSocket /sockets/bash-events: OpenHands' bash event stream.
//  - Auth as /sockets/events (socket-auth.ts); failure closes with 4001.
//  - resend_mode=all (or the legacy resend_all=true) first sends every kept bash event, oldest first.
//  - Then every new BashCommand / BashOutput as a JSON frame (nulls kept, ids as 32 hex digits).
//  - A client frame {command, cwd?, timeout?} starts that command (with this server's rights); a bad
//    frame gets a BashError {code, detail} frame and the socket stays open.
//  - At most `maxSubscribers` readers (close 1013); a reader that falls behind is dropped (close 1008).
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { Value } from 'typebox/value';
import { type BashEvent, type BashService, bashSchemas } from '../../bash/index.js';
import type { SessionKeys } from '../auth.js';
import { isAuthFrame, socketUser } from './socket-auth.js';

export interface BashSocketOptions {
  sessionKeys: SessionKeys;
  bash: BashService;
  maxBufferedBytes: number;
  authTimeoutMs: number;
}

const AUTH_FAILED = 4001;
const POLICY = 1008;
const TRY_AGAIN = 1013;

const BashSocketQuery = Type.Object({
  session_api_key: Type.Optional(Type.String()),
  resend_mode: Type.Optional(Type.Literal('all')),
  resend_all: Type.Optional(Type.Boolean()),
});
type BashSocketQuery = { session_api_key?: string; resend_mode?: 'all'; resend_all?: boolean };

export const bashSocketRoutes: FastifyPluginAsync<BashSocketOptions> = async (app, options) => {
  const { bash, sessionKeys } = options;
  app.get(
    '/sockets/bash-events',
    {
      websocket: true,
      config: { access: 'own' },
      schema: { hide: true, querystring: BashSocketQuery },
    },
    async (socket, request) => {
      // Frames that arrive with or right after the auth frame (one TCP read) are held, not lost.
      const held: [Buffer, boolean][] = [];
      const hold = (data: Buffer, isBinary: boolean) => held.push([data, isBinary]);
      socket.on('message', hold);
      const query = request.query as BashSocketQuery;
      const user = await socketUser(socket, request, sessionKeys, options.authTimeoutMs);
      if (user === null) return socket.close(AUTH_FAILED, 'Authentication failed');
      if (socket.readyState !== socket.OPEN) return;

      const send = (event: BashEvent) => {
        if (socket.readyState !== socket.OPEN) return;
        if (socket.bufferedAmount > options.maxBufferedBytes) {
          socket.close(POLICY, 'Slow consumer: send buffer overflow');
          return;
        }
        socket.send(JSON.stringify(event));
      };
      // The snapshot and the subscription are taken in the same tick: no event is missed or sent twice.
      const unsubscribe = bash.subscribe(send, user);
      if (!unsubscribe) return socket.close(TRY_AGAIN, 'Too many bash event connections');
      socket.once('close', unsubscribe);
      if (query.resend_mode === 'all' || query.resend_all) for (const event of bash.all(user)) send(event);

      const reply = (code: string, detail: string) => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(bash.errorEvent(code, detail)));
      };
      const onFrame = (data: Buffer, isBinary: boolean) => {
        let frame: unknown;
        try {
          frame = JSON.parse(data.toString('utf8'));
        } catch (error) {
          return reply('JSONDecodeError', isBinary ? 'Binary frames are not read' : (error as Error).message);
        }
        if (isAuthFrame(frame)) return;
        if (!Value.Check(bashSchemas.ExecuteBashRequest, frame)) {
          const first = Value.Errors(bashSchemas.ExecuteBashRequest, frame)[0];
          return reply(
            'ValidationError',
            first ? `${first.instancePath || '/'}: ${first.message}` : 'Invalid',
          );
        }
        try {
          bash.start(frame, user);
        } catch (error) {
          reply((error as Error).name || 'Error', (error as Error).message);
        }
      };
      socket.off('message', hold);
      socket.on('message', onFrame);
      // The auth frame itself is among them and is skipped as a redundant auth frame.
      for (const [data, isBinary] of held) onFrame(data, isBinary);
    },
  );
};
