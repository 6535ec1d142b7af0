import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { DataSource } from 'typeorm';

type Listener = (payload: string) => void;

/**
 * Wait between attempts to reopen a lost listening connection. The first attempt is made
 * at once (a connection cut by the server is usually reopened on the spot, and until then
 * the in-memory reference data may be stale), unless the previous loss was this recent.
 */
const RECONNECT_DELAY_MS = 1_000;
/**
 * A connection can die without a word: a NAT or firewall forgetting an idle connection, a
 * host gone. Nothing ends or fails, and every notification is lost, so the in-memory
 * reference data would stay stale for good. The connection therefore answers a query every
 * HEARTBEAT_MS (PostgreSQL also hands a listener its pending notifications after each
 * query), and one unanswered for HEARTBEAT_TIMEOUT_MS counts as a lost connection.
 */
const HEARTBEAT_MS = 1_000;
const HEARTBEAT_TIMEOUT_MS = 3_000;

/**
 * PostgreSQL LISTEN on one dedicated connection per process, shared by every channel.
 * NOTIFY sent in a transaction arrives at commit, on every replica, so a replica learns
 * of another's writes within milliseconds without polling. A lost connection is reopened;
 * since notifications sent meanwhile are lost, each listener is then called with an empty
 * payload to say "re-check what you were waiting for". A silent loss is found by the
 * heartbeat within HEARTBEAT_MS + HEARTBEAT_TIMEOUT_MS.
 */
@Injectable()
export class PgNotifications implements OnApplicationShutdown {
  private readonly logger = new Logger('PgNotifications');
  private readonly listeners = new Map<string, Set<Listener>>();
  private client?: Promise<pg.Client>;
  /** The connected client that `client` resolved to; a loss of any other is old news. */
  private current?: pg.Client;
  private closed = false;
  private lastLoss = -Infinity;

  constructor(private readonly dataSource: DataSource) {}

  /** Calls `listener` with each payload sent on `channel`; returns the unsubscribe function. */
  async listen(channel: string, listener: Listener): Promise<() => void> {
    let channelListeners = this.listeners.get(channel);
    if (!channelListeners) {
      channelListeners = new Set();
      this.listeners.set(channel, channelListeners);
      await (await this.connection()).query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    }
    channelListeners.add(listener);
    return () => channelListeners.delete(listener);
  }

  async onApplicationShutdown(): Promise<void> {
    this.closed = true;
    this.current = undefined;
    const client = await this.client?.catch(() => undefined);
    await client?.end().catch(() => undefined);
  }

  private connection(): Promise<pg.Client> {
    this.client ??= this.connect();
    return this.client;
  }

  private async connect(): Promise<pg.Client> {
    const { url } = this.dataSource.options as { url?: string };
    const client = new pg.Client({ connectionString: url, application_name: 'partner-reading-listening-api:listen' });
    client.on('notification', (message) => this.dispatch(message.channel, message.payload ?? ''));
    client.on('error', (error) => this.reconnect(client, error));
    client.on('end', () => this.reconnect(client));
    try {
      await client.connect();
      for (const channel of this.listeners.keys()) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      this.client = undefined;
      await client.end().catch(() => undefined);
      throw error;
    }
    this.current = client;
    this.watch(client);
    return client;
  }

  /** Runs the heartbeat of `client` while it is the current connection. */
  private watch(client: pg.Client): void {
    let beating = false;
    const timer = setInterval(() => {
      if (client !== this.current) return clearInterval(timer);
      if (beating) return;
      beating = true;
      const silence = setTimeout(() => this.reconnect(client, new Error(`no answer to a heartbeat within ${HEARTBEAT_TIMEOUT_MS} ms`)), HEARTBEAT_TIMEOUT_MS);
      client
        .query('SELECT 1')
        .then(
          () => clearTimeout(silence),
          () => clearTimeout(silence), // a failed query also fails the connection: its 'error' or 'end' reconnects
        )
        .finally(() => (beating = false));
    }, HEARTBEAT_MS);
    timer.unref();
  }

  private reconnect(lost: pg.Client, error?: Error): void {
    if (this.closed || lost !== this.current) return;
    this.current = undefined;
    this.client = undefined;
    lost.removeAllListeners('end');
    lost.end().catch(() => undefined);
    if (error) this.logger.warn({ msg: 'notification connection lost; reconnecting', err: String(error) });
    const now = performance.now();
    const delay = now - this.lastLoss < RECONNECT_DELAY_MS ? RECONNECT_DELAY_MS : 0;
    this.lastLoss = now;
    setTimeout(() => this.resume(), delay).unref();
  }

  private resume(): void {
    if (this.closed || this.listeners.size === 0) return;
    this.connection().then(
      () => {
        for (const channel of this.listeners.keys()) this.dispatch(channel, '');
      },
      () => setTimeout(() => this.resume(), RECONNECT_DELAY_MS).unref(),
    );
  }

  private dispatch(channel: string, payload: string): void {
    for (const listener of this.listeners.get(channel) ?? []) listener(payload);
  }
}
