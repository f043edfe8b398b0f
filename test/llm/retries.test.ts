// Which LLM failures are retried (only those retrying can fix), how long the default retries take,
// and the log line every retry and every failed call leaves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  backoffSeconds,
  classify,
  createLLM,
  LLMAuthenticationError,
  LLMBadRequestError,
  type LLMConfig,
  type LLMError,
  LLMServiceUnavailableError,
  type LlmMessage,
  RETRY_DEFAULTS,
} from '../../src/llm/index.js';
import { closedPort } from '../support/ports.js';
import { RecordingLogger } from '../support/recording-logger.js';
import { ScriptedLLM } from '../support/scripted-llm.js';

const llm = new ScriptedLLM();
beforeAll(() => llm.start());
afterAll(() => llm.stop());

const request = {
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_prompt: false }] } as LlmMessage],
  tools: [],
};
let n = 0;
/** Three retries with waits of 10 ms: a retried failure shows up as more requests, not as time. */
const config = (extra: Partial<LLMConfig> = {}): LLMConfig => ({
  model: 'openai/gpt-4o',
  api_key: `retry-key-${++n}`,
  base_url: llm.openaiBaseUrl,
  num_retries: 3,
  retry_min_wait: 0.01,
  retry_max_wait: 0.01,
  retry_multiplier: 0.01,
  ...extra,
});

async function failure(c: LLMConfig, logger: RecordingLogger): Promise<Error> {
  return createLLM(c, { logger })
    .complete(request)
    .then(
      () => {
        throw new Error('the call succeeded');
      },
      (e: unknown) => e as Error,
    );
}

describe('retries', () => {
  it('retries a 429 with a warn line naming attempt, error, status and wait, then succeeds', async () => {
    const c = config();
    llm.script(c.api_key!, [{ error: { status: 429, message: 'slow down' } }, { text: 'ok' }]);
    const logger = new RecordingLogger();
    const response = await createLLM(c, { logger }).complete(request);
    expect(response.message.content?.[0]).toMatchObject({ text: 'ok' });
    expect(llm.requestsFor(c.api_key!)).toHaveLength(2);
    expect(logger.lines).toEqual([
      {
        level: 'warn',
        message: 'LLM call failed; retrying',
        fields: expect.objectContaining({
          attempt: 1,
          retries: 3,
          error: 'LLMRateLimitError',
          status: 429,
          wait_s: 0.01,
          model: 'openai/gpt-4o',
        }),
      },
    ]);
  });

  it('retries 5xx until the retries are spent, then logs the failure as an error', async () => {
    const c = config({ num_retries: 2 });
    llm.script(c.api_key!, [
      { error: { status: 503 } },
      { error: { status: 500 } },
      { error: { status: 502 } },
    ]);
    const logger = new RecordingLogger();
    const error = await failure(c, logger);
    expect(error).toBeInstanceOf(LLMServiceUnavailableError);
    expect(llm.requestsFor(c.api_key!)).toHaveLength(3);
    expect(logger.lines.map((l) => [l.level, l.fields.attempt, l.fields.status])).toEqual([
      ['warn', 1, 503],
      ['warn', 2, 500],
      ['error', 3, 502],
    ]);
    expect(logger.lines[2]!.message).toBe('LLM call failed; no retries left');
  });

  it.each([400, 401, 403, 404, 422])('never retries a %i: one request, one error line', async (status) => {
    const c = config();
    llm.script(c.api_key!, [{ error: { status, message: `refused ${c.api_key}` } }, { text: 'unreached' }]);
    const logger = new RecordingLogger();
    const error = await failure(c, logger);
    expect((error as LLMError).retryable).toBe(false);
    expect(error.name).toBe(
      status === 401 || status === 403 ? 'LLMAuthenticationError' : 'LLMBadRequestError',
    );
    expect(llm.requestsFor(c.api_key!)).toHaveLength(1);
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toMatchObject({
      level: 'error',
      message: 'LLM call failed; not retried',
      fields: { attempt: 1, status },
    });
    expect(error.message).not.toContain(c.api_key);
    expect(logger.text()).not.toContain(c.api_key);
  });

  it('fails a key that cannot be sent as a header before any request, naming no part of it', async () => {
    for (const key of ['sk-proj-abc…xyz', 'sk-line\nbreak']) {
      const c = config({ api_key: key });
      const before = llm.requests.length;
      const logger = new RecordingLogger();
      const error = await failure(c, logger);
      expect(error).toBeInstanceOf(LLMAuthenticationError);
      expect((error as LLMError).retryable).toBe(false);
      expect(error.message).toMatch(/cannot be sent in an HTTP header/);
      expect(llm.requests.length).toBe(before);
      expect(logger.lines.map((l) => l.level)).toEqual(['error']);
      for (const text of [error.message, logger.text()]) {
        expect(text).not.toContain(key);
        expect(text).not.toContain('sk-');
      }
    }
  });

  it('does not retry a base URL where nothing listens', async () => {
    const c = config({ base_url: `http://127.0.0.1:${await closedPort()}/v1` });
    const logger = new RecordingLogger();
    const error = await failure(c, logger);
    expect(error).toBeInstanceOf(LLMServiceUnavailableError);
    expect((error as LLMError).retryable).toBe(false);
    expect(error.message).toMatch(/ECONNREFUSED/);
    expect(logger.lines.map((l) => [l.level, l.fields.attempt])).toEqual([['error', 1]]);
  });

  it('does not retry a port fetch refuses to use (port 9 is on its blocklist)', async () => {
    const logger = new RecordingLogger();
    const error = await failure(config({ base_url: 'http://127.0.0.1:9/v1' }), logger);
    expect(error).toBeInstanceOf(LLMBadRequestError);
    expect(error.message).toMatch(/port that fetch refuses/);
    expect(logger.lines.map((l) => [l.level, l.fields.attempt])).toEqual([['error', 1]]);
  });

  it('fails a configuration that cannot work on the first call, without a request', async () => {
    const logger = new RecordingLogger();
    const noBase = await failure(config({ model: 'ollama/llama3', base_url: null }), logger);
    expect(noBase).toBeInstanceOf(LLMBadRequestError);
    expect(noBase.message).toMatch(/needs a base URL/);
    const badUrl = await failure(config({ base_url: 'localhost:4000' }), logger);
    expect(badUrl).toBeInstanceOf(LLMBadRequestError);
    expect(logger.lines.map((l) => [l.level, l.fields.attempt])).toEqual([
      ['error', 0],
      ['error', 0],
    ]);
  });
});

describe('classification of connection failures', () => {
  const wrapped = (code: string) =>
    Object.assign(new Error('Connection error.'), {
      cause: Object.assign(new TypeError('fetch failed'), {
        cause: Object.assign(new Error(code), { code }),
      }),
    });

  it('retries a dropped connection, not a name that does not resolve', () => {
    expect((classify(wrapped('ECONNRESET')) as LLMError).retryable).toBe(true);
    expect((classify(wrapped('ENOTFOUND')) as LLMError).retryable).toBe(false);
    expect((classify(wrapped('ECONNREFUSED')) as LLMError).retryable).toBe(false);
    expect(classify(Object.assign(new TypeError('Invalid URL'), { code: 'ERR_INVALID_URL' }))).toBeInstanceOf(
      LLMBadRequestError,
    );
  });

  it('keeps the key out of an unsendable-header message that quotes it', () => {
    const error = classify(new TypeError('Headers.append: "Bearer sk-a\nb" is an invalid header value.'));
    expect(error).toBeInstanceOf(LLMAuthenticationError);
    expect(error.message).not.toContain('sk-a');
  });
});

describe('default budget', () => {
  it('waits well under 30 s in all before giving up', () => {
    const waits = Array.from({ length: RETRY_DEFAULTS.num_retries }, (_, i) =>
      backoffSeconds(i + 1, { model: 'x' }),
    );
    expect(waits).toEqual([2, 4, 8]);
    expect(waits.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(30);
  });
});
