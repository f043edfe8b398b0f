// Writes a file through a temporary file and a rename, so a crash never leaves half a file.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export function writeAtomic(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.agentd-${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}
