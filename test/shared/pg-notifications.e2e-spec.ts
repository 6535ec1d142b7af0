import { createServer, Socket, type Server } from 'node:net';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { PgNotifications } from '../../src/shared/persistence/pg-notifications.js';
import { createTestDatabase } from '../support/test-database.js';

/**
 * A TCP relay in front of PostgreSQL that can stop carrying the bytes of its open
 * connections without closing them: what a NAT or a firewall that forgot a connection does.
 * New connections still get through.
 */
class SilencingRelay {
  private readonly open = new Set<{ client: Socket; server: Socket }>();
  private readonly server: Server;

  private constructor(target: { host: string; port: number }) {
    this.server = createServer((client) => {
      const server = new Socket().connect(target.port, target.host);
      const pair = { client, server };
      this.open.add(pair);
      client.pipe(server);
      server.pipe(client);
      const close = () => (client.destroy(), server.destroy(), this.open.delete(pair));
      client.on('error', close).on('close', close);
      server.on('error', close).on('close', close);
    });
  }

  static async start(databaseUrl: string): Promise<{ relay: SilencingRelay; url: string }> {
    const target = new URL(databaseUrl);
    const relay = new SilencingRelay({ host: target.hostname, port: Number(target.port || 5432) });
    await new Promise<void>((resolve) => relay.server.listen(0, '127.0.0.1', resolve));
    const relayed = new URL(databaseUrl);
    relayed.hostname = '127.0.0.1';
    relayed.port = String((relay.server.address() as { port: number }).port);
    return { relay, url: relayed.toString() };
  }

  /** From now on the open connections carry nothing either way, and nobody is told. */
  silenceOpenConnections(): void {
    for (const { client, server } of this.open) {
      client.unpipe(server);
      server.unpipe(client);
      client.pause();
      server.pause();
    }
    this.open.clear();
  }

  close(): void {
    this.server.close();
    for (const { client, server } of this.open) {
      client.destroy();
      server.destroy();
    }
  }
}

const CHANNEL = 'heartbeat_test';
let databaseUrl: string;
let relay: SilencingRelay;
let notifications: PgNotifications;
let direct: pg.Client;

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  const relayed = await SilencingRelay.start(databaseUrl);
  relay = relayed.relay;
  notifications = new PgNotifications({ options: { url: relayed.url } } as unknown as DataSource);
  direct = new pg.Client({ connectionString: databaseUrl });
  await direct.connect();
});

afterAll(async () => {
  await notifications.onApplicationShutdown();
  await direct.end();
  relay.close();
});

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('a listening connection that silently stops carrying anything is replaced within seconds, and listeners are told to re-check', async () => {
  const received: string[] = [];
  await notifications.listen(CHANNEL, (payload) => received.push(payload));
  const notify = (payload: string) => direct.query('SELECT pg_notify($1, $2)', [CHANNEL, payload]);

  await notify('before');
  await until(() => received.includes('before'), 2_000);

  relay.silenceOpenConnections();
  await notify('lost');
  // Found by the heartbeat (1 s, then 3 s without an answer), reconnected at once: the empty
  // payload says notifications may have been missed.
  await until(() => received.includes(''), 8_000);
  expect(received).not.toContain('lost');

  await notify('after');
  await until(() => received.includes('after'), 2_000);
}, 15_000);
