// OpenHands' workspace file server: GET /api/conversations/{id}/workspace/{path} answers a file of the
// conversation's working folder (a directory: its index.html), so a client can show what the agent
// made (an HTML report, a plot, a PDF) in an iframe or a tab; and the cookie that lets a browser
// reach it (POST/DELETE /api/auth/workspace-session, workspace-session.ts).
// What agentd does beyond OpenHands: paths are resolved to real paths and must stay inside the
// folder (a link out of it is refused too); every answer is sandboxed (`Content-Security-Policy:
// sandbox`), so a page the agent wrote runs in an origin of its own and cannot read this origin's
// storage (the web UI keeps its key there) or call the API; `nosniff`; no CORS (OpenHands echoes any
// origin with credentials, which lets any site read the files with the cookie).
import { realpath, stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import send from '@fastify/send';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ConversationService } from '../../conversation/service.js';
import { stateOf } from '../../conversation/state.js';
import { offeredKeys, type SessionKeys } from '../auth.js';
import { badRequest, HttpError, notFound } from '../errors.js';
import {
  binary,
  ConversationIdParams,
  conversationIdOf,
  detailResponse,
  errorResponses,
} from '../schemas.js';
import { linkOf, workspaceCookieHeader } from '../workspace-session.js';

const SERVED_HEADERS = {
  'content-security-policy': 'sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // The agent changes these files: a browser asks again (an ETag makes that a 304).
  'cache-control': 'no-cache',
};

/** How long a workspace link opens its workspace. */
const LINK_HOURS = 12;

const inside = (root: string, path: string) => path === root || path.startsWith(root + sep);

const FileParams = Type.Object({
  conversation_id: ConversationIdParams.properties.conversation_id,
  '*': Type.String({ maxLength: 4096, description: 'The path in the working folder' }),
});

/** The conversation's working folder, as a real path; 404 when there is none to serve. */
async function workspaceRoot(conversations: ConversationService, userId: string, id: string) {
  const record = await conversations.get(userId, id);
  if (record.sandboxId) throw notFound('Conversation workspace is not local; cannot be served');
  const root = await realpath(stateOf(record).workspace.working_dir).catch(() => null);
  if (!root || !(await stat(root)).isDirectory()) throw notFound('Workspace directory does not exist');
  return root;
}

export const workspaceRoutes: FastifyPluginAsync<{
  conversations: ConversationService;
  sessionKeys: SessionKeys;
}> = async (app, { conversations, sessionKeys }) => {
  const tags = ['Workspace'];
  const served = {
    200: binary(
      'The file (a directory: its index.html), its type from its name; ranges and ETags honoured',
      '*/*',
    ),
    206: binary('The part a Range asked for', '*/*'),
    301: {
      description: 'A directory asked without its trailing slash: Location is it with the slash',
      type: 'null',
    },
    304: { description: 'Not modified since the ETag or date the request names', type: 'null' },
    400: detailResponse('The path leaves the workspace (also through a link), or cannot be a path'),
    404: detailResponse('No such conversation, working folder or file (a directory without index.html)'),
    412: detailResponse('If-Match or If-Unmodified-Since does not hold'),
    416: detailResponse('The Range lies outside the file'),
    ...errorResponses,
  };

  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    const params = request.params as { '*'?: string };
    const root = await workspaceRoot(conversations, request.userId, conversationIdOf(request));
    // The root without its slash: relative links in its index.html would resolve from the parent.
    const toSlash = () => reply.redirect(`${request.url.split('?')[0]}/`, 301);
    if (params['*'] === undefined) return toSlash();
    // A link's token (auth.ts checked it) is not part of the path; the page's relative links keep it.
    const link = linkOf(params['*']);
    if (link?.rest === null) return toSlash();
    const path = link ? link.rest : params['*'];
    if (!inside(root, resolve(root, path))) throw badRequest('Path is outside the workspace');
    const result = await send(request.raw, `/${path.split('/').map(encodeURIComponent).join('/')}`, {
      root,
      dotfiles: 'allow',
      index: ['index.html'],
      cacheControl: false,
      // The file send picked, links resolved: a link inside the folder may not lead out of it (send
      // rejects with what this throws).
      onFile: async (file) => {
        if (!inside(root, await realpath(file))) throw badRequest('Path is outside the workspace');
      },
    });
    if (result.type === 'error') {
      const status = result.statusCode;
      if (status === 412 || status === 416) throw new HttpError(status, result.metadata.error.message);
      if (status === 400 || status === 403) throw badRequest('Not a path in the workspace');
      throw notFound(path.endsWith('/') || !path ? 'No index.html in directory' : 'File not found');
    }
    // A directory without its slash, likewise.
    if (result.type === 'directory') return toSlash();
    return reply
      .code(result.statusCode)
      .headers({ ...result.headers, ...SERVED_HEADERS })
      .send(result.stream);
  };

  for (const url of [
    '/api/conversations/:conversation_id/workspace',
    '/api/conversations/:conversation_id/workspace/*',
  ])
    app.get(
      url,
      {
        config: { access: 'workspace' },
        schema: {
          tags,
          summary: url.endsWith('*') ? 'Serve Workspace File' : 'Serve Workspace Root',
          description:
            "A file of the conversation's working folder, sandboxed (Content-Security-Policy: sandbox: a page runs in an origin of its own). The session key, or the cookie POST /api/auth/workspace-session sets (for iframes and links).",
          params: url.endsWith('*') ? FileParams : ConversationIdParams,
          response: served,
        },
      },
      serve,
    );

  app.post(
    '/api/conversations/:conversation_id/workspace-link',
    {
      schema: {
        tags,
        summary: 'Create Workspace Link',
        description: `agentd: a URL of the conversation's workspace that carries its own credential for ${LINK_HOURS} hours (a MAC of the conversation and the expiry under the key: it opens only this workspace), for a browser tab or iframe. A page served from it is sandboxed, an origin of its own whose requests carry no cookie; its relative links keep the credential.`,
        params: ConversationIdParams,
        response: {
          200: Type.Object({ url: Type.String(), expires_at: Type.String({ format: 'date-time' }) }),
          404: detailResponse('No such conversation'),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const id = conversationIdOf(request);
      await workspaceRoot(conversations, request.userId, id);
      const key = offeredKeys(request.headers).find((k) => sessionKeys.userOf(k) !== null) ?? '';
      const expires = Math.floor(Date.now() / 1000) + LINK_HOURS * 3600;
      return {
        url: `/api/conversations/${id}/workspace/~${sessionKeys.workspaceLink(key, id, expires)}/`,
        expires_at: new Date(expires * 1000).toISOString(),
      };
    },
  );

  app.post(
    '/api/auth/workspace-session',
    {
      schema: {
        tags,
        summary: 'Create Workspace Session',
        description:
          'Sets the cookie that opens the workspace file server (and nothing else) to this browser: derived from the session key, HttpOnly, for /api/conversations only. No cookie when the server runs without keys.',
        response: { 204: { description: 'Cookie set', type: 'null' }, ...errorResponses },
      },
    },
    async (request, reply) => {
      const key = offeredKeys(request.headers).find((k) => sessionKeys.userOf(k) !== null);
      if (sessionKeys.enabled && key)
        reply.header('set-cookie', workspaceCookieHeader(sessionKeys.workspaceToken(key), request));
      return reply.code(204).send();
    },
  );

  app.delete(
    '/api/auth/workspace-session',
    {
      config: { access: 'workspace' },
      schema: {
        tags,
        summary: 'Delete Workspace Session',
        description: 'Clears the workspace-session cookie (the key or the cookie itself authenticates it).',
        response: { 204: { description: 'Cookie cleared', type: 'null' }, ...errorResponses },
      },
    },
    async (request, reply) =>
      reply.header('set-cookie', workspaceCookieHeader(null, request)).code(204).send(),
  );
};
