// A scripted LLM endpoint on 127.0.0.1 for tests, demos and benchmarks. It speaks OpenAI chat
// completions (/v1/chat/completions), OpenAI Responses (/v1/responses) and Anthropic Messages
// (/v1/messages), so the real provider SDKs talk to it over HTTP. It replays a script: each request
// takes the next step. Scripts are keyed by API key, so concurrent conversations each get their own;
// unknown keys use the default script. Every request is recorded for assertions. A request with
// `stream: true` is answered with server-sent events, as each provider streams (sse.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { chatFrames, messagesFrames, responsesFrames, writeSse } from './sse.js';
import { thinkingOn, thinkingViolation } from './thinking-rules.js';

export interface ScriptedToolCall {
  name: string;
  /** An object (sent as JSON) or the raw argument text (to test malformed JSON). */
  arguments: Record<string, unknown> | string;
  id?: string;
}

export interface ScriptStep {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Chat completions `reasoning_content`. */
  reasoning?: string;
  /** Anthropic thinking blocks. */
  thinking?: { thinking: string; signature: string }[];
  redactedThinking?: string[];
  /** Responses API reasoning item. */
  reasoningItem?: { id?: string; summary: string[]; encrypted_content?: string };
  /** Answer with this HTTP error instead. */
  error?: { status: number; message?: string };
  /** Wait before answering. */
  delayMs?: number;
  /** Streamed answers only: wait this long after each server-sent event. */
  streamGapMs?: number;
  /** Streamed answers only: end the response after this many events, as a dropped stream. */
  streamCutAfter?: number;
  /**
   * The prompt's size (prompt_tokens: the whole prompt, cached parts included) and how much of it
   * came from or went into the provider's prompt cache; each API reports them in its own shape
   * (Anthropic's input_tokens leaves both cached parts out).
   */
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    cache_read_tokens?: number;
    cache_write_tokens?: number;
  };
  /**
   * Token ids to answer with, as vLLM does when asked (`return_token_ids: true` in the request
   * body); without this, such a request gets ids derived from the texts.
   */
  tokenIds?: { prompt: number[]; response: number[] };
}

export interface RecordedRequest {
  api: 'chat' | 'responses' | 'messages';
  key: string | null;
  /** The path and query the request was sent to. */
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

export type Script = ScriptStep[] | ((request: RecordedRequest, index: number) => ScriptStep);

const EXHAUSTED: ScriptStep = { text: 'The scripted LLM has no more steps.' };

export class ScriptedLLM {
  readonly requests: RecordedRequest[] = [];
  private readonly scripts = new Map<string, { script: Script; next: number }>();
  private fallback: { script: Script; next: number } = { script: [], next: 0 };
  private server: Server | null = null;
  private counter = 0;
  url = '';

  /** The script for requests made with this API key. */
  script(key: string, script: Script): this {
    this.scripts.set(key, { script, next: 0 });
    return this;
  }

  /** The script for requests whose key has no script of its own. */
  setDefault(script: Script): this {
    this.fallback = { script, next: 0 };
    return this;
  }

  /** Requests made with a key. */
  requestsFor(key: string): RecordedRequest[] {
    return this.requests.filter((r) => r.key === key);
  }

  async start(port = 0): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    const address = this.server.address();
    this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}`;
    return this.url;
  }

  /** Base URL for OpenAI-style clients (…/v1). Anthropic's SDK wants the bare url. */
  get openaiBaseUrl(): string {
    return `${this.url}/v1`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private nextStep(request: RecordedRequest): ScriptStep {
    const entry = (request.key !== null && this.scripts.get(request.key)) || this.fallback;
    const index = entry.next++;
    if (typeof entry.script === 'function') return entry.script(request, index);
    return entry.script[index] ?? EXHAUSTED;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0]!.replace(/\/+$/, '');
    if (req.method === 'GET' && path.endsWith('/models'))
      return json(res, 200, { object: 'list', data: [{ id: 'scripted', object: 'model' }] });
    const api = path.endsWith('/chat/completions')
      ? 'chat'
      : path.endsWith('/responses')
        ? 'responses'
        : path.endsWith('/messages')
          ? 'messages'
          : null;
    if (req.method !== 'POST' || api === null)
      return json(res, 404, { error: { message: `no route ${req.method} ${path}` } });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      return json(res, 400, { error: { message: 'invalid JSON' } });
    }
    const auth = req.headers.authorization;
    const key =
      (typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7) : null) ??
      (req.headers['x-api-key'] as string | undefined) ??
      (req.headers['api-key'] as string | undefined) ?? // Azure OpenAI's
      null;
    const request: RecordedRequest = { api, key, url: req.url ?? '', headers: req.headers, body };
    this.requests.push(request);
    // Refused as the API refuses it, before a step of the script is taken.
    const refused = api === 'messages' ? thinkingViolation(body, req.headers) : null;
    if (refused !== null)
      return json(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: refused } });
    const step = this.nextStep(request);
    if (step.delayMs) await new Promise((r) => setTimeout(r, step.delayMs));
    if (step.error) {
      const message = step.error.message ?? `scripted error ${step.error.status}`;
      const errorBody =
        api === 'messages'
          ? { type: 'error', error: { type: 'api_error', message } }
          : { error: { message, type: 'scripted', code: null } };
      return json(res, step.error.status, errorBody);
    }
    const n = ++this.counter;
    // Streamed as the provider streams it: server-sent events, the same content in pieces.
    const stream = body.stream === true;
    const sseOptions = { gapMs: step.streamGapMs, cutAfter: step.streamCutAfter };
    const model = typeof body.model === 'string' ? body.model : 'scripted';
    const calls = (step.toolCalls ?? []).map((c, i) => ({
      id: c.id ?? `call_${n}_${i}`,
      name: c.name,
      arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
    }));
    const usage = {
      prompt: step.usage?.prompt_tokens ?? 100,
      completion: step.usage?.completion_tokens ?? 20,
      cacheRead: step.usage?.cache_read_tokens ?? 0,
      cacheWrite: step.usage?.cache_write_tokens ?? 0,
    };
    if (api === 'chat') {
      const response = chatResponse(n, model, step, calls, usage);
      const ids =
        step.tokenIds ?? (body.return_token_ids === true ? derivedTokenIds(body, step, calls) : null);
      if (ids)
        Object.assign(
          response,
          { prompt_token_ids: ids.prompt },
          { choices: [{ ...response.choices[0], token_ids: ids.response }] },
        );
      if (!stream) return json(res, 200, response);
      const options = body.stream_options as { include_usage?: unknown } | undefined;
      return writeSse(res, chatFrames(response, options?.include_usage === true), true, sseOptions);
    }
    if (api === 'responses') {
      // Summaries only when asked for, as OpenAI gives them.
      const summarize = Boolean((body.reasoning as { summary?: unknown } | undefined)?.summary);
      const response = responsesResponse(n, model, step, calls, usage, summarize);
      return stream ? writeSse(res, responsesFrames(response), false, sseOptions) : json(res, 200, response);
    }
    // Claude thinking on answers with a thinking block first; a script need not write one.
    const thinks = thinkingOn(body) && !step.thinking && !step.redactedThinking;
    const thinking = thinks
      ? [{ thinking: 'Scripted thinking.', signature: `scripted-signature-${n}` }]
      : step.thinking;
    const response = messagesResponse(n, model, { ...step, thinking }, calls, usage);
    return stream ? writeSse(res, messagesFrames(response), false, sseOptions) : json(res, 200, response);
  }
}

type Call = { id: string; name: string; arguments: string };
type Usage = { prompt: number; completion: number; cacheRead: number; cacheWrite: number };

function chatResponse(n: number, model: string, step: ScriptStep, calls: Call[], usage: Usage) {
  return {
    id: `chatcmpl-scripted-${n}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: step.text ?? null,
          ...(step.reasoning ? { reasoning_content: step.reasoning } : {}),
          ...proxiedThinking(step),
          ...(calls.length
            ? {
                tool_calls: calls.map((c) => ({
                  id: c.id,
                  type: 'function',
                  function: { name: c.name, arguments: c.arguments },
                })),
              }
            : {}),
        },
        finish_reason: calls.length ? 'tool_calls' : 'stop',
      },
    ],
    usage: {
      prompt_tokens: usage.prompt,
      completion_tokens: usage.completion,
      total_tokens: usage.prompt + usage.completion,
      prompt_tokens_details: { cached_tokens: usage.cacheRead },
    },
  };
}

/**
 * Claude's thinking as LiteLLM's proxy answers it in a chat completion: the blocks as the message's
 * `thinking_blocks`, their text as its `reasoning_content`.
 */
function proxiedThinking(step: ScriptStep) {
  const blocks = [
    ...(step.thinking ?? []).map((t) => ({ type: 'thinking', thinking: t.thinking, signature: t.signature })),
    ...(step.redactedThinking ?? []).map((data) => ({ type: 'redacted_thinking', data })),
  ];
  if (blocks.length === 0) return {};
  const text = (step.thinking ?? []).map((t) => t.thinking).join('');
  return { thinking_blocks: blocks, ...(step.reasoning ? {} : { reasoning_content: text }) };
}

function responsesResponse(
  n: number,
  model: string,
  step: ScriptStep,
  calls: Call[],
  usage: Usage,
  summarize: boolean,
) {
  const output: unknown[] = [];
  if (step.reasoningItem) {
    output.push({
      type: 'reasoning',
      id: step.reasoningItem.id ?? `rs_scripted_${n}`,
      summary: summarize ? step.reasoningItem.summary.map((text) => ({ type: 'summary_text', text })) : [],
      encrypted_content: step.reasoningItem.encrypted_content ?? null,
      status: 'completed',
    });
  }
  if (step.text) {
    output.push({
      type: 'message',
      id: `msg_scripted_${n}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: step.text, annotations: [] }],
    });
  }
  for (const c of calls)
    output.push({
      type: 'function_call',
      id: `fc_${c.id}`,
      call_id: c.id,
      name: c.name,
      arguments: c.arguments,
      status: 'completed',
    });
  return {
    id: `resp_scripted_${n}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model,
    status: 'completed',
    output,
    usage: {
      input_tokens: usage.prompt,
      output_tokens: usage.completion,
      total_tokens: usage.prompt + usage.completion,
      input_tokens_details: { cached_tokens: usage.cacheRead },
      output_tokens_details: { reasoning_tokens: step.reasoningItem ? 5 : 0 },
    },
  };
}

function messagesResponse(n: number, model: string, step: ScriptStep, calls: Call[], usage: Usage) {
  const content: unknown[] = [];
  for (const t of step.thinking ?? [])
    content.push({ type: 'thinking', thinking: t.thinking, signature: t.signature });
  for (const data of step.redactedThinking ?? []) content.push({ type: 'redacted_thinking', data });
  if (step.text) content.push({ type: 'text', text: step.text });
  for (const c of calls)
    content.push({ type: 'tool_use', id: c.id, name: c.name, input: parseOr(c.arguments, {}) });
  return {
    id: `msg_scripted_${n}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: calls.length ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: usage.prompt - usage.cacheRead - usage.cacheWrite,
      output_tokens: usage.completion,
      cache_read_input_tokens: usage.cacheRead,
      cache_creation_input_tokens: usage.cacheWrite,
    },
  };
}

/** Stand-in token ids: the code points of the last message and of the answer (at most 64 each). */
function derivedTokenIds(body: Record<string, unknown>, step: ScriptStep, calls: Call[]) {
  const messages = (body.messages as { content?: unknown }[] | undefined) ?? [];
  const last = messages[messages.length - 1]?.content;
  const promptText = typeof last === 'string' ? last : JSON.stringify(last ?? '');
  const answer = (step.text ?? '') + calls.map((c) => c.name + c.arguments).join('');
  const ids = (text: string) => Array.from(text.slice(0, 64), (c) => c.codePointAt(0)!);
  return { prompt: ids(promptText), response: ids(answer) };
}

function parseOr(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text || '{}');
  } catch {
    return fallback;
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
