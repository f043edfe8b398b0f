// Required into a server the bench starts (bin-start; CommonJS and --require, so that the ES module
// loader the binary does without is not loaded for it): when the process exits, writes to the file
// named by BENCH_MARKS_FILE when Node finished its own start (performance.nodeTiming) and when the
// server reached each phase it marks (performance.mark('agentd:…')), in ms since the process began,
// and how many full collections V8 made by then (the bench stops the server once /ready answers).
const { writeFileSync } = require('node:fs');
const { constants, PerformanceObserver } = require('node:perf_hooks');

let fullCollections = 0;
const countFull = (entries) => {
  for (const entry of entries)
    if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) fullCollections++;
};
const collections = new PerformanceObserver((list) => countFull(list.getEntries()));
collections.observe({ entryTypes: ['gc'] });

process.on('exit', () => {
  const marks = { 'node started': performance.nodeTiming.bootstrapComplete };
  for (const mark of performance.getEntriesByType('mark')) {
    if (mark.name.startsWith('agentd:')) marks[mark.name.slice('agentd:'.length)] = mark.startTime;
  }
  countFull(collections.takeRecords()); // those not yet delivered
  writeFileSync(process.env.BENCH_MARKS_FILE, JSON.stringify({ marks, fullCollections }));
});
