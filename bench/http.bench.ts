// Batch get of 100 ids from a conversation of 100k events, through HTTP, against a bare Fastify
// route that returns the same bytes, measured in the same run; then the server's memory.
import Fastify from 'fastify';
import { getWithBody } from '../test/support/http.js';
import { startServer } from '../test/support/server.js';
import { mb, ms, percentile, record, sample } from './lib.js';
import { benchConversation, syntheticEvent } from './synthetic.js';

const EVENTS = 100_000;
const BATCH = 100;
const REQUESTS = 2_000;

export async function benchBatchGet(): Promise<void> {
  const server = await startServer();
  const conversation = await benchConversation(server);
  const ids: string[] = [];
  for (let b = 0; b < EVENTS / 1000; b++) {
    const events = Array.from({ length: 1000 }, (_, i) => syntheticEvent(b * 1000 + i));
    for (const e of events) ids.push(e.id);
    await server.store.events.append(conversation, events);
  }
  const wanted = Array.from({ length: BATCH }, (_, i) => ids[Math.floor((i * EVENTS) / BATCH) + 7]!);
  const body = JSON.stringify(wanted);
  const headers = { 'X-Session-API-Key': server.key };
  const url = `${server.url}/api/conversations/${conversation}/events`;

  const expected = await getWithBody(url, body, headers);
  if (expected.status !== 200) throw new Error(`batch get answered ${expected.status}`);
  const bare = Fastify({ logger: false });
  bare.get('/bare', (_req, reply) => reply.type('application/json; charset=utf-8').send(expected.text));
  await bare.listen({ host: '127.0.0.1', port: 0 });
  const bareAddress = bare.server.address();
  const bareUrl = `http://127.0.0.1:${typeof bareAddress === 'object' && bareAddress ? bareAddress.port : 0}/bare`;

  // Interleave the two so machine noise hits both alike.
  const agentd: number[] = [];
  const plain: number[] = [];
  for (let round = 0; round < 4; round++) {
    agentd.push(...(await sample(REQUESTS / 4, () => getWithBody(url, body, headers))));
    plain.push(...(await sample(REQUESTS / 4, () => getWithBody(bareUrl, body, headers))));
  }
  agentd.sort((a, b) => a - b);
  plain.sort((a, b) => a - b);
  const ratio = percentile(agentd, 50) / percentile(plain, 50);
  record({
    name: `batch get ${BATCH} of ${EVENTS / 1000}k events, p50 / p99`,
    value: `${ms(percentile(agentd, 50))} / ${ms(percentile(agentd, 99))}`,
  });
  record({
    name: 'bare Fastify route, same bytes, p50 / p99',
    value: `${ms(percentile(plain, 50))} / ${ms(percentile(plain, 99))}`,
  });
  record({
    name: 'batch get / bare route (p50 ratio)',
    value: `${ratio.toFixed(2)}×`,
    goal: '≤ 1.5×',
    met: ratio <= 1.5,
  });
  global.gc?.();
  record({ name: `server RSS after loading ${EVENTS / 1000}k events`, value: mb(process.memoryUsage().rss) });

  await bare.close();
  await server.close({ remove: true });
}
