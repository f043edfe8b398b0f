// Small helpers shared by the benchmarks: timing, percentiles, and the result table.
import type { ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** A process a row spawned: killed when the bench exits, however it ends (a row that throws, a signal). */
export function killOnExit<T extends ChildProcess>(child: T): T {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export interface Row {
  name: string;
  value: string;
  goal?: string;
  /** true when the goal is met, false when missed, undefined when there is no goal. */
  met?: boolean;
}

export const rows: Row[] = [];

export function record(row: Row): void {
  rows.push(row);
  const mark = row.met === undefined ? '' : row.met ? ' ✓' : ' ✗';
  process.stderr.write(`  ${row.name}: ${row.value}${row.goal ? ` (goal ${row.goal})${mark}` : ''}\n`);
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

/** The p-th percentile of figures in any order (of a sorted copy: `figures` stays as it is). */
export const percentileOf = (figures: number[], p: number): number =>
  percentile(
    [...figures].sort((a, b) => a - b),
    p,
  );

/** Runs fn `n` times (after `warmup` runs) and returns the sorted per-call durations in ms. */
export async function sample(
  n: number,
  fn: () => Promise<unknown> | unknown,
  warmup = Math.min(50, n),
): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    out[i] = performance.now() - t;
  }
  return out.sort((a, b) => a - b);
}

export const ms = (v: number) => `${v < 1 ? v.toFixed(3) : v.toFixed(2)} ms`;
export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export function printTable(): void {
  const header = ['benchmark', 'result', 'goal', ''];
  const body = rows.map((r) => [
    r.name,
    r.value,
    r.goal ?? '',
    r.met === undefined ? '' : r.met ? 'met' : 'MISSED',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  const out = [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)];
  process.stdout.write(`${out.join('\n')}\n`);
}
