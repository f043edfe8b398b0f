// A conversation's events for people: messages as Markdown with the thinking folded, each tool call
// with its result, errors plainly; bookkeeping events (state updates, token ids, logs) are not shown.
// Each row is drawn again only when what it shows changes (its event's result came, approval began
// or ended), not on every event of a live conversation.
import { Component } from 'preact';
import type { Ev } from '../types.js';
import { callIdOf, type History, isResult } from './history.js';
import { Markdown, textOf } from './text.js';
import { ToolCall } from './tools.js';

type Obj = Record<string, unknown>;

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

interface RowProps {
  event: Ev;
  /** An action's result, once here. */
  result: Ev | null;
  /** An action waiting for approval. */
  pending: boolean;
  /** A result drawn alone: its action is not among the events (and none are left to load). */
  alone: boolean;
}

function EventView(props: RowProps) {
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
      const result = props.result;
      return (
        <>
          <Thinking event={e} />
          {thought && (
            <div class="message agent">
              <Markdown text={thought} />
            </div>
          )}
          <ToolCall event={e} result={result} pending={props.pending} />
        </>
      );
    }
    case 'ObservationEvent':
    case 'AgentErrorEvent':
    case 'UserRejectObservation':
      // Drawn with its action; alone only when the action is not (yet) here.
      if (!props.alone) return null;
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

class Row extends Component<RowProps> {
  override shouldComponentUpdate(next: RowProps): boolean {
    const p = this.props;
    return (
      p.event !== next.event ||
      p.result !== next.result ||
      p.pending !== next.pending ||
      p.alone !== next.alone
    );
  }
  override render() {
    return (
      <li data-event-id={this.props.event.id} data-kind={this.props.event.kind}>
        <EventView {...this.props} />
      </li>
    );
  }
}

interface RowsProps {
  history: History;
  /** The history's version: the rows are drawn again when it moves. */
  version: number;
  waiting: boolean;
}

/** The events' rows, apart from the streamed text below them, which changes with every token. */
class Rows extends Component<RowsProps> {
  override shouldComponentUpdate(next: RowsProps): boolean {
    return this.props.version !== next.version || this.props.waiting !== next.waiting;
  }
  override render() {
    const { history, waiting } = this.props;
    return history.events.map((e) => {
      const result = e.kind === 'ActionEvent' ? (history.results.get(callIdOf(e)) ?? null) : null;
      // A result whose action is not here may have it among the events not loaded yet.
      const alone = isResult(e) && !history.hasEarlier && !history.actions.has(callIdOf(e));
      return (
        <Row
          key={e.id}
          event={e}
          result={result}
          pending={waiting && e.kind === 'ActionEvent' && !result}
          alone={alone}
        />
      );
    });
  }
}

export function Timeline(props: { history: History; version: number; waiting: boolean; streaming: string }) {
  return (
    <ol class="timeline" aria-live="polite">
      <Rows history={props.history} version={props.version} waiting={props.waiting} />
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
