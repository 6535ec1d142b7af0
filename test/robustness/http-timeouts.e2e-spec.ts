import type { Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { bearer, startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Slow and broken clients on a real listening socket (header and connection
 * timeouts). A client that stalls, or trickles its headers a byte at a time so the socket
 * never goes idle, is answered 408 and disconnected once HTTP_HEADERS_TIMEOUT_MS has
 * passed; bytes that are not HTTP get the contract's error body too.
 */
const HEADERS_TIMEOUT_MS = 500;
/** Node checks its connections at a quarter of the timeout; the rest is scheduling slack on a busy machine. */
const CLOSED_WITHIN_MS = HEADERS_TIMEOUT_MS + HEADERS_TIMEOUT_MS / 4 + 2000;

let t: TestApp;
let port: number;
let token: string;

beforeAll(async () => {
  t = await startTestApp({ HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS) });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = ((t.app.getHttpServer() as Server).address() as AddressInfo).port;
  token = await t.token(await t.partner());
});
afterAll(() => t.close());

interface RawConnection {
  socket: Socket;
  /** Everything the server sent. */
  received(): string;
  /** Milliseconds from connecting to the server closing the connection. */
  closed: Promise<number>;
}

async function rawConnection(): Promise<RawConnection> {
  const socket = connect({ port, host: '127.0.0.1' });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const connectedAt = Date.now();
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString('latin1')));
  socket.on('error', () => undefined); // a reset is one way of being disconnected
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - connectedAt)));
  return { socket, received: () => received, closed };
}

/** The status line and the JSON body of a raw HTTP/1.1 answer. */
function parseAnswer(raw: string): { status: number; body: unknown } {
  const [head, body] = raw.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), body: JSON.parse(body) };
}

const requestTimeoutAnswer = { status: 408, body: { error: 'invalid_request', error_description: expect.stringMatching(/in time/) } };

describe('slow clients', () => {
  it('are disconnected with 408 when they stall in the middle of the request line', async () => {
    const connection = await rawConnection();
    connection.socket.write('GET /v1/categories HT');
    const elapsed = await connection.closed;
    expect(elapsed).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    expect(elapsed).toBeLessThan(CLOSED_WITHIN_MS);
    expect(parseAnswer(connection.received())).toEqual(requestTimeoutAnswer);
  });

  it('are disconnected when they trickle headers a byte at a time, which keeps the socket from going idle', async () => {
    const connection = await rawConnection();
    connection.socket.write('GET /v1/categories HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
    const trickle = setInterval(() => connection.socket.writable && connection.socket.write('a'), 50);
    try {
      const elapsed = await connection.closed;
      expect(elapsed).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
      expect(elapsed).toBeLessThan(CLOSED_WITHIN_MS);
    } finally {
      clearInterval(trickle);
    }
    expect(parseAnswer(connection.received())).toEqual(requestTimeoutAnswer);
  });

  it('are disconnected with 408 when they connect and send nothing', async () => {
    const connection = await rawConnection();
    expect(await connection.closed).toBeLessThan(CLOSED_WITHIN_MS);
    expect(parseAnswer(connection.received())).toEqual(requestTimeoutAnswer);
  });

  it('are served when the headers arrive within the timeout, even in pieces (the control case)', async () => {
    const connection = await rawConnection();
    const pieces = ['GET /v1/catego', `ries HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${bearer(token).authorization}\r\n`, 'Connection: close\r\n\r\n'];
    for (const piece of pieces) {
      connection.socket.write(piece);
      await new Promise((resolve) => setTimeout(resolve, HEADERS_TIMEOUT_MS / 5));
    }
    await connection.closed;
    expect(connection.received()).toMatch(/^HTTP\/1\.1 200 /);
  });
});

describe('kept-alive connections', () => {
  it('are not cut by the headers timeout while idle between requests', async () => {
    const connection = await rawConnection();
    const request = `GET /v1/categories HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${bearer(token).authorization}\r\n\r\n`;
    connection.socket.write(request);
    await new Promise((resolve) => setTimeout(resolve, HEADERS_TIMEOUT_MS * 3));
    connection.socket.write(request);
    await new Promise((resolve) => setTimeout(resolve, HEADERS_TIMEOUT_MS / 2));
    expect(connection.received().match(/HTTP\/1\.1 200 /g)).toHaveLength(2);
    connection.socket.destroy();
  });
});

describe('requests that are not HTTP', () => {
  it.each([
    ['a malformed request line', 'NOT HTTP AT ALL\r\n\r\n', 400],
    ['a header without a colon', 'GET /v1/categories HTTP/1.1\r\nHost localhost\r\n\r\n', 400],
    ['headers over the parser limit', `GET /v1/categories HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
  ])('%s gets the contract error body and a closed connection', async (_, bytes, status) => {
    const connection = await rawConnection();
    connection.socket.write(bytes);
    expect(await connection.closed).toBeLessThan(CLOSED_WITHIN_MS);
    expect(parseAnswer(connection.received())).toEqual({ status, body: { error: 'invalid_request', error_description: expect.any(String) } });
  });
});
