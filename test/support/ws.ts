// A WebSocket client for tests: collects frames, waits for conditions, reports the close code.
import WebSocket from 'ws';

export interface WsClient {
  socket: WebSocket;
  frames: unknown[];
  /** Resolves with the first frame (after `from`) for which `match` is true. */
  next(match?: (frame: unknown) => boolean, timeoutMs?: number): Promise<unknown>;
  closed: Promise<{ code: number; reason: string }>;
  send(value: unknown): void;
  close(): void;
}

export function connect(url: string, headers: Record<string, string> = {}): Promise<WsClient> {
  const socket = new WebSocket(url, { headers });
  const frames: unknown[] = [];
  const waiters: { match: (f: unknown) => boolean; resolve: (f: unknown) => void; from: number }[] = [];
  socket.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as unknown;
    frames.push(frame);
    for (const w of [...waiters]) {
      if (w.match(frame)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(frame);
      }
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.once('open', () =>
      resolve({
        socket,
        frames,
        closed,
        next(match = () => true, timeoutMs = 10_000) {
          const seen = frames.find(match);
          if (seen !== undefined) return Promise.resolve(seen);
          return new Promise((res, rej) => {
            const timer = setTimeout(
              () =>
                rej(
                  new Error(
                    `no matching frame in ${timeoutMs} ms; got ${JSON.stringify(frames).slice(0, 2000)}`,
                  ),
                ),
              timeoutMs,
            );
            waiters.push({
              match,
              from: frames.length,
              resolve: (f) => {
                clearTimeout(timer);
                res(f);
              },
            });
          });
        },
        send: (value) => socket.send(typeof value === 'string' ? value : JSON.stringify(value)),
        close: () => socket.close(),
      }),
    );
  });
}

export const wsUrl = (httpUrl: string, path: string) => `${httpUrl.replace(/^http/, 'ws')}${path}`;
