// Log options: pino, with every place a secret could travel redacted, and one line per request.
// Query strings are cut from logged URLs because clients may put `session_api_key` there.
// On a terminal the lines are short and human (pino-pretty); anywhere else they are JSON lines,
// for log collectors. pino-pretty is loaded only for a terminal, so a server whose output goes to
// a file or a pipe (a sandbox, a service manager) does not pay for it at start-up.
// JSON lines to stdout are batched (batchedStdout): pino's default is one synchronous write(2) per
// line, which cost a small request from outside about half of its time (a batch get of 100 events).
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import { type FastifyReply, type FastifyRequest, type FastifyServerOptions, LogController } from 'fastify';
import { type DestinationStream, type Level, destination as pinoDestination } from 'pino';

import type { PrettyOptions } from 'pino-pretty';
import { sentMethod } from './head.js';

export const LOG_LEVELS: readonly (Level | 'silent')[] = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
];

const REDACT = [
  'req.headers["x-session-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

// Fields of a request line that the human format already says in its message.
const SAID_IN_MESSAGE = 'pid,hostname,reqId,req,res,responseTime';

/** The credential segment of a workspace link (workspace-session.ts). */
const WORKSPACE_LINK = /\/workspace\/~[^/?]*/;

/**
 * A URL as logged: no query string (it may hold `session_api_key`), no workspace link's credential,
 * looked for in the path as the router reads it (`%7E` is `~` to it, so to this).
 */
function urlWithoutQuery(url: string | undefined): string | undefined {
  if (!url) return url;
  const q = url.indexOf('?');
  const path = q === -1 ? url : `${url.slice(0, q)}?…`;
  let decoded = path;
  // Every request line passes here: most paths hold no escape to decode.
  if (path.includes('%'))
    try {
      decoded = decodeURI(path);
    } catch {
      // Not valid percent-encoding: the router would not have decoded it either.
    }
  if (!WORKSPACE_LINK.test(decoded)) return path;
  // Decoded to find the link, so its control characters are cut (a line stays one line).
  return decoded.replace(WORKSPACE_LINK, '/workspace/~…').replace(/\p{Cc}/gu, '?');
}

export interface LogOutput {
  /** Human lines instead of JSON; default: whether stdout is a terminal. */
  tty?: boolean;
  /** Where lines go; default stdout. Tests pass their own stream. */
  destination?: NodeJS.WritableStream;
}

export function loggerOptions(
  option: boolean | { level: string },
  output: LogOutput = {},
): FastifyServerOptions['logger'] {
  if (option === false) return false;
  const tty = output.tty ?? process.stdout.isTTY === true;
  const stream = tty ? prettyStream(output.destination) : (output.destination ?? batchedStdout());
  return {
    level: option === true ? 'info' : option.level,
    redact: { paths: REDACT, censor: '[redacted]' },
    serializers: {
      // A Fastify request (the raw one's method says HEAD for one routed as a GET), or any other.
      req: (req: { raw?: IncomingMessage; method?: string; url?: string; ip?: string }) => ({
        method: req.raw ? sentMethod(req.raw) : req.method,
        url: urlWithoutQuery(req.url),
        remoteAddress: req.ip,
      }),
    },
    ...(stream ? { stream: stream as DestinationStream } : {}),
  };
}

/** Lines wait at most this long (or until 8 KB are buffered) before they are written. */
const FLUSH_MS = 50;

/**
 * stdout written in batches, off the event loop: lines gather in memory and go out in one
 * asynchronous write when 8 KB are buffered or FLUSH_MS after the first one. What is still
 * buffered when the process exits (a normal end, a signal handled by `serve`, an uncaught error)
 * is written synchronously then (pino registers that for its own destinations), so no line is lost.
 */
function batchedStdout(): DestinationStream {
  const out = pinoDestination({ dest: 1, sync: false, minLength: 8 * 1024 });
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    timer = null;
    out.flush();
  };
  return {
    write(line: string) {
      out.write(line);
      if (timer === null) {
        timer = setTimeout(flush, FLUSH_MS);
        timer.unref();
      }
    },
  };
}

/** pino-pretty in this thread (no worker to start), one short line per entry, local time. */
function prettyStream(destination: NodeJS.WritableStream | undefined): NodeJS.WritableStream {
  const { build } = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
  const options: PrettyOptions = {
    translateTime: 'SYS:HH:MM:ss',
    ignore: SAID_IN_MESSAGE,
    singleLine: true,
    sync: true,
  };
  return build(destination ? { ...options, destination } : options);
}

/**
 * One line per request, when it completes: `GET /api/conversations?… 200 3ms`, with method, url,
 * status and time also as fields for JSON readers. Fastify's default is two lines (incoming and
 * completed), which doubles a terminal's noise; only a WebSocket upgrade, which may never
 * "complete", is still logged when it arrives.
 */
export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (request.headers.upgrade === undefined || this.isLogDisabled(request)) return;
    request.log.info(
      { req: request },
      `${sentMethod(request.raw)} ${urlWithoutQuery(request.url)} (upgrade)`,
    );
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    const ms = reply.elapsedTime;
    const fields = { req: request, res: reply, responseTime: ms };
    const line = `${sentMethod(request.raw)} ${urlWithoutQuery(request.url)} ${reply.statusCode} ${Math.round(ms)}ms`;
    if (error) reply.log.error({ ...fields, err: error }, `${line} (${error.message})`);
    else reply.log.info(fields, line);
  }
}
