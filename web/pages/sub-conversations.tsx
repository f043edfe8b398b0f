// A conversation's sub-conversations (OpenHands' parent link), each with its title and status, and
// the sub-agent tasks among them (tagged `taskid`), so a task's card can link to the conversation it
// runs in. While a task runs, the list is read again every few seconds: its
// conversation is made, and its status changes, while the parent's own status stays `running`.
import { createContext } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import type { ConversationInfo } from '../types.js';
import { Link, StatusBadge } from '../ui.js';

/** How often a running task's list is read again. */
const TASK_REFRESH_MS = 1500;

/** The sub-agent tasks' conversations, for the tool cards' links. */
export const TaskConversations = createContext<readonly ConversationInfo[]>([]);

/** The infos of `ids`, read again every TASK_REFRESH_MS while `live`. */
export function useSubConversations(ids: readonly string[], live: boolean): ConversationInfo[] {
  const [children, setChildren] = useState<ConversationInfo[]>([]);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    if (!live) return;
    const timer = setInterval(() => setTick((t) => t + 1), TASK_REFRESH_MS);
    return () => clearInterval(timer);
  }, [live]);
  const key = ids.join(',');
  // `tick` asks for a fresh read.
  useEffect(() => {
    if (ids.length === 0) return setChildren([]);
    const query = ids.map((c) => `ids=${c}`).join('&');
    api<(ConversationInfo | null)[]>(`/api/conversations?${query}`)
      .then((infos) => setChildren(infos.filter((c): c is ConversationInfo => c !== null)))
      .catch(() => setChildren([]));
  }, [key, tick]);
  return children;
}

/**
 * The conversation a task runs in: by its task id once known (its answer, or a `resume`), else — a new
 * task still running — the newest task conversation titled with its description.
 */
export function taskConversation(
  tasks: readonly ConversationInfo[],
  taskId: string,
  description: string,
): ConversationInfo | undefined {
  if (taskId) return tasks.find((c) => c.tags?.taskid === taskId);
  return description ? tasks.findLast((c) => c.tags?.taskid && c.title === description) : undefined;
}

export function SubConversations(props: { children: readonly ConversationInfo[] }) {
  if (props.children.length === 0) return null;
  return (
    <nav class="subconversations" aria-label="Sub-conversations">
      Sub-conversations:
      <ul>
        {props.children.map((c) => (
          <li key={c.id}>
            <Link href={`/ui/conversations/${c.id}`}>{c.title || c.id.slice(0, 8)}</Link>{' '}
            {c.tags?.subagent && <span class="badge">sub-agent {c.tags.subagent}</span>}{' '}
            <StatusBadge status={c.execution_status} />
          </li>
        ))}
      </ul>
    </nav>
  );
}
