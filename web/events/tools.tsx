// One tool call: what the agent asked (the action, its arguments, the risk it gave) and what came of
// it (the observation, an agent error, or a rejection), drawn by kind.
import type { ComponentChildren } from 'preact';
import { useContext } from 'preact/hooks';
import { TaskConversations, taskConversation } from '../pages/sub-conversations.js';
import type { Ev } from '../types.js';
import { Link } from '../ui.js';
import { PatchChanges, PatchText, patchFiles } from './patch.js';
import { Ansi, Diff, Markdown, textOf } from './text.js';

type Obj = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function Args(props: { event: Ev }) {
  const raw = str((props.event.tool_call as Obj | undefined)?.arguments);
  let pretty = raw;
  try {
    pretty = JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    // Not JSON (the LLM sent something else): shown as it came.
  }
  if (!pretty) return null;
  return (
    <details class="args">
      <summary>arguments</summary>
      <pre>{pretty}</pre>
    </details>
  );
}

function Screenshot(props: { data: unknown }) {
  const data = str(props.data);
  if (!data) return null;
  const src = data.startsWith('data:') ? data : `data:image/png;base64,${data}`;
  return <img class="screenshot" src={src} alt="Browser screenshot" />;
}

interface TaskItem {
  title: string;
  notes?: string;
  status?: string;
}
function Tasks(props: { list: unknown }) {
  if (!Array.isArray(props.list) || props.list.length === 0) return null;
  const mark: Record<string, string> = { done: '☑', in_progress: '◐', todo: '☐' };
  return (
    <ul class="tasks">
      {(props.list as TaskItem[]).map((t, i) => (
        <li key={i} class={`task-${t.status ?? 'todo'}`}>
          <span aria-hidden="true">{mark[t.status ?? 'todo'] ?? '☐'}</span> {t.title}
          {t.notes ? <span class="muted"> — {t.notes}</span> : null}
        </li>
      ))}
    </ul>
  );
}

/** A link to the conversation a sub-agent task runs in, once the page knows it (taskConversation). */
function TaskLink(props: { taskId: string; description?: string }) {
  const found = taskConversation(useContext(TaskConversations), props.taskId, props.description ?? '');
  return found ? <Link href={`/ui/conversations/${found.id}`}>open its conversation</Link> : null;
}

/** The head line: what kind of call it is and its main argument. */
function headline(action: Obj, event: Ev): { label: string; detail: string } {
  const kind = str(action.kind);
  if (kind === 'TerminalAction') return { label: 'terminal', detail: `$ ${str(action.command)}` };
  if (kind === 'FileEditorAction' || kind === 'PlanningFileEditorAction')
    return { label: `file ${str(action.command)}`, detail: str(action.path) };
  if (kind === 'EditAction' || kind === 'WriteFileAction' || kind === 'ReadFileAction')
    return { label: str(event.tool_name), detail: str(action.file_path ?? action.path) };
  if (kind === 'ApplyPatchAction')
    return { label: 'patch', detail: patchFiles(str(action.patch)).join(', ') };
  if (kind === 'BrowserNavigateAction') return { label: 'browser', detail: str(action.url) };
  if (kind.startsWith('Browser')) return { label: 'browser', detail: kind.replace(/^Browser|Action$/g, '') };
  if (kind === 'MCPToolAction') return { label: 'MCP', detail: str(event.tool_name) };
  if (kind === 'TaskTrackerAction') return { label: 'tasks', detail: str(action.command) || 'view' };
  if (kind === 'TaskAction')
    return {
      label: `sub-agent ${str(action.subagent_type) || 'general-purpose'}`,
      detail: str(action.description) || str(action.prompt).split('\n')[0]!,
    };
  return { label: str(event.tool_name), detail: str(event.summary) };
}

/** The file change an edit made: the observation's before/after, else what the action asked. */
function editDiff(action: Obj, observation: Obj | null): ComponentChildren {
  const path = str(observation?.path ?? observation?.file_path ?? action.path ?? action.file_path);
  const before = observation?.old_content;
  const after = observation?.new_content;
  if (typeof after === 'string') return <Diff path={path} before={str(before)} after={after} />;
  if (action.command === 'create' && typeof action.file_text === 'string')
    return <Diff path={path} before="" after={action.file_text} />;
  if (action.command === 'str_replace' && typeof action.old_str === 'string')
    return <Diff path={path} before={action.old_str} after={str(action.new_str)} />;
  if (typeof action.old_string === 'string')
    return <Diff path={path} before={action.old_string} after={str(action.new_string)} />;
  return null;
}

function Result(props: { action: Obj; result: Ev }) {
  const { action, result } = props;
  if (result.kind === 'UserRejectObservation')
    return (
      <p class="rejected">
        Rejected{result.rejection_source === 'hook' ? ' by a hook' : ''}:{' '}
        {str(result.rejection_reason) || 'no reason'}
      </p>
    );
  if (result.kind === 'AgentErrorEvent') return <p class="error">{str(result.error)}</p>;
  const observation = (result.observation ?? {}) as Obj;
  const text = textOf(observation.content);
  const kind = str(observation.kind);
  if (kind === 'TerminalObservation') {
    const meta = (observation.metadata ?? {}) as Obj;
    const code = typeof observation.exit_code === 'number' ? observation.exit_code : meta.exit_code;
    return (
      <>
        <Ansi text={text} />
        {typeof code === 'number' && code >= 0 && (
          <span class={`exit ${code === 0 ? 'ok' : 'error'}`}>exit code {code}</span>
        )}
        {observation.timeout === true && <span class="exit error">timed out</span>}
      </>
    );
  }
  const edit = [
    'FileEditorObservation',
    'PlanningFileEditorObservation',
    'EditObservation',
    'WriteFileObservation',
  ];
  if (edit.includes(kind)) {
    const diff = str(action.command) === 'view' ? null : editDiff(action, observation);
    return (
      diff ?? (
        <details>
          <summary>{observation.is_error ? 'error' : 'output'}</summary>
          <pre>{text}</pre>
        </details>
      )
    );
  }
  if (kind === 'ApplyPatchObservation') {
    const fuzz = typeof observation.fuzz === 'number' ? observation.fuzz : 0;
    if (observation.is_error)
      return (
        <>
          <pre class="error">{text}</pre>
          <PatchText patch={str(action.patch)} />
        </>
      );
    return (
      <>
        <PatchChanges commit={observation.commit} />
        {fuzz > 0 && <p class="muted">Some hunks matched only loosely (fuzz {fuzz}).</p>}
      </>
    );
  }
  if (kind === 'BrowserObservation')
    return (
      <>
        <Screenshot data={observation.screenshot_data} />
        <details>
          <summary>page text</summary>
          <pre>{text}</pre>
        </details>
      </>
    );
  if (kind === 'TaskTrackerObservation') return <Tasks list={observation.task_list} />;
  if (kind === 'TaskObservation')
    return (
      <div class={observation.is_error ? 'error' : ''}>
        <p class="muted">
          {str(observation.task_id)} · {str(observation.status)} ·{' '}
          <TaskLink taskId={str(observation.task_id)} />
        </p>
        <Markdown text={text} />
      </div>
    );
  if (kind === 'FinishObservation' || kind === 'ThinkObservation') return null;
  return <pre class={observation.is_error ? 'error' : ''}>{text}</pre>;
}

export function ToolCall(props: { event: Ev; result: Ev | null; pending: boolean }) {
  const { event, result } = props;
  const action = (event.action ?? {}) as Obj;
  const kind = str(action.kind);
  if (kind === 'FinishAction')
    return (
      <div class="message agent final">
        <Markdown text={str(action.message)} />
      </div>
    );
  if (kind === 'ThinkAction')
    return (
      <details class="thinking">
        <summary>thought</summary>
        <Markdown text={str(action.thought)} />
      </details>
    );
  const { label, detail } = headline(action, event);
  const risk = str(event.security_risk);
  return (
    <div class={`tool ${result ? '' : 'open'}`}>
      <div class="tool-head">
        <span class="badge">{label}</span> <code class="detail">{detail}</code>
        {risk && risk !== 'UNKNOWN' && <span class={`badge risk-${risk}`}>risk {risk.toLowerCase()}</span>}
      </div>
      {kind === 'TaskTrackerAction' && !result && <Tasks list={action.task_list} />}
      {(kind === 'FileEditorAction' || kind === 'EditAction') && !result && editDiff(action, null)}
      {kind === 'ApplyPatchAction' && !result && <PatchText patch={str(action.patch)} />}
      {kind === 'TaskAction' && !result && (
        <p class="muted">
          <TaskLink taskId={str(action.resume)} description={str(action.description)} />
        </p>
      )}
      {kind === 'TaskAction' && (
        <details>
          <summary>{action.resume ? `prompt (resuming ${str(action.resume)})` : 'prompt'}</summary>
          <Markdown text={str(action.prompt)} />
        </details>
      )}
      <Args event={event} />
      {result ? (
        <Result action={action} result={result} />
      ) : (
        <p class="muted">{props.pending ? 'Waiting for your approval' : 'Running…'}</p>
      )}
    </div>
  );
}
