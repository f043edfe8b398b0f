// `npm run bench`: runs every benchmark and prints one table (progress goes to stderr).

import { stopLeftoverClis } from '../test/support/cli.js';
import { cleanUpTestFile } from '../test/support/server.js';
import { benchAgent } from './agent.bench.js';
import { benchBurst, benchEvents, benchFirstTask, benchScaling } from './binary.js';
import { benchReads } from './binary-reads.js';
import { benchResume } from './binary-resume.js';
import { benchStartup } from './binary-startup.js';
import { benchWrites } from './binary-writes.js';
import { benchAppConversations, benchSandboxStart } from './control-plane.bench.js';
import { printTable } from './lib.js';
import { benchPgAppend } from './pgstore.bench.js';
import { benchReplicas } from './replicas.bench.js';
import { benchFanOut } from './socket.bench.js';
import { benchIdleMemory } from './startup.bench.js';
import { benchAppend } from './store.bench.js';
import { benchSubAgents } from './sub-agents.bench.js';
import { benchBrowser, benchGrep } from './tools.bench.js';
import { benchWebOpen } from './web.bench.js';

const benches: [string, () => Promise<void>][] = [
  ['store', benchAppend],
  ['pgstore', benchPgAppend],
  ['agent', benchAgent],
  ['fanout', benchFanOut],
  ['idle', benchIdleMemory],
  ['browser', benchBrowser],
  ['grep', benchGrep],
  ['web-open', benchWebOpen],
  ['sandbox', benchSandboxStart],
  ['appconv', benchAppConversations],
  ['replicas', benchReplicas],
  // The real binary over loopback (binary-startup.ts, binary.ts, binary-reads.ts, binary-resume.ts, binary-writes.ts).
  ['bin-start', benchStartup],
  ['bin-first', benchFirstTask],
  ['bin-events', benchEvents],
  ['bin-reads', benchReads],
  ['bin-resume', benchResume],
  ['bin-writes', benchWrites],
  ['bin-burst', benchBurst],
  ['bin-subagents', benchSubAgents],
  ['bin-scaling', benchScaling],
];

// The servers a row spawns run in process groups of their own: stopped here however the bench ends
// (a row that throws, Ctrl-C, `timeout`), never left running; the temp folders the rows made
// (data folders, workspaces) are removed with them.
const cleanUp = () => stopLeftoverClis().finally(cleanUpTestFile);
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void cleanUp().finally(() => process.exit(130)));

const only = process.argv.slice(2);
try {
  for (const [name, run] of benches) {
    if (only.length > 0 && !only.includes(name)) continue;
    process.stderr.write(`${name}…\n`);
    await run();
  }
  printTable();
} finally {
  await cleanUp();
}
