// A bare Fastify process (no logging, no hooks) that answers GET /bare with the bytes of the file
// named on the command line: the floor that agentd's batch get is compared with (binary.bench.ts).
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const body = readFileSync(process.argv[2], 'utf8');
const app = Fastify({ logger: false });
app.get('/bare', (_request, reply) => reply.type('application/json; charset=utf-8').send(body));
await app.listen({ host: '127.0.0.1', port: 0 });
const { port } = app.server.address();
process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
