// The cold-start rows of the real binary (`npm run bench -- bin-start`): spawn → `/ready` started
// directly and through `npm start`, the floor under both on this machine, and where a start goes (its
// phases on the server's clock, from the --require'd hook startup-marks.cjs).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { dataDir, startBinary } from './binary-lib.js';
import { ms, percentileOf, record } from './lib.js';

export async function benchStartup(): Promise<void> {
  const direct: number[] = [];
  const npm: number[] = [];
  // Medians of 9 and of 5: single starts here swing by tens of ms with the machine's other load.
  for (let i = 0; i < 9; i++) {
    const b = await startBinary(dataDir('start'));
    direct.push(b.readyMs);
    await b.stop();
  }
  for (let i = 0; i < 5; i++) {
    const b = await startBinary(dataDir('npm'), { viaNpm: true });
    npm.push(b.readyMs);
    await b.stop();
  }
  const d = percentileOf(direct, 50);
  const n = percentileOf(npm, 50);
  // The floor under both rows on this machine: Node starting and exiting, npm loading itself, in the
  // environment the servers above get (runCli's): one inherited from this shell may cost every Node
  // start more (NODE_EXTRA_CA_CERTS naming Debian's bundle: ~37 ms here).
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
  const floor = async (command: string, args: string[]) => {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await new Promise((done) => spawn(command, args, { stdio: 'ignore', env }).on('exit', done));
      times.push(performance.now() - t);
    }
    return percentileOf(times, 50);
  };
  record({
    name: 'binary: the floor: spawn → exit of node -e 0 / of npm --version, p50 of 5',
    value: `${ms(await floor(process.execPath, ['-e', '0']))} / ${ms(await floor('npm', ['--version']))}`,
  });
  record({
    name: 'binary: spawn → /ready, node dist/cli.js serve, p50 of 9',
    value: ms(d),
    goal: '< 150 ms',
    met: d < 150,
  });
  record({
    name: 'binary: spawn → /ready through npm start (no rebuild), p50 of 5',
    value: ms(n),
    goal: '< 250 ms',
    met: n < 250,
  });
  record({
    name: "binary: where a start goes, p50 of 5 (the server's clock, ms)",
    value: await startupPhases(),
  });
}

/**
 * When a server started with the marks hook (startup-marks.cjs) reached each phase it marks, p50 of 5
 * starts: separate ones, since the hook is a module of its own to load first.
 */
async function startupPhases(): Promise<string> {
  const hook = fileURLToPath(new URL('./startup-marks.cjs', import.meta.url));
  const runs: Record<string, number>[] = [];
  const fullCollections: number[] = [];
  for (let i = 0; i < 5; i++) {
    const dir = dataDir('phases');
    const file = join(dir, 'marks.json');
    const b = await startBinary(dir, {
      nodeOptions: `--require ${hook}`,
      env: { BENCH_MARKS_FILE: file },
    });
    await b.stop();
    const written = JSON.parse(readFileSync(file, 'utf8'));
    runs.push(written.marks);
    fullCollections.push(written.fullCollections);
  }
  let before = 0;
  const phases = Object.keys(runs[0]!)
    .map((phase) => {
      const at = percentileOf(
        runs.map((run) => run[phase]!),
        50,
      );
      const part = `${phase} ${before === 0 ? at.toFixed(0) : `+${(at - before).toFixed(0)}`}`;
      before = at;
      return part;
    })
    .join(' / ');
  return `${phases}; full collections by /ready: ${fullCollections.join(', ')}`;
}
