// planning_file_editor: the file editor, but it may only change the plan file
// (<workspace>/.agents_tmp/PLAN.md, created with headings on first use); it can view anything.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Static } from 'typebox';
import { PlanningFileEditorAction } from '../../events/index.js';
import { toolDefinition } from '../define.js';
import { FileEditor } from '../file-editor.js';
import type { Tool, ToolOptions } from '../types.js';

type Action = Static<typeof PlanningFileEditorAction>;

const PLAN_TEMPLATE = '# Plan\n\n## Goal\n\n## Steps\n\n## Notes\n';

export function planningFileEditorTool(options: ToolOptions = {}): Tool<Action> {
  const editor = new FileEditor(options);
  return {
    name: 'planning_file_editor',
    actionKind: 'PlanningFileEditorAction',
    actionSchema: PlanningFileEditorAction,
    readOnly: false,
    definition: toolDefinition({
      name: 'planning_file_editor',
      kind: 'PlanningFileEditorTool',
      actionKind: 'PlanningFileEditorAction',
      observationKind: 'PlanningFileEditorObservation',
      readOnly: false,
      description:
        'Keep your plan in the plan file (.agents_tmp/PLAN.md in the working directory) with the file_editor commands. You may view any file, but only the plan file can be changed.',
    }),
    async execute(action, ctx) {
      const plan = join(ctx.workingDir, '.agents_tmp', 'PLAN.md');
      if (!existsSync(plan)) {
        mkdirSync(dirname(plan), { recursive: true });
        writeFileSync(plan, PLAN_TEMPLATE);
      }
      const target = resolve(ctx.workingDir, action.path);
      if (action.command !== 'view' && target !== plan) {
        const message = `Operation '${action.command}' is not allowed on file '${action.path}'. Only the following files can be edited: ['${plan}']`;
        return {
          kind: 'PlanningFileEditorObservation',
          command: action.command,
          path: action.path,
          content: [{ type: 'text', text: message, cache_prompt: false }],
          is_error: true,
        };
      }
      const result = editor.run({ ...action, kind: 'FileEditorAction', path: target }, ctx);
      return {
        kind: 'PlanningFileEditorObservation',
        command: result.command,
        path: target,
        content: result.content,
        is_error: result.is_error,
      };
    },
  };
}
