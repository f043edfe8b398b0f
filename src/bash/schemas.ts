// Wire types of the bash family, as OpenHands' agent server names and shapes them (models.py):
// ids are UUIDs as 32 hex digits, timestamps UTC with microseconds and a Z, nulls kept.
import { type Static, Type } from 'typebox';

/** Longest command text accepted (a shell line, not a file upload). */
export const MAX_COMMAND_LENGTH = 100_000;
/** Longest working directory path accepted (PATH_MAX on Linux). */
export const MAX_CWD_LENGTH = 4096;
/** Longest timeout in seconds: a day. */
export const MAX_TIMEOUT_SECONDS = 86_400;

const HexId = Type.String({ pattern: '^[0-9a-f]{32}$', description: 'UUID as 32 hex digits' });
const Timestamp = Type.String({ description: 'UTC, microseconds, e.g. 2026-08-22T16:34:54.123456Z' });

export const ExecuteBashRequest = Type.Object(
  {
    command: Type.String({ maxLength: MAX_COMMAND_LENGTH, description: 'The bash command to execute' }),
    cwd: Type.Optional(
      Type.Union([Type.String({ maxLength: MAX_CWD_LENGTH }), Type.Null()], {
        description: "The working directory (default: the server's)",
      }),
    ),
    timeout: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_TIMEOUT_SECONDS,
        default: 300,
        description: 'The max number of seconds a command may run; then it is killed (exit_code -1)',
      }),
    ),
  },
  // Unknown members are ignored, as OpenHands (pydantic) does.
);
export type ExecuteBashRequest = Static<typeof ExecuteBashRequest>;

export const BashCommand = Type.Object({
  id: HexId,
  timestamp: Timestamp,
  command: Type.String(),
  cwd: Type.Union([Type.String(), Type.Null()]),
  timeout: Type.Integer(),
  kind: Type.Literal('BashCommand'),
});
export type BashCommand = Static<typeof BashCommand>;

export const BashOutput = Type.Object({
  id: HexId,
  timestamp: Timestamp,
  command_id: HexId,
  order: Type.Integer({ description: 'The order of this output chunk, from 0' }),
  exit_code: Type.Union([Type.Integer(), Type.Null()], {
    description: 'null while the command runs; -1 on timeout or when it could not start',
  }),
  stdout: Type.Union([Type.String(), Type.Null()]),
  stderr: Type.Union([Type.String(), Type.Null()]),
  kind: Type.Literal('BashOutput'),
});
export type BashOutput = Static<typeof BashOutput>;

export const BashError = Type.Object({
  id: HexId,
  timestamp: Timestamp,
  code: Type.String(),
  detail: Type.String(),
  kind: Type.Literal('BashError'),
});
export type BashError = Static<typeof BashError>;

export const BashEvent = Type.Union([BashCommand, BashOutput, BashError]);
export type BashEvent = BashCommand | BashOutput | BashError;

export const BashEventPage = Type.Object({
  items: Type.Array(BashEvent),
  next_page_id: Type.Union([Type.String(), Type.Null()]),
});
export type BashEventPage = Static<typeof BashEventPage>;

export const BashEventSortOrder = Type.Union([Type.Literal('TIMESTAMP'), Type.Literal('TIMESTAMP_DESC')]);

export interface BashSearch {
  kind?: 'BashCommand' | 'BashOutput';
  /** Hex form. */
  commandId?: string;
  /** Normalized timestamps (UTC, microseconds, Z). */
  timestampGte?: string;
  timestampLt?: string;
  orderGt?: number;
  descending?: boolean;
  /** The cursor a previous page answered as next_page_id. */
  pageId?: string;
  limit: number;
}
