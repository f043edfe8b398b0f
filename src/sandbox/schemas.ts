// Wire types of the V1 sandbox API (OpenHands app-server shapes: SandboxInfo, SandboxSpecInfo).
import { type Static, Type } from 'typebox';
import { Nullable } from '../events/index.js';

export const SANDBOX_STATUSES = ['STARTING', 'RUNNING', 'PAUSED', 'ERROR', 'MISSING'] as const;
export type SandboxStatus = (typeof SANDBOX_STATUSES)[number];
export const SandboxStatus = Type.Unsafe<SandboxStatus>({
  type: 'string',
  enum: [...SANDBOX_STATUSES],
  $id: 'SandboxStatus',
});

export const ExposedUrl = Type.Object({ name: Type.String(), url: Type.String() }, { $id: 'ExposedUrl' });

export const SandboxInfo = Type.Object(
  {
    id: Type.String(),
    created_by_user_id: Nullable(Type.String()),
    sandbox_spec_id: Type.String(),
    status: SandboxStatus,
    /** Only while RUNNING, as OpenHands' process and docker sandboxes report it. */
    session_api_key: Nullable(Type.String()),
    exposed_urls: Nullable(Type.Array(ExposedUrl)),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'SandboxInfo' },
);
export type SandboxInfo = Static<typeof SandboxInfo>;

export const SandboxPage = Type.Object(
  { items: Type.Array(SandboxInfo), next_page_id: Nullable(Type.String()) },
  { $id: 'SandboxPage' },
);

export const SandboxSpecInfo = Type.Object(
  {
    id: Type.String(),
    command: Nullable(Type.Array(Type.String())),
    created_at: Type.String({ format: 'date-time' }),
    initial_env: Type.Record(Type.String(), Type.String()),
    working_dir: Type.String(),
  },
  { $id: 'SandboxSpecInfo' },
);
export type SandboxSpecInfo = Static<typeof SandboxSpecInfo>;

export const SandboxSpecInfoPage = Type.Object(
  { items: Type.Array(SandboxSpecInfo), next_page_id: Nullable(Type.String()) },
  { $id: 'SandboxSpecInfoPage' },
);
