// One table row per kind: a full example (every member set), a minimal one with the defaults it must
// gain, and values that break a bound (with the path the error must name).

export interface KindCase {
  kind: string;
  full: Record<string, unknown>;
  minimal: Record<string, unknown>;
  /** Members the minimal example gains from defaults. */
  defaults: Record<string, unknown>;
  /** [path, bad value]: each must be rejected with an error at exactly that path. */
  bounds?: [(string | number)[], unknown][];
}

const envelope = (source: string) => ({
  id: '0b6f4c1e-7a3b-4d4e-9c1a-2f5e6d7c8b9a',
  timestamp: '2026-11-22T14:52:57.123456',
  source,
});
const minimalEnvelope = {
  id: '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
  timestamp: '2026-11-22T14:52:58.000001',
};
const text = (t: string) => ({ cache_prompt: false, type: 'text', text: t });
const toolCall = { id: 'call_1', name: 'terminal', arguments: '{"command":"ls"}', origin: 'completion' };
const critic = { score: 0.75, message: 'looks right', metadata: { event_ids: ['a'] } };

export const EVENT_CASES: KindCase[] = [
  {
    kind: 'Condensation',
    full: {
      ...envelope('environment'),
      forgotten_event_ids: ['a', 'b'],
      summary: 'earlier work',
      summary_offset: 2,
      llm_response_id: 'resp_1',
      kind: 'Condensation',
    },
    minimal: { ...minimalEnvelope, llm_response_id: 'resp_1', kind: 'Condensation' },
    defaults: { source: 'environment', forgotten_event_ids: [] },
    bounds: [[['summary_offset'], -1]],
  },
  {
    kind: 'CondensationRequest',
    full: { ...envelope('environment'), kind: 'CondensationRequest' },
    minimal: { ...minimalEnvelope, kind: 'CondensationRequest' },
    defaults: { source: 'environment' },
  },
  {
    kind: 'CondensationSummaryEvent',
    full: { ...envelope('environment'), summary: 'so far', kind: 'CondensationSummaryEvent' },
    minimal: { ...minimalEnvelope, summary: 'so far', kind: 'CondensationSummaryEvent' },
    defaults: { source: 'environment' },
  },
  {
    kind: 'ConversationErrorEvent',
    full: {
      ...envelope('environment'),
      code: 'LLMAuthenticationError',
      detail: 'bad key',
      kind: 'ConversationErrorEvent',
    },
    minimal: {
      ...minimalEnvelope,
      source: 'environment',
      code: 'X',
      detail: 'y',
      kind: 'ConversationErrorEvent',
    },
    defaults: {},
    bounds: [[['source'], 'nowhere']],
  },
  {
    kind: 'ConversationStateUpdateEvent',
    full: {
      ...envelope('environment'),
      key: 'execution_status',
      value: 'running',
      kind: 'ConversationStateUpdateEvent',
    },
    minimal: { ...minimalEnvelope, kind: 'ConversationStateUpdateEvent' },
    defaults: { source: 'environment' },
  },
  {
    kind: 'LLMCompletionLogEvent',
    full: {
      ...envelope('environment'),
      filename: 'a.json',
      log_data: '{}',
      model_name: 'gpt',
      usage_id: 'agent',
      kind: 'LLMCompletionLogEvent',
    },
    minimal: { ...minimalEnvelope, filename: 'a.json', log_data: '{}', kind: 'LLMCompletionLogEvent' },
    defaults: { source: 'environment', model_name: 'unknown', usage_id: 'default' },
  },
  {
    kind: 'ActionEvent',
    full: {
      ...envelope('agent'),
      thought: [text('let me look')],
      reasoning_content: 'thinking…',
      thinking_blocks: [
        { type: 'thinking', thinking: 'hmm', signature: 'sig' },
        { type: 'redacted_thinking', data: 'xyz' },
      ],
      responses_reasoning_item: {
        id: 'rs_1',
        summary: ['s'],
        content: null,
        encrypted_content: 'enc',
        status: 'completed',
      },
      action: { command: 'ls', is_input: false, timeout: null, reset: false, kind: 'TerminalAction' },
      tool_name: 'terminal',
      tool_call_id: 'call_1',
      tool_call: toolCall,
      llm_response_id: 'resp_1',
      security_risk: 'LOW',
      critic_result: critic,
      summary: 'list files',
      kind: 'ActionEvent',
    },
    minimal: {
      ...minimalEnvelope,
      thought: [{ text: 'hi' }],
      tool_name: 'terminal',
      tool_call_id: 'call_1',
      tool_call: toolCall,
      llm_response_id: 'resp_1',
      action: { command: 'ls', kind: 'TerminalAction' },
      kind: 'ActionEvent',
    },
    defaults: {
      source: 'agent',
      security_risk: 'UNKNOWN',
      thinking_blocks: [],
      thought: [text('hi')],
      action: { command: 'ls', is_input: false, reset: false, kind: 'TerminalAction' },
    },
    bounds: [
      [['critic_result', 'score'], 1.5],
      [['security_risk'], 'EXTREME'],
      [['action', 'timeout'], -1],
      [['tool_call', 'origin'], 'elsewhere'],
    ],
  },
  {
    kind: 'MessageEvent',
    full: {
      ...envelope('user'),
      llm_message: {
        role: 'user',
        content: [
          text('hello'),
          { cache_prompt: false, type: 'image', image_urls: ['data:image/png;base64,AAAA'] },
        ],
        tool_calls: null,
        tool_call_id: null,
        name: null,
        reasoning_content: null,
        thinking_blocks: [],
        responses_reasoning_item: null,
      },
      llm_response_id: null,
      activated_skills: ['git'],
      extended_content: [text('more context')],
      sender: 'tester',
      critic_result: critic,
      kind: 'MessageEvent',
    },
    minimal: {
      ...minimalEnvelope,
      source: 'user',
      llm_message: { role: 'user', content: [{ text: 'hi' }] },
      kind: 'MessageEvent',
    },
    defaults: {
      activated_skills: [],
      extended_content: [],
      llm_message: { role: 'user', content: [text('hi')], thinking_blocks: [] },
    },
    bounds: [
      [['llm_message', 'role'], 'narrator'],
      [['critic_result', 'score'], -0.1],
    ],
  },
  {
    kind: 'AgentErrorEvent',
    full: {
      ...envelope('agent'),
      tool_name: 'terminal',
      tool_call_id: 'call_1',
      error: 'boom',
      kind: 'AgentErrorEvent',
    },
    minimal: {
      ...minimalEnvelope,
      tool_name: 'terminal',
      tool_call_id: 'call_1',
      error: 'boom',
      kind: 'AgentErrorEvent',
    },
    defaults: { source: 'agent' },
  },
  {
    kind: 'ObservationEvent',
    full: {
      ...envelope('environment'),
      tool_name: 'terminal',
      tool_call_id: 'call_1',
      observation: {
        content: [text('out')],
        is_error: false,
        command: 'ls',
        exit_code: 0,
        timeout: false,
        metadata: {
          exit_code: 0,
          pid: 1,
          username: 'u',
          hostname: 'h',
          working_dir: '/w',
          py_interpreter_path: null,
          prefix: '',
          suffix: '',
        },
        full_output_save_dir: '/tmp/x',
        kind: 'TerminalObservation',
      },
      action_id: 'a1',
      kind: 'ObservationEvent',
    },
    minimal: {
      ...minimalEnvelope,
      tool_name: 'finish',
      tool_call_id: 'call_2',
      observation: { kind: 'FinishObservation' },
      action_id: 'a2',
      kind: 'ObservationEvent',
    },
    defaults: {
      source: 'environment',
      observation: { content: [], is_error: false, kind: 'FinishObservation' },
    },
    bounds: [[['observation', 'kind'], 'NoSuchObservation']],
  },
  {
    kind: 'UserRejectObservation',
    full: {
      ...envelope('environment'),
      tool_name: 'terminal',
      tool_call_id: 'call_1',
      rejection_reason: 'no',
      rejection_source: 'hook',
      action_id: 'a1',
      kind: 'UserRejectObservation',
    },
    minimal: {
      ...minimalEnvelope,
      tool_name: 'terminal',
      tool_call_id: 'call_1',
      action_id: 'a1',
      kind: 'UserRejectObservation',
    },
    defaults: {
      source: 'environment',
      rejection_reason: 'User rejected the action',
      rejection_source: 'user',
    },
    bounds: [[['rejection_source'], 'robot']],
  },
  {
    kind: 'SystemPromptEvent',
    full: {
      ...envelope('agent'),
      system_prompt: text('You are an agent.'),
      tools: [
        {
          description: 'Run commands',
          action_type: 'TerminalAction',
          observation_type: 'TerminalObservation',
          annotations: {
            title: 'terminal',
            readOnlyHint: false,
            destructiveHint: true,
            idempotentHint: false,
            openWorldHint: true,
          },
          meta: null,
          title: 'terminal',
          kind: 'TerminalTool',
        },
        {
          description: 'MCP tool',
          action_type: 'MCPToolAction',
          observation_type: 'MCPToolObservation',
          mcp_tool: { name: 'fetch', description: 'fetch a url', inputSchema: { type: 'object' } },
          title: 'fetch',
          kind: 'MCPToolDefinition',
        },
      ],
      dynamic_context: text('cwd: /w'),
      kind: 'SystemPromptEvent',
    },
    minimal: { ...minimalEnvelope, system_prompt: { text: 'hi' }, tools: [], kind: 'SystemPromptEvent' },
    defaults: { source: 'agent', system_prompt: text('hi') },
    bounds: [[['tools', 0, 'kind'], 'NotATool']],
  },
  {
    kind: 'TokenEvent',
    full: { ...envelope('agent'), prompt_token_ids: [1, 2], response_token_ids: [3], kind: 'TokenEvent' },
    minimal: {
      ...minimalEnvelope,
      source: 'agent',
      prompt_token_ids: [],
      response_token_ids: [],
      kind: 'TokenEvent',
    },
    defaults: {},
    bounds: [[['prompt_token_ids', 0], 1.5]],
  },
  {
    kind: 'PauseEvent',
    full: { ...envelope('user'), kind: 'PauseEvent' },
    minimal: { ...minimalEnvelope, kind: 'PauseEvent' },
    defaults: { source: 'user' },
  },
];

/** Every Action kind with a full example, its minimal form and defaults, and its bounds. */
export const ACTION_CASES: KindCase[] = [
  {
    kind: 'MCPToolAction',
    full: { data: { url: 'x', n: 1 }, kind: 'MCPToolAction' },
    minimal: { kind: 'MCPToolAction' },
    defaults: { data: {} },
  },
  {
    kind: 'FinishAction',
    full: { message: 'done', kind: 'FinishAction' },
    minimal: { message: 'done', kind: 'FinishAction' },
    defaults: {},
  },
  {
    kind: 'ThinkAction',
    full: { thought: 'hmm', kind: 'ThinkAction' },
    minimal: { thought: 'hmm', kind: 'ThinkAction' },
    defaults: {},
  },
  {
    kind: 'BrowserAction',
    full: { kind: 'BrowserAction' },
    minimal: { kind: 'BrowserAction' },
    defaults: {},
  },
  {
    kind: 'BrowserClickAction',
    full: { index: 3, new_tab: true, kind: 'BrowserClickAction' },
    minimal: { index: 0, kind: 'BrowserClickAction' },
    defaults: { new_tab: false },
    bounds: [[['index'], -1]],
  },
  {
    kind: 'BrowserCloseTabAction',
    full: { tab_id: 'ab12', kind: 'BrowserCloseTabAction' },
    minimal: { tab_id: 'ab12', kind: 'BrowserCloseTabAction' },
    defaults: {},
    bounds: [
      [['tab_id'], 'abc'],
      [['tab_id'], 'abcde'],
    ],
  },
  {
    kind: 'BrowserGetContentAction',
    full: { extract_links: true, start_from_char: 100, kind: 'BrowserGetContentAction' },
    minimal: { kind: 'BrowserGetContentAction' },
    defaults: { extract_links: false, start_from_char: 0 },
    bounds: [[['start_from_char'], -5]],
  },
  {
    kind: 'BrowserGetStateAction',
    full: { include_screenshot: true, kind: 'BrowserGetStateAction' },
    minimal: { kind: 'BrowserGetStateAction' },
    defaults: { include_screenshot: false },
  },
  {
    kind: 'BrowserGetStorageAction',
    full: { kind: 'BrowserGetStorageAction' },
    minimal: { kind: 'BrowserGetStorageAction' },
    defaults: {},
  },
  {
    kind: 'BrowserGoBackAction',
    full: { kind: 'BrowserGoBackAction' },
    minimal: { kind: 'BrowserGoBackAction' },
    defaults: {},
  },
  {
    kind: 'BrowserListTabsAction',
    full: { kind: 'BrowserListTabsAction' },
    minimal: { kind: 'BrowserListTabsAction' },
    defaults: {},
  },
  {
    kind: 'BrowserNavigateAction',
    full: { url: 'http://127.0.0.1/', new_tab: true, kind: 'BrowserNavigateAction' },
    minimal: { url: 'http://127.0.0.1/', kind: 'BrowserNavigateAction' },
    defaults: { new_tab: false },
  },
  {
    kind: 'BrowserScrollAction',
    full: { direction: 'up', kind: 'BrowserScrollAction' },
    minimal: { kind: 'BrowserScrollAction' },
    defaults: { direction: 'down' },
    bounds: [[['direction'], 'sideways']],
  },
  {
    kind: 'BrowserSetStorageAction',
    full: {
      storage_state: { cookies: [{ name: 'a', value: 'b' }], origins: [] },
      kind: 'BrowserSetStorageAction',
    },
    minimal: { storage_state: {}, kind: 'BrowserSetStorageAction' },
    defaults: {},
  },
  {
    kind: 'BrowserStartRecordingAction',
    full: { kind: 'BrowserStartRecordingAction' },
    minimal: { kind: 'BrowserStartRecordingAction' },
    defaults: {},
  },
  {
    kind: 'BrowserStopRecordingAction',
    full: { kind: 'BrowserStopRecordingAction' },
    minimal: { kind: 'BrowserStopRecordingAction' },
    defaults: {},
  },
  {
    kind: 'BrowserSwitchTabAction',
    full: { tab_id: 'zz99', kind: 'BrowserSwitchTabAction' },
    minimal: { tab_id: 'zz99', kind: 'BrowserSwitchTabAction' },
    defaults: {},
    bounds: [[['tab_id'], '']],
  },
  {
    kind: 'BrowserTypeAction',
    full: { index: 2, text: 'hello', kind: 'BrowserTypeAction' },
    minimal: { index: 2, text: 'hello', kind: 'BrowserTypeAction' },
    defaults: {},
    bounds: [[['index'], -2]],
  },
  {
    kind: 'FileEditorAction',
    full: {
      command: 'insert',
      path: '/a',
      file_text: null,
      old_str: null,
      new_str: 'x',
      insert_line: 3,
      view_range: [1, -1],
      kind: 'FileEditorAction',
    },
    minimal: { command: 'view', path: '/a', kind: 'FileEditorAction' },
    defaults: {},
    bounds: [
      [['insert_line'], -1],
      [['command'], 'delete'],
    ],
  },
  {
    kind: 'EditAction',
    full: { file_path: '/a', old_string: 'x', new_string: 'y', expected_replacements: 2, kind: 'EditAction' },
    minimal: { file_path: '/a', old_string: '', new_string: 'y', kind: 'EditAction' },
    defaults: { expected_replacements: 1 },
    bounds: [[['expected_replacements'], -1]],
  },
  {
    kind: 'ListDirectoryAction',
    full: { dir_path: '/w', recursive: true, kind: 'ListDirectoryAction' },
    minimal: { kind: 'ListDirectoryAction' },
    defaults: { dir_path: '.', recursive: false },
  },
  {
    kind: 'ReadFileAction',
    full: { file_path: '/a', offset: 10, limit: 20, kind: 'ReadFileAction' },
    minimal: { file_path: '/a', kind: 'ReadFileAction' },
    defaults: {},
    bounds: [
      [['offset'], -1],
      [['limit'], 0],
    ],
  },
  {
    kind: 'WriteFileAction',
    full: { file_path: '/a', content: 'x', kind: 'WriteFileAction' },
    minimal: { file_path: '/a', content: '', kind: 'WriteFileAction' },
    defaults: {},
  },
  {
    kind: 'GlobAction',
    full: { pattern: '**/*.ts', path: '/w', kind: 'GlobAction' },
    minimal: { pattern: '*', kind: 'GlobAction' },
    defaults: {},
  },
  {
    kind: 'GrepAction',
    full: { pattern: 'foo', path: '/w', include: '*.ts', kind: 'GrepAction' },
    minimal: { pattern: 'foo', kind: 'GrepAction' },
    defaults: {},
  },
  {
    kind: 'PlanningFileEditorAction',
    full: { command: 'create', path: '/w/PLAN.md', file_text: '# Plan', kind: 'PlanningFileEditorAction' },
    minimal: { command: 'view', path: '/w/PLAN.md', kind: 'PlanningFileEditorAction' },
    defaults: {},
  },
  {
    kind: 'ApplyPatchAction',
    full: { patch: '*** Begin Patch\n*** Delete File: a.txt\n*** End Patch', kind: 'ApplyPatchAction' },
    minimal: { patch: '*** Begin Patch\n*** Delete File: a.txt\n*** End Patch', kind: 'ApplyPatchAction' },
    defaults: {},
    bounds: [[['patch'], 1]],
  },
  {
    kind: 'TaskTrackerAction',
    full: {
      command: 'plan',
      task_list: [{ title: 't', notes: 'n', status: 'done' }],
      kind: 'TaskTrackerAction',
    },
    minimal: { task_list: [{ title: 't' }], kind: 'TaskTrackerAction' },
    defaults: { command: 'view', task_list: [{ title: 't', notes: '', status: 'todo' }] },
    bounds: [[['task_list', 0, 'status'], 'blocked']],
  },
  {
    kind: 'TaskAction',
    full: {
      description: 'Run the tests',
      prompt: 'Run npm test and report the failures',
      subagent_type: 'bash-runner',
      resume: 'task_00000001',
      max_turns: 3,
      kind: 'TaskAction',
    },
    minimal: { prompt: 'Explore the repository', kind: 'TaskAction' },
    defaults: { subagent_type: 'general-purpose' },
    bounds: [[['max_turns'], 0]],
  },
  {
    kind: 'TerminalAction',
    full: { command: 'ls', is_input: true, timeout: 5, reset: false, kind: 'TerminalAction' },
    minimal: { command: 'ls', kind: 'TerminalAction' },
    defaults: { is_input: false, reset: false },
    bounds: [[['timeout'], -1]],
  },
];
