// LLM profiles inside a user's settings document: `llm_profiles` (name → the LLM as saved, its
// api_key and extra_headers values sealed) and `active_profile` (the name last activated). They live
// in the same document as the settings so that activating one (it becomes the settings' LLM) is one
// write under the user's turn. POST /api/settings never sees or replaces them.
import { routingProblems } from '../llm/index.js';
import type { StoredAgentProfile } from './agent-profile-schemas.js';
import { InvalidSettingsError } from './parse.js';
import {
  MAX_PROFILE_BYTES,
  MAX_PROFILES,
  type ProfileInfo,
  type ProfileList,
  type ProfileLLM,
} from './profile-schemas.js';
import { connectionIdOf, connectionOf, resolvedLlm, type StoredConnection } from './provider-connections.js';
import type { Settings } from './schemas.js';
import { REDACTED } from './sdk-schemas.js';

/** A stored profile: the LLM's members with its secrets sealed. */
export type StoredProfile = ProfileLLM;

/** The members a settings document holds beside the Settings record. */
export interface ProfileMembers {
  llm_profiles?: Record<string, StoredProfile>;
  active_profile?: string | null;
  /** The keys and base URLs profiles may share (provider-connections.ts). */
  provider_connections?: Record<string, StoredConnection>;
  /** Agent profiles by name (agent-profiles.ts), and the id of the active one. */
  agent_profiles?: Record<string, StoredAgentProfile>;
  active_agent_profile_id?: string | null;
}

/** A user's whole stored document. */
export type SettingsDocument = Settings & ProfileMembers;

/** 404: no profile of that name. */
export class ProfileNotFoundError extends Error {
  override name = 'ProfileNotFoundError';
  constructor(readonly profile: string) {
    super(`Profile '${profile}' not found`);
  }
}

/** 409: a rename onto a taken name, or a new profile past MAX_PROFILES. */
export class ProfileConflictError extends Error {
  override name = 'ProfileConflictError';
}

/**
 * An LLM to save must route somewhere (a model string agentd can call) and stay small: it lives in
 * the settings document every conversation start reads. InvalidSettingsError at `llm` otherwise.
 */
export function checkProfileLlm(llm: ProfileLLM): void {
  const problem = routingProblems(llm)[0];
  if (problem)
    throw new InvalidSettingsError([
      { loc: ['llm', problem.field], msg: problem.message, type: 'value_error' },
    ]);
  if (Buffer.byteLength(JSON.stringify(llm)) > MAX_PROFILE_BYTES)
    throw new InvalidSettingsError([
      {
        loc: ['llm'],
        msg: `A profile's LLM is at most ${MAX_PROFILE_BYTES / 1024} KB of JSON`,
        type: 'too_long',
      },
    ]);
}

/** The document's profiles as a Map (names are the client's: `__proto__` stays a plain name). */
const profilesOf = (doc: ProfileMembers) => new Map(Object.entries(doc.llm_profiles ?? {}));

/** The profile members of a document, to carry over a write that replaces the settings. */
export const profileMembers = (doc: ProfileMembers | null): ProfileMembers =>
  doc
    ? {
        llm_profiles: doc.llm_profiles ?? {},
        active_profile: doc.active_profile ?? null,
        provider_connections: doc.provider_connections ?? {},
        agent_profiles: doc.agent_profiles ?? {},
        active_agent_profile_id: doc.active_agent_profile_id ?? null,
      }
    : {};

/** The document without its profile members: the Settings record the other views are built from. */
export function settingsOnly(doc: SettingsDocument): Settings {
  const {
    llm_profiles: _profiles,
    active_profile: _active,
    provider_connections: _shared,
    agent_profiles: _agents,
    active_agent_profile_id: _activeAgent,
    ...settings
  } = doc;
  return settings;
}

export function profileOf(doc: ProfileMembers, name: string): StoredProfile | null {
  const profiles = doc.llm_profiles;
  // hasOwn: a name is the client's, and `__proto__` or `toString` must not find anything.
  return profiles && Object.hasOwn(profiles, name) ? (profiles[name] ?? null) : null;
}

/** The active profile's name; null also when it names a profile no longer there. */
export function activeProfile(doc: ProfileMembers): string | null {
  const name = doc.active_profile ?? null;
  return name !== null && profileOf(doc, name) ? name : null;
}

/** The LLM members an activation writes into the settings, from a profile's (sealed) LLM. */
function settingsLlmOf(llm: StoredProfile): Pick<Settings, 'llm_model' | 'llm_api_key' | 'llm_base_url'> {
  return {
    llm_model: llm.model,
    llm_api_key: llm.api_key || null,
    llm_base_url: typeof llm.base_url === 'string' && llm.base_url ? llm.base_url : null,
  };
}

/**
 * The active profile and its (sealed) LLM while the settings' LLM is still what its activation wrote
 * (the same model, base URL and sealed key): then the profile's other members (reasoning effort,
 * headers, …) go with it. Null once the settings' LLM was changed since, or with none active.
 */
export function activeLlm(doc: SettingsDocument): { name: string; llm: StoredProfile } | null {
  const name = activeProfile(doc);
  const stored = name === null ? null : profileOf(doc, name);
  if (name === null || !stored) return null;
  const llm = usableLlm(doc, name, stored);
  if (!llm) return null;
  const written = settingsLlmOf(llm);
  const same =
    doc.llm_model === written.llm_model &&
    (doc.llm_api_key ?? null) === written.llm_api_key &&
    (doc.llm_base_url ?? null) === written.llm_base_url;
  return same ? { name, llm } : null;
}

/**
 * The LLM a conversation started without an agent runs on: the active profile's whole LLM while
 * it is still the settings' one, else the settings' model (or `model`, the request's llm_model),
 * key and base URL. Null without a model. Secrets as `settings` has them.
 */
export function settingsLlm(
  settings: (Settings & { active_llm?: ProfileLLM }) | null,
  model?: string,
): ProfileLLM | null {
  const active = settings?.active_llm;
  if (active && (model === undefined || model === active.model)) return active;
  const chosen = model ?? settings?.llm_model;
  if (!chosen) return null;
  return { model: chosen, api_key: settings?.llm_api_key ?? null, base_url: settings?.llm_base_url ?? null };
}

/** A profile's LLM as it runs (its connection's key and base URL), or null when its connection is gone. */
function usableLlm(doc: ProfileMembers, name: string, llm: StoredProfile): StoredProfile | null {
  try {
    return resolvedLlm(doc, name, llm);
  } catch {
    return null;
  }
}

/** What a profile's info says of its connection, and whether it has a key (its own or the connection's). */
export function linkOf(doc: ProfileMembers, llm: StoredProfile) {
  const id = connectionIdOf(llm);
  const connection = id === null ? null : connectionOf(doc, id);
  return {
    provider_connection_id: id,
    provider_connection_broken: id !== null && !connection,
    api_key_set: Boolean(llm.api_key || connection?.api_key),
  };
}

export function profileList(doc: ProfileMembers): ProfileList {
  const profiles: ProfileInfo[] = [...profilesOf(doc)]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, llm]) => ({
      name,
      model: typeof llm.model === 'string' ? llm.model : null,
      base_url: typeof llm.base_url === 'string' ? llm.base_url : null,
      ...linkOf(doc, llm),
    }));
  return { profiles, active_profile: activeProfile(doc) };
}

/** The document with `llm` saved as `name` (replacing one of that name). */
export function withProfile<D extends ProfileMembers>(doc: D, name: string, llm: StoredProfile): D {
  const profiles = profilesOf(doc);
  if (!profiles.has(name) && profiles.size >= MAX_PROFILES) {
    throw new ProfileConflictError(
      `Profile limit reached (${MAX_PROFILES}). Delete a profile before saving a new one.`,
    );
  }
  profiles.set(name, llm);
  return { ...doc, llm_profiles: Object.fromEntries(profiles) };
}

/** The document without the profile `name` (unchanged when there is none); active no more if it was. */
export function withoutProfile<D extends ProfileMembers>(doc: D, name: string): D {
  const profiles = profilesOf(doc);
  profiles.delete(name);
  const active = doc.active_profile === name ? null : (doc.active_profile ?? null);
  return { ...doc, llm_profiles: Object.fromEntries(profiles), active_profile: active };
}

/** The document with profile `from` named `to` (the active one follows). */
export function renamedProfile<D extends ProfileMembers>(doc: D, from: string, to: string): D {
  const profiles = profilesOf(doc);
  const llm = profiles.get(from);
  if (!llm) throw new ProfileNotFoundError(from);
  if (from === to) return doc;
  if (profiles.has(to)) throw new ProfileConflictError(`Profile '${to}' already exists`);
  // Rebuilt in order, so the renamed profile keeps its place.
  const next = [...profiles].map(([n, p]): [string, StoredProfile] => [n === from ? to : n, p]);
  const active = doc.active_profile === from ? to : (doc.active_profile ?? null);
  return { ...doc, llm_profiles: Object.fromEntries(next), active_profile: active };
}

/**
 * The document with profile `name` active: its model, key (sealed as it is: the same user's seal) and
 * base URL become the settings' LLM, as OpenHands applies a profile to its agent settings.
 */
export function activatedProfile(doc: SettingsDocument, name: string): SettingsDocument {
  const llm = profileOf(doc, name);
  if (!llm) throw new ProfileNotFoundError(name);
  // Its connection's key and base URL as they are now: a rotation reaches it at the next activation.
  return { ...doc, ...settingsLlmOf(resolvedLlm(doc, name, llm)), active_profile: name };
}

/**
 * The LLM to store: its api_key and extra_headers values through `seal` (or dropped without
 * `includeSecrets`); a value of `REDACTED` (a GET echoed back) keeps the stored value of the same member.
 */
export function storedProfile(
  given: ProfileLLM,
  previous: StoredProfile | null,
  includeSecrets: boolean,
  seal: (value: string) => string,
): StoredProfile {
  // A profile that names a provider connection keeps no key or base URL of its own: the connection's
  // are read at each use, so they cannot disagree.
  const llm = connectionIdOf(given) ? { ...given, api_key: null, base_url: null } : given;
  if (!includeSecrets) {
    const { extra_headers: _headers, ...rest } = llm;
    return { ...rest, api_key: null };
  }
  const store = (value: string, before: string | null | undefined): string | null =>
    value === REDACTED ? (before ?? null) : seal(value);
  const out: StoredProfile = { ...llm, api_key: llm.api_key ? store(llm.api_key, previous?.api_key) : null };
  if (llm.extra_headers) {
    const headers = new Map<string, string>();
    for (const [header, value] of Object.entries(llm.extra_headers)) {
      const kept = store(value, previous?.extra_headers?.[header]);
      if (kept !== null) headers.set(header, kept);
    }
    out.extra_headers = Object.fromEntries(headers);
  }
  return out;
}
