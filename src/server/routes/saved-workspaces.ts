// /api/workspaces (OpenHands' agent server): the caller's saved workspaces and workspace parents, the
// folders a client's picker offers. Additions are idempotent (an entry is told apart by its path) and
// answer both lists; a removal names the path and is a 404 when nothing was saved with it.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import {
  AddWorkspaceParentsRequest,
  AddWorkspacesRequest,
  MAX_SAVED_WORKSPACES,
  type SavedWorkspaces,
  WorkspacesList,
} from '../../settings/index.js';
import { notFound } from '../errors.js';
import { detailResponse, errorResponses } from '../schemas.js';

const PathQuery = Type.Object({
  path: Type.String({ minLength: 1, maxLength: 4096, description: 'The saved path to remove' }),
});
const Deleted = Type.Object({ deleted: Type.Literal(true) }, { title: 'DeleteResponse' });
const tooMany = detailResponse(
  `An addition would keep more than ${MAX_SAVED_WORKSPACES} entries in the list`,
);

export const savedWorkspaceRoutes: FastifyPluginAsync<{ workspaces: SavedWorkspaces }> = async (
  app,
  options,
) => {
  const { workspaces } = options;
  const tags = ['Workspaces'];

  app.get(
    '/api/workspaces',
    {
      schema: {
        tags,
        summary: 'List Workspaces',
        description: 'The saved workspaces and workspace parents, oldest first.',
        response: { 200: WorkspacesList, ...errorResponses },
      },
    },
    async (request) => workspaces.list(request.userId),
  );
  app.post(
    '/api/workspaces',
    {
      schema: {
        tags,
        summary: 'Add Workspaces',
        description: 'Appends the workspaces whose path is not saved yet (the first of a path wins).',
        body: AddWorkspacesRequest,
        response: { 200: WorkspacesList, 409: tooMany, ...errorResponses },
      },
    },
    async (request) => workspaces.add(request.userId, request.body as AddWorkspacesRequest),
  );
  app.post(
    '/api/workspaces/parents',
    {
      schema: {
        tags,
        summary: 'Add Workspace Parents',
        description: 'Appends the parents whose path is not saved yet (the first of a path wins).',
        body: AddWorkspaceParentsRequest,
        response: { 200: WorkspacesList, 409: tooMany, ...errorResponses },
      },
    },
    async (request) => workspaces.addParents(request.userId, request.body as AddWorkspaceParentsRequest),
  );
  // A removal names the path; nothing saved there is a 404.
  for (const [path, what, remove] of [
    ['/api/workspaces', 'Workspace', (user: string, at: string) => workspaces.remove(user, at)],
    [
      '/api/workspaces/parents',
      'Workspace parent',
      (user: string, at: string) => workspaces.removeParent(user, at),
    ],
  ] as const) {
    app.delete(
      path,
      {
        schema: {
          tags,
          summary: `Delete ${what}`,
          querystring: PathQuery,
          response: { 200: Deleted, 404: detailResponse(`${what} not found`), ...errorResponses },
        },
      },
      async (request) => {
        if (!(await remove(request.userId, (request.query as { path: string }).path)))
          throw notFound(`${what} not found`);
        return { deleted: true as const };
      },
    );
  }
};
