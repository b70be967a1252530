import { connect, type Socket } from 'node:net';

/** What came back on a raw socket: the status line's code, the head and the body, as text. */
export interface RawAnswer {
  status: number;
  head: string;
  body: string;
  /** body bytes the client had written when the answer's head arrived */
  bodyBytesSentBeforeAnswer: number;
}

/**
 * Sends a request over a plain socket, so tests can send what fetch refuses (a CR in a header, a body of 100 MB
 * streamed without holding it). `body` is written chunk by chunk, waiting for the socket to drain, and stops as
 * soon as the server answers. The connection is closed after the answer.
 */
export async function rawRequest(url: string, head: string, body: Iterable<Buffer> = []): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const received: Buffer[] = [];
  let sentBeforeAnswer = -1;
  let sent = 0;
  const answered = new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      if (sentBeforeAnswer < 0) sentBeforeAnswer = sent;
      received.push(chunk);
      if (isComplete(Buffer.concat(received).toString('latin1'))) resolve();
    });
    socket.once('close', () => resolve());
    socket.once('error', () => resolve());
  });
  let answeredFlag = false;
  void answered.then(() => (answeredFlag = true));
  socket.write(head);
  for (const chunk of body) {
    if (answeredFlag || sentBeforeAnswer >= 0 || socket.destroyed) break;
    sent += chunk.length;
    if (!socket.write(chunk)) await drainOrAnswer(socket, answered);
  }
  await answered;
  socket.destroy();
  const text = Buffer.concat(received).toString('utf8');
  const [rawHead = '', ...rest] = text.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(rawHead)?.[1] ?? 0);
  return {
    status,
    head: rawHead,
    body: decodeBody(rawHead, rest.join('\r\n\r\n')),
    bodyBytesSentBeforeAnswer: sentBeforeAnswer < 0 ? sent : sentBeforeAnswer,
  };
}

function drainOrAnswer(socket: Socket, answered: Promise<void>): Promise<void> {
  return Promise.race([new Promise<void>((resolve) => socket.once('drain', resolve)), answered]);
}

/** A response is complete once its head and content-length bytes (or the last chunk) are in. */
function isComplete(text: string): boolean {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const head = text.slice(0, end);
  const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
  if (length !== undefined) return Buffer.byteLength(text.slice(end + 4), 'latin1') >= Number(length);
  return /\r\ntransfer-encoding: *chunked/i.test(head) ? text.endsWith('\r\n0\r\n\r\n') : false;
}

function decodeBody(head: string, body: string): string {
  if (!/\r\ntransfer-encoding: *chunked/i.test(head)) return body;
  let decoded = '';
  let rest = body;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = Number.parseInt(rest.slice(0, lineEnd), 16);
    if (!(size > 0)) return decoded;
    decoded += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}

/** `count` chunks of `size` bytes of the JSON-looking filler `[1,1,1,...` (never valid JSON in full). */
export function* fillerChunks(count: number, size: number): Generator<Buffer> {
  const chunk = Buffer.alloc(size, '1,');
  yield Buffer.from('[');
  for (let index = 0; index < count; index += 1) yield chunk;
}

/** Frames each chunk for `Transfer-Encoding: chunked` (RFC 9112 section 7.1); the last chunk is never sent. */
export function* chunkedFraming(chunks: Iterable<Buffer>): Generator<Buffer> {
  for (const chunk of chunks) yield Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
}
