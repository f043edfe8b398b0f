// Raw HTTP requests, for what fetch() will not send: a GET with a JSON body (OpenHands' batch events
// route requires one) and paths exactly as written (fetch normalizes `/./` and some escapes).
import { Agent, request } from 'node:http';

export interface RawResponse {
  status: number;
  text: string;
  json(): unknown;
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/** Sends `method path` to the server at `base` with the path untouched. */
export function rawRequest(
  base: string,
  options: {
    method: string;
    path: string;
    headers?: Record<string, string>;
    body?: string;
    /** Connections of its own (a health checker's); default the shared pool of 16. */
    agent?: Agent;
  },
): Promise<RawResponse> {
  const { hostname, port } = new URL(base);
  const { body } = options;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        method: options.method,
        path: options.path,
        agent: options.agent ?? agent,
        headers: {
          ...(body !== undefined
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }
            : {}),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, text, json: () => JSON.parse(text) });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export function getWithBody(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const { origin, pathname, search } = new URL(url);
  return rawRequest(origin, { method: 'GET', path: `${pathname}${search}`, headers, body });
}
