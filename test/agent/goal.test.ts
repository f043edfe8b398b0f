// The /goal judge's verdict, read as OpenHands reads it: the answer as JSON, else the `{…}` in it;
// anything unreadable is "not done", so the loop goes on rather than stopping falsely.
import { describe, expect, it } from 'vitest';
import { GoalController, goalTranscript, parseVerdict } from '../../src/agent/goal.js';

describe('parseVerdict', () => {
  it('reads the JSON, alone or inside other words', () => {
    expect(parseVerdict('{"score": 0.5, "complete": false, "missing": "tests"}')).toEqual({
      score: 0.5,
      complete: false,
      missing: 'tests',
    });
    expect(parseVerdict('Verdict:\n```json\n{"score": 1, "complete": true}\n```')).toEqual({
      score: 1,
      complete: true,
      missing: '',
    });
  });

  it('clamps the score, takes complete from it when absent, and refuses what is not an object', () => {
    expect(parseVerdict('{"score": 7}')).toEqual({ score: 1, complete: true, missing: '' });
    expect(parseVerdict('{"score": -2, "missing": null}')).toEqual({
      score: 0,
      complete: false,
      missing: '',
    });
    expect(parseVerdict('{"score": "high"}').score).toBe(0);
    for (const answer of ['', 'yes', '[1, 2]', '{not json}'])
      expect(parseVerdict(answer)).toEqual({
        score: 0,
        complete: false,
        missing: 'Judge verdict could not be parsed.',
      });
  });
});

describe('GoalController', () => {
  it('follows up with what is missing, stops when complete or at the cap', () => {
    const goal = new GoalController('Ship {it}', 2);
    const first = goal.afterAudit({ score: 0.2, complete: false, missing: '' });
    expect(first).toMatchObject({ verdict: { score: 0.2 } });
    expect('followup' in first && first.followup).toContain(
      'Outstanding: Some requirements are not yet verified.',
    );
    expect(goal.afterAudit({ score: 0.3, complete: false, missing: 'docs' })).toEqual({
      done: {
        active: false,
        status: 'capped',
        iteration: 2,
        max_iterations: 2,
        objective: 'Ship {it}',
        verdict: { score: 0.3, complete: false, missing: 'docs' },
      },
    });
    const resumed = new GoalController('x', 5, 3);
    expect(resumed.afterAudit({ score: 1, complete: true, missing: '' })).toMatchObject({
      done: { status: 'complete', iteration: 4 },
    });
  });

  it('renders the transcript without the system prompt and without empty turns', () => {
    const text = (t: string) => [{ type: 'text' as const, text: t }];
    expect(
      goalTranscript([
        { role: 'system', content: text('the system prompt') },
        { role: 'user', content: text('do {objective}') },
        { role: 'assistant', content: [] },
        { role: 'tool', content: text(' output \n') },
      ]),
    ).toBe('user: do {objective}\n\ntool: output');
  });
});
