// A page of replayed events as WebSocket text frames in one buffer and one socket write. Through
// ws.send each event cost a header allocation, two queued writes and a Buffer of its own (10k
// events: 20k chunks in the socket's writev); here the JSON text is encoded once, in place.
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';

/** An event as the page writer needs it: its sequence number (for the envelope) and its JSON text. */
export interface FrameEvent {
  seq: number;
  json: string;
}

const FIN_TEXT = 0x81;

/** Bytes of the header of an unmasked frame (RFC 6455 §5.2) whose payload is `length` bytes. */
const headerBytes = (length: number) => (length < 126 ? 2 : length < 65536 ? 4 : 10);

function writeHeader(buf: Buffer, at: number, length: number): number {
  buf[at] = FIN_TEXT;
  if (length < 126) {
    buf[at + 1] = length;
    return at + 2;
  }
  if (length < 65536) {
    buf[at + 1] = 126;
    buf.writeUInt16BE(length, at + 2);
    return at + 4;
  }
  buf[at + 1] = 127;
  buf.writeUInt32BE(Math.floor(length / 2 ** 32), at + 2);
  buf.writeUInt32BE(length >>> 0, at + 6);
  return at + 10;
}

const envelopeHead = (seq: number | null) => `{"seq":${seq === null ? 'null' : seq},"event":`;

/** One frame's text: the event as is, or as agentd's `{"seq":N,"event":…}` envelope (after_seq). */
export const frameText = (seq: number | null, json: string, envelope: boolean): string =>
  envelope ? `${envelopeHead(seq)}${json}}` : json;

/**
 * The frames of a page, each event as is or as agentd's `{"seq":N,"event":…}` envelope, in a
 * buffer from `bufferOf(size)` (at least that long; the frames fill its start).
 */
export function encodeFrames(
  events: readonly FrameEvent[],
  envelope: boolean,
  bufferOf: (size: number) => Buffer = (size) => Buffer.allocUnsafe(size),
): Buffer {
  const lengths = new Array<number>(events.length);
  let size = 0;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    const payload = Buffer.byteLength(e.json) + (envelope ? envelopeHead(e.seq).length + 1 : 0);
    lengths[i] = payload;
    size += headerBytes(payload) + payload;
  }
  const buf = bufferOf(size);
  let at = 0;
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    at = writeHeader(buf, at, lengths[i]!);
    if (envelope) at += buf.write(envelopeHead(e.seq), at, 'latin1');
    at += buf.write(e.json, at, 'utf8');
    if (envelope) buf[at++] = 0x7d; // }
  }
  return buf.subarray(0, size);
}

/**
 * The buffer pages are encoded into, shared by every connection. A buffer per page lived until V8
 * collected it, and the allocator kept what it had grown to: replaying 100k events (40 MB of
 * frames) left the server's RSS higher by the history's size. The scratch buffer is reused only
 * once the socket that last wrote from it has nothing queued (the kernel has the bytes; nothing
 * refers to the buffer any more); until then, and for a page above SCRATCH_MAX, a page gets its own.
 */
const SCRATCH_MAX = 1024 * 1024;
let scratch = Buffer.alloc(0);
let scratchUser: Duplex | null = null;

function pageBuffer(raw: Duplex, size: number): Buffer {
  if (size > SCRATCH_MAX) return Buffer.allocUnsafe(size);
  const user = scratchUser;
  const inUse = user !== null && (user.writableLength > 0 || user.destroyed);
  if (inUse || scratch.length < size) scratch = Buffer.allocUnsafe(Math.max(size, 256 * 1024));
  scratchUser = raw;
  return scratch;
}

/**
 * The TCP socket under a ws WebSocket. ws keeps it in a private member (`_socket`) and offers no cork,
 * no 'drain' and no raw write of its own, which the socket route needs: read here alone.
 */
export function tcpSocketOf(ws: object): Duplex | undefined {
  return (ws as { _socket?: Duplex })._socket;
}

/**
 * Writes a page of frames to the connection's TCP socket, after whatever ws has written before (ws
 * writes synchronously when no extension is negotiated and nothing but text is sent, as here), and
 * counted in ws's bufferedAmount (the socket's queue) like its own frames. False when ws must frame
 * the events itself: with permessage-deflate, or without a socket.
 */
export function writeFrames(ws: WebSocket, events: readonly FrameEvent[], envelope: boolean): boolean {
  const raw = tcpSocketOf(ws);
  if (ws.extensions !== '' || !raw) return false;
  raw.write(encodeFrames(events, envelope, (size) => pageBuffer(raw, size)));
  return true;
}
