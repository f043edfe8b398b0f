// POST /api/settings/mcp/test: connects to one of the caller's saved MCP servers and lists its tools,
// so the settings page can say whether a server works before a conversation needs it. The server is
// named by kind and position, not sent: it runs with the stored (sealed) keys, which never leave.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { SettingsService } from '../../settings/index.js';
import { probeMcpServer } from '../../tools/index.js';
import { HttpError } from '../errors.js';
import { detailResponse, errorResponses } from '../schemas.js';

const TestRequest = Type.Object(
  {
    type: Type.Union([Type.Literal('stdio'), Type.Literal('sse'), Type.Literal('shttp')]),
    index: Type.Integer({ minimum: 0, maximum: 999 }),
  },
  { additionalProperties: false },
);

const TestResult = Type.Object({
  ok: Type.Boolean(),
  tools: Type.Optional(Type.Array(Type.String())),
  error: Type.Optional(Type.String()),
});

export const settingsMcpRoutes: FastifyPluginAsync<{ settings: SettingsService }> = async (
  app,
  { settings },
) => {
  app.post(
    '/api/settings/mcp/test',
    {
      schema: {
        tags: ['Settings'],
        summary: 'Test MCP Server',
        description:
          "agentd: connects to the saved MCP server of this kind and position (in the settings' mcp_config) and lists its tools. 200 with ok:false and the reason when it cannot connect.",
        body: TestRequest,
        response: { 200: TestResult, 404: detailResponse('No such saved server'), ...errorResponses },
      },
    },
    async (request) => {
      const { type, index } = request.body as { type: 'stdio' | 'sse' | 'shttp'; index: number };
      const effective = await settings.getEffective(request.userId);
      try {
        const tools = await probeMcpServer(effective?.mcp_config, type, index);
        if (tools === null) throw new HttpError(404, `No saved ${type} MCP server at position ${index}`);
        return { ok: true, tools };
      } catch (error) {
        if (error instanceof HttpError) throw error;
        return { ok: false, error: (error as Error).message ?? String(error) };
      }
    },
  );
};
