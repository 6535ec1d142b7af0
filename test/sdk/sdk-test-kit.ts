import { mkdtempSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/shared/net/free-port.js';
import { buildOnce, runNode, type ServiceProcess } from '../support/processes.js';
import { createTestDatabase } from '../support/test-database.js';
import { PartnerClient, type PartnerClientOptions } from '../../sdk/src/index.js';

/**
 * The SDK's tests run it against the real service: the built service (dist/) started as a
 * process, as partners reach it, on a database of the test file's own.
 */
export const SERVER_SECRET = 'sdk-test-server-secret-sdk-test-server-secret';

/** Rate limits no test reaches unless it sets its own. */
const GENEROUS_LIMITS = { RATE_LIMIT_RPS: '100000', RATE_LIMIT_BURST: '100000', UNAUTHENTICATED_RPS: '100000', UNAUTHENTICATED_BURST: '100000' };

export interface Service {
  origin: string;
  port: number;
  env: Record<string, string>;
  process: ServiceProcess;
  /** SIGTERM, and resolves once the process exited. */
  stop(): Promise<void>;
}

/** The environment of a service process: `overrides` win. */
export async function serviceEnv(overrides: Record<string, string> = {}): Promise<Record<string, string>> {
  buildOnce();
  return {
    DATABASE_URL: overrides.DATABASE_URL ?? (await createTestDatabase()),
    SERVER_SECRET,
    LOG_LEVEL: 'warn',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'prl-sdk-service-')),
    KEY_ACTIVATION_DELAY_SECONDS: '0',
    WEBHOOK_RETRY_SCHEDULE: '0,1,2',
    WEBHOOK_POLL_INTERVAL_MS: '100',
    ...GENEROUS_LIMITS,
    ...overrides,
  };
}

/** The built service on 127.0.0.1 (`env.PORT`, else a free port), once it listens. */
export async function startService(env: Record<string, string>): Promise<Service> {
  const port = Number(env.PORT ?? (await freePort()));
  const child = runNode('dist/src/main.js', [], { ...env, HOST: '127.0.0.1', PORT: String(port) });
  await child.waitForOutput(/Swagger UI/, 60_000);
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    env: { ...env, PORT: String(port) },
    process: child,
    async stop() {
      if (child.child.exitCode === null) child.child.kill('SIGTERM');
      await child.exit();
    },
  };
}

export interface Credential {
  client_id: string;
  client_secret: string;
  partner_id: string;
}

/** A new partner and its credential, from the operations CLI as an operator makes them. */
export async function createCredential(
  env: Record<string, string>,
  { sandbox = true, scopes }: { sandbox?: boolean; scopes?: string } = {},
): Promise<Credential> {
  const args = ['partner:create', '--name', 'SDK test partner', ...(sandbox ? ['--sandbox'] : []), ...(scopes ? ['--scopes', scopes] : [])];
  const cli = runNode('dist/src/cli.js', args, env);
  let stdout = '';
  cli.child.stdout!.on('data', (chunk) => (stdout += chunk));
  const code = await cli.exit();
  if (code !== 0) throw new Error(`partner:create exited ${code}: ${cli.output()}`);
  return JSON.parse(stdout);
}

/** A sandbox client of the SDK for `credential` at `origin`. */
export function sandboxClient(origin: string, credential: Credential, options: Partial<PartnerClientOptions<'sandbox'>> = {}): PartnerClient<'sandbox'> {
  return new PartnerClient({ environment: 'sandbox', baseUrl: origin, clientId: credential.client_id, clientSecret: credential.client_secret, ...options });
}

/** A subscriber with an active audio plan and a novel finished through the API: one `novel.finished` event. */
export async function finishANovel(client: PartnerClient<'sandbox'>, subscriber: string): Promise<void> {
  await client.upsertEntitlement({ body: { subscriber_id: subscriber, product: 'audioapp', status: 'active', plan: 'audio_standard' } });
  const started_at = new Date(Date.now() - 30 * 86_400_000).toISOString();
  await client.openNovel({ path: { id: subscriber }, body: { novel_id: 'the-heir', started_at } });
  const { choices } = await client.getEndingsState({ path: { id: 'the-heir' }, query: { subscriber_id: subscriber } });
  await client.chooseEnding({ path: { id: 'the-heir' }, body: { subscriber_id: subscriber, choice_id: choices[0].choice_id } });
}

export interface Exchange {
  method: string;
  path: string;
  status: number;
  authorization: string | undefined;
  idempotencyKey: string | undefined;
  /** The service answered, and the proxy destroyed the connection instead of passing the answer on. */
  answerLost?: boolean;
  /** The service's answer was a stored one (`Idempotent-Replayed: true`). */
  replayed?: boolean;
}

/**
 * A forwarding proxy in front of the service, so a test sees every request the SDK sends
 * and every status it gets, and can switch the service behind it (`upstream`) or cut a
 * request's connection before it reaches the service (`dropNext`).
 */
export class RecordingProxy {
  readonly exchanges: Exchange[] = [];
  upstream: string;
  /** Requests (by method and path prefix) whose connection is destroyed unanswered, once each. */
  private readonly drops: { method: string; path: string }[] = [];
  /** Requests forwarded to the service, whose answer is then lost: the connection is destroyed instead, once each. */
  private readonly lostAnswers: { method: string; path: string }[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    upstream: string,
  ) {
    this.upstream = upstream;
  }

  static async start(upstream: string, port?: number): Promise<RecordingProxy> {
    const server = createServer();
    const proxy = new RecordingProxy(server, upstream);
    server.on('connection', (socket) => {
      proxy.sockets.add(socket);
      socket.on('close', () => proxy.sockets.delete(socket));
    });
    server.on('request', (request, response) => proxy.forward(request, response));
    await new Promise<void>((resolve) => server.listen(port ?? 0, '127.0.0.1', resolve));
    return proxy;
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  dropNext(method: string, path: string): void {
    this.drops.push({ method, path });
  }

  /** The next such request reaches the service, which does it; its answer never reaches the client (recorded with its status). */
  loseAnswerNext(method: string, path: string): void {
    this.lostAnswers.push({ method, path });
  }

  count(predicate: (exchange: Exchange) => boolean): number {
    return this.exchanges.filter(predicate).length;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private forward(request: IncomingMessage, response: ServerResponse): void {
    const path = request.url ?? '/';
    const drop = this.drops.findIndex((d) => d.method === request.method && path.startsWith(d.path));
    if (drop >= 0) {
      this.drops.splice(drop, 1);
      this.exchanges.push({ method: request.method!, path, status: 0, ...sentWith(request) });
      request.socket.destroy();
      return;
    }
    const lost = this.lostAnswers.findIndex((d) => d.method === request.method && path.startsWith(d.path));
    if (lost >= 0) this.lostAnswers.splice(lost, 1);
    const target = new URL(path, this.upstream);
    const outbound = httpRequest(target, { method: request.method, headers: { ...request.headers, host: target.host } }, (answer) => {
      this.exchanges.push({
        method: request.method!,
        path,
        status: answer.statusCode ?? 0,
        ...sentWith(request),
        ...(lost >= 0 ? { answerLost: true } : {}),
        replayed: answer.headers['idempotent-replayed'] === 'true',
      });
      if (lost >= 0) {
        answer.resume();
        answer.on('end', () => request.socket.destroy());
        return;
      }
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    outbound.on('error', () => {
      this.exchanges.push({ method: request.method!, path, status: 0, ...sentWith(request) });
      request.socket.destroy();
    });
    request.pipe(outbound);
  }
}

const sentWith = (request: IncomingMessage) => ({
  authorization: request.headers.authorization,
  idempotencyKey: request.headers['idempotency-key'] as string | undefined,
});

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `condition` holds, polling; fails after `timeoutMs` naming `what`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}
