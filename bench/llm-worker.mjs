// The scripted LLM of a burst in its own thread (own event loop): in the bench's thread, answering
// the conversations already started delayed reading the answers of the starts still coming, and the
// bench timed that wait as the server's (on the 2-core machine the threads still share the CPU).
// Scripts the API keys burst-0 … burst-(keys-1) with the echo task of `steps` steps, posts { url }
// once listening, and stops on any message. Plain JavaScript: a worker does not inherit the bench's
// `--import tsx`, so it registers tsx itself before loading the TypeScript it uses.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { ScriptedLLM } = await import('../src/llm/index.ts');
const { echoScript } = await import('./echo-script.ts');

const { keys, steps } = workerData;
const llm = new ScriptedLLM();
await llm.start();
for (let i = 0; i < keys; i++) llm.script(`burst-${i}`, echoScript(steps));
parentPort.postMessage({ url: llm.openaiBaseUrl });
parentPort.once('message', async () => {
  await llm.stop();
  parentPort.close();
});
