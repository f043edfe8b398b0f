// Normalizing, merging and matching hook configurations.
import { readFileSync } from 'node:fs';
import {
  HOOK_EVENT_TYPES,
  HOOK_EVENTS,
  type HookConfig,
  type HookDefinition,
  type HookEventName,
  type HookMatcher,
} from './schemas.js';

export class HookConfigError extends Error {
  override name = 'HookConfigError';
  constructor(
    message: string,
    /** Where in the input the problem is (for a 422 `loc`). */
    readonly path: string[] = [],
  ) {
    super(message);
  }
}

export function emptyHookConfig(): HookConfig {
  return {
    pre_tool_use: [],
    post_tool_use: [],
    user_prompt_submit: [],
    session_start: [],
    session_end: [],
    stop: [],
  };
}

const BY_TYPE = new Map(HOOK_EVENTS.map((name) => [HOOK_EVENT_TYPES[name], name]));

/** Folds PascalCase keys and the `hooks` wrapper into the snake_case form; fills defaults. */
export function normalizeHookConfig(input: unknown): HookConfig {
  if (input === null || input === undefined) return emptyHookConfig();
  if (typeof input !== 'object' || Array.isArray(input)) throw new HookConfigError('must be an object');
  let data = input as Record<string, unknown>;
  if ('hooks' in data && data.hooks && typeof data.hooks === 'object')
    data = data.hooks as Record<string, unknown>;
  const out = emptyHookConfig();
  const seen = new Set<HookEventName>();
  for (const [key, value] of Object.entries(data)) {
    const name = (HOOK_EVENTS as readonly string[]).includes(key) ? (key as HookEventName) : BY_TYPE.get(key);
    if (!name) throw new HookConfigError(`Unknown hook event '${key}'`, [key]);
    if (seen.has(name))
      throw new HookConfigError(`Hook event '${key}' is given twice (snake_case and PascalCase)`, [key]);
    seen.add(name);
    if (!Array.isArray(value)) throw new HookConfigError('must be a list of matchers', [key]);
    out[name] = value.map((m: HookMatcher, i) => ({
      matcher: m.matcher ?? '*',
      hooks: (m.hooks ?? []).map((h: HookDefinition, j) => {
        if (typeof h.command !== 'string' || !h.command.trim())
          throw new HookConfigError('command must be a non-empty string', [
            key,
            String(i),
            'hooks',
            String(j),
          ]);
        return {
          type: 'command' as const,
          command: h.command,
          timeout: h.timeout ?? 60,
          ...(h.name ? { name: h.name } : {}),
        };
      }),
    }));
  }
  return out;
}

export function mergeHookConfigs(...configs: (HookConfig | null | undefined)[]): HookConfig {
  const out = emptyHookConfig();
  for (const c of configs) if (c) for (const name of HOOK_EVENTS) out[name].push(...c[name]);
  return out;
}

export function isEmptyHookConfig(config: HookConfig | null | undefined): boolean {
  return !config || HOOK_EVENTS.every((name) => config[name].length === 0);
}

const REGEX_CHARS = /[|.*+?[\]()^$\\]/;

/** OpenHands' matcher rules: `*` or empty = all; `/re/` = regex; regex characters = regex; else exact. */
export function matches(matcher: string, toolName: string | null): boolean {
  if (matcher === '*' || matcher === '') return true;
  if (toolName === null) return false;
  const fullMatch = (pattern: string): boolean | null => {
    try {
      return new RegExp(`^(?:${pattern})$`).test(toolName);
    } catch {
      return null;
    }
  };
  if (matcher.length > 2 && matcher.startsWith('/') && matcher.endsWith('/'))
    return fullMatch(matcher.slice(1, -1)) ?? false;
  if (REGEX_CHARS.test(matcher)) {
    const result = fullMatch(matcher);
    if (result !== null) return result;
  }
  return matcher === toolName;
}

export function hooksFor(
  config: HookConfig,
  event: HookEventName,
  toolName: string | null = null,
): HookDefinition[] {
  return config[event].filter((m) => matches(m.matcher ?? '*', toolName)).flatMap((m) => m.hooks ?? []);
}

/** A hooks.json file (server configuration); a missing file is a configuration error, not "no hooks". */
export function loadHookFile(path: string): HookConfig {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new HookConfigError(`Cannot read hooks file ${path}: ${(error as Error).message}`);
  }
  return normalizeHookConfig(data);
}
