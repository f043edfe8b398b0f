// Required into a server the bench starts (bin-start; CommonJS and --require, so that the ES module
// loader the binary does without is not loaded for it): when the process exits, writes to the file
// named by BENCH_MARKS_FILE when Node finished its own start (performance.nodeTiming) and when the
// server reached each phase it marks (performance.mark('agentd:…')), in ms since the process began.
const { writeFileSync } = require('node:fs');

process.on('exit', () => {
  const marks = { 'node started': performance.nodeTiming.bootstrapComplete };
  for (const mark of performance.getEntriesByType('mark')) {
    if (mark.name.startsWith('agentd:')) marks[mark.name.slice('agentd:'.length)] = mark.startTime;
  }
  writeFileSync(process.env.BENCH_MARKS_FILE, JSON.stringify(marks));
});
