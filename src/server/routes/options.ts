// /api/options: what OpenHands' web UI asks the app server before it shows anything (the mode it runs
// in, the choices its settings pages offer). On the control plane only (`agentd serve`): OpenHands'
// agent server has no such routes, and nothing calls them on a sandbox's agent server. Protected like
// the rest, as OpenHands protects them (its /api/options router takes the session key when one is set).
import type { FastifyPluginAsync } from 'fastify';
import { type Static, Type } from 'typebox';
import { KNOWN_MODELS } from '../../llm/index.js';
import { errorResponses } from '../schemas.js';

// Shape from frontend/src/api/option-service/option.types.ts (GetConfigResponse). The UI reads
// APP_MODE everywhere (saas-only features, login, the settings 404 as "new user" in oss),
// FEATURE_FLAGS.* (billing, LLM settings, Jira/Linear pages) and POSTHOG_CLIENT_KEY (entry.client.tsx:
// an empty key starts no telemetry). The optional members (APP_SLUG, AUTH_URL, PROVIDERS_CONFIGURED,
// MAINTENANCE) serve the hosted (saas) mode and are left out, as OpenHands' oss server does.
export const OptionsConfig = Type.Object(
  {
    APP_MODE: Type.Union([Type.Literal('oss'), Type.Literal('saas')]),
    GITHUB_CLIENT_ID: Type.String(),
    POSTHOG_CLIENT_KEY: Type.String(),
    FEATURE_FLAGS: Type.Object({
      ENABLE_BILLING: Type.Boolean(),
      HIDE_LLM_SETTINGS: Type.Boolean(),
      ENABLE_JIRA: Type.Boolean(),
      ENABLE_JIRA_DC: Type.Boolean(),
      ENABLE_LINEAR: Type.Boolean(),
    }),
  },
  { title: 'OptionsConfig', description: "The app server's mode and feature flags, for the web UI" },
);
export type OptionsConfig = Static<typeof OptionsConfig>;

// frontend/src/api/option-service/option-service.api.ts: models, agents and security analyzers are
// each a plain list of names (string[]).
export const NameList = Type.Array(Type.String(), { title: 'NameList' });

/** A self-hosted server: no billing, no sign-in, no issue-tracker integrations, no telemetry key. */
const CONFIG: OptionsConfig = {
  APP_MODE: 'oss',
  GITHUB_CLIENT_ID: '',
  POSTHOG_CLIENT_KEY: '',
  FEATURE_FLAGS: {
    ENABLE_BILLING: false,
    HIDE_LLM_SETTINGS: false,
    ENABLE_JIRA: false,
    ENABLE_JIRA_DC: false,
    ENABLE_LINEAR: false,
  },
};

/** The one agent agentd runs (OpenHands' oss server lists its CodeActAgent the same way). */
const AGENTS = ['CodeActAgent'];

/**
 * The analyzers a conversation can use: `llm` (the LLM's own security_risk, settings
 * `security_analyzer: "llm"`). The UI adds its own "none"; any other name turns analysis off.
 */
const SECURITY_ANALYZERS = ['llm'];

export const optionRoutes: FastifyPluginAsync = async (app) => {
  const tags = ['Options'];
  const list = (summary: string, description: string) => ({
    schema: { tags, summary, description, response: { 200: NameList, ...errorResponses } },
  });

  app.get(
    '/api/options/config',
    {
      schema: {
        tags,
        summary: 'Get Config',
        description: "The server's mode (`oss`) and feature flags, as OpenHands' web UI reads them.",
        response: { 200: OptionsConfig, ...errorResponses },
      },
    },
    async () => CONFIG,
  );
  app.get(
    '/api/options/models',
    list(
      'Get Models',
      'Model ids (`provider/model`) that work with an API key alone. Others, with a base URL, are accepted too.',
    ),
    async () => [...KNOWN_MODELS],
  );
  app.get('/api/options/agents', list('Get Agents', 'The agents a conversation can run.'), async () => [
    ...AGENTS,
  ]);
  app.get(
    '/api/options/security-analyzers',
    list('Get Security Analyzers', 'The security analyzers a conversation can use (besides none).'),
    async () => [...SECURITY_ANALYZERS],
  );
};
