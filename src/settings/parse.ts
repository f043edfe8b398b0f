// Validation of a Settings body with the project's Ajv settings, then OpenHands' reading of it:
// unknown members dropped at every depth (pydantic ignores extras), every default filled in,
// including those inside nullable members, which Ajv's useDefaults does not reach.
import { Value } from 'typebox/value';
import { type ParseResult, parse, type ValidationIssue } from '../events/index.js';
import { SETTINGS_KEYS, type Settings, SettingsSchema, StoredSettingsShape } from './schemas.js';

/** Raised by SettingsService.store for a body that is not a Settings record; `issues` as in a 422. */
export class InvalidSettingsError extends Error {
  override name = 'InvalidSettingsError';
  constructor(readonly issues: ValidationIssue[]) {
    super(`Invalid settings: ${issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ')}`);
  }
}

/** Validates without touching `value`; the result has only known members, each with its default. */
export function parseSettings(value: unknown): ParseResult<Settings> {
  const result = parse(SettingsSchema, structuredClone(value));
  if (!result.ok) return result;
  return { ok: true, value: complete(Value.Clean(StoredSettingsShape, result.value) as Settings) };
}

/** Every member present: its default when it has one, else null (the shape GET answers). */
export function complete(settings: Settings): Settings {
  const filled = Value.Default(StoredSettingsShape, settings) as Record<string, unknown>;
  for (const key of SETTINGS_KEYS) filled[key] ??= null;
  return filled as Settings;
}

/** The record before the first write: every member at its default, no secret. */
export const defaultSettings = (): Settings => complete({} as Settings);
