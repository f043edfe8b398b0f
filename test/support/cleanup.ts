// Runs in every test file (vitest setupFiles): after the file's own afterAll hooks (after hooks run in
// reverse order, and this one is registered first), it stops what the file left running and removes
// the folders it made, so a test run leaves nothing in the temp folder.
import { afterAll } from 'vitest';
import { stopLeftoverClis } from './cli.js';
import { cleanUpTestFile } from './server.js';

afterAll(async () => {
  await stopLeftoverClis();
  await cleanUpTestFile();
});
