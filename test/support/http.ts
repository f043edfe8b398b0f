// A GET with a JSON body, which fetch() refuses to send but OpenHands' batch events route requires.
import { Agent, request } from 'node:http';

export interface RawResponse {
  status: number;
  text: string;
  json(): unknown;
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

export function getWithBody(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'GET',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...headers,
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
