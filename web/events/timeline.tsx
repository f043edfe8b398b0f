// A conversation's events for people: messages as Markdown with the thinking folded, each tool call
// with its result, errors plainly; bookkeeping events (state updates, token ids, logs) are not shown.
import type { Ev } from '../types.js';
import { Markdown, textOf } from './text.js';
import { ToolCall } from './tools.js';

type Obj = Record<string, unknown>;
const RESULT_KINDS = new Set(['ObservationEvent', 'AgentErrorEvent', 'UserRejectObservation']);

/** Reasoning and thinking blocks of a message or action, folded. */
function Thinking(props: { event: Ev; message?: Obj }) {
  const source = props.message ?? props.event;
  const blocks = Array.isArray(source.thinking_blocks) ? (source.thinking_blocks as Obj[]) : [];
  const text = [
    typeof source.reasoning_content === 'string' ? source.reasoning_content : '',
    ...blocks.map((b) => (typeof b.thinking === 'string' ? b.thinking : '')),
  ]
    .filter(Boolean)
    .join('\n\n');
  if (!text) return null;
  return (
    <details class="thinking">
      <summary>thinking</summary>
      <Markdown text={text} />
    </details>
  );
}

/** Each action's result by tool call id. */
export function resultsByCall(events: Ev[]): Map<string, Ev> {
  const results = new Map<string, Ev>();
  for (const e of events) if (RESULT_KINDS.has(e.kind)) results.set(String(e.tool_call_id), e);
  return results;
}

function EventView(props: { event: Ev; results: Map<string, Ev>; actions: Set<string>; waiting: boolean }) {
  const e = props.event;
  switch (e.kind) {
    case 'MessageEvent': {
      const message = (e.llm_message ?? {}) as Obj;
      const text = textOf(message.content);
      return (
        <div class={`message ${e.source === 'user' ? 'user' : 'agent'}`}>
          <Thinking event={e} message={message} />
          <Markdown text={text} />
        </div>
      );
    }
    case 'ActionEvent': {
      const thought = textOf(e.thought);
      const result = props.results.get(String(e.tool_call_id)) ?? null;
      return (
        <>
          <Thinking event={e} />
          {thought && (
            <div class="message agent">
              <Markdown text={thought} />
            </div>
          )}
          <ToolCall event={e} result={result} pending={props.waiting && !result} />
        </>
      );
    }
    case 'ObservationEvent':
    case 'AgentErrorEvent':
    case 'UserRejectObservation':
      // Drawn with its action; alone only when the action is not (yet) here.
      if (props.actions.has(String(e.tool_call_id))) return null;
      return <pre class="orphan">{JSON.stringify(e, null, 2)}</pre>;
    case 'ConversationErrorEvent':
      return (
        <p class="error" role="alert">
          <strong>{String(e.code)}</strong>: {String(e.detail)}
        </p>
      );
    case 'ConversationStateUpdateEvent': {
      if (e.key === 'goal') return goalMarker(e.value as Obj | undefined);
      // switch_llm / switch_profile: the agent's model from here on.
      const model = ((e.value as Obj | undefined)?.llm as Obj | undefined)?.model;
      return e.key === 'agent' && typeof model === 'string' ? <p class="marker">Model: {model}</p> : null;
    }
    case 'PauseEvent':
      return <p class="marker">Paused</p>;
    case 'InterruptEvent':
      return <p class="marker">Interrupted</p>;
    case 'Condensation':
    case 'CondensationSummaryEvent':
      return <p class="marker">Earlier history condensed</p>;
    case 'SystemPromptEvent':
      return (
        <details class="marker">
          <summary>System prompt</summary>
          <pre>{String((e.system_prompt as Obj | undefined)?.text ?? '')}</pre>
        </details>
      );
    default:
      return null;
  }
}

export function Timeline(props: { events: Ev[]; waiting: boolean; streaming: string }) {
  const results = resultsByCall(props.events);
  const actions = new Set(
    props.events.filter((e) => e.kind === 'ActionEvent').map((e) => String(e.tool_call_id)),
  );
  return (
    <ol class="timeline" aria-live="polite">
      {props.events.map((e) => (
        <li key={e.id} data-event-id={e.id} data-kind={e.kind}>
          <EventView event={e} results={results} actions={actions} waiting={props.waiting} />
        </li>
      ))}
      {props.streaming && (
        <li class="message agent streaming">
          <Markdown text={props.streaming} />
        </li>
      )}
    </ol>
  );
}

/** A /goal audit where it happened: its round, how done the judge found it, what it found missing. */
function goalMarker(goal: Obj | undefined) {
  const verdict = goal?.verdict as { score: number; missing: string } | null | undefined;
  if (!goal || !verdict) return null;
  const missing = verdict.missing ? ` · missing: ${verdict.missing}` : '';
  return (
    <p class="marker">
      Goal audit {String(goal.iteration)}/{String(goal.max_iterations)}: {Math.round(verdict.score * 100)}%
      done
      {missing}
    </p>
  );
}
