// Upload, download and create_directory over real HTTP, called as the OpenHands SDK's RemoteWorkspace
// calls them: POST /api/file/upload?path=<absolute> with the file in multipart field `file`, and
// GET /api/file/download?path=<absolute>.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startServer, type TestServer, tempDir } from '../support/server.js';

/** Past this the upload is refused: small, so a test can send more than it. */
const LIMIT = 1024 * 1024;

let server: TestServer;
let root: string;

beforeAll(async () => {
  server = await startServer({ maxUploadBytes: LIMIT });
  root = tempDir('agentd-files-');
});
afterAll(() => server.close({ remove: true }));

const q = (path: string) => `?${new URLSearchParams({ path })}`;

/** What httpx sends for `files={"file": (name, content)}` (fetch sets the multipart content type). */
function upload(path: string, content: Buffer, field = 'file', key: string | null = server.key) {
  const form = new FormData();
  form.append(field, new Blob([content]), 'source.bin');
  return fetch(`${server.url}/api/file/upload${q(path)}`, {
    method: 'POST',
    body: form,
    headers: key === null ? {} : { 'X-Session-API-Key': key },
  });
}

const download = (path: string) => api(server, `/api/file/download${q(path)}`);

/** Every byte value, then random bytes: a binary file that any text handling would change. */
const binary = (size: number) =>
  Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(size - 256)]);

describe('upload and download', () => {
  it('round-trips a binary file byte for byte, creating parents', async () => {
    const target = join(root, 'deep', 'er', 'data.bin');
    const content = binary(LIMIT - 10);
    const res = await upload(target, content);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    expect(readFileSync(target).equals(content)).toBe(true);
    // Atomic: the temporary file was renamed, none is left beside the target.
    expect(readdirSync(join(root, 'deep', 'er'))).toEqual(['data.bin']);

    const back = await download(target);
    expect(back.status).toBe(200);
    expect(back.headers.get('content-type')).toBe('application/octet-stream');
    expect(back.headers.get('content-length')).toBe(String(content.length));
    expect(back.headers.get('content-disposition')).toBe('attachment; filename="data.bin"');
    expect(Buffer.from(await back.arrayBuffer()).equals(content)).toBe(true);
  });

  it('replaces an existing file, keeping its mode', async () => {
    const target = join(root, 'script.sh');
    writeFileSync(target, 'old', { mode: 0o750 });
    expect((await upload(target, Buffer.from('#!/bin/sh\necho new\n'))).status).toBe(200);
    expect(readFileSync(target, 'utf8')).toBe('#!/bin/sh\necho new\n');
    expect(statSync(target).mode & 0o777).toBe(0o750);
  });

  it('refuses to replace what is not a regular file (a FIFO here; a device alike) with 400, leaving it as it was', async () => {
    const fifo = join(root, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const res = await upload(fifo, Buffer.from('data'));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { detail: string }).detail).toBe('Path is not a regular file');
    expect(statSync(fifo).isFIFO()).toBe(true);
  });

  it('refuses a file over the limit with 413 and leaves the old file and no temporary one', async () => {
    const dir = join(root, 'limit');
    mkdirSync(dir);
    const target = join(dir, 'big.bin');
    writeFileSync(target, 'previous');
    const res = await upload(target, binary(LIMIT + 4096));
    expect(res.status).toBe(413);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/upload limit/);
    expect(readFileSync(target, 'utf8')).toBe('previous');
    expect(readdirSync(dir)).toEqual(['big.bin']);
  });

  it('answers 400 for a relative path, 400 for a directory, 422 without the file field', async () => {
    const relative = await upload('relative/file.txt', Buffer.from('x'));
    expect(relative.status).toBe(400);
    expect(await relative.json()).toEqual({ detail: 'Path must be absolute' });
    expect(existsSync(join(process.cwd(), 'relative'))).toBe(false);

    const onDir = await upload(root, Buffer.from('x'));
    expect(onDir.status).toBe(400);
    expect(await onDir.json()).toEqual({ detail: 'Path is a directory' });

    // Where nothing can be written (the body still coming in): the file system's answer, not
    // "Malformed multipart body".
    const unwritable = await upload('/proc/self/agentd-upload.txt', Buffer.alloc(LIMIT - 4096, 7));
    expect(unwritable.status).toBe(404);
    expect(await unwritable.json()).toEqual({ detail: 'Parent directory not found' });

    const wrongField = await upload(join(root, 'w.txt'), Buffer.from('x'), 'upload');
    expect(wrongField.status).toBe(422);
    expect(await wrongField.json()).toEqual({
      detail: [{ loc: ['body', 'file'], msg: 'Field required', type: 'missing' }],
    });
    const json = await api(server, `/api/file/upload${q(join(root, 'j.txt'))}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"file":"x"}',
    });
    expect(json.status).toBe(422);
    const noPath = await fetch(`${server.url}/api/file/upload`, {
      method: 'POST',
      body: new FormData(),
      headers: { 'X-Session-API-Key': server.key },
    });
    expect(noPath.status).toBe(422);
    expect(existsSync(join(root, 'w.txt')) || existsSync(join(root, 'j.txt'))).toBe(false);
  });

  it('accepts multipart on the upload route only', async () => {
    const form = new FormData();
    form.append('file', new Blob(['x']), 'x.txt');
    const res = await fetch(`${server.url}/api/file/create_directory${q(join(root, 'mp'))}`, {
      method: 'POST',
      body: form,
      headers: { 'X-Session-API-Key': server.key },
    });
    expect(res.status).toBe(415);
    expect(existsSync(join(root, 'mp'))).toBe(false);
  });

  it('needs the session key', async () => {
    const target = join(root, 'nokey.txt');
    expect((await upload(target, Buffer.from('x'), 'file', null)).status).toBe(401);
    expect(existsSync(target)).toBe(false);
  });

  it('answers 404 for a missing file, 400 for a folder or a relative path', async () => {
    const missing = await download(join(root, 'nothing-here.txt'));
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: 'File not found' });
    const folder = await download(root);
    expect(folder.status).toBe(400);
    expect(await folder.json()).toEqual({ detail: 'Path is not a file' });
    expect((await download('etc/passwd')).status).toBe(400);
    expect((await download(`${root}/a\u0000b`)).status).toBe(400);
  });

  it('names a non-ASCII file the RFC 5987 way', async () => {
    const target = join(root, 'résumé.txt');
    writeFileSync(target, 'ok');
    const res = await download(target);
    expect(res.headers.get('content-disposition')).toBe("attachment; filename*=utf-8''r%C3%A9sum%C3%A9.txt");
    expect(await res.text()).toBe('ok');
  });
});

describe('create_directory', () => {
  const create = (path: string) => api(server, `/api/file/create_directory${q(path)}`, { method: 'POST' });

  it('makes parents, is idempotent, and refuses a file in the way', async () => {
    const dir = join(root, 'made', 'a', 'b');
    expect((await create(dir)).status).toBe(200);
    expect(statSync(dir).isDirectory()).toBe(true);
    writeFileSync(join(dir, 'kept.txt'), 'kept');
    const again = await create(dir);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ success: true });
    expect(readFileSync(join(dir, 'kept.txt'), 'utf8')).toBe('kept');

    const file = join(root, 'a-file');
    writeFileSync(file, '');
    for (const path of [file, join(file, 'below')]) {
      const res = await create(path);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ detail: 'Path exists and is not a directory' });
    }
    expect((await create('made/relative')).status).toBe(400);
  });
});
