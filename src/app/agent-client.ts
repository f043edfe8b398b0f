// The control plane's calls to a sandbox's agent server: the same REST API clients use, with the
// sandbox's session key.
import type { ConversationInfo, StartConversationRequest } from '../conversation/schemas.js';

export class AgentServerError extends Error {
  override name = 'AgentServerError';
}

export class AgentServerClient {
  constructor(
    private readonly baseUrl: string,
    private readonly sessionKey: string,
  ) {}

  private async call<T>(method: string, path: string, body?: unknown, timeoutMs = 120_000): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          'X-Session-API-Key': this.sessionKey,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new AgentServerError(
        `The sandbox's agent server did not answer ${method} ${path}: ${(error as Error).message}`,
      );
    }
    const text = await response.text();
    if (!response.ok) {
      let detail: unknown = text;
      try {
        detail = (JSON.parse(text) as { detail?: unknown }).detail ?? text;
      } catch {
        // not JSON: keep the text
      }
      throw new AgentServerError(
        `The sandbox's agent server answered ${response.status} to ${method} ${path}: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`,
      );
    }
    return (text ? JSON.parse(text) : null) as T;
  }

  startConversation(request: StartConversationRequest): Promise<ConversationInfo> {
    return this.call('POST', '/api/conversations', request);
  }

  deleteConversation(id: string): Promise<unknown> {
    return this.call('DELETE', `/api/conversations/${id}`, undefined, 30_000);
  }

  /** OpenHands' legacy PATCH forwards the title the same way (best effort, 30 s). */
  renameConversation(id: string, title: string): Promise<unknown> {
    return this.call('PATCH', `/api/conversations/${id}`, { title }, 30_000);
  }

  storeSettings(settings: Record<string, unknown>): Promise<unknown> {
    return this.call('POST', '/api/settings', settings, 30_000);
  }
}
