import { eventFeed, type EventFeedOptions } from './events.js';
import {
  GeneratedOperations,
  OPERATIONS,
  type OperationId,
  type OperationSpec,
  type PagedOperationId,
  type SandboxOnlyOperationId,
} from './generated/operations.js';
import { Transport, type RawInput } from './http.js';
import { DEFAULT_RETRY, type RetryEvent, type RetryOptions } from './retry.js';
import { TokenCache, type IssuedToken } from './tokens.js';
import type { ApiResponse, CallOptions, EnvInput, EnvOutput, Environment, PageItem, PartnerEvent } from './types.js';
import { SDK_VERSION } from './version.js';

export type { Environment } from './types.js';

type QueryOf<T> = T extends { query?: infer Q } ? NonNullable<Q> : never;
type FeedPage = EnvOutput<'live', 'readEventFeed'>;

export interface PartnerClientOptions<E extends Environment = Environment> {
  /** `sandbox` sends the reading operations to `/sandbox/v1`; `live` to `/v1`. Platform operations serve both, by the credential. */
  environment: E;
  /** The service's origin, such as `https://api.example.com` (the paths of the document follow it). */
  baseUrl: string;
  /** A credential of that environment (`sbx_…` for the sandbox, `live_…` for live). */
  clientId: string;
  clientSecret: string;
  /** Retry bounds (defaults: 4 retries, `Retry-After` honoured up to 60 s, backoff 0.5 s doubling to 10 s). */
  retry?: RetryOptions;
  /** Time limit of one attempt, in milliseconds (default 30 000). */
  timeoutMs?: number;
  /** Renew the token this long before it expires (default 60 s of its 600). */
  tokenRefreshMarginSeconds?: number;
  /** Told before every retry: log it to see 429s and outages. */
  onRetry?: (event: RetryEvent) => void;
  /** A fetch of your own (a proxy agent, instrumentation); default: the global fetch. */
  fetch?: typeof fetch;
  /** Milliseconds since the epoch (default Date.now): when cached tokens are renewed. */
  clock?: () => number;
  /** Appended to the User-Agent header, such as `my-company-billing/2.1`. */
  userAgent?: string;
  /** The client holds your client secret: it refuses to run in a browser unless this is true (tests in jsdom, say). */
  allowBrowser?: boolean;
}

/**
 * The service for one environment and one credential. Every operation of the OpenAPI
 * document is a method named by its `operationId` (`listNovels`, `openNovel`,
 * `getStreamUrl`…), taking `{path, query, body}` as the document describes them and
 * resolving with the success answer's body, or rejecting with an `ApiError`
 * (`error`, `errorDescription`, `status`, `requestId`) or a `ConnectionError`.
 *
 * Tokens are fetched, cached and renewed before expiry, one request at a time; 429 and 503
 * are retried after `Retry-After`; network failures are retried for idempotent methods.
 */
class PartnerClientImplementation<E extends Environment = Environment> extends GeneratedOperations<E> {
  readonly environment: E;
  readonly baseUrl: string;
  private readonly transport: Transport;
  private readonly platformTokens: TokenCache;
  private readonly kidsTokens: TokenCache;
  private readonly basic: string;

  constructor(options: PartnerClientOptions<E>) {
    super();
    if (!options.allowBrowser && typeof (globalThis as { document?: unknown }).document !== 'undefined') {
      throw new Error('PartnerClient holds your client secret: run it on your servers, never in a browser (or pass allowBrowser: true in a test).');
    }
    if (options.environment !== 'live' && options.environment !== 'sandbox')
      throw new TypeError(`environment must be 'live' or 'sandbox', not ${JSON.stringify(options.environment)}`);
    if (!options.baseUrl) throw new TypeError('baseUrl is required: the service origin, such as https://api.example.com');
    if (!options.clientId || !options.clientSecret) throw new TypeError('clientId and clientSecret are required');
    const other = options.environment === 'live' ? 'sbx_' : 'live_';
    if (options.clientId.startsWith(other)) {
      throw new TypeError(
        `client id ${options.clientId} is a ${options.environment === 'live' ? 'sandbox' : 'live'} credential: create the client with environment '${options.environment === 'live' ? 'sandbox' : 'live'}'`,
      );
    }
    this.environment = options.environment;
    this.baseUrl = new URL(options.baseUrl).toString().replace(/\/+$/, '');
    // btoa, not Buffer, so that the client runs on edge runtimes too; the encoded id and secret are ASCII.
    this.basic = `Basic ${btoa(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`)}`;
    const clock = options.clock ?? Date.now;
    const marginMs = (options.tokenRefreshMarginSeconds ?? 60) * 1000;
    this.platformTokens = new TokenCache(
      () => this.send('issuePlatformToken', { body: { grant_type: 'client_credentials' } }, { idempotent: true }).then((answer) => answer.data as IssuedToken),
      clock,
      marginMs,
    );
    this.kidsTokens = new TokenCache(
      () =>
        this.send('issueKidsToken', { body: { grant_type: 'client_credentials', scope: 'kidsapp:engagement:read' } }, { idempotent: true }).then(
          (answer) => answer.data as IssuedToken,
        ),
      clock,
      marginMs,
    );
    this.transport = new Transport({
      baseUrl: this.baseUrl,
      fetch: options.fetch ?? ((input, init) => fetch(input, init)),
      clock,
      timeoutMs: options.timeoutMs ?? 30_000,
      retry: { ...DEFAULT_RETRY, ...options.retry },
      userAgent: `partner-reading-sdk/${SDK_VERSION} ${runtime()}${options.userAgent ? ` ${options.userAgent}` : ''}`,
      onRetry: options.onRetry,
      authorization: async (auth) => {
        if (auth === 'basic') return this.basic;
        if (auth === 'platform') return `Bearer ${await this.platformTokens.get()}`;
        if (auth === 'kids') return `Bearer ${await this.kidsTokens.get()}`;
        return undefined;
      },
      refused: (auth, authorization) => (auth === 'kids' ? this.kidsTokens : this.platformTokens).invalidate(authorization.slice('Bearer '.length)),
    });
  }

  /** Sends an operation by its operationId and resolves with the answer's body. */
  override async call<K extends OperationId>(operationId: K, input?: EnvInput<E, K>, options?: CallOptions): Promise<EnvOutput<E, K>> {
    return (await this.send(operationId, input, options)).data as EnvOutput<E, K>;
  }

  /** Sends an operation by its operationId and resolves with the body, status, headers and `x-request-id`. */
  async request<K extends OperationId>(operationId: K, input?: EnvInput<E, K>, options?: CallOptions): Promise<ApiResponse<EnvOutput<E, K>>> {
    return (await this.send(operationId, input, options)) as ApiResponse<EnvOutput<E, K>>;
  }

  /** The current platform access token (cached, renewed as needed), for a request the SDK does not make itself. */
  accessToken(): Promise<string> {
    return this.platformTokens.get();
  }

  /**
   * Every item of a paged list, page after page (`page_size` 100 unless the input sets it),
   * each once even if the list shifts while it is read:
   * `for await (const novel of client.paginate('listNovels', { query: { has_audio: 'true' } }))`.
   */
  async *paginate<K extends PagedOperationId>(operationId: K, input?: EnvInput<E, K>, options?: CallOptions): AsyncGenerator<PageItem<K, E>, void, undefined> {
    const base = input as { query?: Record<string, unknown> } | undefined;
    const query = { ...base?.query };
    let page = Number(query.page ?? 1);
    const pageSize = Number(query.page_size ?? 100);
    const seen = new Set<unknown>();
    for (;;) {
      const answer = (await this.send(operationId, { ...base, query: { ...query, page, page_size: pageSize } }, options)).data as {
        data: PageItem<K, E>[];
        page_size: number;
        total: number;
      };
      for (const item of answer.data) {
        const id = (item as { id?: unknown }).id;
        if (id !== undefined && seen.has(id)) continue;
        if (id !== undefined) seen.add(id);
        yield item;
      }
      if (answer.data.length === 0 || page * answer.page_size >= answer.total) return;
      page += 1;
    }
  }

  /** Every novel of the catalog matching the filters (`listNovels`, page after page). */
  novels(
    query?: Omit<QueryOf<EnvInput<E, 'listNovels'>>, 'page' | 'page_size'>,
    options?: CallOptions,
  ): AsyncGenerator<PageItem<'listNovels', E>, void, undefined> {
    return this.paginate('listNovels', { query } as unknown as EnvInput<E, 'listNovels'>, options);
  }

  /**
   * The event feed (`readEventFeed`) as an async iterator, in `seq` order, with long polling:
   * never a gap, never a duplicate, resumed from `after` or a `checkpoint`, retried across
   * outages. `for await (const event of client.events({ checkpoint: fileCheckpoint('feed.seq') }))`.
   */
  events(options?: EventFeedOptions): AsyncGenerator<PartnerEvent, void, undefined> {
    return eventFeed((query, callOptions) => this.send('readEventFeed', { query }, callOptions).then((answer) => answer.data as FeedPage), options);
  }

  /** Sends an operation, untyped: what the typed methods and the iterators share. */
  private send(operationId: OperationId, input: unknown, options?: CallOptions): Promise<ApiResponse<unknown>> {
    const [sentAs, spec] = this.route(operationId);
    return this.transport.send(sentAs, spec, input as RawInput | undefined, options);
  }

  /** The operation actually sent: a sandbox client sends live reading operations to their sandbox twins. */
  private route(operationId: OperationId): [string, OperationSpec] {
    const spec: OperationSpec | undefined = OPERATIONS[operationId];
    if (!spec) throw new TypeError(`unknown operation ${String(operationId)}`);
    if (this.environment === 'sandbox' && spec.sandboxTwin) return [spec.sandboxTwin, OPERATIONS[spec.sandboxTwin as OperationId]];
    if (this.environment === 'live' && spec.sandboxOnly) {
      throw new TypeError(`${operationId} is a sandbox operation: call it on a client created with environment 'sandbox'`);
    }
    return [operationId, spec];
  }
}

/**
 * A client of environment `E`. The sandbox-only operations (test clocks, the `sandbox…`
 * twins) are methods of a sandbox client's type only: on a live client, or one whose
 * environment is not known when compiling, calling them (or naming them to `call`,
 * `request` and `paginate`) does not compile.
 */
export type PartnerClient<E extends Environment = Environment> = [E] extends ['sandbox']
  ? PartnerClientImplementation<E>
  : Omit<PartnerClientImplementation<E>, SandboxOnlyOperationId | 'call' | 'request' | 'paginate'> & LiveGenericCalls<E>;

/** `call`, `request` and `paginate` of a client that may be live: any operation but the sandbox-only ones. */
interface LiveGenericCalls<E extends Environment> {
  paginate<K extends Exclude<PagedOperationId, SandboxOnlyOperationId>>(
    operationId: K,
    input?: EnvInput<E, K>,
    options?: CallOptions,
  ): AsyncGenerator<PageItem<K, E>, void, undefined>;
  call<K extends Exclude<OperationId, SandboxOnlyOperationId>>(operationId: K, input?: EnvInput<E, K>, options?: CallOptions): Promise<EnvOutput<E, K>>;
  request<K extends Exclude<OperationId, SandboxOnlyOperationId>>(
    operationId: K,
    input?: EnvInput<E, K>,
    options?: CallOptions,
  ): Promise<ApiResponse<EnvOutput<E, K>>>;
}

export interface PartnerClientConstructor {
  /** The client's type follows `environment`: `new PartnerClient({ environment: 'sandbox', … })` is a `PartnerClient<'sandbox'>`. */
  new <E extends Environment>(options: PartnerClientOptions<E>): PartnerClient<E>;
  readonly prototype: PartnerClientImplementation;
}

export const PartnerClient: PartnerClientConstructor = PartnerClientImplementation;

/** The runtime named in the User-Agent: Node's version, or `edge` elsewhere. */
function runtime(): string {
  const node = (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node;
  return node ? `node/${node}` : 'edge';
}
