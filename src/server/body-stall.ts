// A request body that stops arriving. Fastify turns Node's requestTimeout off, so a client that sent
// its headers and then nothing more kept its connection (and a place in the server) for as long as it
// stayed connected. Node's requestTimeout is no fix: it bounds the whole request, which a 1 GiB upload
// over a slow link outlasts; nor is an idle timeout on the whole exchange, which would cut a handler
// that sends nothing for minutes (execute_bash_command answers when its command ends). So, as nginx's
// client_body_timeout does: while a body is arriving its connection may stay silent BODY_STALL_MS at
// most, then the client gets a 408 in the {detail} shape and the connection is closed. Once the body
// is in, the handler takes as long as it takes.
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { answerAndClose, TOO_SLOW } from './framework-errors.js';

/** How long a request body may stop arriving before the request is answered 408. */
export const BODY_STALL_MS = 60_000;

/** Whether the request carries a body (a Content-Length above 0, or chunked). */
export const hasBody = (raw: IncomingMessage): boolean =>
  raw.headers['transfer-encoding'] !== undefined || Number(raw.headers['content-length'] ?? 0) > 0;

/** Answers 408 to a request whose body has not moved for `stallMs`, and closes its connection. */
export function limitBodyStalls(app: FastifyInstance, stallMs = BODY_STALL_MS): void {
  // A callback hook, like drainUnreadBodies: most requests have no body, or all of it already.
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    if (raw.complete || !hasBody(raw)) return done();
    const socket = raw.socket;
    // When the socket has been idle that long, Node emits 'timeout' on the response (and destroys
    // the socket itself only when nothing listens). A body already in but not yet read is no stall.
    const idle = () => {
      if (raw.complete) socket.setTimeout(0);
      else answerAndClose(socket, ...TOO_SLOW);
    };
    socket.setTimeout(stallMs);
    reply.raw.once('timeout', idle);
    raw.once('end', () => {
      socket.setTimeout(0);
      reply.raw.off('timeout', idle);
    });
    done();
  });
}
