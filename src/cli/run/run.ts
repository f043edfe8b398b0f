// `agentd run "task"`: one conversation, to its end, shown as it happens. It starts the conversation
// (or takes up one with --resume), follows its events over the WebSocket from the first, and only
// then sends the task, so nothing is missed. Pending actions are asked on the terminal; Ctrl-C
// interrupts the run (the conversation is paused, resumable) and exits 130.
import { resolve } from 'node:path';
import { DEFAULT_TOOLS } from '../../conversation/agent-schemas.js';
import { ConfigError } from '../config-error.js';
import { Answers } from './answers.js';
import { ApiError, type Event, type Frame } from './api.js';
import { connect, type Target, type TargetOptions } from './connect.js';
import { describe, QUIET_TOOLS } from './format.js';
import { Screen } from './screen.js';

export interface RunOptions extends TargetOptions {
  dir?: string;
  model?: string;
  /** A saved LLM profile: a new conversation runs on it (llm_profile), a resumed one switches to it. */
  profile?: string;
  /** A saved agent profile, by name: a new conversation runs it (agent_profile_id). */
  agent?: string;
  confirm?: boolean;
  resume?: string;
  /** The task is an objective the /goal loop audits after each run (OpenHands' /goal). */
  goal?: boolean;
  /** With `goal`: audit rounds before giving up. */
  audits?: number;
}

export const EXIT = { finished: 0, error: 1, usage: 2, interrupted: 130 } as const;

type Env = Record<string, string | undefined>;

/**
 * Who runs a new conversation. With --profile: that saved profile (`llm_profile`; its key stays on the
 * server). With a key or base URL in LLM_*: an agent of its own. With only a model: the settings' LLM
 * (its write-only key stays on the server) with that model (`llm_model`). Else the settings' LLM as it is.
 */
function agentOf(options: RunOptions, env: Env): Record<string, unknown> {
  if (options.profile) return { llm_profile: options.profile };
  const model = options.model ?? env.LLM_MODEL;
  if (!model) return {};
  if (!env.LLM_API_KEY && !env.LLM_BASE_URL) return { llm_model: model };
  return {
    agent: {
      kind: 'Agent',
      llm: {
        model,
        api_key: env.LLM_API_KEY || null,
        base_url: env.LLM_BASE_URL || null,
        usage_id: 'agent',
      },
      tools: DEFAULT_TOOLS.map((name) => ({ name })),
    },
  };
}

export async function run(task: string | undefined, options: RunOptions, env: Env = process.env) {
  if (!task && !options.resume)
    throw new ConfigError('agentd run needs a task, e.g. agentd run "add a README" (or --resume ID)');
  if (options.resume && (options.dir !== undefined || options.model !== undefined))
    throw new ConfigError('--dir and --model go with a new conversation, not with --resume');
  if (options.profile !== undefined && options.model !== undefined)
    throw new ConfigError('--model or --profile, not both');
  if (options.agent !== undefined && (options.profile !== undefined || options.model !== undefined))
    throw new ConfigError('--agent says what the agent runs on: not with --model or --profile');
  if (options.agent !== undefined && options.resume)
    throw new ConfigError('--agent chooses the agent of a new conversation, not of a resumed one');
  if (options.audits !== undefined && (!options.goal || !(options.audits >= 1 && options.audits <= 1000)))
    throw new ConfigError('--audits takes a number from 1 to 1000, with --goal');
  const screen = new Screen();
  let session: RunSession | null = null;
  // Before the conversation exists there is nothing to pause: Ctrl-C just ends the command.
  process.on('SIGINT', () => (session ? session.interrupt() : process.exit(EXIT.interrupted)));
  const target = await connect(options, env);
  session = new RunSession(target, screen, options, env);
  let code: number;
  try {
    code = await session.run(task);
  } catch (error) {
    screen.end();
    if (!(error instanceof ApiError)) throw error;
    process.stderr.write(`agentd: ${error.message}\n`);
    code = error.status === 422 ? EXIT.usage : EXIT.error;
  }
  await target.close();
  process.exit(code);
}

class RunSession {
  private id: string | null = null;
  private status = 'idle';
  /** Stored events of the replay still to come before the task is sent (seen, not shown). */
  private quiet = 0;
  private triggered = false;
  /** Actions without an observation yet: what a confirmation answers. */
  private readonly pending = new Map<string, Event>();
  private lastAgentText = '';
  /** A rejection leaves the conversation idle; the run goes on so the agent hears of it. */
  private rejected = false;
  private asking = false;
  private interrupting = false;
  private answers: Answers | null = null;
  private ended = false;
  /** The last status acted on. */
  private handled: string | null = null;
  private end: (code: number) => void = () => {};
  private fail: (error: unknown) => void = () => {};

  constructor(
    private readonly target: Target,
    private readonly screen: Screen,
    private readonly options: RunOptions,
    private readonly env: Env,
  ) {}

  private get api() {
    return this.target.api;
  }

  async run(task: string | undefined): Promise<number> {
    const id = this.options.resume ? await this.resume() : await this.create();
    this.id = id;
    this.quiet = await this.api.call<number>('GET', `/api/conversations/${id}/events/count`);
    this.screen.write([{ tone: 'note', text: `conversation ${id}` }]);
    const done = new Promise<number>((resolve, reject) => {
      this.end = (code) => {
        if (this.ended) return;
        this.ended = true;
        this.screen.end();
        resolve(code);
      };
      this.fail = reject;
    });
    const follower = this.api.follow(
      id,
      0,
      (frame) => this.onFrame(frame, task),
      (reason) => this.screen.write([{ tone: 'note', text: `… reconnecting (${reason})` }]),
    );
    follower.done.catch((error) => this.fail(error));
    try {
      return await done;
    } finally {
      follower.stop();
    }
  }

  private async create(): Promise<string> {
    const dir = resolve(this.options.dir ?? process.cwd());
    const who = this.options.agent
      ? { agent_profile_id: await this.agentProfileId(this.options.agent) }
      : agentOf(this.options, this.env);
    try {
      const info = await this.api.call<{ id: string }>('POST', '/api/conversations', {
        ...who,
        workspace: { working_dir: dir },
        confirmation_policy: { kind: this.options.confirm ? 'AlwaysConfirm' : 'NeverConfirm' },
      });
      return info.id;
    } catch (error) {
      // Only a start on the settings can fail for want of an LLM there.
      const onSettings = !('agent' in who || 'llm_profile' in who || 'agent_profile_id' in who);
      if (error instanceof ApiError && error.status === 422 && onSettings)
        throw new ConfigError(
          `${error.message}. Set LLM_MODEL (and LLM_API_KEY, LLM_BASE_URL), or save an LLM in the settings`,
        );
      throw error;
    }
  }

  /** The id of the agent profile of that name (a ConfigError naming the saved ones when none is). */
  private async agentProfileId(name: string): Promise<string> {
    const { profiles } = await this.api.call<{ profiles: { id: string; name: string }[] }>(
      'GET',
      '/api/agent-profiles',
    );
    const found = profiles.find((p) => p.name === name);
    if (found) return found.id;
    const saved = profiles.map((p) => p.name).join(', ') || 'none';
    throw new ConfigError(`No agent profile '${name}' (saved: ${saved}; see /api/agent-profiles)`);
  }

  private async resume(): Promise<string> {
    const id = this.options.resume!;
    if (!/^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(id))
      throw new ConfigError(`--resume takes a conversation id (see agentd conversations), not '${id}'`);
    const info = await this.api.call<{ id: string; confirmation_policy: { kind: string } }>(
      'GET',
      `/api/conversations/${encodeURIComponent(id)}`,
    );
    if (this.options.confirm && info.confirmation_policy.kind === 'NeverConfirm')
      await this.api.call('POST', `/api/conversations/${info.id}/confirmation_policy`, {
        policy: { kind: 'AlwaysConfirm' },
      });
    if (this.options.profile)
      await this.api.call('POST', `/api/conversations/${info.id}/switch_profile`, {
        profile_name: this.options.profile,
      });
    return info.id;
  }

  private onFrame({ seq, event }: Frame, task: string | undefined): void {
    if (event.kind === 'ConversationStateUpdateEvent' && event.key === 'full_state') {
      this.status = String((event.value as { execution_status?: string }).execution_status);
      if (this.triggered) this.onStatus();
      else if (this.quiet === 0) this.trigger(task);
      return;
    }
    this.track(event);
    if (!this.triggered) {
      if (seq !== null && --this.quiet === 0) this.trigger(task);
      return;
    }
    const lines = describe(event);
    this.screen.write(lines);
    // Shown already: the final response is printed at the end only when it is something else.
    const said = lines.filter((l) => l.tone === 'message');
    if (said.length > 0) this.lastAgentText = said.map((l) => l.text).join('\n');
    if (event.kind === 'ConversationStateUpdateEvent' && event.key === 'execution_status') this.onStatus();
    else if (event.kind === 'ConversationStateUpdateEvent' && event.key === 'goal')
      this.onGoal(event.value as { active: boolean; status: string; iteration: number });
    else if (this.status === 'running')
      this.screen.busy(
        event.kind === 'ActionEvent' && !QUIET_TOOLS.has(String(event.tool_name))
          ? `running ${event.tool_name}`
          : 'thinking',
      );
  }

  private track(event: Event): void {
    if (event.kind === 'ActionEvent') this.pending.set(event.id, event);
    else if (typeof event.action_id === 'string') this.pending.delete(event.action_id);
    if (event.kind === 'ConversationStateUpdateEvent' && event.key === 'execution_status')
      this.status = String(event.value);
  }

  /** Sends the task (or continues the conversation) once the stream has caught up. */
  private trigger(task: string | undefined): void {
    this.triggered = true;
    const id = this.id!;
    const path = `/api/conversations/${id}`;
    if (this.options.goal) {
      const objective = { objective: task, max_iterations: this.options.audits ?? 10 };
      void (task ? this.post(`${path}/goal`, objective) : this.post(`${path}/goal/resume`));
    } else if (task) {
      void this.post(`${path}/events`, { role: 'user', content: [{ type: 'text', text: task }], run: true });
    } else if (this.status === 'waiting_for_confirmation') {
      void this.ask(true);
    } else if (this.status !== 'running') {
      void this.post(`${path}/run`, undefined, [409]);
    }
    if (this.status === 'running' || task || this.options.goal) this.screen.busy('thinking');
  }

  private async post(path: string, body?: unknown, tolerated: number[] = []): Promise<void> {
    try {
      await this.api.call('POST', path, body);
    } catch (error) {
      if (error instanceof ApiError && tolerated.includes(error.status)) return;
      this.fail(error);
    }
  }

  private onStatus(): void {
    const status = this.status;
    // A status comes twice (its own event, then the snapshot after the run); act on each change once.
    if (this.ended || this.interrupting || status === this.handled) return;
    this.handled = status;
    if (status === 'running') this.screen.busy('thinking');
    // A goal goes on after a run ends (finished or stuck are audited); onGoal ends the command.
    else if (this.options.goal && (status === 'finished' || status === 'stuck' || status === 'idle')) return;
    else if (status === 'waiting_for_confirmation') {
      this.screen.busy(null);
      void this.ask();
    } else if (status === 'idle') {
      if (!this.rejected) return;
      this.rejected = false;
      void this.post(`/api/conversations/${this.id}/run`, undefined, [409]);
    } else if (status === 'finished') void this.finished();
    else if (status === 'paused') {
      this.screen.write([{ tone: 'error', text: 'paused by another client' }, ...this.resumeHint()]);
      this.end(EXIT.error);
    } else {
      // error, stuck
      this.screen.write([
        { tone: 'error', text: `✗ the conversation ended: ${status}` },
        ...this.resumeHint(),
      ]);
      this.end(EXIT.error);
    }
  }

  /** A goal that ended ends the command: complete as a finished run, else an error that says why. */
  private onGoal(goal: { active: boolean; status: string; iteration: number }): void {
    if (goal.active || this.ended || this.interrupting) return;
    if (goal.status === 'complete') return void this.finished();
    const why =
      goal.status === 'capped'
        ? `the goal is not done after ${goal.iteration} audits`
        : 'the goal was interrupted';
    this.screen.write([{ tone: 'error', text: `✗ ${why}` }, ...this.resumeHint()]);
    this.end(EXIT.error);
  }

  private resumeHint() {
    const goal = this.options.goal ? ' --goal' : '';
    return [
      { tone: 'note' as const, text: `resume with: agentd run --resume ${this.id}${goal}${this.target.how}` },
    ];
  }

  private async finished(): Promise<void> {
    try {
      const { response } = await this.api.call<{ response: string }>(
        'GET',
        `/api/conversations/${this.id}/agent_final_response`,
      );
      const text = response.trim();
      if (text && text !== this.lastAgentText) this.screen.write([{ tone: 'message', text }]);
      this.end(EXIT.finished);
    } catch (error) {
      this.fail(error);
    }
  }

  /**
   * Asks about the pending actions (y/n) and answers through the confirmation API. They were just
   * shown, unless the conversation was already waiting when this command took it up (`repeat`).
   */
  private async ask(repeat = false): Promise<void> {
    if (this.asking) return;
    this.asking = true;
    const actions = [...this.pending.values()];
    if (repeat) this.screen.write(actions.flatMap((a) => describe(a).filter((l) => l.tone === 'action')));
    this.answers ??= new Answers();
    let accept: boolean | null = null;
    while (accept === null) {
      const answer = await this.answers.ask(
        this.screen.paint(
          'action',
          `? Run ${actions.length === 1 ? 'this action' : `these ${actions.length} actions`}? [y/n] `,
        ),
      );
      if (answer === null) {
        // Nobody left to answer: the conversation keeps waiting, to be answered on --resume.
        this.screen.write([{ tone: 'error', text: 'no answer (stdin ended)' }, ...this.resumeHint()]);
        return this.end(EXIT.error);
      }
      if (/^y(es)?$/i.test(answer.trim())) accept = true;
      else if (/^no?$/i.test(answer.trim())) accept = false;
    }
    this.asking = false;
    if (this.ended || this.interrupting) return;
    if (!accept) this.rejected = true;
    await this.post(`/api/conversations/${this.id}/events/respond_to_confirmation`, {
      accept,
      ...(accept ? {} : { reason: 'Rejected on the terminal.' }),
    });
  }

  /** Ctrl-C: interrupt the run (the conversation is left paused) and say how to go on; twice: just exit. */
  interrupt(): void {
    if (this.interrupting || this.ended || this.id === null) {
      this.screen.end();
      process.exit(EXIT.interrupted);
    }
    this.interrupting = true;
    this.screen.busy('pausing');
    this.api.call('POST', `/api/conversations/${this.id}/interrupt`).then(
      () => {
        this.screen.write([{ tone: 'note', text: `paused conversation ${this.id}` }, ...this.resumeHint()]);
        this.end(EXIT.interrupted);
      },
      (error) => this.fail(error),
    );
  }
}
