// An MCP server's tool as an agentd tool: MCPToolDefinition in the system prompt, MCPToolAction
// ({data: arguments}) in, MCPToolObservation ("[Tool '<name>' executed.]" then the server's text and
// images) out. The LLM sees the server's own input schema.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Static } from 'typebox';
import { MCPToolAction } from '../../events/index.js';
import type { Tool, ToolDefinitionWire } from '../types.js';

type Action = Static<typeof MCPToolAction>;

export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

type McpContent = { type: string; text?: string; data?: string; mimeType?: string };

export function mcpTool(client: Client, info: McpToolInfo): Tool<Action> {
  const readOnly = info.annotations?.readOnlyHint ?? false;
  const definition = {
    description: info.description ?? info.name,
    action_type: 'MCPToolAction',
    observation_type: 'MCPToolObservation',
    annotations: {
      title: info.annotations?.title ?? info.name,
      readOnlyHint: readOnly,
      destructiveHint: info.annotations?.destructiveHint ?? !readOnly,
      idempotentHint: info.annotations?.idempotentHint ?? false,
      openWorldHint: info.annotations?.openWorldHint ?? true,
    },
    mcp_tool: { name: info.name, description: info.description ?? null, inputSchema: info.inputSchema },
    kind: 'MCPToolDefinition',
    title: info.name,
  } as ToolDefinitionWire;
  return {
    name: info.name,
    actionKind: 'MCPToolAction',
    actionSchema: MCPToolAction,
    readOnly,
    definition,
    parameters: { type: 'object', properties: {}, ...info.inputSchema },
    buildAction: (args) => ({ data: args, kind: 'MCPToolAction' }),
    async execute(action, ctx) {
      const result = (await client.callTool({ name: info.name, arguments: action.data ?? {} }, undefined, {
        signal: ctx.signal,
      })) as {
        content?: McpContent[];
        isError?: boolean;
      };
      const content: (
        | { type: 'text'; text: string; cache_prompt: boolean }
        | { type: 'image'; image_urls: string[]; cache_prompt: boolean }
      )[] = [{ type: 'text', text: `[Tool '${info.name}' executed.]`, cache_prompt: false }];
      for (const item of result.content ?? []) {
        if (item.type === 'text' && item.text !== undefined)
          content.push({ type: 'text', text: item.text, cache_prompt: false });
        else if (item.type === 'image' && item.data)
          content.push({
            type: 'image',
            image_urls: [`data:${item.mimeType ?? 'image/png'};base64,${item.data}`],
            cache_prompt: false,
          });
        else content.push({ type: 'text', text: JSON.stringify(item), cache_prompt: false });
      }
      return { kind: 'MCPToolObservation', tool_name: info.name, content, is_error: result.isError === true };
    },
  };
}
