// planning_file_editor: the file editor, but it may only change the plan file
// (<workspace>/.agents_tmp/PLAN.md, created with headings on first use); it can view anything the
// file editor can. The plan file must really be that file: a PLAN.md or .agents_tmp that is a link
// elsewhere is refused, so the plan cannot become a way to change another file (or one outside).
import { lstatSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Static } from 'typebox';
import { PlanningFileEditorAction } from '../../events/index.js';
import { toolDefinition } from '../define.js';
import { FileEditor } from '../file-editor.js';
import { realPath, workspaceRoot } from '../paths.js';
import type { Tool, ToolOptions } from '../types.js';
import { writeAtomic } from './atomic.js';

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
      const refuse = (message: string) => ({
        kind: 'PlanningFileEditorObservation',
        command: action.command,
        path: action.path,
        content: [{ type: 'text' as const, text: message, cache_prompt: false }],
        is_error: true,
      });
      const target = resolve(ctx.workingDir, action.path);
      try {
        const planReal = join(workspaceRoot(ctx), '.agents_tmp', 'PLAN.md');
        const planLinked = realPath(plan) !== planReal;
        if (!planLinked && !lstatSync(planReal, { throwIfNoEntry: false }))
          writeAtomic(planReal, PLAN_TEMPLATE);
        if (action.command !== 'view' && planLinked)
          return refuse(`The plan file ${plan} is a symbolic link; remove it to keep the plan there.`);
        if (action.command !== 'view' && realPath(target) !== planReal) {
          return refuse(
            `Operation '${action.command}' is not allowed on file '${action.path}'. Only the following files can be edited: ['${plan}']`,
          );
        }
      } catch (error) {
        return refuse((error as Error).message);
      }
      const result = await editor.run({ ...action, kind: 'FileEditorAction', path: target }, ctx);
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
