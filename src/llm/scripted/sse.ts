// The scripted LLM's answers as the providers stream them (server-sent events), derived from the
// answer it would send without streaming, so a streamed and a plain call carry the same content.
// Texts are cut after each whitespace run and tool arguments every 16 characters, so every answer
// streams in several deltas.
import type { ServerResponse } from 'node:http';

type Json = Record<string, unknown>;
type Frame = { event?: string; data: unknown };

/** "Hello big world" → ["Hello ", "big ", "world"]. */
export const words = (text: string): string[] => text.split(/(?<=\s)(?=\S)/).filter(Boolean);
const pieces = (text: string): string[] => text.match(/[\s\S]{1,16}/g) ?? [];

/**
 * Writes the frames, `gapMs` apart when given (so a test can interrupt a stream half-way); with
 * `cutAfter`, only that many and no end marker, as a dropped connection would leave it.
 */
export async function writeSse(
  res: ServerResponse,
  all: Frame[],
  end: boolean,
  { gapMs = 0, cutAfter }: { gapMs?: number | undefined; cutAfter?: number | undefined } = {},
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const frames = cutAfter === undefined ? all : all.slice(0, cutAfter);
  const done = end && cutAfter === undefined;
  for (const f of frames) {
    if (res.destroyed) return;
    res.write(`${f.event ? `event: ${f.event}\n` : ''}data: ${JSON.stringify(f.data)}\n\n`);
    if (gapMs) await new Promise((r) => setTimeout(r, gapMs));
  }
  if (done) res.write('data: [DONE]\n\n');
  res.end();
}

/** Chat completion chunks: role, reasoning, content, each tool call (id and name, then arguments), finish, usage. */
export function chatFrames(response: Json, includeUsage: boolean): Frame[] {
  const choice = (response.choices as Json[])[0]!;
  const message = choice.message as Json;
  const base = {
    id: response.id,
    object: 'chat.completion.chunk',
    created: response.created,
    model: response.model,
  };
  const chunk = (delta: Json, extra: Json = {}) => ({
    data: { ...base, choices: [{ index: 0, delta, finish_reason: null, ...extra }] },
  });
  const frames: Frame[] = [];
  const first = chunk({ role: 'assistant', content: '' });
  if (response.prompt_token_ids) (first.data as Json).prompt_token_ids = response.prompt_token_ids;
  frames.push(first);
  const thinking = message.thinking_blocks as Json[] | undefined;
  if (thinking) frames.push(...proxiedThinkingFrames(thinking, chunk));
  else if (typeof message.reasoning_content === 'string')
    for (const w of words(message.reasoning_content)) frames.push(chunk({ reasoning_content: w }));
  if (typeof message.content === 'string')
    for (const w of words(message.content)) frames.push(chunk({ content: w }));
  const calls = (message.tool_calls as { id: string; function: { name: string; arguments: string } }[]) ?? [];
  calls.forEach((call, index) => {
    frames.push(
      chunk({
        tool_calls: [
          { index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } },
        ],
      }),
    );
    for (const p of pieces(call.function.arguments))
      frames.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
  });
  frames.push(
    chunk(
      {},
      { finish_reason: choice.finish_reason, ...(choice.token_ids ? { token_ids: choice.token_ids } : {}) },
    ),
  );
  if (includeUsage) frames.push({ data: { ...base, choices: [], usage: response.usage } });
  return frames;
}

/**
 * Thinking blocks streamed as LiteLLM's proxy streams Claude's: a delta per piece of a block's thinking
 * (also as `reasoning_content`), then one with its signature alone; redacted blocks whole.
 */
function proxiedThinkingFrames(blocks: Json[], chunk: (delta: Json) => Frame): Frame[] {
  const frames: Frame[] = [];
  const piece = (block: Json, reasoning: string) =>
    frames.push(chunk({ reasoning_content: reasoning, thinking_blocks: [block] }));
  for (const b of blocks) {
    if (b.type === 'redacted_thinking') {
      frames.push(chunk({ thinking_blocks: [b] }));
      continue;
    }
    for (const w of words(b.thinking as string)) piece({ type: 'thinking', thinking: w, signature: null }, w);
    piece({ type: 'thinking', thinking: '', signature: b.signature }, '');
  }
  return frames;
}

/** Responses API events: created, each output item with its deltas, completed (the whole response). */
export function responsesFrames(response: Json): Frame[] {
  let seq = 0;
  const frames: Frame[] = [];
  const emit = (type: string, data: Json) =>
    frames.push({ event: type, data: { type, sequence_number: seq++, ...data } });
  emit('response.created', { response: { ...response, status: 'in_progress', output: [], usage: null } });
  (response.output as Json[]).forEach((item, output_index) => {
    const item_id = item.id;
    if (item.type === 'reasoning') {
      emit('response.output_item.added', {
        output_index,
        item: { ...item, summary: [], status: 'in_progress' },
      });
      (item.summary as { text: string }[]).forEach((s, summary_index) => {
        const at = { item_id, output_index, summary_index };
        emit('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } });
        for (const w of words(s.text)) emit('response.reasoning_summary_text.delta', { ...at, delta: w });
        emit('response.reasoning_summary_text.done', { ...at, text: s.text });
        emit('response.reasoning_summary_part.done', { ...at, part: { type: 'summary_text', text: s.text } });
      });
    } else if (item.type === 'message') {
      emit('response.output_item.added', {
        output_index,
        item: { ...item, content: [], status: 'in_progress' },
      });
      (item.content as { text: string }[]).forEach((part, content_index) => {
        const at = { item_id, output_index, content_index };
        emit('response.content_part.added', {
          ...at,
          part: { type: 'output_text', text: '', annotations: [] },
        });
        for (const w of words(part.text))
          emit('response.output_text.delta', { ...at, delta: w, logprobs: [] });
        emit('response.output_text.done', { ...at, text: part.text, logprobs: [] });
        emit('response.content_part.done', { ...at, part });
      });
    } else if (item.type === 'function_call') {
      emit('response.output_item.added', {
        output_index,
        item: { ...item, arguments: '', status: 'in_progress' },
      });
      for (const p of pieces(item.arguments as string))
        emit('response.function_call_arguments.delta', { item_id, output_index, delta: p });
      emit('response.function_call_arguments.done', { item_id, output_index, arguments: item.arguments });
    }
    emit('response.output_item.done', { output_index, item });
  });
  emit('response.completed', { response });
  return frames;
}

/** Anthropic Messages events: message_start, each block (start, deltas, stop), message_delta, message_stop. */
export function messagesFrames(message: Json): Frame[] {
  const frames: Frame[] = [];
  const emit = (type: string, data: Json) => frames.push({ event: type, data: { type, ...data } });
  const usage = message.usage as { input_tokens: number; output_tokens: number };
  emit('message_start', {
    message: {
      ...message,
      content: [],
      stop_reason: null,
      // The prompt's figures (cache reads and writes too) come here; the output's in message_delta.
      usage: { ...usage, output_tokens: 1 },
    },
  });
  (message.content as Json[]).forEach((block, index) => {
    const delta = (d: Json) => emit('content_block_delta', { index, delta: d });
    if (block.type === 'text') {
      emit('content_block_start', { index, content_block: { type: 'text', text: '' } });
      for (const w of words(block.text as string)) delta({ type: 'text_delta', text: w });
    } else if (block.type === 'thinking') {
      emit('content_block_start', {
        index,
        content_block: { type: 'thinking', thinking: '', signature: '' },
      });
      for (const w of words(block.thinking as string)) delta({ type: 'thinking_delta', thinking: w });
      delta({ type: 'signature_delta', signature: block.signature });
    } else if (block.type === 'redacted_thinking') {
      emit('content_block_start', { index, content_block: block });
    } else if (block.type === 'tool_use') {
      emit('content_block_start', { index, content_block: { ...block, input: {} } });
      for (const p of pieces(JSON.stringify(block.input)))
        delta({ type: 'input_json_delta', partial_json: p });
    }
    emit('content_block_stop', { index });
  });
  emit('message_delta', {
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  emit('message_stop', {});
  return frames;
}
