// A run on a long conversation that was condensed again and again, on a fresh server (nothing of it
// loaded): the runtime reads the log back and keeps what the agent needs (agent/resident-history.ts).
// Measured at 10k and 100k events, a Condensation every 100: message sent → run finished (one echo
// step), the server's RSS before and at its peak, and the slowest /health answer meanwhile.
import { join } from 'node:path';
import { type AnyEvent, newEventId, nowTimestamp } from '../src/events/index.js';
import { ScriptedLLM } from '../src/llm/index.js';
import { openSqliteStore } from '../src/store/index.js';
import {
  createConversation,
  dataDir,
  post,
  rssFromHere,
  startBinary,
  untilFinished,
  whileProbing,
} from './binary-lib.js';
import { echoScript } from './echo-script.js';
import { mb, ms, record } from './lib.js';
import { syntheticEvent } from './synthetic.js';

/** Events between two Condensations; each forgets the ones before it. */
const ROUND = 100;

/** A data folder with a conversation of `total` events on the scripted LLM's `key`, condensed every ROUND. */
async function condensedConversation(total: number, llm: ScriptedLLM, key: string) {
  const dir = dataDir('resume');
  const b = await startBinary(dir);
  const id = await createConversation(b.url, { url: llm.openaiBaseUrl, key });
  await b.stop();
  const store = openSqliteStore({ path: join(dir, 'agentd.db') });
  for (let done = 0; done < total; done += ROUND) {
    const round = Array.from({ length: ROUND - 1 }, (_, i) => syntheticEvent(done + i)) as AnyEvent[];
    const condensation = {
      id: newEventId(),
      timestamp: nowTimestamp(),
      source: 'environment',
      kind: 'Condensation',
      forgotten_event_ids: round.map((e) => e.id),
      summary: `What happened up to event ${done + ROUND}.`,
      summary_offset: 0,
      llm_response_id: `resp_${newEventId()}`,
    } as unknown as AnyEvent;
    await store.events.append(id, [...round, condensation]);
  }
  await store.close();
  return { dir, id };
}

async function resume(total: number, llm: ScriptedLLM) {
  const key = `sk-resume-${total}`;
  llm.script(key, echoScript(1));
  const { dir, id } = await condensedConversation(total, llm, key);
  const b = await startBinary(dir);
  await new Promise((r) => setTimeout(r, 500)); // a settled, idle server
  const rss = rssFromHere(b.pid);
  const done = untilFinished(b.url, id);
  const run = await whileProbing(
    b.url,
    async () => {
      await post(b.url, `/api/conversations/${id}/events`, {
        role: 'user',
        content: [{ type: 'text', text: 'go on' }],
        run: true,
      });
      await done;
    },
    10,
  );
  const peak = rss.peak();
  await b.stop();
  return { took: run.ms, stall: run.health, before: rss.before, peak };
}

export async function benchResume(): Promise<void> {
  const llm = new ScriptedLLM();
  await llm.start();
  try {
    for (const total of [10_000, 100_000]) {
      const r = await resume(total, llm);
      record({
        name: `resume: run on a condensed ${total / 1000}k-event conversation, none loaded: sent → finished; slowest /health; RSS before → peak`,
        value: `${ms(r.took)}; ${ms(r.stall)}; ${mb(r.before)} → ${mb(r.peak)}`,
      });
    }
  } finally {
    await llm.stop();
  }
}
