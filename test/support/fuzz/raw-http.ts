// One HTTP request on loopback with the path sent byte for byte (fetch would normalize it) and any
// body: raw bytes, a GET body, or chunked. The answer is read whole.
import { request } from 'node:http';

export interface RawRequest {
  method: string;
  /** Sent as written: percent-escapes, `..` and all. */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer;
  /** Send the body with Transfer-Encoding: chunked instead of Content-Length. */
  chunked?: boolean;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export function sendRaw(base: string, req: RawRequest): Promise<RawAnswer> {
  const url = new URL(base);
  const headers: Record<string, string | number> = { ...req.headers };
  if (req.body && !req.chunked) headers['content-length'] = req.body.length;
  if (req.chunked) headers['transfer-encoding'] = 'chunked';
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { host: url.hostname, port: url.port, method: req.method, path: req.path, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    if (req.body && req.chunked) {
      // Several chunks, as a streaming client sends them.
      const size = 64 * 1024;
      for (let i = 0; i < req.body.length; i += size) outgoing.write(req.body.subarray(i, i + size));
      outgoing.end();
    } else {
      outgoing.end(req.body);
    }
  });
}
