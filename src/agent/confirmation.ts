// Which actions need the user's confirmation under a policy. A lone finish or think never does.
import type { ConfirmationPolicy } from './schemas.js';

const LEVELS = ['LOW', 'MEDIUM', 'HIGH'] as const;

export interface PendingAction {
  toolName: string;
  risk: 'UNKNOWN' | 'LOW' | 'MEDIUM' | 'HIGH';
}

export function needsConfirmation(policy: ConfirmationPolicy, actions: readonly PendingAction[]): boolean {
  if (actions.length === 0) return false;
  if (actions.length === 1 && (actions[0]!.toolName === 'finish' || actions[0]!.toolName === 'think'))
    return false;
  switch (policy.kind) {
    case 'NeverConfirm':
      return false;
    case 'AlwaysConfirm':
      return true;
    case 'ConfirmRisky': {
      const threshold = LEVELS.indexOf(policy.threshold ?? 'HIGH');
      return actions.some((a) =>
        a.risk === 'UNKNOWN' ? (policy.confirm_unknown ?? true) : LEVELS.indexOf(a.risk) >= threshold,
      );
    }
    default:
      return true;
  }
}
