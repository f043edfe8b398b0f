// Error shapes of the wire: FastAPI's {detail} for client errors, {detail:[{loc,msg,type}]} for
// validation, and a 500 that carries an error id (logged with the stack) and nothing else.
import type { ValidationIssue } from '../events/index.js';

/** An error a route raises on purpose; the error handler turns it into `{detail}` with its status. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: unknown,
  ) {
    super(typeof detail === 'string' ? detail : JSON.stringify(detail));
    this.name = 'HttpError';
  }
}

/** A 422 raised by hand (for inputs Fastify cannot validate itself, such as a GET body). */
export class RequestValidationError extends Error {
  constructor(readonly issues: ValidationIssue[]) {
    super('Request validation failed');
    this.name = 'RequestValidationError';
  }
}

export const notFound = (detail = 'Not Found') => new HttpError(404, detail);
export const badRequest = (detail = 'Bad Request') => new HttpError(400, detail);
