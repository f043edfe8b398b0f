// Wire types the agent itself defines: execution statuses and confirmation policies.
import { Type } from 'typebox';

const open = { additionalProperties: true } as const;

export const EXECUTION_STATUSES = [
  'idle',
  'running',
  'paused',
  'waiting_for_confirmation',
  'finished',
  'error',
  'stuck',
  'deleting',
] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];
export const ExecutionStatus = Type.Unsafe<ExecutionStatus>({
  type: 'string',
  enum: [...EXECUTION_STATUSES],
  $id: 'ConversationExecutionStatus',
});

export const RiskThreshold = Type.Union([Type.Literal('LOW'), Type.Literal('MEDIUM'), Type.Literal('HIGH')]);

export const ConfirmationPolicy = Type.Union(
  [
    Type.Object({ kind: Type.Literal('NeverConfirm') }, open),
    Type.Object({ kind: Type.Literal('AlwaysConfirm') }, open),
    Type.Object(
      {
        kind: Type.Literal('ConfirmRisky'),
        threshold: Type.Optional(RiskThreshold),
        confirm_unknown: Type.Optional(Type.Boolean()),
      },
      open,
    ),
  ],
  { $id: 'ConfirmationPolicy' },
);
export type ConfirmationPolicy =
  | { kind: 'NeverConfirm' }
  | { kind: 'AlwaysConfirm' }
  | { kind: 'ConfirmRisky'; threshold?: 'LOW' | 'MEDIUM' | 'HIGH'; confirm_unknown?: boolean };

/**
 * OpenHands' security analyzers, by `kind`. agentd has the LLM analyzer: the risk the LLM itself
 * predicts for each call (its `security_risk` argument) is kept on the action and used by ConfirmRisky.
 */
export const SecurityAnalyzer = Type.Object(
  { kind: Type.Literal('LLMSecurityAnalyzer') },
  { additionalProperties: true, $id: 'SecurityAnalyzer' },
);
export type SecurityAnalyzer = { kind: 'LLMSecurityAnalyzer' } & Record<string, unknown>;
