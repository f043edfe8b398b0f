// Provider connections (OpenHands' /api/llm/provider-connections): an API key and base URL kept once
// and shared by the LLM profiles that name it (`provider_connection_id`). A linked profile keeps no
// key or base URL of its own; the connection's are read when the profile is used (a start, a switch)
// or activated, so rotating a key here reaches every linked profile from its next use. They live in
// the settings document beside the profiles (`provider_connections`, keys sealed for the user).
import { type Static, Type } from 'typebox';
import { InvalidSettingsError } from './parse.js';
import type { ProfileLLM } from './profile-schemas.js';

/** Most connections a user keeps. */
export const MAX_CONNECTIONS = 50;

const Key = Type.String({ minLength: 1, maxLength: 64 * 1024, format: 'password' });
const BaseUrl = Type.Union([Type.String({ maxLength: 2048 }), Type.Null()]);

export const ConnectionCreateRequest = Type.Object(
  {
    display_name: Type.String({ minLength: 1, maxLength: 128 }),
    provider: Type.Optional(Type.String({ minLength: 1, maxLength: 128, default: 'custom' })),
    api_key: Key,
    base_url: Type.Optional(BaseUrl),
  },
  { additionalProperties: false, title: 'ProviderConnectionCreateRequest' },
);
export type ConnectionCreateRequest = Static<typeof ConnectionCreateRequest>;

export const ConnectionUpdateRequest = Type.Object(
  {
    display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    provider: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    api_key: Type.Optional(Type.Union([Key, Type.Null()])),
    base_url: Type.Optional(BaseUrl),
  },
  { additionalProperties: false, title: 'ProviderConnectionUpdateRequest' },
);
export type ConnectionUpdateRequest = Static<typeof ConnectionUpdateRequest>;

/** What a client sees of one: never the key, only whether it is set. */
export const ConnectionResponse = Type.Object(
  {
    id: Type.String(),
    display_name: Type.String(),
    provider: Type.String(),
    base_url: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.Integer({ description: 'Unix seconds' }),
    updated_at: Type.Integer({ description: 'Unix seconds' }),
    api_key_set: Type.Boolean(),
  },
  { title: 'ProviderConnectionResponse' },
);
export type ConnectionResponse = Static<typeof ConnectionResponse>;

/** A connection as stored: its key sealed for the user. */
export interface StoredConnection {
  id: string;
  display_name: string;
  provider: string;
  api_key: string;
  base_url: string | null;
  created_at: number;
  updated_at: number;
}

/** The document members these live in. */
export interface ConnectionMembers {
  provider_connections?: Record<string, StoredConnection>;
  llm_profiles?: Record<string, ProfileLLM>;
}

/** 404: no connection of that id. */
export class ConnectionNotFoundError extends Error {
  override name = 'ConnectionNotFoundError';
  constructor(id: string) {
    super(`Provider connection '${id}' not found`);
  }
}

/** 409: past MAX_CONNECTIONS, or a delete while profiles still name it. */
export class ConnectionConflictError extends Error {
  override name = 'ConnectionConflictError';
}

export const connectionsOf = (doc: ConnectionMembers) => Object.values(doc.provider_connections ?? {});

/** The connection an LLM names (`provider_connection_id`), or null when it names none. */
export function connectionIdOf(llm: ProfileLLM): string | null {
  const id = llm.provider_connection_id;
  return typeof id === 'string' && id !== '' ? id : null;
}

export function connectionOf(doc: ConnectionMembers, id: string): StoredConnection | null {
  const all = doc.provider_connections;
  // hasOwn: an id is the client's, and `__proto__` must not find anything.
  return all && Object.hasOwn(all, id) ? (all[id] ?? null) : null;
}

export function connectionResponse(c: StoredConnection): ConnectionResponse {
  const { api_key, ...shown } = c;
  return { ...shown, api_key_set: Boolean(api_key) };
}

/** The document with `connection` stored (a new one past MAX_CONNECTIONS is a ConnectionConflictError). */
export function withConnection<D extends ConnectionMembers>(doc: D, connection: StoredConnection): D {
  const all = { ...doc.provider_connections };
  if (!Object.hasOwn(all, connection.id) && Object.keys(all).length >= MAX_CONNECTIONS)
    throw new ConnectionConflictError(
      `Provider connection limit reached (${MAX_CONNECTIONS}). Delete one before adding another.`,
    );
  all[connection.id] = connection;
  return { ...doc, provider_connections: all };
}

/** The document without connection `id`; a ConnectionConflictError while profiles name it. */
export function withoutConnection<D extends ConnectionMembers>(doc: D, id: string): D {
  const linked = linkedProfiles(doc, id);
  if (linked.length > 0)
    throw new ConnectionConflictError(
      `Provider connection cannot be deleted while it is referenced by LLM profile(s): ${linked.join(', ')}. Update those references before deleting it.`,
    );
  const { [id]: _gone, ...rest } = doc.provider_connections ?? {};
  return { ...doc, provider_connections: rest };
}

/** The names of the profiles that name connection `id`, sorted. */
export function linkedProfiles(doc: ConnectionMembers, id: string): string[] {
  return Object.entries(doc.llm_profiles ?? {})
    .filter(([, llm]) => connectionIdOf(llm) === id)
    .map(([name]) => name)
    .sort();
}

/**
 * A profile's LLM as it runs: with its connection's key and base URL (sealed as stored) when it names
 * one; as it is otherwise. A connection that is gone leaves a profile without a key of its own
 * unusable: an InvalidSettingsError that says so.
 */
export function resolvedLlm(doc: ConnectionMembers, name: string, llm: ProfileLLM): ProfileLLM {
  const id = connectionIdOf(llm);
  if (id === null) return llm;
  const connection = connectionOf(doc, id);
  if (connection) return { ...llm, api_key: connection.api_key, base_url: connection.base_url };
  if (llm.api_key) return llm;
  throw new InvalidSettingsError([
    {
      loc: ['llm', 'provider_connection_id'],
      msg: `Profile '${name}' references provider connection '${id}', which does not exist. Update the profile or recreate the connection.`,
      type: 'value_error',
    },
  ]);
}
