// file_editor on big inputs: what it answers stays bounded however large the file, folder or
// history behind it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileEditorTool } from '../../src/tools/index.js';
import { tempDir } from '../support/server.js';
import { type Obs, text, toolContext } from '../support/tools.js';

function editor() {
  const ctx = toolContext(tempDir('agentd-editor-limits-'));
  const tool = fileEditorTool();
  const edit = (action: Record<string, unknown>) =>
    tool.execute({ kind: 'FileEditorAction', ...action } as never, ctx) as Promise<Obs>;
  return { dir: ctx.workingDir, edit };
}

describe('file_editor limits', () => {
  it('lists the first 50 lines of a non-unique old_str and says how many more', async () => {
    const { dir, edit } = editor();
    const file = join(dir, 'many.txt');
    writeFileSync(file, 'x = 1\nneedle here\n'.repeat(30_000));
    const out = await edit({ command: 'str_replace', path: file, old_str: 'needle', new_str: 'pin' });
    expect(out.is_error).toBe(true);
    const lines = Array.from({ length: 50 }, (_, i) => 2 * i + 2);
    expect(text(out)).toBe(
      `No replacement was performed. Multiple occurrences of old_str \`needle\` in lines ${JSON.stringify(lines)} and 29950 more. Please ensure it is unique.`,
    );
  });
});
