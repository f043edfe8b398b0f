// Wire types the agent itself defines: execution statuses and confirmation policies.
import { Type } from 'typebox';
import { Nullable } from '../events/index.js';

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

/** A request's `project_dir`: an absolute path (what the server reads is judged by the server's rights). */
export const ProjectDir = (what: string) =>
  Type.Optional(
    Type.Union([Type.String({ pattern: '^/', maxLength: 4096 }), Type.Null()], {
      description: `Absolute path of the workspace whose ${what} to read`,
    }),
  );

/** OpenHands' SkillsRequest (POST /api/skills); members agentd has no source for (public, org, marketplaces) are accepted and ignored. */
export const SkillsRequest = Type.Object(
  {
    load_public: Type.Optional(Type.Boolean({ default: true })),
    load_user: Type.Optional(Type.Boolean({ default: true })),
    load_project: Type.Optional(Type.Boolean({ default: true })),
    load_org: Type.Optional(Type.Boolean({ default: true })),
    marketplace_path: Type.Optional(Type.Union([Type.String({ maxLength: 4096 }), Type.Null()])),
    registered_marketplaces: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 100 })),
    project_dir: ProjectDir('skills'),
    org_configs: Type.Optional(Type.Union([Type.Array(Type.Unknown(), { maxItems: 100 }), Type.Null()])),
    org_config: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
    sandbox_config: Type.Optional(
      Type.Union([
        Type.Object(
          {
            exposed_urls: Type.Optional(
              Type.Array(
                Type.Object({
                  name: Type.String({ maxLength: 256 }),
                  url: Type.String({ maxLength: 4096 }),
                  port: Type.Integer({ minimum: 0, maximum: 65535 }),
                }),
                { maxItems: 100 },
              ),
            ),
          },
          {
            ...open,
            description:
              'Exposed URLs named WORKER_* become the always-on `work_hosts` skill (sources.sandbox)',
          },
        ),
        Type.Null(),
      ]),
    ),
  },
  { ...open, $id: 'SkillsRequest' },
);

export const SkillInfo = Type.Object(
  {
    name: Type.String(),
    type: Type.Union([Type.Literal('repo'), Type.Literal('knowledge'), Type.Literal('agentskills')]),
    content: Type.String(),
    triggers: Type.Array(Type.String()),
    source: Type.Union([Type.String(), Type.Null()]),
    description: Type.Union([Type.String(), Type.Null()]),
    is_agentskills_format: Type.Boolean(),
    disable_model_invocation: Type.Boolean(),
  },
  { $id: 'SkillInfo' },
);

export const SkillsResponse = Type.Object(
  {
    skills: Type.Array(Type.Ref('SkillInfo')),
    sources: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
      description:
        'How many skills each source gave (sandbox, registered_marketplaces, sdk_base, org, project)',
    }),
  },
  { $id: 'SkillsResponse' },
);

// Installed skills (skill-install.ts), OpenHands' wire shapes.

export const InstallSkillRequest = Type.Object(
  {
    source: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'github:owner/repo, a git URL, or a folder on this server (absolute, ~ or ./)',
    }),
    ref: Type.Optional(
      Type.Union([Type.String({ maxLength: 200 }), Type.Null()], { description: 'A branch, tag or commit' }),
    ),
    repo_path: Type.Optional(
      Type.Union([Type.String({ maxLength: 1024 }), Type.Null()], {
        description: 'The folder of the skill in the repository',
      }),
    ),
    force: Type.Optional(
      Type.Boolean({ default: false, description: 'Replace an installation of the same name' }),
    ),
  },
  { additionalProperties: false, title: 'InstallSkillRequest' },
);

export const InstalledSkillResponse = Type.Object(
  {
    name: Type.String(),
    version: Type.String(),
    description: Type.String(),
    enabled: Type.Boolean(),
    source: Type.String(),
    resolved_ref: Type.Union([Type.String(), Type.Null()]),
    repo_path: Type.Union([Type.String(), Type.Null()]),
    installed_at: Type.String(),
    install_path: Type.String(),
  },
  { title: 'InstalledSkillResponse' },
);

const PluginSkills = Type.Array(
  Type.Object({ name: Type.String(), description: Type.Union([Type.String(), Type.Null()]) }),
);
/** A plugin's sub-agents (`agents/*.md`; agentd's, not in OpenHands' listing). */
const PluginAgents = Type.Array(Type.Object({ name: Type.String(), description: Type.String() }), {
  description: 'Its sub-agents (agents/*.md), those that parse',
});

/** OpenHands' InstalledPluginResponse: an installation, and what the plugin brings (null when it cannot be read). */
export const InstalledPluginResponse = Type.Object(
  {
    ...InstalledSkillResponse.properties,
    skills: Type.Union([PluginSkills, Type.Null()], { description: 'Its skills, its commands among them' }),
    agents: Nullable(PluginAgents),
    files: Type.Union([Type.Array(Type.String()), Type.Null()], {
      description: 'Its files, relative to install_path (2,000 at most)',
    }),
  },
  { title: 'InstalledPluginResponse' },
);

/** OpenHands' PluginsRequest (POST /api/plugins). */
export const PluginsRequest = Type.Object(
  {
    load_user: Type.Optional(
      Type.Boolean({ default: true, description: "The user's and the enabled installed plugins" }),
    ),
    load_project: Type.Optional(
      Type.Boolean({ description: "Accepted; agentd loads no workspace's plugins, so it adds none" }),
    ),
    project_dir: Type.Optional(Type.Union([Type.String({ maxLength: 4096 }), Type.Null()])),
  },
  { title: 'PluginsRequest' },
);

/** OpenHands' PluginsResponse: the plugins every conversation gets. */
export const PluginsResponse = Type.Object(
  {
    plugins: Type.Array(
      Type.Object({
        name: Type.String(),
        version: Type.String(),
        description: Type.String(),
        path: Type.String(),
        skills: PluginSkills,
        agents: PluginAgents,
        files: Type.Array(Type.String()),
      }),
    ),
  },
  { title: 'PluginsResponse' },
);

/** OpenHands' MarketplaceCatalogResponse of GET /api/skills/marketplace. */
export const MarketplaceSkillsResponse = Type.Object(
  {
    skills: Type.Array(
      Type.Object({
        name: Type.String(),
        description: Nullable(Type.String()),
        source: Type.String({ description: 'What POST /api/skills/install takes as its `source`' }),
        installed: Type.Boolean(),
      }),
    ),
  },
  { title: 'MarketplaceSkillsResponse' },
);

/** OpenHands' MarketplaceCatalogResponse of GET /api/plugins/marketplace. */
export const MarketplacePluginsResponse = Type.Object(
  {
    plugins: Type.Array(
      Type.Object({
        name: Type.String(),
        description: Nullable(Type.String()),
        source: Type.String({
          description:
            "With ref and repo_path: a start's `plugins` entry, or what POST /api/plugins/install takes",
        }),
        ref: Nullable(Type.String()),
        repo_path: Nullable(Type.String()),
        installed: Type.Boolean(),
        path: Nullable(
          Type.String({ description: 'Its folder, when it is one of the marketplace repository' }),
        ),
        skills: Nullable(PluginSkills),
        agents: Nullable(PluginAgents),
        files: Nullable(Type.Array(Type.String())),
      }),
    ),
  },
  { title: 'MarketplacePluginsResponse' },
);

/** OpenHands' SyncResponse of POST /api/skills/sync. */
export const SyncResponse = Type.Object(
  { status: Type.Union([Type.Literal('success'), Type.Literal('error')]), message: Type.String() },
  { title: 'SyncResponse' },
);

/** OpenHands' extension (skill, plugin) names: lowercase letters and digits in hyphen-separated words. */
export const EXTENSION_NAME_PATTERN = '^[a-z0-9]+(-[a-z0-9]+)*$';
