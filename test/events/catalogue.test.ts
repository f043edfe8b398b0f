import { describe, expect, it } from 'vitest';
import {
  ACTION_VARIANTS,
  Action,
  EVENT_VARIANTS,
  normalizeTimestamp,
  nowTimestamp,
  OBSERVATION_VARIANTS,
  Observation,
  parse,
  parseEvent,
  parseMessageEvent,
  resolveEventKind,
  TOOL_DEFINITION_VARIANTS,
} from '../../src/events/index.js';
import { ACTION_CASES, EVENT_CASES, type KindCase } from './fixtures.js';

const clone = <T>(v: T): T => structuredClone(v);

function setPath(
  target: Record<string, unknown>,
  path: (string | number)[],
  value: unknown,
): Record<string, unknown> {
  const copy = clone(target);
  let node: Record<string | number, unknown> = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = value;
  return copy;
}

function suite(name: string, cases: KindCase[], parseOne: (v: unknown) => ReturnType<typeof parseEvent>) {
  describe(name, () => {
    for (const c of cases) {
      describe(c.kind, () => {
        it('round-trips a full example unchanged', () => {
          const result = parseOne(clone(c.full));
          expect(result.ok ? true : result.errors).toBe(true);
          if (result.ok) expect(result.value).toEqual(c.full);
        });

        it('gains its defaults from a minimal example', () => {
          const result = parseOne(clone(c.minimal));
          expect(result.ok ? true : result.errors).toBe(true);
          if (result.ok) expect(result.value).toMatchObject({ ...c.minimal, ...c.defaults });
        });

        it('rejects an unknown member, naming it', () => {
          const result = parseOne({ ...clone(c.full), bogus_member: 1 });
          expect(result.ok).toBe(false);
          if (!result.ok)
            expect(result.errors).toContainEqual(
              expect.objectContaining({ loc: ['bogus_member'], type: 'extra_forbidden' }),
            );
        });

        for (const [path, bad] of c.bounds ?? []) {
          it(`rejects ${JSON.stringify(bad)} at ${path.join('.')}`, () => {
            const result = parseOne(setPath(c.full, path, bad));
            expect(result.ok).toBe(false);
            if (!result.ok) expect(result.errors.map((e) => e.loc)).toContainEqual(path);
          });
        }
      });
    }
  });
}

suite('events', EVENT_CASES, parseEvent);
suite('actions', ACTION_CASES, (v) => parse(Action, v) as ReturnType<typeof parseEvent>);

describe('catalogue coverage', () => {
  it('has a test case for each of the 14 event kinds and 30 action kinds', () => {
    expect(EVENT_VARIANTS.map((v) => (v as { title?: string }).title).sort()).toEqual(
      EVENT_CASES.map((c) => c.kind).sort(),
    );
    expect(EVENT_VARIANTS).toHaveLength(14);
    expect(ACTION_VARIANTS.map((v) => (v as { title?: string }).title).sort()).toEqual(
      ACTION_CASES.map((c) => c.kind).sort(),
    );
    expect(ACTION_VARIANTS).toHaveLength(30);
    expect(OBSERVATION_VARIANTS).toHaveLength(16);
    expect(TOOL_DEFINITION_VARIANTS).toHaveLength(30);
  });

  it('requires required members, naming the missing one', () => {
    const result = parseEvent({
      id: 'x',
      timestamp: '2026-11-22T00:00:00',
      kind: 'AgentErrorEvent',
      tool_name: 't',
      tool_call_id: 'c',
    });
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.errors).toContainEqual(expect.objectContaining({ loc: ['error'], type: 'required' }));
  });

  it('validates a MessageEvent on its own exactly as the union does (value, defaults, errors)', () => {
    const message = (content: unknown) => ({
      id: 'x',
      timestamp: '2026-11-22T00:00:00',
      source: 'user',
      kind: 'MessageEvent',
      llm_message: { role: 'user', content },
    });
    const good = [{ type: 'text', text: 'hi' }];
    expect(parseMessageEvent(message(good))).toEqual(parseEvent(message(good)));
    expect(parseMessageEvent(message(good)).ok).toBe(true);
    const bad = [{ type: 'text', text: 1, extra: true }];
    const alone = parseMessageEvent(message(bad));
    expect(alone.ok).toBe(false);
    expect(alone).toEqual(parseEvent(message(bad)));
  });

  it('answers an unknown kind with one clear error at kind', () => {
    const result = parseEvent({ id: 'x', timestamp: '2026-11-22T00:00:00', kind: 'MysteryEvent' });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors).toEqual([expect.objectContaining({ loc: ['kind'] })]);
  });

  it('applies defaults inside nested unions (observation content items)', () => {
    const result = parse(Observation, {
      kind: 'ThinkObservation',
      content: [{ text: 'x' }, { type: 'image', image_urls: ['u'] }],
    });
    expect(result.ok && result.value).toEqual({
      kind: 'ThinkObservation',
      is_error: false,
      content: [
        { type: 'text', text: 'x', cache_prompt: false },
        { type: 'image', image_urls: ['u'], cache_prompt: false },
      ],
    });
  });

  it('rejects an observation with an unknown member', () => {
    const result = parse(Observation, { kind: 'FinishObservation', extra: true });
    expect(result.ok).toBe(false);
  });
});

describe('ids, timestamps and kind names', () => {
  it('makes strictly increasing UTC timestamps with microseconds and no offset', () => {
    const stamps = Array.from({ length: 1000 }, () => nowTimestamp());
    for (const s of stamps) expect(s).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/);
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]! > stamps[i - 1]!).toBe(true);
  });

  it('normalizes ISO timestamps with or without offsets to UTC microseconds', () => {
    expect(normalizeTimestamp('2026-11-22T10:00:00Z')).toBe('2026-11-22T10:00:00.000000');
    expect(normalizeTimestamp('2026-11-22T12:00:00.5+02:00')).toBe('2026-11-22T10:00:00.500000');
    expect(normalizeTimestamp('2026-11-22T10:00:00.123456')).toBe('2026-11-22T10:00:00.123456');
    expect(normalizeTimestamp('2026-11-22')).toBe('2026-11-22T00:00:00.000000');
    expect(normalizeTimestamp('yesterday')).toBeNull();
  });

  it('resolves short kinds and OpenHands module paths', () => {
    expect(resolveEventKind('MessageEvent')).toBe('MessageEvent');
    expect(resolveEventKind('openhands.sdk.event.llm_convertible.message.MessageEvent')).toBe('MessageEvent');
    expect(resolveEventKind('Nope')).toBeNull();
  });
});
