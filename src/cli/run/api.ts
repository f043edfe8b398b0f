// The client side of agentd's HTTP and WebSocket API, as the CLI uses it: calls with the session key,
// error answers as ApiError with the server's own words, and a live event reader with agentd's exact
// cursor (after_seq) that reconnects where it stopped: no gap, no duplicate.
import WebSocket from 'ws';

export type Event = Record<string, unknown> & { id: string; kind: string; source?: string };

/** One frame of /sockets/events with after_seq: seq is null for frames that are not stored (full_state). */
export interface Frame {
  seq: number | null;
  event: Event;
}

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The server's `detail`, one line: a string, or the first validation problem with where it is. */
function detailOf(body: unknown): string | null {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail) && detail.length > 0) {
    const first = detail[0] as { loc?: unknown[]; msg?: string };
    return `${first.msg ?? 'invalid'}${first.loc ? ` (at ${first.loc.join('.')})` : ''}`;
  }
  return null;
}

export class Api {
  constructor(
    readonly base: string,
    readonly key: string | null,
  ) {}

  private headers(): Record<string, string> {
    return this.key ? { 'X-Session-API-Key': this.key } : {};
  }

  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}`, {
        method,
        headers: {
          ...this.headers(),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
      throw new ApiError(0, `cannot reach agentd at ${this.base} (${cause})`);
    }
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: the status says it
    }
    if (!res.ok) {
      if (res.status === 401)
        throw new ApiError(
          401,
          `${this.base} refused the session key (give it with --key or AGENTD_SESSION_API_KEY)`,
        );
      throw new ApiError(res.status, detailOf(parsed) ?? `${method} ${path}: HTTP ${res.status}`);
    }
    return parsed as T;
  }

  /**
   * Reads a conversation's events live from `afterSeq` on, calling `onFrame` for each, until `stop()`
   * is called (then it resolves). When the connection drops it reconnects after the last stored event
   * it saw; `onDrop` hears of each drop. An unknown conversation or a refused key rejects.
   */
  follow(
    id: string,
    afterSeq: number,
    onFrame: (frame: Frame) => void,
    onDrop: (reason: string) => void = () => {},
  ): { done: Promise<void>; stop(): void } {
    let cursor = afterSeq;
    let stopped = false;
    let socket: WebSocket | null = null;
    let wake: (() => void) | null = null;
    const stop = () => {
      stopped = true;
      socket?.close();
      wake?.();
    };
    const done = (async () => {
      for (let attempt = 0; !stopped; attempt++) {
        const url = `${this.base.replace(/^http/, 'ws')}/sockets/events/${id}?after_seq=${cursor}`;
        const closed = await new Promise<{ code: number; reason: string; opened: boolean }>((resolve) => {
          let opened = false;
          socket = new WebSocket(url, { headers: this.headers() });
          socket.on('open', () => {
            opened = true;
          });
          socket.on('message', (data) => {
            const frame = JSON.parse(data.toString()) as Frame;
            if (frame.seq !== null) cursor = frame.seq;
            if (!stopped) onFrame(frame);
          });
          socket.on('error', () => {}); // the close that follows says what happened
          socket.on('close', (code, reason) => resolve({ code, reason: reason.toString(), opened }));
        });
        if (stopped) return;
        if (closed.code === 4004) throw new ApiError(404, `no conversation ${id}`);
        if (closed.code === 4001)
          throw new ApiError(
            401,
            `${this.base} refused the session key (give it with --key or AGENTD_SESSION_API_KEY)`,
          );
        if (closed.opened) attempt = 0;
        onDrop(closed.reason || `connection closed (${closed.code})`);
        // Back off up to 5 s while the server is away (a restart), then continue after `cursor`.
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, Math.min(5000, 250 * 2 ** attempt));
        });
      }
    })();
    return { done, stop };
  }
}
