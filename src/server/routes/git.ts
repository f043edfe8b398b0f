// /api/git: what changed in a work tree (changes, per-file diff), its history (commits, one commit's
// changes). Read-only, through the system git (src/git). `changes` and `diff` also answer OpenHands'
// older path form (/api/git/changes/<path>), whose path is read as absolute.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { MAX_PATH_LENGTH } from '../../files/index.js';
import {
  absolutePath,
  commitChanges,
  commitFileDiff,
  GitError,
  gitChanges,
  gitCommits,
  gitDiff,
  MAX_COMMITS,
  oneReading,
} from '../../git/index.js';
import { HttpError } from '../errors.js';
import { detailResponse, errorResponses } from '../schemas.js';

const SHA_PATTERN = '^[0-9a-fA-F]{4,64}$';

const PathQuery = Type.String({
  minLength: 1,
  maxLength: MAX_PATH_LENGTH,
  description: "Absolute path (a relative one is read from the server's working directory)",
});
const RefQuery = Type.String({
  minLength: 1,
  maxLength: 255,
  description:
    "Git ref to compare against (e.g. 'HEAD' for git-status-style changes, or a commit). Default: the upstream or default branch's fork point, else HEAD.",
});

const ChangeList = Type.Array(Type.Ref('GitChange'));
const DiffRef = Type.Ref('GitDiff');

const gitErrors = {
  400: detailResponse(
    'Not a git repository, not a folder (or not a file), a ref or commit that does not resolve, a file over 1 MiB, or git failed',
  ),
  404: detailResponse('No such folder or file'),
  503: detailResponse('git is not installed on this server'),
  ...errorResponses,
};

/**
 * One request's git work, with each repository's filter settings read once for it (`oneReading`);
 * domain errors to HTTP: missing paths 404, a missing git 503, everything else the caller can fix 400.
 */
async function answer<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await oneReading(work);
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    const status = error.kind === 'not_found' ? 404 : error.kind === 'unavailable' ? 503 : 400;
    throw new HttpError(status, error.message);
  }
}

/** The path form's wildcard: OpenHands' router dropped its leading slash, so the path is always absolute. */
const fromWildcard = (value: string) => (value.startsWith('/') ? value : `/${value}`);

export const gitRoutes: FastifyPluginAsync = async (app) => {
  const tags = ['Git'];

  const changes = (path: string, ref: string | undefined) =>
    answer(() => gitChanges(absolutePath(path), ref));
  const diff = (path: string, ref: string | undefined, commit: string | undefined) => {
    if (ref !== undefined && commit !== undefined)
      throw new HttpError(400, "'ref' and 'commit' are mutually exclusive");
    return answer(() =>
      commit !== undefined ? commitFileDiff(absolutePath(path), commit) : gitDiff(absolutePath(path), ref),
    );
  };

  app.get<{ Querystring: { path: string; ref?: string } }>(
    '/api/git/changes',
    {
      schema: {
        tags,
        summary: 'Git Changes',
        description:
          'Files changed in the work tree at `path` against `ref`: tracked changes, untracked files (ADDED), and renames (old path DELETED, new path ADDED), sorted by path.',
        querystring: Type.Object({ path: PathQuery, ref: Type.Optional(RefQuery) }),
        response: { 200: ChangeList, ...gitErrors },
      },
    },
    async (request) => changes(request.query.path, request.query.ref),
  );

  app.get<{ Params: { '*': string }; Querystring: { ref?: string } }>(
    '/api/git/changes/*',
    {
      schema: {
        tags,
        summary: 'Git Changes (path form)',
        description: "As GET /api/git/changes?path=/<path> (OpenHands' older form; prefer the query).",
        deprecated: true,
        querystring: Type.Object({ ref: Type.Optional(RefQuery) }),
        response: { 200: ChangeList, ...gitErrors },
      },
    },
    async (request) => changes(fromWildcard(request.params['*']), request.query.ref),
  );

  const DiffQuery = {
    ref: Type.Optional(RefQuery),
    commit: Type.Optional(
      Type.String({
        pattern: SHA_PATTERN,
        description:
          "A commit: the diff is the change it made to the file (vs its first parent). Not with 'ref'.",
      }),
    ),
  };

  app.get<{ Querystring: { path: string; ref?: string; commit?: string } }>(
    '/api/git/diff',
    {
      schema: {
        tags,
        summary: 'Git Diff',
        description:
          'The file at `path` on disk (`modified`) and at `ref` (`original`); with `commit`, both sides from that commit and its parent.',
        querystring: Type.Object({ path: PathQuery, ...DiffQuery }),
        response: { 200: DiffRef, ...gitErrors },
      },
    },
    async (request) => diff(request.query.path, request.query.ref, request.query.commit),
  );

  app.get<{ Params: { '*': string }; Querystring: { ref?: string; commit?: string } }>(
    '/api/git/diff/*',
    {
      schema: {
        tags,
        summary: 'Git Diff (path form)',
        description: "As GET /api/git/diff?path=/<path> (OpenHands' older form; prefer the query).",
        deprecated: true,
        querystring: Type.Object(DiffQuery),
        response: { 200: DiffRef, ...gitErrors },
      },
    },
    async (request) => diff(fromWildcard(request.params['*']), request.query.ref, request.query.commit),
  );

  app.get<{ Querystring: { path: string; limit?: number } }>(
    '/api/git/commits',
    {
      schema: {
        tags,
        summary: 'Git Commits',
        description: 'The commits reachable from HEAD, newest first, and whether there are more.',
        querystring: Type.Object({
          path: PathQuery,
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_COMMITS, default: 50 })),
        }),
        response: { 200: Type.Ref('GitCommitsPage'), ...gitErrors },
      },
    },
    async (request) => answer(() => gitCommits(absolutePath(request.query.path), request.query.limit ?? 50)),
  );

  app.get<{ Params: { sha: string }; Querystring: { path: string } }>(
    '/api/git/commits/:sha/changes',
    {
      schema: {
        tags,
        summary: 'Git Commit Changes',
        description: 'The files one commit changed against its first parent (a root commit: all ADDED).',
        params: Type.Object({ sha: Type.String({ pattern: SHA_PATTERN, description: 'Commit SHA' }) }),
        querystring: Type.Object({ path: PathQuery }),
        response: { 200: ChangeList, ...gitErrors },
      },
    },
    async (request) => answer(() => commitChanges(absolutePath(request.query.path), request.params.sha)),
  );
};
