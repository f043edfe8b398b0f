// Wire types of the git API, as OpenHands' SDK reads them (openhands/sdk/git/models.py).
import { type Static, Type } from 'typebox';

export const GitChangeStatus = Type.Union(
  [Type.Literal('MOVED'), Type.Literal('ADDED'), Type.Literal('DELETED'), Type.Literal('UPDATED')],
  { $id: 'GitChangeStatus' },
);

export const GitChange = Type.Object(
  {
    status: Type.Unsafe<Static<typeof GitChangeStatus>>(Type.Ref('GitChangeStatus')),
    path: Type.String({ description: 'Relative to the folder asked about, with forward slashes' }),
  },
  { $id: 'GitChange' },
);
export type GitChange = Static<typeof GitChange>;

export const GitDiff = Type.Object(
  {
    modified: Type.Union([Type.String(), Type.Null()]),
    original: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'GitDiff' },
);
export type GitDiff = Static<typeof GitDiff>;

export const GitCommit = Type.Object(
  {
    sha: Type.String(),
    short_sha: Type.String(),
    subject: Type.String(),
    author: Type.String(),
    timestamp: Type.String({ description: 'Author date, ISO 8601 with its UTC offset (git %aI)' }),
  },
  { $id: 'GitCommit' },
);
export type GitCommit = Static<typeof GitCommit>;

export const GitCommitsPage = Type.Object(
  {
    commits: Type.Array(Type.Unsafe<GitCommit>(Type.Ref('GitCommit'))),
    has_more: Type.Boolean(),
  },
  { $id: 'GitCommitsPage' },
);
export type GitCommitsPage = Static<typeof GitCommitsPage>;
