// What a user message adds to a conversation, as one append (so one transaction): built here, stored
// by the service.
import type { AnyEvent } from '../events/index.js';
import type { ConversationPatch } from '../store/index.js';
import type { ConversationRuntime } from './runtime.js';
import type { SendMessageRequest } from './schemas.js';
import { userMessage } from './start-request.js';
import { stateUpdateEvent, titleFromText } from './state.js';

/**
 * The system prompt (when asked: the first message only), the status back to idle (after a finished
 * or stuck run), the message, its state update, the automatic title and, when it runs, the status
 * `running`, with the record's matching patch.
 */
export function messageAppend(
  runtime: ConversationRuntime,
  request: SendMessageRequest,
  withSystemPrompt: boolean,
): { events: AnyEvent[]; patch: ConversationPatch } {
  const events: AnyEvent[] = [];
  const patch: ConversationPatch = {};
  if (withSystemPrompt) events.push(runtime.agent.systemPromptEvent(runtime.state.workspace.working_dir));
  if (runtime.status === 'finished' || runtime.status === 'stuck') {
    events.push(stateUpdateEvent('execution_status', 'idle'));
    patch.executionStatus = 'idle';
  }
  // Knowledge skills the message's words trigger ride along with it (OpenHands' agent context).
  const active = new Set(runtime.state.activated_knowledge_skills);
  const texts = (request.content ?? []).map((c) => ('text' in c ? c.text : ''));
  const skills = runtime.agent.context?.forUserMessage(texts.join('\n'), active) ?? {
    extended: [],
    activated: [],
  };
  const message = userMessage(request, skills);
  events.push(message, stateUpdateEvent('last_user_message_id', message.id));
  patch.state = {
    ...runtime.state,
    last_user_message_id: message.id,
    activated_knowledge_skills: [...active, ...skills.activated],
  };
  if (runtime.record.title === null && runtime.state.autotitle) {
    const title = titleFromText(texts.join(' '));
    if (title) patch.title = title;
  }
  // A message that starts a run says so in the same append (the run's own `running` is then a no-op).
  if (request.run && !runtime.running) {
    events.push(stateUpdateEvent('execution_status', 'running'));
    patch.executionStatus = 'running';
  }
  return { events, patch };
}
