// /api/file/*: OpenHands' file router. Upload (multipart, field `file`, streamed to disk under a size
// limit), download, create_directory, home, search_subdirs, archive, download-trajectory. They act with
// the rights of this server's process (see the root README): the routes check the input's shape, the
// file system decides what may be touched.
import multipart from '@fastify/multipart';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { ConversationService } from '../../conversation/service.js';
import {
  ARCHIVE_FORMATS,
  archiveDirectory,
  createDirectory,
  FileOperationError,
  homeListing,
  MAX_PATH_LENGTH,
  openDownload,
  saveUpload,
  subdirPage,
  trajectoryZip,
} from '../../files/index.js';
import type { Store } from '../../store/index.js';
import { HttpError, RequestValidationError } from '../errors.js';
import { binary, ConversationIdParams, dashedUuid, detailResponse, errorResponses } from '../schemas.js';

export interface FileRoutesOptions {
  conversations: ConversationService;
  store: Store;
  /** Largest upload in bytes (413 past it); default `DEFAULT_MAX_UPLOAD_BYTES`. */
  maxUploadBytes?: number;
}

/** 1 GiB: a workspace file, not a disk image. */
export const DEFAULT_MAX_UPLOAD_BYTES = 1024 ** 3;

const tags = ['Files'];
const Ref = (id: string) => Type.Ref(id);
const PathText = (description: string) => Type.String({ maxLength: MAX_PATH_LENGTH, description });
const PathQuery = Type.Object({ path: PathText('Absolute path') });
type PathQueryT = { path: string };

const fileErrors = {
  400: detailResponse('The path is not absolute, or names the wrong kind of entry'),
  403: detailResponse('The server process may not touch this path'),
  404: detailResponse('Not found'),
};
/** Runs a file operation; what it refuses becomes `{detail}` with its status. */
async function fileOp<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof FileOperationError) throw new HttpError(error.status, error.message);
    throw error;
  }
}

/** Starlette's Content-Disposition: a quoted ASCII name, else RFC 5987 UTF-8. */
function attachment(name: string): string {
  return /^[\x20-\x7e]*$/.test(name) && !/["\\]/.test(name)
    ? `attachment; filename="${name}"`
    : `attachment; filename*=utf-8''${encodeURIComponent(name)}`;
}

function sendFile(reply: FastifyReply, name: string, type: string, headers: Record<string, string> = {}) {
  return reply.header('content-type', type).header('content-disposition', attachment(name)).headers(headers);
}

export const fileRoutes: FastifyPluginAsync<FileRoutesOptions> = async (app, options) => {
  await app.register(uploadRoute, { maxUploadBytes: options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES });

  app.get<{ Querystring: PathQueryT }>(
    '/api/file/download',
    {
      schema: {
        tags,
        summary: 'Download File',
        querystring: PathQuery,
        response: {
          200: binary('The file, streamed, with its length', 'application/octet-stream'),
          ...fileErrors,
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const file = await fileOp(() => openDownload(request.query.path));
      sendFile(reply, file.name, 'application/octet-stream').header('content-length', file.size);
      return reply.send(file.stream);
    },
  );

  app.post<{ Querystring: PathQueryT }>(
    '/api/file/create_directory',
    {
      schema: {
        tags,
        summary: 'Create Directory',
        description: 'mkdir -p: an existing directory is fine; a file in the way is a 400.',
        querystring: PathQuery,
        response: { 200: Ref('Success'), ...fileErrors, ...errorResponses },
      },
    },
    async (request) => {
      await fileOp(() => createDirectory(request.query.path));
      return { success: true };
    },
  );

  app.get<{ Querystring: { include_hidden: boolean } }>(
    '/api/file/home',
    {
      schema: {
        tags,
        summary: 'Get Home Directory',
        querystring: Type.Object({ include_hidden: Type.Boolean({ default: false }) }),
        response: {
          200: Type.Object({
            home: Type.String(),
            favorites: Type.Array(Type.Object({ label: Type.String(), path: Type.String() })),
            locations: Type.Array(Type.Object({ label: Type.String(), path: Type.String() })),
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => homeListing(request.query.include_hidden),
  );

  app.get<{ Querystring: { path: string; page_id?: string; limit: number; include_hidden: boolean } }>(
    '/api/file/search_subdirs',
    {
      schema: {
        tags,
        summary: 'Search Subdirs',
        querystring: Type.Object({
          path: PathText('Absolute directory path to list subdirectories of'),
          page_id: Type.Optional(
            Type.String({ maxLength: 1024, description: 'next_page_id of the previous page' }),
          ),
          limit: Type.Integer({ minimum: 1, maximum: 100, default: 100 }),
          include_hidden: Type.Boolean({ default: false }),
        }),
        response: {
          200: Type.Object({
            items: Type.Array(Type.Object({ name: Type.String(), path: Type.String() })),
            next_page_id: Type.Union([Type.String(), Type.Null()]),
          }),
          ...fileErrors,
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const { path, page_id, limit, include_hidden } = request.query;
      return fileOp(() => subdirPage(path, { pageId: page_id, limit, includeHidden: include_hidden }));
    },
  );

  app.get<{
    Querystring: {
      path: string;
      format: (typeof ARCHIVE_FORMATS)[number];
      base_ref?: string;
      use_default_excludes: boolean;
      exclude?: string[];
    };
  }>(
    '/api/file/archive',
    {
      schema: {
        tags,
        summary: 'Archive Directory',
        description:
          'A folder as `tar.gz`, or as `git-delta` (a binary git patch of the working tree against `base_ref`), streamed; `X-Archive-*` headers name the repository.',
        querystring: Type.Object({
          path: PathText('Absolute path of the directory to archive'),
          format: Type.Union(
            ARCHIVE_FORMATS.map((f) => Type.Literal(f)),
            { default: 'git-delta' },
          ),
          base_ref: Type.Optional(Type.String({ maxLength: 256 })),
          use_default_excludes: Type.Boolean({ default: true }),
          exclude: Type.Optional(Type.Array(Type.String({ maxLength: 256 }), { maxItems: 100 })),
        }),
        response: {
          200: {
            description: 'The archive, streamed',
            content: {
              'application/gzip': { schema: { type: 'string', format: 'binary' } },
              'text/x-patch': { schema: { type: 'string', format: 'binary' } },
            },
          },
          ...fileErrors,
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const archive = await fileOp(() =>
        archiveDirectory({
          path: q.path,
          format: q.format,
          baseRef: q.base_ref,
          useDefaultExcludes: q.use_default_excludes,
          exclude: q.exclude ?? [],
        }),
      );
      sendFile(reply, archive.filename, archive.contentType, archive.headers);
      return reply.send(archive.stream);
    },
  );

  app.get<{ Params: { conversation_id: string } }>(
    '/api/file/download-trajectory/:conversation_id',
    {
      schema: {
        tags,
        summary: 'Download Trajectory',
        description: 'The conversation as a zip: `<hex>/meta.json` and `<hex>/events/event-<n>-<id>.json`.',
        params: ConversationIdParams,
        response: {
          200: binary('The zip, streamed', 'application/octet-stream'),
          404: detailResponse('Unknown conversation'),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const id = dashedUuid(request.params.conversation_id);
      const meta = await options.conversations.info(request.userId, id);
      const hex = id.replaceAll('-', '');
      const store = options.store;
      const stream = trajectoryZip({
        hex,
        meta,
        async *events() {
          for (let after = 0; ; ) {
            const page = await store.events.after(id, after, 500);
            if (page.length === 0) return;
            yield page;
            after = page[page.length - 1]!.seq;
          }
        },
      });
      sendFile(reply, `${hex}.zip`, 'application/octet-stream');
      return reply.send(stream);
    },
  );
};

/** The upload route in its own scope, so the multipart parser exists for it alone. */
const uploadRoute: FastifyPluginAsync<{ maxUploadBytes: number }> = async (app, { maxUploadBytes }) => {
  await app.register(multipart, {
    limits: {
      fileSize: maxUploadBytes,
      files: 1,
      fields: 20,
      fieldSize: 64 * 1024,
      parts: 40,
      headerPairs: 100,
    },
  });
  const missingFile = () =>
    new RequestValidationError([{ loc: ['body', 'file'], msg: 'Field required', type: 'missing' }]);

  app.post<{ Querystring: PathQueryT }>(
    '/api/file/upload',
    {
      schema: {
        tags,
        summary: 'Upload File',
        description:
          'multipart/form-data with the file in field `file`; written to a temporary file beside `path`, then renamed over it. Parents are created.',
        querystring: Type.Object({ path: PathText('Absolute file path') }),
        response: {
          200: Ref('Success'),
          ...fileErrors,
          413: detailResponse(`The file is larger than the upload limit (${maxUploadBytes} bytes)`),
          415: detailResponse('The body is not multipart/form-data'),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      if (!request.isMultipart()) throw missingFile();
      const part = await request.file().catch((error: unknown) => {
        throw bodyError(error);
      });
      if (part?.fieldname !== 'file') throw missingFile();
      let sourceError: unknown = null;
      part.file.once('error', (error) => {
        sourceError = error;
      });
      try {
        // A file the plugin cut at the limit is never renamed into place.
        await fileOp(() => saveUpload(request.query.path, part.file, () => !part.file.truncated));
      } catch (error) {
        // A failed write also ends the body's stream with its own error: that one is the file
        // system's (a `syscall`, or already mapped to its 4xx), not a malformed body.
        const fromBody = sourceError !== null && (sourceError as NodeJS.ErrnoException).syscall === undefined;
        if (fromBody && !(error instanceof HttpError)) throw bodyError(sourceError);
        throw error;
      }
      return { success: true };
    },
  );

  /** What went wrong reading the multipart body: the client's fault, with the plugin's status where it has one. */
  function bodyError(error: unknown): HttpError {
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 413)
      return new HttpError(413, `The file is larger than the upload limit (${maxUploadBytes} bytes)`);
    if (typeof status === 'number' && status >= 400 && status < 500)
      return new HttpError(status === 406 ? 415 : status, (error as Error).message);
    return new HttpError(400, `Malformed multipart body: ${(error as Error).message}`);
  }
};
