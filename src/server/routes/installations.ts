// The installed-extension routes OpenHands serves twice, for skills and for plugins
// (`<prefix>/install`, `<prefix>/installed`, `…/installed/{name}` GET, PATCH {enabled}, DELETE,
// `…/refresh`), over one Installations (agent/installations.ts) each.
import type { FastifyInstance } from 'fastify';
import { type TSchema, Type } from 'typebox';
import {
  AlreadyInstalledError,
  EXTENSION_NAME_PATTERN,
  type Installation,
  type Installations,
  type InstallRequest,
  InstallSkillRequest,
  InvalidExtensionError,
  MAX_EXTENSION_BYTES,
  MAX_EXTENSION_FILES,
  SourceFetchError,
} from '../../agent/index.js';
import { HttpError } from '../errors.js';
import { detailResponse, errorResponses } from '../schemas.js';

export interface InstallationRoutes {
  prefix: '/api/skills' | '/api/plugins';
  /** 'Skill' or 'Plugin': summaries and messages. */
  kind: 'Skill' | 'Plugin';
  installations: Installations;
  /** One installation as answered (its schema: `response`). */
  answer: (info: Installation) => unknown;
  response: TSchema;
  /** What an installation is, and what an enabled one does (the install route's description). */
  about: string;
}

export function installationRoutes(app: FastifyInstance, routes: InstallationRoutes): void {
  const { prefix, kind, installations, answer, response } = routes;
  const tags = [`${kind}s`];
  const what = kind.toLowerCase();
  const param = `${what}_name`;
  const Params = Type.Object({
    [param]: Type.String({ minLength: 1, maxLength: 255, pattern: EXTENSION_NAME_PATTERN }),
  });
  const nameOf = (request: { params: unknown }) =>
    (request.params as Record<string, string>)[param] as string;
  const notInstalled = (name: string) => new HttpError(404, `${kind} '${name}' is not installed`);
  const notFound = { 404: detailResponse(`The ${what} is not installed`) };
  const fetchFailed = { 400: detailResponse('The source cannot be fetched') };

  app.post(
    `${prefix}/install`,
    {
      schema: {
        tags,
        summary: `Install ${kind}`,
        description: `${routes.about} From \`source\` — github:owner/repo, a git URL (cloned with the server's git; \`ref\`, \`repo_path\`), or a folder on this server. 400 the source cannot be fetched, 409 installed already (force=true replaces it, keeping whether it is enabled), 422 not a valid ${what} or over ${MAX_EXTENSION_FILES} files / ${MAX_EXTENSION_BYTES / 1024 / 1024} MB.`,
        body: { ...InstallSkillRequest, title: `Install${kind}Request` },
        response: {
          200: response,
          ...fetchFailed,
          409: detailResponse('Installed already (force=true replaces it)'),
          ...errorResponses,
        },
      },
    },
    async (request) =>
      answer(await installations.install(request.body as InstallRequest).catch(installError)),
  );

  app.get(
    `${prefix}/installed`,
    {
      schema: {
        tags,
        summary: `List Installed ${kind}s`,
        response: { 200: Type.Object({ [`${what}s`]: Type.Array(response) }), ...errorResponses },
      },
    },
    async () => ({ [`${what}s`]: installations.list().map(answer) }),
  );

  app.get(
    `${prefix}/installed/:${param}`,
    {
      schema: {
        tags,
        summary: `Get Installed ${kind}`,
        params: Params,
        response: { 200: response, ...notFound, ...errorResponses },
      },
    },
    async (request) => {
      const info = installations.get(nameOf(request));
      if (!info) throw notInstalled(nameOf(request));
      return answer(info);
    },
  );

  app.patch(
    `${prefix}/installed/:${param}`,
    {
      schema: {
        tags,
        summary: `Enable or Disable Installed ${kind}`,
        description: `A disabled ${what} stays installed but is not used until enabled again.`,
        params: Params,
        body: Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false }),
        response: {
          200: Type.Object({ name: Type.String(), enabled: Type.Boolean() }),
          ...notFound,
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { enabled } = request.body as { enabled: boolean };
      const name = nameOf(request);
      if (!(await installations.setEnabled(name, enabled))) throw notInstalled(name);
      return { name, enabled };
    },
  );

  app.delete(
    `${prefix}/installed/:${param}`,
    {
      schema: {
        tags,
        summary: `Uninstall ${kind}`,
        params: Params,
        response: { 200: Type.Object({ message: Type.String() }), ...notFound, ...errorResponses },
      },
    },
    async (request) => {
      const name = nameOf(request);
      if (!(await installations.uninstall(name))) throw notInstalled(name);
      return { message: `${kind} '${name}' uninstalled` };
    },
  );

  app.post(
    `${prefix}/installed/:${param}/refresh`,
    {
      schema: {
        tags,
        summary: `Refresh Installed ${kind}`,
        description: `Fetches the ${what} again from its source (at the ref it was installed with) and replaces the installation.`,
        params: Params,
        response: {
          200: Type.Object({ message: Type.String(), [what]: response }),
          ...fetchFailed,
          ...notFound,
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const name = nameOf(request);
      const info = await installations.refresh(name).catch(installError);
      if (!info) throw notInstalled(name);
      return { message: `${kind} '${name}' updated`, [what]: answer(info) };
    },
  );
}

/** An installation's failure as OpenHands answers it: 400 fetch, 409 installed, 422 not valid. */
function installError(error: unknown): never {
  if (error instanceof SourceFetchError) throw new HttpError(400, error.message);
  if (error instanceof AlreadyInstalledError) throw new HttpError(409, error.message);
  if (error instanceof InvalidExtensionError) throw new HttpError(422, error.message);
  throw error;
}
