// Domain errors of the conversation layer; the server maps them to HTTP statuses.

export class ConversationNotFoundError extends Error {
  override name = 'ConversationNotFoundError';
  constructor(readonly conversationId: string) {
    super(`Conversation not found: ${conversationId}`);
  }
}

/** For `.catch`: null for a conversation that is not the caller's (or none), every other error thrown on. */
export function nullIfNotFound(error: unknown): null {
  if (error instanceof ConversationNotFoundError) return null;
  throw error;
}

export class ConversationRunningError extends Error {
  override name = 'ConversationRunningError';
  constructor(readonly conversationId: string) {
    super('Conversation already running. Wait for completion or pause first.');
  }
}

/** A /goal loop is already under way in the conversation; answered as a 409. */
export class GoalRunningError extends Error {
  override name = 'GoalRunningError';
  constructor(readonly conversationId: string) {
    super('A goal loop is already running in this conversation: stop it first (POST .../goal/stop)');
  }
}

/** /goal/resume in a conversation with no goal to resume (none started, or it completed or capped); a 400. */
export class NoResumableGoalError extends Error {
  override name = 'NoResumableGoalError';
  constructor(readonly conversationId: string) {
    super('No goal to resume: none was started here, or the last one completed or reached its cap');
  }
}

/** A request that is well-formed but cannot be carried out as asked; answered as a 422. */
export class InvalidConversationRequestError extends Error {
  override name = 'InvalidConversationRequestError';
  constructor(
    readonly loc: (string | number)[],
    message: string,
  ) {
    super(message);
  }
}

/** The conversation runs inside a sandbox; this server only mirrors it (answered as a 409). */
export class ConversationInSandboxError extends Error {
  override name = 'ConversationInSandboxError';
  constructor(
    readonly conversationId: string,
    readonly sandboxId: string,
  ) {
    super(
      `Conversation ${conversationId} runs in sandbox ${sandboxId}: send this request to its conversation_url (GET /api/v1/app-conversations?ids=…)`,
    );
  }
}

/** POST /condense on a conversation whose agent has no condenser (OpenHands raises a ValueError). */
export class CondenserUnavailableError extends Error {
  override name = 'CondenserUnavailableError';
  constructor(readonly conversationId: string) {
    super(
      'Cannot condense conversation: it has no condenser (enable_default_condenser was off when it started, or agent.condenser was null)',
    );
  }
}

/** A fork asked for a conversation id that is taken (OpenHands answers 409). */
export class ConversationIdInUseError extends Error {
  override name = 'ConversationIdInUseError';
  constructor(readonly conversationId: string) {
    super(`Conversation with id ${conversationId} already exists`);
  }
}

/** A fork's `from_event_id` or a navigation's `event_id` names no event of the conversation (404). */
export class UnknownEventError extends Error {
  override name = 'UnknownEventError';
  constructor(
    readonly field: string,
    readonly eventId: string,
  ) {
    super(`Unknown ${field}: ${eventId}`);
  }
}
