// How a shutdown ends the requests still in flight: Fastify's close waits for each to finish and cuts
// only idle connections, so a client that stops reading a download, or a long bash command's
// request, held the process's exit for good (measured: a 200 MB download read 1 MB then paused, no
// exit 20 s after SIGTERM). They get SHUTDOWN_GRACE_MS to finish; then their connections are closed
// and the shutdown goes on (pausing conversations, stopping sandboxes, closing the store).
import type { FastifyInstance } from 'fastify';

/** How long requests in flight when the server starts closing may run on. */
export const SHUTDOWN_GRACE_MS = 10_000;

/** Bounds the wait of `app.close()` for requests in flight to `graceMs`. */
export function boundShutdownWait(app: FastifyInstance, graceMs = SHUTDOWN_GRACE_MS): void {
  let cut: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    cut = setTimeout(() => {
      app.log.warn({ graceMs }, 'requests still in flight at shutdown: their connections are closed');
      app.server.closeAllConnections();
    }, graceMs);
  });
  // Fastify closes its server before it runs the onClose hooks: by then nothing is left to cut.
  app.addHook('onClose', async () => clearTimeout(cut));
}
