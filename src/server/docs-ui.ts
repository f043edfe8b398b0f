// The interactive docs at /docs (swagger-ui), set up on their first request rather than at start-up:
// loading and registering @fastify/swagger-ui (with @fastify/static and yaml, unbundled) was a
// large share of serve → /ready for a page most runs never open. Two public routes forward to a
// small Fastify instance of their own, built once, that serves the page from the app's document.
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { markPublic } from './auth.js';
import { installErrorHandler } from './validation.js';

/** Hop-by-hop and length headers: the outer reply sets its own. */
const NOT_FORWARDED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'date']);

export async function installDocsUi(app: FastifyInstance): Promise<void> {
  let ui: Promise<FastifyInstance> | null = null;
  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    ui ??= docsApp(app).catch((error: unknown) => {
      ui = null;
      throw error;
    });
    // Always a GET inside: a HEAD request comes routed as a GET (head.ts), and Node drops the body.
    const res = await (await ui).inject({
      method: 'GET',
      url: request.url,
      headers: request.headers,
    });
    for (const [name, value] of Object.entries(res.headers)) {
      if (value !== undefined && !NOT_FORWARDED.has(name)) reply.header(name, value);
    }
    return reply.code(res.statusCode).send(res.rawPayload);
  };
  await app.register(async (docs) => {
    markPublic(docs);
    docs.get('/docs', { schema: { hide: true } }, forward);
    docs.get('/docs/*', { schema: { hide: true } }, forward);
  });
}

/** swagger-ui on its own instance, over the app's OpenAPI document as it is once the app is ready. */
async function docsApp(app: FastifyInstance): Promise<FastifyInstance> {
  const { default: swaggerUi } = await import('@fastify/swagger-ui');
  // The app's logger for what fails in there (its own request lines would double the app's), and the
  // app's error handling: {detail}, also for what @fastify/static refuses (a `..` in a path is a 403).
  const ui = Fastify({ loggerInstance: app.log, disableRequestLogging: true });
  installErrorHandler(ui);
  await ui.register(swagger, {
    mode: 'static',
    specification: { document: app.swagger() as never },
  });
  await ui.register(swaggerUi, {
    routePrefix: '/docs',
    // "Authorize" once and "Try it out" sends the key on every call, also after a reload.
    uiConfig: { persistAuthorization: true },
  });
  await ui.ready();
  return ui;
}
