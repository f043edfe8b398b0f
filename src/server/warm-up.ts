// What a served process does once it is ready and idle: compile and load ahead what the first
// requests of a burst would otherwise each pay on the event loop (measured on the 2-core machine,
// CPU: the user message's event validator ~45 ms, the start-conversation body ~65 ms and the
// send-message body ~20 ms since large subschemas compile once (events/shared-subschemas.ts; ~250
// ms before), the OpenAI SDK ~40 ms, Node's fetch ~40 ms, node-pty for the first terminal). One
// piece per turn of the loop, so requests arriving meanwhile are answered between pieces; a piece
// that a request already compiled costs nothing.
import type { FastifyInstance } from 'fastify';
import { prepareMessageValidator } from '../events/index.js';
import { preloadFetch, preloadOpenAI } from '../llm/index.js';
import { loadPty } from '../tools/index.js';
import { compileRouteValidators } from './validation.js';

const ROUTES = ['POST /api/conversations', 'POST /api/conversations/:conversation_id/events'];

/** Starts the warm-up `delayMs` after the call (after the first /ready is answered); never awaited. */
export function warmUpWhenIdle(app: FastifyInstance, delayMs = 50): void {
  const pieces = [
    () => prepareMessageValidator(),
    ...ROUTES.map((route) => () => compileRouteValidators(app, route)),
    () => void preloadOpenAI(),
    () => void preloadFetch(),
    () => void loadPty(),
  ];
  const next = () => {
    pieces.shift()?.();
    if (pieces.length > 0) setImmediate(next).unref();
  };
  setTimeout(next, delayMs).unref();
}
