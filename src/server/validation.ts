// Request validation and error mapping. Bodies are validated strictly (no coercion, unknown members
// kept so that additionalProperties:false rejects them); query strings and path parameters are
// coerced from text, as FastAPI does. Every validation failure becomes a FastAPI-shaped 422.
import type { ValidateFunction } from 'ajv';
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifyServerOptions,
} from 'fastify';
import { PluginNotFoundError, PluginResolutionError } from '../agent/index.js';
import { OwnerUnavailableError } from '../cluster/index.js';
import {
  CondenserUnavailableError,
  ConversationIdInUseError,
  ConversationInSandboxError,
  ConversationNotFoundError,
  ConversationRunningError,
  GoalRunningError,
  InvalidConversationRequestError,
  NoResumableGoalError,
  UnknownEventError,
} from '../conversation/errors.js';
import {
  createAjv,
  issuesFromAjv,
  precompiledValidator,
  schemaHash,
  sharingCompiler,
  type ValidationIssue,
} from '../events/index.js';
import { GitProviderError } from '../git-providers/index.js';
import { LLMError } from '../llm/index.js';
import { SandboxLimitError, SandboxNotFoundError, SandboxSpecNotFoundError } from '../sandbox/index.js';
import {
  AgentProfileNotFoundError,
  ConnectionConflictError,
  ConnectionNotFoundError,
  InvalidSettingsError,
  ProfileConflictError,
  ProfileNotFoundError,
  SecretKeyError,
  TooManyWorkspacesError,
} from '../settings/index.js';
import { UnknownConversationError, UnknownCursorError } from '../store/index.js';
import { HttpError, RequestValidationError } from './errors.js';
import { decodeUtf8, parseJsonText } from './json-body.js';

/** A route's validator for one part of the request, and what compiles it now. */
interface RouteValidator {
  part: string | undefined;
  schema: object;
  compile: () => void;
}

/** Per app, each route's validators ("POST /api/conversations"). */
const compilers = new WeakMap<FastifyInstance, Map<string, RouteValidator[]>>();

const LOC_PREFIX: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

type ValidatorCompiler = Parameters<FastifyInstance['setValidatorCompiler']>[0];
type SerializerCompiler = Parameters<FastifyInstance['setSerializerCompiler']>[0];
type CompilersFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;

/** agentd's validator and serializer compilers, made before the app that uses them. */
export interface Compilers {
  /**
   * For Fastify's `schemaController` option: naming factories keeps Fastify from loading its
   * default compilers (@fastify/ajv-compiler, fast-json-stringify), which cost start-up time and
   * which agentd never uses. They answer this app's own compilers, in every plugin scope.
   */
  compilersFactory: CompilersFactory;
  install(app: FastifyInstance): void;
}

type Compile = ReturnType<typeof sharingCompiler>;

/** Ajv's options by kind of request part: bodies strict, query strings and path parameters coerced from text. */
export const AJV_OPTIONS = { strict: {}, coercing: { coerceTypes: 'array' } } as const;

/** Which of AJV_OPTIONS a part of the request is validated with. */
export function optionsKind(part: string | undefined): keyof typeof AJV_OPTIONS {
  return part === 'body' ? 'strict' : 'coercing';
}

/** The name a route part's validator is built under (precompile.ts) and looked up by. */
export function validatorName(route: string, part: string | undefined): string {
  return `${route} ${part}`;
}

/**
 * Two Ajv instances: bodies strict, query strings and path parameters coerced. A `$ref` names a
 * shared schema (app.addSchema); sharingCompiler puts it in place.
 */
export function createCompilers(): Compilers {
  const byRoute = new Map<string, RouteValidator[]>();
  let app: FastifyInstance | null = null;
  let sharing: { strict: Compile; coercing: Compile } | null = null;
  // What a `$ref` names: a shared schema (app.addSchema). Read when the first validator compiles,
  // not at start-up: by then every route is registered, so every shared schema is there.
  let shared: Record<string, object> | null = null;
  const lookup = (id: string) => {
    shared ??= (app?.getSchemas() ?? {}) as Record<string, object>;
    return shared[id];
  };
  // A validator built with agentd (events/precompiled.ts), if it was built from this schema and
  // the shared schemas it names.
  const precompiledFor = (route: string, part: string | undefined, schema: object) =>
    precompiledValidator(validatorName(route, part), () => schemaHash(schema, lookup));
  const compilersNow = () => {
    if (sharing) return sharing;
    sharing = {
      strict: sharingCompiler(createAjv(AJV_OPTIONS.strict), lookup),
      coercing: sharingCompiler(createAjv(AJV_OPTIONS.coercing), lookup),
    };
    return sharing;
  };
  const validatorCompiler: ValidatorCompiler = ({ schema, httpPart, method, url }) => {
    // Compiled on the route's first request, not at start-up: cold start stays short.
    let compiled: ValidateFunction | null = null;
    const key = `${method} ${url}`;
    const compile = (): ValidateFunction => {
      if (compiled) return compiled;
      compiled =
        precompiledFor(key, httpPart, schema as object) ??
        compilersNow()[optionsKind(httpPart)](schema as object);
      return compiled;
    };
    const validate = (data: unknown) => {
      const check = compile();
      const ok = check(data);
      validate.errors = check.errors;
      return ok;
    };
    validate.errors = null as ValidateFunction['errors'];
    byRoute.set(key, [...(byRoute.get(key) ?? []), { part: httpPart, schema: schema as object, compile }]);
    return validate;
  };
  // Output is what we built: plain JSON, no schema-driven stripping or coercion.
  const serializerCompiler: SerializerCompiler = () => (data) => JSON.stringify(data);
  return {
    // Typed after Fastify's default compilers (Ajv's compile); Fastify calls them as it calls the
    // ones set with setValidatorCompiler and setSerializerCompiler.
    compilersFactory: {
      buildValidator: () => validatorCompiler,
      buildSerializer: () => serializerCompiler,
    } as unknown as CompilersFactory,
    install(target) {
      app = target;
      compilers.set(target, byRoute);
      target.setValidatorCompiler(validatorCompiler);
      target.setSerializerCompiler(serializerCompiler);
      installJsonParser(target);
    },
  };
}

function installJsonParser(app: FastifyInstance): void {
  // An empty JSON body is no body (FastAPI's reading, which OpenHands clients rely on for POST /run).
  // Bytes, not text: Fastify's own decoding would turn invalid UTF-8 into U+FFFD without a word.
  // JSON is the one body these routes read (multipart where a route adds its own): Fastify's default
  // text/plain parser handed a route a string its schema then refused with a 422, not the 415 of every
  // other media type.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      const text = decodeUtf8(body as Buffer);
      done(null, text.trim() === '' ? undefined : parseJsonText(text));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

/**
 * Compiles a route's validators now rather than on its first request (a server's idle warm-up: the
 * start-conversation body alone takes most of a second of blocked loop to compile). Unknown: nothing.
 */
export function compileRouteValidators(app: FastifyInstance, route: string): void {
  for (const validator of compilers.get(app)?.get(route) ?? []) validator.compile();
}

/** A route's validated parts and their schemas as its validators got them (what the build precompiles). */
export function routeSchemas(
  app: FastifyInstance,
  route: string,
): { part: string | undefined; schema: object }[] {
  return (compilers.get(app)?.get(route) ?? []).map(({ part, schema }) => ({ part, schema }));
}

function isFastifyValidation(error: unknown): error is FastifyError & { validation: unknown[] } {
  return (
    typeof error === 'object' &&
    error !== null &&
    Array.isArray((error as { validation?: unknown }).validation)
  );
}

function validationIssues(error: FastifyError & { validation: unknown[] }): ValidationIssue[] {
  const prefix = LOC_PREFIX[error.validationContext ?? 'body'] ?? 'body';
  return issuesFromAjv(error.validation as Parameters<typeof issuesFromAjv>[0], [prefix]);
}

/** The HTTP answer for an error the domain raises on purpose. */
function domainError(error: unknown): { status: number; detail: unknown } | null {
  if (
    error instanceof ConversationNotFoundError ||
    error instanceof UnknownConversationError ||
    error instanceof UnknownEventError
  ) {
    return { status: 404, detail: error.message };
  }
  if (
    error instanceof ConversationRunningError ||
    error instanceof GoalRunningError ||
    error instanceof ConversationInSandboxError ||
    error instanceof ConversationIdInUseError
  ) {
    return { status: 409, detail: error.message };
  }
  if (
    error instanceof SandboxNotFoundError ||
    error instanceof SandboxSpecNotFoundError ||
    error instanceof ProfileNotFoundError ||
    error instanceof AgentProfileNotFoundError ||
    error instanceof ConnectionNotFoundError
  ) {
    return { status: 404, detail: error.message };
  }
  if (
    error instanceof ProfileConflictError ||
    error instanceof TooManyWorkspacesError ||
    error instanceof ConnectionConflictError
  )
    return { status: 409, detail: error.message };
  if (error instanceof SandboxLimitError) return { status: 429, detail: error.message };
  // The replica running the conversation is gone and its lease has not yet expired.
  if (error instanceof OwnerUnavailableError) return { status: 503, detail: error.message };
  // The LLM behind a request failed (ask_agent): the upstream's fault, not ours and not the client's.
  // Its messages never hold the API key (see llm/errors.ts).
  if (error instanceof LLMError) return { status: 502, detail: error.message };
  // GitHub's refusals (400, 404) and GitHub out of reach (502), as git-providers/ decided them.
  if (error instanceof GitProviderError) return { status: error.status, detail: error.message };
  if (
    error instanceof CondenserUnavailableError ||
    error instanceof NoResumableGoalError ||
    error instanceof PluginResolutionError
  )
    return { status: 400, detail: error.message };
  if (error instanceof PluginNotFoundError) return { status: 404, detail: error.message };
  if (error instanceof UnknownCursorError) return { status: 400, detail: error.message };
  if (error instanceof InvalidSettingsError) {
    return { status: 422, detail: error.issues.map((i) => ({ ...i, loc: ['body', ...i.loc] })) };
  }
  // The stored secrets cannot be opened (the secret key changed): the user's to re-enter, not a 500.
  // Its message names the user and the member, so a fixed one is sent instead.
  if (error instanceof SecretKeyError) {
    return {
      status: 409,
      detail: "A stored secret cannot be opened with this server's secret key: store it again",
    };
  }
  if (error instanceof InvalidConversationRequestError) {
    return { status: 422, detail: [{ loc: error.loc, msg: error.message, type: 'value_error' }] };
  }
  return null;
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setNotFoundHandler((_request, reply) => {
    reply.code(404).send({ detail: 'Not Found' });
  });

  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    if (error instanceof HttpError) return reply.code(error.statusCode).send({ detail: error.detail });
    if (error instanceof RequestValidationError) return reply.code(422).send({ detail: error.issues });
    if (isFastifyValidation(error)) return reply.code(422).send({ detail: validationIssues(error) });
    const domain = domainError(error);
    if (domain) return reply.code(domain.status).send({ detail: domain.detail });
    const fastifyError = error as Partial<FastifyError>;
    const status = fastifyError.statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      // Framework-level client errors (unsupported media type, body too large, ...): keep their status.
      return reply.code(status).send({ detail: fastifyError.message ?? 'Bad Request' });
    }
    const errorId = crypto.randomUUID().replaceAll('-', '');
    request.log.error({ err: error, error_id: errorId }, 'unhandled error');
    return reply.code(500).send({ detail: 'Internal Server Error', error_id: errorId });
  });
}
