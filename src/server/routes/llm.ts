// /api/llm (OpenHands' agent server): the providers and models a settings form offers. The lists are
// agentd's own (what its router reaches by name), in OpenHands' shapes; a model typed in by hand
// with a base URL still works. The ChatGPT-subscription and provider-connection routes are not served.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { KNOWN_MODELS, knownModelsByProvider, PROVIDERS } from '../../llm/index.js';
import { errorResponses } from '../schemas.js';

const ProvidersResponse = Type.Object(
  { providers: Type.Array(Type.String()) },
  { title: 'ProvidersResponse' },
);
const ModelsResponse = Type.Object({ models: Type.Array(Type.String()) }, { title: 'ModelsResponse' });
const VerifiedModelsResponse = Type.Object(
  { models: Type.Record(Type.String(), Type.Array(Type.String())) },
  { title: 'VerifiedModelsResponse' },
);

export const llmRoutes: FastifyPluginAsync = async (app) => {
  const tags = ['LLM'];
  app.get(
    '/api/llm/providers',
    {
      schema: {
        tags,
        summary: 'List Providers',
        description:
          'The LiteLLM provider prefixes agentd routes by name, sorted. Any other prefix works with a base URL, as an OpenAI-compatible server.',
        response: { 200: ProvidersResponse, ...errorResponses },
      },
    },
    async () => ({ providers: [...PROVIDERS] }),
  );
  app.get(
    '/api/llm/models',
    {
      schema: {
        tags,
        summary: 'List Models',
        description:
          'Model ids (`provider/model`) that work with an API key alone, sorted; `provider` keeps those of one provider (none for a provider agentd lists no model of).',
        querystring: Type.Object({
          provider: Type.Optional(
            Type.String({ maxLength: 128, description: "A provider prefix, e.g. 'openai', 'anthropic'" }),
          ),
        }),
        response: { 200: ModelsResponse, ...errorResponses },
      },
    },
    async (request) => {
      const { provider } = request.query as { provider?: string };
      const models =
        provider === undefined ? KNOWN_MODELS : KNOWN_MODELS.filter((id) => id.startsWith(`${provider}/`));
      return { models: [...models].sort() };
    },
  );
  app.get(
    '/api/llm/models/verified',
    {
      schema: {
        tags,
        summary: 'List Verified Models',
        description: 'The same models by provider, each name without its prefix.',
        response: { 200: VerifiedModelsResponse, ...errorResponses },
      },
    },
    async () => ({ models: knownModelsByProvider() }),
  );
};
