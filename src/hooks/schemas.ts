// Hook configuration, in OpenHands' HookConfig shape: per lifecycle event, a list of matchers, each
// naming the tools it applies to and the commands to run. Requests may also use the Claude-Code-style
// spelling (PascalCase event names, an outer `hooks` wrapper); `normalizeHookConfig` folds both into
// the snake_case form, which is what is stored and shown.
import { type Static, type TProperties, Type } from 'typebox';

export const HOOK_EVENTS = [
  'pre_tool_use',
  'post_tool_use',
  'user_prompt_submit',
  'session_start',
  'session_end',
  'stop',
] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

/** PascalCase names as hook scripts see them in `event_type` (and as hooks.json files spell the keys). */
export const HOOK_EVENT_TYPES: Record<HookEventName, string> = {
  pre_tool_use: 'PreToolUse',
  post_tool_use: 'PostToolUse',
  user_prompt_submit: 'UserPromptSubmit',
  session_start: 'SessionStart',
  session_end: 'SessionEnd',
  stop: 'Stop',
};

export const HookDefinition = Type.Object(
  {
    // Only shell commands run here; OpenHands' prompt/agent hook types are refused, not ignored.
    type: Type.Optional(Type.Literal('command', { default: 'command' })),
    name: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    command: Type.String({ minLength: 1 }),
    timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600, default: 60 })),
  },
  { additionalProperties: true, description: 'A command run with `sh -c`, the event as JSON on stdin.' },
);
export type HookDefinition = Static<typeof HookDefinition>;

export const HookMatcher = Type.Object(
  {
    matcher: Type.Optional(
      Type.String({
        default: '*',
        description: 'Tool name: `*` (all), an exact name, `/regex/`, or a pattern with regex characters.',
      }),
    ),
    hooks: Type.Optional(Type.Array(HookDefinition, { default: [] })),
  },
  { additionalProperties: true },
);
export type HookMatcher = Static<typeof HookMatcher>;

const Matchers = () => Type.Optional(Type.Array(HookMatcher));

function eventMembers(): TProperties {
  const members: TProperties = {};
  for (const name of HOOK_EVENTS) {
    members[name] = Matchers();
    members[HOOK_EVENT_TYPES[name]] = Matchers();
  }
  return members;
}

/** What a start request may send: snake_case or PascalCase event keys, optionally inside `hooks`. */
export const HookConfigInput = Type.Object(
  { ...eventMembers(), hooks: Type.Optional(Type.Object(eventMembers(), { additionalProperties: false })) },
  { additionalProperties: false, $id: 'HookConfig' },
);

/** The normalized form: every event key present, snake_case. */
export interface HookConfig {
  pre_tool_use: HookMatcher[];
  post_tool_use: HookMatcher[];
  user_prompt_submit: HookMatcher[];
  session_start: HookMatcher[];
  session_end: HookMatcher[];
  stop: HookMatcher[];
}
