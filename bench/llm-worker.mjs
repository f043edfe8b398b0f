// A worker thread does not inherit the bench's `--import tsx`: this plain module registers tsx in the
// worker, then loads the TypeScript worker body (burst-llm.ts).
import { register } from 'tsx/esm/api';

register();
await import('./burst-llm.ts');
