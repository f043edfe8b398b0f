// `npm run bench`: runs every benchmark and prints one table (progress goes to stderr).

import { benchAgent } from './agent.bench.js';
import { benchBurst, benchEvents, benchFirstTask, benchScaling, benchStartup } from './binary.js';
import { benchAppConversations, benchSandboxStart } from './control-plane.bench.js';
import { benchBatchGet } from './http.bench.js';
import { printTable } from './lib.js';
import { benchPgAppend } from './pgstore.bench.js';
import { benchReplicas } from './replicas.bench.js';
import { benchFanOut, benchReplay } from './socket.bench.js';
import { benchColdStart, benchIdleMemory } from './startup.bench.js';
import { benchAppend } from './store.bench.js';
import { benchBrowser, benchGrep } from './tools.bench.js';

const benches: [string, () => Promise<void>][] = [
  ['store', benchAppend],
  ['pgstore', benchPgAppend],
  ['http', benchBatchGet],
  ['start', benchColdStart],
  ['agent', benchAgent],
  ['replay', benchReplay],
  ['fanout', benchFanOut],
  ['idle', benchIdleMemory],
  ['browser', benchBrowser],
  ['grep', benchGrep],
  ['sandbox', benchSandboxStart],
  ['appconv', benchAppConversations],
  ['replicas', benchReplicas],
  // The real binary over loopback (binary.ts).
  ['bin-start', benchStartup],
  ['bin-first', benchFirstTask],
  ['bin-events', benchEvents],
  ['bin-burst', benchBurst],
  ['bin-scaling', benchScaling],
];

const only = process.argv.slice(2);
for (const [name, run] of benches) {
  if (only.length > 0 && !only.includes(name)) continue;
  process.stderr.write(`${name}…\n`);
  await run();
}
printTable();
