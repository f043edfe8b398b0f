// Imported into a server the bench starts (bin-start): when the process exits, writes to the file
// named by BENCH_MARKS_FILE when Node finished its own start (performance.nodeTiming) and when the
// server reached each phase it marks (performance.mark('agentd:…')), in ms since the process began.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  const marks = { 'node started': performance.nodeTiming.bootstrapComplete };
  for (const mark of performance.getEntriesByType('mark')) {
    if (mark.name.startsWith('agentd:')) marks[mark.name.slice('agentd:'.length)] = mark.startTime;
  }
  writeFileSync(process.env.BENCH_MARKS_FILE, JSON.stringify(marks));
});
