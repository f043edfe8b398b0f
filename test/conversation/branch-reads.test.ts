// The active branch read from the store from one end (branch-reads.ts) answers what the whole branch
// in memory answers (activeBranch, then finalResponseOf, recoverAfterCrash, a system prompt on it,
// the branch itself oldest first),
// on random trees of a real log, on SQLite and on PostgreSQL; and it reads back only as far as the
// question needs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recoverAfterCrash } from '../../src/agent/index.js';
import { BranchReads } from '../../src/conversation/branch-reads.js';
import { activeBranch, type BranchPoint, navigatedPoints } from '../../src/conversation/branches.js';
import { UnknownEventError } from '../../src/conversation/errors.js';
import { finalResponseOf } from '../../src/conversation/state.js';
import { type AnyEvent, newEventId, nowTimestamp } from '../../src/events/index.js';
import { openPostgresStore, openSqliteStore, type Store } from '../../src/store/index.js';
import { createTestDatabase, testDatabaseUrl } from '../support/engines.js';
import { conversationRecord } from '../support/records.js';

/** A seeded generator (mulberry32): the same trees on every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let calls = 0;
const made = (kind: string, source: string, rest: Record<string, unknown> = {}) =>
  ({ id: newEventId(), timestamp: nowTimestamp(), source, kind, ...rest }) as unknown as AnyEvent;
const message = (source: string, text: string) =>
  made('MessageEvent', source, { llm_message: { role: source, content: [{ type: 'text', text }] } });
const action = (response: string, kind: string | null) => {
  calls++;
  const payload =
    kind === 'FinishAction'
      ? { kind, message: `done ${calls}` }
      : kind && { kind, command: `echo "FinishAction" ${calls}` }; // the name in a string is no finish
  return made('ActionEvent', 'agent', {
    tool_name: kind === 'FinishAction' ? 'finish' : 'terminal',
    tool_call_id: `call_${calls}`,
    llm_response_id: response,
    action: payload,
  });
};
const answer = (to: AnyEvent, kind: string) =>
  made(kind, 'environment', { tool_call_id: (to as { tool_call_id: string }).tool_call_id });

/** A few random events: messages, batches of actions (some finishing, some answered), state changes. */
function chunk(next: () => number): AnyEvent[] {
  const out: AnyEvent[] = [];
  const pick = next();
  if (pick < 0.08) out.push(made('SystemPromptEvent', 'agent'));
  else if (pick < 0.25) out.push(message('user', 'FinishAction, please'));
  else if (pick < 0.35) out.push(message('agent', `reply ${calls++}`));
  else if (pick < 0.45) out.push(made('ConversationStateUpdateEvent', 'environment', { key: 'stats' }));
  else {
    const response = `resp_${Math.floor(next() * 6)}`;
    const batch = Array.from({ length: 1 + Math.floor(next() * 3) }, () => {
      const p = next();
      return action(response, p < 0.15 ? 'FinishAction' : p < 0.25 ? null : 'TerminalAction');
    });
    out.push(...batch);
    for (const a of batch) {
      const p = next();
      if (p < 0.6) out.push(answer(a, 'ObservationEvent'));
      else if (p < 0.7) out.push(answer(a, p < 0.65 ? 'AgentErrorEvent' : 'UserRejectObservation'));
    }
  }
  return out;
}

/** Events that none of the questions stops at: user messages and answers to nothing pending. */
function filler(n: number): AnyEvent[] {
  return Array.from({ length: n }, (_, i) =>
    i % 2 ? message('user', `filler ${i}`) : made('ObservationEvent', 'environment', { tool_call_id: 'x' }),
  );
}

const recovered = (events: readonly AnyEvent[]) =>
  events.map((e) => {
    const { kind, tool_call_id, tool_name, error } = e as unknown as Record<string, unknown>;
    return { kind, tool_call_id, tool_name, error };
  });

/** Every question asked of the store and of the branch in memory: the same answers. */
async function sameAnswers(store: Store, id: string, log: AnyEvent[], points: BranchPoint[] | undefined) {
  const reads = new BranchReads(store.events, id, points);
  const branch = activeBranch(log, points);
  expect(await reads.finalResponse()).toBe(finalResponseOf(branch));
  expect(recovered(await reads.recoverAfterCrash())).toEqual(recovered(recoverAfterCrash(branch)));
  expect(await reads.has('SystemPromptEvent')).toBe(branch.some((e) => e.kind === 'SystemPromptEvent'));
  // The whole branch, oldest first, in pages of any size (a runtime's history read back).
  for (const page of [7, 1000]) {
    const read: string[] = [];
    for await (const events of reads.oldestFirst(page)) read.push(...events.map((e) => e.id));
    expect(read).toEqual(branch.map((e) => e.id));
  }
}

function engineSuite(name: string, open: () => Promise<Store>) {
  describe(`branch reads: ${name}`, () => {
    let store: Store;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(() => store?.close());

    async function conversation(): Promise<{
      id: string;
      log: AnyEvent[];
      add: (e: AnyEvent[]) => Promise<void>;
    }> {
      const record = conversationRecord();
      await store.conversations.create(record);
      const log: AnyEvent[] = [];
      const add = async (events: AnyEvent[]) => {
        await store.events.append(record.id, events);
        log.push(...events);
      };
      return { id: record.id, log, add };
    }

    it('answers as the whole branch does, on random trees, with long stretches past a page', async () => {
      for (const seed of [1, 2, 3]) {
        const next = random(seed);
        const { id, log, add } = await conversation();
        let points: BranchPoint[] | undefined;
        await sameAnswers(store, id, log, points); // an empty log
        for (let step = 0; step < 60; step++) {
          const p = next();
          if (p < 0.15 && log.length > 0) {
            // HEAD moves to a random event of any branch, to one of the last few (the log's last
            // among them), or (rarely) to an empty tree.
            const q = next();
            const index =
              q < 0.5
                ? Math.floor(next() * log.length)
                : log.length - 1 - Math.floor(next() * Math.min(3, log.length));
            const to = q > 0.95 ? null : log[index]!.id;
            points = navigatedPoints(points, log.length, to);
          } else if (p < 0.2) {
            await add(filler(200 + Math.floor(next() * 1500)));
          } else {
            for (let n = 1 + Math.floor(next() * 4); n > 0; n--) await add(chunk(next));
          }
          await sameAnswers(store, id, log, points);
        }
      }
    });

    it('answers alike whatever the depth, across the edges of the pages it reads', async () => {
      for (const depth of [0, 1, 15, 16, 17, 79, 80, 81, 335, 336, 337, 1500]) {
        const { id, log, add } = await conversation();
        const finish = action('resp_finish', 'FinishAction');
        await add([made('SystemPromptEvent', 'agent'), message('agent', 'older'), finish]);
        // `depth` answered actions after the finish, each of its own response, then one batch of
        // `depth` actions with every other one answered: all of it pending, read back across pages.
        const steps = Array.from({ length: depth }, (_, i) => action(`resp_${i}`, 'TerminalAction'));
        await add(steps.flatMap((a) => [a, answer(a, 'ObservationEvent')]));
        const batch = Array.from({ length: depth }, () => action('resp_batch', 'TerminalAction'));
        await add([...batch, ...batch.filter((_, i) => i % 2).map((a) => answer(a, 'ObservationEvent'))]);
        await sameAnswers(store, id, log, undefined);
        expect(await new BranchReads(store.events, id, undefined).finalResponse()).toBe(
          finalResponseOf([finish]),
        );
      }
    });

    it('finds what sits at the edges of the parts it reads by kind (4,096 events each)', async () => {
      // The newest agent message, and another's finish, at 4,094–4,097 events before the end.
      for (const last of [message('agent', 'the edge'), action('resp_edge', 'FinishAction')]) {
        const { id, log, add } = await conversation();
        await add([...filler(10), last, ...filler(4_093)]);
        for (let n = 0; n < 4; n++) {
          await add(filler(1));
          expect(await new BranchReads(store.events, id, undefined).finalResponse()).toBe(
            finalResponseOf(log),
          );
        }
      }
      // The only system prompt, at the 4,096th and the 4,097th event from the root.
      for (const before of [4_095, 4_096]) {
        const { id, add } = await conversation();
        await add([...filler(before), made('SystemPromptEvent', 'agent'), ...filler(10)]);
        expect(await new BranchReads(store.events, id, undefined).has('SystemPromptEvent')).toBe(true);
      }
    });

    it('refuses, as the branch in memory does, a HEAD on an event the log does not hold', async () => {
      const { id, log, add } = await conversation();
      await add(chunk(random(4)));
      const points = navigatedPoints(undefined, log.length, newEventId());
      expect(() => activeBranch(log, points)).toThrow(UnknownEventError);
      await expect(new BranchReads(store.events, id, points).finalResponse()).rejects.toThrow(
        UnknownEventError,
      );
    });

    it('reads back only as far as the question needs', async () => {
      const { id, log, add } = await conversation();
      await add([made('SystemPromptEvent', 'agent'), message('user', 'go')]);
      const finish = action('resp_far', 'FinishAction');
      await add([finish, answer(finish, 'ObservationEvent')]);
      await add(filler(5_000));
      const open = action('resp_last', 'TerminalAction');
      await add([action('resp_before', 'TerminalAction'), message('agent', 'on it'), open]);
      let rows = 0;
      const range = store.events.range.bind(store.events);
      // The store's events with their range reads counted (an instance's methods stay its own).
      const counted: Store['events'] = Object.create(store.events);
      counted.range = async (...args) => {
        const page = await range(...args);
        rows += page.length;
        return page;
      };
      const reads = new BranchReads(counted, id, undefined);
      expect(await reads.finalResponse()).toBe('on it');
      expect(recovered(await reads.recoverAfterCrash())).toEqual(recovered(recoverAfterCrash(log)));
      expect(await reads.has('SystemPromptEvent')).toBe(true);
      // The agent's message and the actions after it; the open batch, back to that message; the prompt.
      expect(rows).toBeLessThan(40);

      rows = 0;
      const branched = new BranchReads(counted, id, navigatedPoints(undefined, log.length, finish.id));
      expect(await branched.finalResponse()).toBe(finalResponseOf([finish]));
      expect(rows).toBeLessThan(5);
    });
  });
}

engineSuite('sqlite', async () => openSqliteStore({ memory: true }));
const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const drop of drops) await drop();
});
describe.skipIf(!testDatabaseUrl())('on PostgreSQL', () => {
  engineSuite('postgresql', async () => {
    const db = await createTestDatabase();
    drops.push(db.drop);
    return openPostgresStore({ url: db.url, poolSize: 2 });
  });
});
