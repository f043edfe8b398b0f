// The built-in tools every agent has unless told otherwise: finish (ends the task with a message to
// the user) and think (records reasoning, changes nothing).

import type { Static } from 'typebox';
import { FinishAction, ThinkAction } from '../events/index.js';
import { toolDefinition } from './define.js';
import type { Tool } from './types.js';

type Finish = Static<typeof FinishAction>;
type Think = Static<typeof ThinkAction>;

export function finishTool(): Tool<Finish> {
  return {
    name: 'finish',
    actionKind: 'FinishAction',
    actionSchema: FinishAction,
    readOnly: true,
    definition: toolDefinition({
      name: 'finish',
      kind: 'FinishTool',
      actionKind: 'FinishAction',
      observationKind: 'FinishObservation',
      readOnly: true,
      description:
        'Call this when the task is complete, or when you cannot go further without the user. ' +
        'The message is what the user reads: say what you did, what you found, and anything left open.',
    }),
    async execute(action) {
      return {
        kind: 'FinishObservation',
        content: [{ type: 'text', text: action.message, cache_prompt: false }],
        is_error: false,
      };
    },
  };
}

export function thinkTool(): Tool<Think> {
  return {
    name: 'think',
    actionKind: 'ThinkAction',
    actionSchema: ThinkAction,
    readOnly: true,
    definition: toolDefinition({
      name: 'think',
      kind: 'ThinkTool',
      actionKind: 'ThinkAction',
      observationKind: 'ThinkObservation',
      readOnly: true,
      description:
        'Write down your reasoning: weigh options, plan the next steps, or make sense of an error. ' +
        'Nothing is executed and nothing changes; the thought is just kept in the conversation.',
    }),
    async execute() {
      return {
        kind: 'ThinkObservation',
        content: [{ type: 'text', text: 'Your thought has been logged.', cache_prompt: false }],
        is_error: false,
      };
    },
  };
}
