// /api/v1/sandboxes and /api/v1/sandbox-specs (OpenHands app-server V1). The user is the session
// key's user, like the rest of /api. Unlike OpenHands: an unknown spec is 404 (not 500), the
// running-sandbox limit answers 429, and DELETE takes the id in the path or as ?sandbox_id=.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { SandboxService, SandboxSpecs } from '../../../sandbox/index.js';
import { notFound, RequestValidationError } from '../../errors.js';
import { detailResponse, errorResponses } from '../../schemas.js';
import { IdList, PageQuery } from './query.js';

export interface SandboxRoutesOptions {
  sandboxes: SandboxService;
  specs: SandboxSpecs;
}

const Ref = (id: string) => Type.Ref(id);

export const sandboxRoutes: FastifyPluginAsync<SandboxRoutesOptions> = async (app, { sandboxes, specs }) => {
  const tags = ['Sandboxes'];
  const IdParams = Type.Object({ sandbox_id: Type.String({ minLength: 1 }) });

  app.get(
    '/api/v1/sandboxes/search',
    {
      schema: {
        tags,
        summary: 'Search Sandboxes',
        description: 'Newest first, cursor pages.',
        querystring: Type.Object(PageQuery),
        response: { 200: Ref('SandboxPage'), 400: detailResponse('Unknown page_id'), ...errorResponses },
      },
    },
    async (request) => {
      const q = request.query as { page_id?: string; limit?: number };
      const page = await sandboxes.search(request.userId, { pageId: q.page_id, limit: q.limit ?? 100 });
      return { items: page.items.map((s) => sandboxes.info(s)), next_page_id: page.nextPageId };
    },
  );

  app.get(
    '/api/v1/sandboxes',
    {
      schema: {
        tags,
        summary: 'Batch Get Sandboxes',
        querystring: Type.Object({ id: IdList() }),
        response: { 200: Type.Array(Type.Union([Ref('SandboxInfo'), Type.Null()])), ...errorResponses },
      },
    },
    async (request) => {
      const { id } = request.query as { id: string[] };
      const records = await sandboxes.getMany(request.userId, id);
      return records.map((r) => (r ? sandboxes.info(r) : null));
    },
  );

  app.post(
    '/api/v1/sandboxes',
    {
      schema: {
        tags,
        summary: 'Start Sandbox',
        description:
          'Answers at once with the sandbox in STARTING; it reads RUNNING once its agent server answers its health check.',
        querystring: Type.Object({ sandbox_spec_id: Type.Optional(Type.String({ minLength: 1 })) }),
        response: {
          200: Ref('SandboxInfo'),
          404: detailResponse('Unknown sandbox spec'),
          429: detailResponse('The limit of running sandboxes is reached'),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { sandbox_spec_id } = request.query as { sandbox_spec_id?: string };
      return sandboxes.info(await sandboxes.start(request.userId, sandbox_spec_id));
    },
  );

  for (const action of ['pause', 'resume'] as const) {
    app.post(
      `/api/v1/sandboxes/:sandbox_id/${action}`,
      {
        schema: {
          tags,
          summary: action === 'pause' ? 'Pause Sandbox' : 'Resume Sandbox',
          description:
            action === 'pause'
              ? 'Suspends every process of the sandbox (its agent server and what its tools started).'
              : 'Continues a paused sandbox; a MISSING or ERROR one is started again with its files and conversations.',
          params: IdParams,
          response: {
            200: Ref('Success'),
            404: detailResponse('Unknown sandbox'),
            ...(action === 'resume'
              ? { 429: detailResponse('The limit of running sandboxes is reached') }
              : {}),
            ...errorResponses,
          },
        },
      },
      async (request) => {
        const { sandbox_id } = request.params as { sandbox_id: string };
        const done = await sandboxes[action](request.userId, sandbox_id);
        if (!done) throw notFound(`Sandbox not found: ${sandbox_id}`);
        return { success: true };
      },
    );
  }

  const remove = async (userId: string, sandboxId: string | undefined) => {
    if (!sandboxId) {
      throw new RequestValidationError([
        { loc: ['query', 'sandbox_id'], msg: 'Field required', type: 'missing' },
      ]);
    }
    if (!(await sandboxes.delete(userId, sandboxId))) throw notFound(`Sandbox not found: ${sandboxId}`);
    return { success: true };
  };
  const deleteSchema = (withPath: boolean) => ({
    tags,
    summary: 'Delete Sandbox',
    description: 'Stops the sandbox and removes its folder.',
    ...(withPath ? { params: Type.Object({ id: Type.String({ minLength: 1 }) }) } : {}),
    querystring: Type.Object({ sandbox_id: Type.Optional(Type.String({ minLength: 1 })) }),
    response: { 200: Ref('Success'), 404: detailResponse('Unknown sandbox'), ...errorResponses },
  });
  app.delete('/api/v1/sandboxes/:id', { schema: deleteSchema(true) }, async (request) => {
    const { id } = request.params as { id: string };
    const { sandbox_id } = request.query as { sandbox_id?: string };
    return remove(request.userId, sandbox_id ?? id);
  });
  app.delete('/api/v1/sandboxes', { schema: deleteSchema(false) }, async (request) =>
    remove(request.userId, (request.query as { sandbox_id?: string }).sandbox_id),
  );

  const specTags = ['Sandbox Specs'];
  app.get(
    '/api/v1/sandbox-specs/search',
    {
      schema: {
        tags: specTags,
        summary: 'Search Sandbox Specs',
        querystring: Type.Object(PageQuery),
        response: {
          200: Ref('SandboxSpecInfoPage'),
          400: detailResponse('Unknown page_id'),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const q = request.query as { page_id?: string; limit?: number };
      return specs.page(q.page_id, q.limit ?? 100);
    },
  );

  app.get(
    '/api/v1/sandbox-specs',
    {
      schema: {
        tags: specTags,
        summary: 'Batch Get Sandbox Specs',
        querystring: Type.Object({ id: IdList() }),
        response: { 200: Type.Array(Type.Union([Ref('SandboxSpecInfo'), Type.Null()])), ...errorResponses },
      },
    },
    async (request) => specs.getMany((request.query as { id: string[] }).id),
  );
};
