// OpenHands' AgentContext flags, resolved when a start is taken in, as OpenHands resolves them when it
// reads the request: `load_user_skills` (the user's skill folders and enabled installed skills) and
// `load_public_skills` (the extensions repository's, those `marketplace_path` lists) fill in the
// names the explicit `skills` do not have — the explicit ones win, the user's over the public ones.
// The result is stored in the conversation's agent_context.skills, so a restart or a fork runs on the
// skills it started with. (`disabled_skills` then leaves out any of those names: AgentContext.load.)
// A registered marketplace's auto_load is refused here (a 422) rather than left undone.
import type { Skill } from '../agent/index.js';
import { InvalidConversationRequestError } from './errors.js';
import type { ConversationState } from './state.js';

export interface ContextSkillSources {
  /** The user's skills. */
  user: () => Skill[];
  /** The public skills a marketplace file lists (null: every one; undefined: OpenHands' default file); none when they cannot be had. */
  public: (marketplacePath: string | null | undefined) => Promise<Skill[]>;
}

/** A skill as agent_context.skills holds it. */
export const skillSpec = ({ name, content, keywords }: Skill) => ({
  name,
  content,
  trigger: keywords ? { type: 'keyword', keywords } : null,
});

export async function withContextSkills(
  state: ConversationState,
  sources: ContextSkillSources,
): Promise<ConversationState> {
  const context = state.agent.agent_context;
  // OpenHands loads a registered marketplace's plugins at the start with auto_load; agentd takes a
  // start's plugins by source (`plugins`), so one asked for here would otherwise be missing unsaid.
  context?.registered_marketplaces?.forEach((registration, i) => {
    const auto = registration.auto_load;
    if (auto === true || (Array.isArray(auto) && auto.length > 0))
      throw new InvalidConversationRequestError(
        ['body', 'agent', 'agent_context', 'registered_marketplaces', i, 'auto_load'],
        "agentd loads no marketplace's plugins at the start: name them in `plugins` (GET /api/plugins/marketplace gives their sources), or load one later (POST …/load_plugin)",
      );
  });
  if (!context?.load_user_skills && !context?.load_public_skills) return state;
  const loaded = [
    ...(context.load_user_skills ? sources.user() : []),
    ...(context.load_public_skills ? await sources.public(context.marketplace_path) : []),
  ];
  const skills = [...(context.skills ?? [])];
  const named = new Set(skills.map((skill) => skill.name));
  for (const skill of loaded) {
    if (named.has(skill.name)) continue;
    named.add(skill.name);
    skills.push(skillSpec(skill));
  }
  return { ...state, agent: { ...state.agent, agent_context: { ...context, skills } } };
}
