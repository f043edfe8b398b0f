// task_tracker: the agent's own plan as a list of tasks (title, notes, status), kept per conversation
// in <persistenceDir>/TASKS.json so it survives restarts.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Static } from 'typebox';
import type { TaskItem } from '../events/index.js';
import { TaskTrackerAction } from '../events/index.js';
import { toolDefinition } from './define.js';
import type { Tool } from './types.js';

type Action = Static<typeof TaskTrackerAction>;
type Task = Static<typeof TaskItem>;

const ICONS: Record<string, string> = { todo: '⏳', in_progress: '🔄', done: '✅' };

function render(tasks: Task[]): string {
  const lines = ['# Task List', ''];
  tasks.forEach((t, i) => {
    lines.push(`${i + 1}. ${ICONS[t.status ?? 'todo']} ${t.title}`);
    if (t.notes) lines.push(`   ${t.notes}`);
  });
  return lines.join('\n');
}

function load(file: string): Task[] {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Task[];
  } catch {
    return [];
  }
}

export function taskTrackerTool(): Tool<Action> {
  return {
    name: 'task_tracker',
    actionKind: 'TaskTrackerAction',
    actionSchema: TaskTrackerAction,
    readOnly: false,
    definition: toolDefinition({
      name: 'task_tracker',
      kind: 'TaskTrackerTool',
      actionKind: 'TaskTrackerAction',
      observationKind: 'TaskTrackerObservation',
      readOnly: false,
      destructive: false,
      idempotent: true,
      description:
        'Keep a plan for work with several steps. `plan` replaces the whole list with `task_list` ' +
        '(each task: title, optional notes, status todo | in_progress | done); `view` shows it. ' +
        'Mark a task in_progress when you start it and done as soon as it is finished.',
    }),
    async execute(action, ctx) {
      const file = join(ctx.persistenceDir, 'TASKS.json');
      const command = action.command ?? 'view';
      if (command === 'plan') {
        const tasks = (action.task_list ?? []).map((t) => ({
          title: t.title,
          notes: t.notes ?? '',
          status: t.status ?? 'todo',
        }));
        mkdirSync(ctx.persistenceDir, { recursive: true });
        writeFileSync(file, JSON.stringify(tasks, null, 2));
        return {
          kind: 'TaskTrackerObservation',
          command,
          task_list: tasks,
          content: [
            {
              type: 'text',
              text: `Task list has been updated with ${tasks.length} item(s).`,
              cache_prompt: false,
            },
          ],
          is_error: false,
        };
      }
      const tasks = load(file);
      const text =
        tasks.length === 0 ? 'No task list found. Use the "plan" command to create one.' : render(tasks);
      return {
        kind: 'TaskTrackerObservation',
        command,
        task_list: tasks,
        content: [{ type: 'text', text, cache_prompt: false }],
        is_error: false,
      };
    },
  };
}
