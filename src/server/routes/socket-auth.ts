// What both WebSockets (/sockets/events, /sockets/bash-events) share to authenticate as OpenHands does:
// the `session_api_key` query parameter, else the keys' headers (as every route reads them), else a
// first frame {"type":"auth","session_api_key":…}; later redundant auth frames are skipped.
import type { FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { offeredKeys, requestUser, type SessionKeys } from '../auth.js';

/**
 * The user the client's key names: the `session_api_key` query parameter's, else the headers' (the
 * same rule as every other route), else (when keys are required) the first frame's; null when none
 * names one. With auth off, the local user. Frames after the auth frame are the caller's to hold.
 */
export async function socketUser(
  socket: WebSocket,
  request: FastifyRequest,
  sessionKeys: SessionKeys,
  timeoutMs: number,
): Promise<string | null> {
  const query = (request.query as { session_api_key?: string }).session_api_key;
  if (query !== undefined) return sessionKeys.userOf(query);
  if (offeredKeys(request.headers).length > 0) return requestUser(sessionKeys, request.headers);
  return sessionKeys.userOf(sessionKeys.enabled ? await firstFrameKey(socket, timeoutMs) : null);
}

/** Waits for the first text frame {"type":"auth","session_api_key":…}; null on timeout or anything else. */
export function firstFrameKey(socket: WebSocket, timeoutMs: number): Promise<string | null> {
  return new Promise((resolve) => {
    const done = (key: string | null) => {
      clearTimeout(timer);
      socket.off('message', onMessage);
      socket.off('close', onClose);
      resolve(key);
    };
    const onMessage = (data: Buffer, isBinary: boolean) => {
      if (isBinary) return done(null);
      try {
        const frame = JSON.parse(data.toString('utf8')) as { type?: unknown; session_api_key?: unknown };
        done(
          frame?.type === 'auth' && typeof frame.session_api_key === 'string' ? frame.session_api_key : null,
        );
      } catch {
        done(null);
      }
    };
    const onClose = () => done(null);
    const timer = setTimeout(() => done(null), timeoutMs);
    socket.on('message', onMessage);
    socket.once('close', onClose);
  });
}

/** A frame is only a redundant auth frame if it has exactly `type` (and maybe `session_api_key`). */
export function isAuthFrame(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || (value as { type?: unknown }).type !== 'auth')
    return false;
  return Object.keys(value).every((k) => k === 'type' || k === 'session_api_key');
}
