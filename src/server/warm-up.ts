// What a served process does once it is ready and idle: readies ahead what the first requests of a
// burst would otherwise each pay on the event loop (2-core machine, CPU): the user message's event
// validator and the first routes' validators, which the build made (dist/validators.cjs, loaded in
// ~10 ms; compiling them here, as where the build's do not match, took ~45, ~65 and ~20 ms), the
// OpenAI SDK ~8 ms (a bundle of its own), Node's fetch ~40 ms, node-pty for the first terminal. One
// piece per turn of the loop, so requests arriving meanwhile are answered between pieces; a piece
// that a request already did costs nothing.
import type { FastifyInstance } from 'fastify';
import { prepareMessageValidator } from '../events/index.js';
import { preloadFetch, preloadOpenAI } from '../llm/index.js';
import { loadPty } from '../tools/index.js';
import { compileRouteValidators } from './validation.js';

/** The routes whose validators a fresh server needs first; their bodies are also built with agentd (precompile.ts). */
export const FIRST_ROUTES = ['POST /api/conversations', 'POST /api/conversations/:conversation_id/events'];

/** Starts the warm-up `delayMs` after the call (after the first /ready is answered); never awaited. */
export function warmUpWhenIdle(app: FastifyInstance, delayMs = 50): void {
  runPiecesWhenIdle(
    [
      () => prepareMessageValidator(),
      ...FIRST_ROUTES.map((route) => () => compileRouteValidators(app, route)),
      () => void preloadOpenAI(),
      () => void preloadFetch(),
      () => void loadPty(),
    ],
    delayMs,
    () => app.server.listening,
  );
}

/**
 * Runs `pieces` one per turn of the loop, from `delayMs` on, while `wanted()` holds. The immediates
 * are not unref'd: an unref'd immediate does not wake an idle loop (Node runs it only when other I/O
 * does), so the pieces after the first used to run on top of the first requests instead of before.
 */
export function runPiecesWhenIdle(pieces: (() => void)[], delayMs: number, wanted: () => boolean): void {
  const next = () => {
    if (!wanted()) return;
    pieces.shift()?.();
    if (pieces.length > 0) setImmediate(next);
  };
  setTimeout(next, delayMs).unref();
}
