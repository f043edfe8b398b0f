// What a settings form may offer (OpenHands' GET /api/settings/agent-schema and conversation-schema):
// OpenHands' SettingsSchema shape, each field a dotted key into agent_settings or
// conversation_settings with its label, type, default and prominence, grouped in sections. agentd
// lists the fields PATCH /api/settings stores — no more, so a form built from it never offers what
// would be refused — with OpenHands' labels, descriptions and prominence for each.
import { type Static, Type } from 'typebox';

const Choice = Type.Object({
  value: Type.Union([Type.Boolean(), Type.Number(), Type.String()]),
  label: Type.String(),
});

const Field = Type.Object({
  key: Type.String(),
  label: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  section: Type.String(),
  section_label: Type.String(),
  value_type: Type.Union([
    Type.Literal('string'),
    Type.Literal('integer'),
    Type.Literal('number'),
    Type.Literal('boolean'),
    Type.Literal('array'),
    Type.Literal('object'),
  ]),
  default: Type.Unknown(),
  prominence: Type.Union([Type.Literal('critical'), Type.Literal('major'), Type.Literal('minor')]),
  depends_on: Type.Array(Type.String()),
  secret: Type.Boolean(),
  choices: Type.Array(Choice),
  variant: Type.Union([Type.String(), Type.Null()]),
});
type Field = Static<typeof Field>;

export const SettingsFormSchema = Type.Object(
  {
    model_name: Type.String(),
    sections: Type.Array(
      Type.Object({
        key: Type.String(),
        label: Type.String(),
        fields: Type.Array(Field),
        variant: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
  },
  {
    title: 'SettingsSchema',
    description: 'The fields a settings form offers, by section: each a dotted key into the settings',
  },
);
export type SettingsFormSchema = Static<typeof SettingsFormSchema>;

type FieldSpec = Pick<Field, 'key' | 'label' | 'description' | 'value_type' | 'default' | 'prominence'> &
  Partial<Pick<Field, 'depends_on' | 'secret' | 'choices' | 'variant'>>;

function section(key: string, label: string, variant: string | null, fields: FieldSpec[]) {
  return {
    key,
    label,
    variant,
    fields: fields.map((f) => ({
      depends_on: [],
      secret: false,
      choices: [],
      ...f,
      variant: f.variant ?? variant,
      section: key,
      section_label: label,
    })),
  };
}

/** AgentSettings (the OpenHands agent: its variant `openhands`): what agent_settings_diff stores. */
export const AGENT_SETTINGS_FORM: SettingsFormSchema = {
  model_name: 'AgentSettings',
  sections: [
    section('general', 'General', null, [
      {
        key: 'agent',
        label: 'Agent',
        description: 'Agent class to use.',
        value_type: 'string',
        default: 'CodeActAgent',
        prominence: 'major',
        variant: 'openhands',
      },
      {
        key: 'enable_sub_agents',
        label: 'Enable sub-agents',
        description: 'Enable sub-agent delegation via TaskToolSet.',
        value_type: 'boolean',
        default: false,
        prominence: 'major',
        variant: 'openhands',
      },
    ]),
    section('llm', 'LLM', 'openhands', [
      {
        key: 'llm.model',
        label: 'Model',
        description: 'Model name.',
        value_type: 'string',
        default: null,
        prominence: 'critical',
      },
      {
        key: 'llm.api_key',
        label: 'API Key',
        description: 'API key.',
        value_type: 'string',
        default: null,
        prominence: 'critical',
        secret: true,
      },
      {
        key: 'llm.base_url',
        label: 'Base URL',
        description: 'Custom base URL.',
        value_type: 'string',
        default: null,
        prominence: 'major',
      },
    ]),
    section('condenser', 'Condenser', 'openhands', [
      {
        key: 'condenser.enabled',
        label: 'Enable memory condensation',
        description: 'Enable conversation memory condensation.',
        value_type: 'boolean',
        default: true,
        prominence: 'critical',
      },
      {
        key: 'condenser.max_size',
        label: 'Max size',
        description: 'Maximum number of events kept before the condenser runs.',
        value_type: 'integer',
        default: 120, // what a conversation started from the settings condenses at (conversation/condenser.ts)
        prominence: 'minor',
        depends_on: ['condenser.enabled'],
      },
    ]),
  ],
};

/** ConversationSettings: what conversation_settings_diff stores. */
export const CONVERSATION_SETTINGS_FORM: SettingsFormSchema = {
  model_name: 'ConversationSettings',
  sections: [
    section('general', 'General', null, [
      {
        key: 'max_iterations',
        label: 'Max iterations',
        description: 'Maximum number of iterations the conversation will run before stopping.',
        value_type: 'integer',
        default: 500,
        prominence: 'major',
      },
    ]),
    section('verification', 'Verification', null, [
      {
        key: 'confirmation_mode',
        label: 'Confirmation mode',
        description: 'Require user confirmation before executing risky actions.',
        value_type: 'boolean',
        default: false,
        prominence: 'critical',
      },
      {
        key: 'security_analyzer',
        label: 'Security analyzer',
        description: 'Security analyzer that evaluates actions before execution.',
        value_type: 'string',
        default: null, // none: agentd analyzes nothing unless asked
        prominence: 'major',
        depends_on: ['confirmation_mode'],
        choices: [
          { value: 'llm', label: 'llm' },
          { value: 'none', label: 'none' },
        ],
      },
    ]),
  ],
};
