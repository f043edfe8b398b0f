// The LLMs an agent calls and the spend they count: its own, its condenser's and its critic's, and,
// after OpenHands' switch_llm, the ones it switched away from. Their spend keeps counting toward the
// budget and shows in `stats` under their usage ids. Every LLM goes on from the figures of its usage
// id: the stored ones when the agent is built (a restart), the live ones when it takes over at a
// switch; stored usage ids that no LLM here has (switched from before a restart) are carried as
// they were stored.
import type { LLM } from '../llm/index.js';
import { SummarizingCondenser } from './condenser.js';
import type { Critic } from './critic.js';

/** What OpenHands' switch_llm changes: the agent's LLM, and the condenser or critic that follow it. */
export interface SwitchedLlms {
  llm: LLM;
  /** The condenser's new LLM, when its LLM is the agent's model (its own is left alone). */
  condenser?: LLM;
  /** The new critic, when it judged with the agent's model. */
  critic?: Critic;
}

export class AgentLlms {
  /** LLMs switched away from: a call of theirs under way when they were is still counted. */
  private retired: LLM[] = [];
  /** Stored `usage_to_metrics` entries of usage ids no LLM here has. */
  private readonly past: Map<string, unknown>;

  constructor(
    public llm: LLM,
    public condenser: SummarizingCondenser | null,
    public critic: Critic | null,
    storedUsage: Record<string, unknown> = {},
  ) {
    // Each LLM goes on from its usage id's stored figures (after a restart); the rest are carried.
    const live = new Set<string>();
    for (const llm of this.all()) {
      llm.metrics.restore(storedUsage[llm.metrics.usageId]);
      live.add(llm.metrics.usageId);
    }
    this.past = new Map(Object.entries(storedUsage).filter(([id]) => !live.has(id)));
  }

  /** Every LLM the agent uses or used since it was built. */
  all(): LLM[] {
    const condenser = this.condenser?.config.llm;
    const own = condenser && condenser !== this.llm ? [condenser] : [];
    return [this.llm, ...own, ...(this.critic?.llms ?? []), ...this.retired];
  }

  /** USD spent so far under every usage id. */
  spent(): number {
    let sum = this.all().reduce((total, llm) => total + llm.metrics.accumulatedCost, 0);
    for (const entry of this.past.values()) {
      const cost = (entry as { accumulated_cost?: unknown } | null)?.accumulated_cost;
      if (typeof cost === 'number') sum += cost;
    }
    return sum;
  }

  /**
   * Figures spent on the agent's behalf by no LLM of its own (a sub-agent task's, `task:<id>`): shown
   * in `stats` under that usage id and counted toward the budget. Replaces what was recorded under it.
   */
  record(usageId: string, entry: unknown): void {
    this.past.set(usageId, entry);
  }

  /** OpenHands' `stats`: one entry per usage id. */
  stats(): Record<string, unknown> {
    const usage: Record<string, unknown> = Object.fromEntries(this.past);
    for (const llm of this.all())
      Object.assign(usage, (llm.metrics.snapshot() as { usage_to_metrics: object }).usage_to_metrics);
    return { usage_to_metrics: usage };
  }

  /** The next calls go to `next`'s LLMs; each takes over the figures of its usage id. */
  switch(next: SwitchedLlms): void {
    const incoming = [next.llm, ...(next.condenser ? [next.condenser] : []), ...(next.critic?.llms ?? [])];
    const outgoing = new Set([this.llm, ...this.retired]);
    if (next.condenser && this.condenser) outgoing.add(this.condenser.config.llm);
    if (next.critic && this.critic) for (const llm of this.critic.llms) outgoing.add(llm);
    for (const llm of incoming) {
      const id = llm.metrics.usageId;
      const before = [...outgoing].find((l) => l.metrics.usageId === id);
      if (before) {
        before.metrics.handOver(llm.metrics);
        outgoing.delete(before);
      } else if (this.past.has(id)) {
        llm.metrics.restore(this.past.get(id));
        this.past.delete(id);
      }
    }
    this.retired = [...outgoing];
    this.llm = next.llm;
    if (next.condenser && this.condenser)
      this.condenser = new SummarizingCondenser({ ...this.condenser.config, llm: next.condenser });
    if (next.critic) this.critic = next.critic;
  }
}
