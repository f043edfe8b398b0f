// How `agentd run` draws a sub-agent task: one line naming the type and what it is for, then the
// first lines of its report (or of why it stopped, as an error).
import { expect, it, describe as suite } from 'vitest';
import { describe } from '../../src/cli/run/format.js';

suite('agentd run lines', () => {
  it('draw a task as its sub-agent type and description, and its report below', () => {
    const action = {
      id: 'a1',
      kind: 'ActionEvent',
      tool_name: 'task',
      action: {
        kind: 'TaskAction',
        prompt: 'Run the tests\nthen report',
        subagent_type: 'bash-runner',
        description: 'Run the tests',
      },
    };
    expect(describe(action)).toEqual([{ tone: 'action', text: '⇢ sub-agent bash-runner: Run the tests' }]);
    const resumed = {
      ...action,
      action: { kind: 'TaskAction', prompt: 'Go on\nwith more', resume: 'task_00000001' },
    };
    expect(describe(resumed)[0]!.text).toBe('⇢ sub-agent general-purpose (resuming task_00000001): Go on');
    const failed = {
      id: 'o1',
      kind: 'ObservationEvent',
      tool_name: 'task',
      observation: {
        kind: 'TaskObservation',
        task_id: 'task_00000001',
        subagent: 'bash-runner',
        status: 'error',
        is_error: true,
        content: [{ type: 'text', text: 'It stopped.' }],
      },
    };
    expect(describe(failed)).toEqual([{ tone: 'error', text: '  It stopped.' }]);
  });
});
