// GET /api/settings/agent-schema and /conversation-schema (OpenHands' SettingsSchema): every field a
// form built from them offers is one PATCH /api/settings stores and GET shows back — a form never
// offers what would be refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startServer, type TestServer } from '../support/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close({ remove: true }));

type FieldSchema = {
  key: string;
  value_type: string;
  default: unknown;
  secret: boolean;
  choices: { value: unknown }[];
  section: string;
  depends_on: string[];
};
type FormSchema = { model_name: string; sections: { key: string; fields: FieldSchema[] }[] };

/**
 * A value of the field's kind that agentd can run with: other than its default where there is a choice
 * (the agent has one value; GET shows it only once it is stored, so the check still holds).
 */
function sample(field: FieldSchema): unknown {
  if (field.choices.length > 0)
    return field.choices.find((c) => c.value !== 'none' && c.value !== field.default)?.value;
  if (field.key === 'llm.model') return 'openai/gpt-4o';
  if (field.key === 'llm.base_url') return 'http://127.0.0.1:9/v1';
  if (field.value_type === 'boolean') return !field.default;
  if (field.value_type === 'integer') return (field.default as number) + 10;
  return field.key === 'agent' ? 'CodeActAgent' : 'a value';
}

/** `{a: {b: value}}` for the key `a.b`. */
const nested = (key: string, value: unknown): Record<string, unknown> =>
  key
    .split('.')
    .reverse()
    .reduce<unknown>((inner, part) => ({ [part]: inner }), value) as Record<string, unknown>;
const at = (object: unknown, key: string) =>
  key.split('.').reduce<unknown>((o, part) => (o as Record<string, unknown> | undefined)?.[part], object);

describe('the settings form schemas', () => {
  for (const [path, model, diff, view] of [
    ['/api/settings/agent-schema', 'AgentSettings', 'agent_settings_diff', 'agent_settings'],
    [
      '/api/settings/conversation-schema',
      'ConversationSettings',
      'conversation_settings_diff',
      'conversation_settings',
    ],
  ] as const) {
    it(`${path}: each field is stored by PATCH and shown by GET`, async () => {
      const res = await api(server, path);
      expect(res.status).toBe(200);
      const form = (await res.json()) as FormSchema;
      expect(form.model_name).toBe(model);
      const fields = form.sections.flatMap((s) => s.fields.map((f) => ({ ...f, inSection: s.key })));
      expect(fields.length).toBeGreaterThan(0);
      const keys = new Set(fields.map((f) => f.key));
      for (const field of fields) {
        expect(field.section).toBe(field.inSection);
        for (const dependency of field.depends_on) expect(keys, field.key).toContain(dependency);
        const value = sample(field);
        const patched = await api(server, '/api/settings', {
          method: 'PATCH',
          body: JSON.stringify({ [diff]: nested(field.key, value) }),
        });
        expect(
          patched.status,
          `${field.key} = ${JSON.stringify(value)}: ${await patched.clone().text()}`,
        ).toBe(200);
        const shown = at(((await patched.json()) as Record<string, unknown>)[view], field.key);
        expect(shown, field.key).toEqual(field.secret ? '**********' : value);
      }
    });
  }
});
