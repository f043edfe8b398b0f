// Errors raised before a route runs, by Node's HTTP parser or Fastify's router, answered in the same
// `{detail}` shape as everything else; and the OpenAPI responses that document them on every route.
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { detailResponse } from './schemas.js';

/** Largest request body, in bytes. */
export const BODY_LIMIT = 16 * 1024 * 1024;
/** Longest path parameter, in characters (a UUID is 36; sandbox and event ids are shorter than 100). */
export const MAX_PARAM_LENGTH = 100;
/** Node's limit on the request line and headers together, in bytes. */
const HEADER_LIMIT_KB = 16;

const ROUTER_ERRORS: Record<string, string> = {
  FST_ERR_BAD_URL: 'Malformed URL: the path has an invalid percent-encoding',
  FST_ERR_MAX_PARAM_LENGTH: `A path parameter is longer than ${MAX_PARAM_LENGTH} characters`,
};

/** Fastify's `frameworkErrors`: the router's own failures (bad percent-encoding, a path parameter too long). */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 400;
  reply.code(status).send({ detail: ROUTER_ERRORS[error.code] ?? error.message });
}

/** The answer to a request that took too long to arrive: its headers (Node), or its body (body-stall.ts). */
export const TOO_SLOW = [408, 'The request took too long to arrive'] as const;

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses before any route sees it (headers
 * or query too long, malformed HTTP, headers that took too long).
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, detail] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [
          431,
          `The request line and headers are larger than ${HEADER_LIMIT_KB} KB (a query string that long?)`,
        ]
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? TOO_SLOW
        : [400, 'Malformed HTTP request'];
  answerAndClose(socket, status, detail);
}

/**
 * Writes a `{detail}` answer straight on the socket and closes it: for a request no route will
 * answer. Nothing is written when the answer to the socket's current request has begun (a second
 * answer would corrupt it); the rule is Node's own for its default clientError answer, which reads
 * the same field. Earlier answers on a kept-alive connection do not count.
 */
export function answerAndClose(socket: Socket, status: number, detail: string): void {
  const current = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (socket.writable && !current?.headersSent) {
    const body = JSON.stringify({ detail });
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete']);
/** A path parameter in an OpenAPI path (`{conversation_id}`; not a wildcard's `{*}`). */
const PATH_PARAMETER = /\{(?!\*\})[^}]+\}/;

type OpenApiResponse = {
  description?: string;
  content?: Record<string, { schema?: { description?: string } }>;
};
type OpenApiPaths = Record<string, Record<string, { responses?: Record<string, OpenApiResponse> }>>;

/** A `{detail}` response as @fastify/swagger renders detailResponse() on a route. */
function documented(description: string): OpenApiResponse {
  const schema = JSON.parse(JSON.stringify(detailResponse(description))) as { description: string };
  return { description, content: { 'application/json': { schema } } };
}

/**
 * Documents, on every operation of the OpenAPI document, the statuses Fastify and Node give before
 * the handler runs, so each status a route can answer is in its responses; a route's own
 * description of a status comes first. Done on the document, not on the routes' schemas: Fastify
 * prepares each status of each route's responses as the route is added (~2 ms of every start).
 */
export function documentFrameworkResponses(paths: OpenApiPaths): void {
  const framework = {
    400: documented('Malformed request: an invalid percent-encoding in the URL, or a body that is not UTF-8'),
    431: documented(`The request line and headers are larger than ${HEADER_LIMIT_KB} KB`),
    408: documented('The request took too long to arrive: its headers, or a body that stopped arriving'),
    414: documented(`A path parameter is longer than ${MAX_PARAM_LENGTH} characters`),
    413: documented(`The body is larger than ${BODY_LIMIT / 1024 / 1024} MB`),
    415: documented('The body is not application/json'),
  };
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const responses = operation.responses;
      if (!responses) continue;
      const own400 = responses[400];
      if (own400?.description) {
        const schema = own400.content?.['application/json']?.schema;
        if (schema?.description === own400.description) schema.description += '; or a malformed URL or body';
        own400.description += '; or a malformed URL or body';
      } else responses[400] = framework[400];
      responses[431] ??= framework[431];
      responses[408] ??= framework[408];
      if (PATH_PARAMETER.test(path)) responses[414] ??= framework[414];
      if (BODY_METHODS.has(method)) {
        responses[413] ??= framework[413];
        responses[415] ??= framework[415];
      }
    }
  }
}

/** Most bytes of an unread request body drained before answering, and for how long at most. */
const DRAIN_LIMIT_BYTES = 8 * BODY_LIMIT;
const DRAIN_LIMIT_MS = 15_000;

/**
 * Reads and drops what is left of a request body before the answer goes out. When the answer comes
 * before the body was read (a 413 on its Content-Length, an error before parsing, a GET body no route
 * reads) and the client asked to close the connection, Node closes the socket with the rest of the
 * body unread: the kernel then resets the connection, and a client still sending never sees the answer.
 */
export function drainUnreadBodies(app: FastifyInstance): void {
  // A callback hook: nearly every answer has nothing left to drain, and an async hook would cost each
  // one a promise and a microtask turn.
  app.addHook('onSend', (request, _reply, _payload, done) => {
    const raw = request.raw;
    if (raw.complete || raw.destroyed) return done();
    drain(raw).then(() => done());
  });
}

function drain(raw: IncomingMessage): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const timer = setTimeout(() => done(), DRAIN_LIMIT_MS);
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DRAIN_LIMIT_BYTES) done();
    };
    const done = () => {
      clearTimeout(timer);
      raw.off('data', onData);
      raw.off('end', done);
      raw.off('close', done);
      raw.off('error', done);
      resolve();
    };
    raw.on('data', onData);
    raw.once('end', done);
    raw.once('close', done);
    raw.once('error', done);
    raw.resume();
  });
}
