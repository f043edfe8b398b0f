// Confirmation mode: the actions waiting for the user, each with its security risk; approve runs
// them, reject refuses them (with an optional reason the agent reads).
import { useState } from 'preact/hooks';
import type { Ev } from '../types.js';

function describe(event: Ev): string {
  const action = (event.action ?? {}) as Record<string, unknown>;
  if (typeof action.command === 'string' && action.kind === 'TerminalAction') return `$ ${action.command}`;
  if (typeof event.summary === 'string' && event.summary) return event.summary;
  const args = (event.tool_call as { arguments?: string } | undefined)?.arguments ?? '';
  return args.length > 200 ? `${args.slice(0, 200)}…` : args;
}

export function Approval(props: {
  actions: Ev[];
  onAnswer: (accept: boolean, reason?: string) => Promise<void>;
}) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const answer = async (accept: boolean) => {
    setBusy(true);
    await props.onAnswer(accept, accept ? undefined : reason.trim() || undefined);
    setReason('');
    setBusy(false);
  };
  return (
    <section class="approval" aria-label="Actions waiting for approval">
      <h2>The agent wants to run:</h2>
      <ul>
        {props.actions.map((a) => {
          const risk = typeof a.security_risk === 'string' ? a.security_risk : 'UNKNOWN';
          return (
            <li key={a.id}>
              <span class="badge">{String(a.tool_name)}</span> <code>{describe(a)}</code>{' '}
              <span class={`badge risk-${risk}`}>risk: {risk.toLowerCase()}</span>
            </li>
          );
        })}
      </ul>
      <div class="row wrap">
        <button type="button" class="primary" disabled={busy} onClick={() => void answer(true)}>
          Approve
        </button>
        <input
          aria-label="Reason for rejecting"
          placeholder="Reason (optional)"
          value={reason}
          onInput={(e) => setReason(e.currentTarget.value)}
        />
        <button type="button" class="danger" disabled={busy} onClick={() => void answer(false)}>
          Reject
        </button>
      </div>
    </section>
  );
}
