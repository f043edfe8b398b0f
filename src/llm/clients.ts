// The provider SDKs, loaded on first use: importing them costs ~350 ms and ~20 MB, which a server
// that never calls an LLM (or not yet) should not pay at start-up. Named exports, not the default: in
// dist/ each is a CommonJS bundle of its own (scripts/build.mjs), whose default is its whole namespace.
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { endpointOf, isAzure } from './config-check.js';
import type { LLMConfig } from './types.js';

const options = (config: LLMConfig) => ({
  apiKey: config.api_key ?? 'no-key',
  baseURL: endpointOf(config),
  maxRetries: 0, // retries are ours (llm.ts): only what retrying can fix, OpenHands' backoff formula
  timeout: (config.timeout ?? 300) * 1000,
  defaultHeaders: config.extra_headers ?? undefined,
});

/** The API version an Azure OpenAI request names unless the LLM's `api_version` does (LiteLLM's default). */
const AZURE_API_VERSION = '2025-02-01-preview';

export async function openaiClient(config: LLMConfig): Promise<OpenAI> {
  const { OpenAI: OpenAIClient, AzureOpenAI } = await import('openai');
  if (!isAzure(config)) return new OpenAIClient(options(config));
  // The resource's endpoint, as LiteLLM takes it (https://<resource>.openai.azure.com), gains the
  // /openai of Azure's paths; the client adds /deployments/<model> and the api-version query.
  const endpoint = (endpointOf(config) ?? '').replace(/\/+$/, '');
  return new AzureOpenAI({
    ...options(config),
    baseURL: /\/openai(\/|$)/.test(new URL(endpoint).pathname) ? endpoint : `${endpoint}/openai`,
    apiVersion: config.api_version?.trim() || AZURE_API_VERSION,
  });
}

export async function anthropicClient(config: LLMConfig): Promise<Anthropic> {
  const { Anthropic: AnthropicClient } = await import('@anthropic-ai/sdk');
  return new AnthropicClient(options(config));
}

/**
 * Loads the OpenAI SDK (the client of every OpenAI-compatible endpoint) ahead of the first task,
 * while the server is idle; the first LLM call then finds it loaded. Anthropic's is left to first
 * use: a server that never calls Claude should not hold it.
 */
export function preloadOpenAI(): Promise<void> {
  return import('openai').then(
    () => undefined,
    () => undefined, // a load failure surfaces where the client is actually made
  );
}

/**
 * Loads Node's fetch (undici, which the LLM SDKs call) ahead of the first task: Node loads it on
 * first use, ~40 ms of the first LLM call otherwise. A data: URL goes through fetch without a
 * connection.
 */
export function preloadFetch(): Promise<void> {
  return fetch('data:,').then(
    () => undefined,
    () => undefined,
  );
}
