// Log options: JSON lines through pino, with every place a secret could travel redacted.
// Query strings are cut from logged URLs because clients may put `session_api_key` there.
import type { FastifyServerOptions } from 'fastify';

const REDACT = [
  'req.headers["x-session-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

function urlWithoutQuery(url: string | undefined): string | undefined {
  if (!url) return url;
  const q = url.indexOf('?');
  return q === -1 ? url : `${url.slice(0, q)}?…`;
}

export function loggerOptions(option: boolean | { level: string }): FastifyServerOptions['logger'] {
  if (option === false) return false;
  return {
    level: option === true ? 'info' : option.level,
    redact: { paths: REDACT, censor: '[redacted]' },
    serializers: {
      req: (req: { method?: string; url?: string; ip?: string }) => ({
        method: req.method,
        url: urlWithoutQuery(req.url),
        remoteAddress: req.ip,
      }),
    },
  };
}
