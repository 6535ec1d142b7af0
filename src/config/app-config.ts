import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { ConfigError } from './config-error.js';
import { readOrCreateSecretFile, withFileVariables } from './secret-file.js';

/** Connections of a process's PostgreSQL pool unless DATABASE_POOL_SIZE says otherwise. */
export const DEFAULT_POOL_SIZE = 20;

export const SURFACES = ['platform', 'reading', 'sandbox', 'kids'] as const;
export type Surface = (typeof SURFACES)[number];

export type StorageBackend = 'local' | 's3';

/** Time a client has to send a whole request, headers and body (not configurable). */
export const HTTP_REQUEST_TIMEOUT_MS = 30_000;

/** How long an idle kept-alive connection stays open; a drain waits for such connections to close. */
export const HTTP_KEEP_ALIVE_TIMEOUT_MS = 72_000;

/**
 * Which proxies' `X-Forwarded-For` is believed (Fastify's `trustProxy`): none, the nearest
 * N hops within the private ranges, or the proxies at these addresses and CIDR ranges.
 */
export type TrustedProxies = false | number | string[];

export interface S3Settings {
  endpoint?: string;
  /**
   * The origin players reach the store by, when it differs from the one the service uses
   * (a store on an internal network name): stream URLs are signed for this host.
   */
  publicEndpoint?: string;
  bucket: string;
  region: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
}

/**
 * The service's whole configuration, read once from the environment (DECISIONS 21).
 * Every other part of the service receives this object; nothing else reads process.env.
 */
export class AppConfig {
  readonly port: number;
  readonly host: string;
  readonly publicBaseUrl: string;
  readonly databaseUrl?: string;
  /** A streaming standby for the reads that tolerate seconds of lag (reports); unset, they use the primary. */
  readonly databaseReadUrl?: string;
  /** Connections this process's pool may open to PostgreSQL (each replica holds its own pool). */
  readonly databasePoolSize: number;
  readonly dataDir: string;
  readonly services: ReadonlySet<Surface>;
  readonly storage: StorageBackend;
  readonly s3?: S3Settings;
  readonly streamUrlTtlSeconds: number;
  readonly webhookRetryScheduleSeconds: readonly number[];
  /** Whether live endpoints may also use http, any port and non-public addresses (sandbox ones always may use http and loopback). */
  readonly webhookAllowInsecureUrls: boolean;
  /** Delivery attempts one worker keeps in flight at once. */
  readonly webhookConcurrency: number;
  /** Delivery attempts in flight at once for one partner and environment, across every replica. */
  readonly webhookPartnerConcurrency: number;
  /** Whether this process runs the webhook delivery worker (when it also mounts the platform). */
  readonly webhookWorkerEnabled: boolean;
  /** How often an idle delivery worker looks for due deliveries. */
  readonly webhookPollIntervalMs: number;
  /** Time limit of one delivery attempt, from connecting to the response's status. */
  readonly webhookTimeoutMs: number;
  /** Time a client has to send a request's whole header block, from connecting (slow-loris). */
  readonly httpHeadersTimeoutMs: number;
  readonly rateLimitRps: number;
  readonly rateLimitBurst: number;
  /** Failed token requests allowed per (client id, source address) per minute, also the burst. */
  readonly tokenFailuresPerMinute: number;
  /** Requests that fail authentication (401) allowed per source address, per replica. */
  readonly unauthenticatedRps: number;
  readonly unauthenticatedBurst: number;
  /** Whose `X-Forwarded-For` gives a request's source address. */
  readonly trustProxy: TrustedProxies;
  readonly nodeEnv: string;
  readonly logLevel: string;
  /** Delay between publishing a new signing key and signing with it (DECISIONS 3). */
  readonly keyActivationDelaySeconds: number;
  /**
   * How long a credential's status is trusted from memory. A revocation through the service
   * reaches every replica at commit (NOTIFY); this bounds one made by hand in SQL.
   */
  readonly credentialCacheSeconds: number;
  /**
   * The platform's key set (`{platform_url}/jwks`), for a reading or kids process deployed
   * apart from the platform; unset, platform tokens are verified with the keys in the database.
   */
  readonly platformJwksUrl?: string;
  /**
   * Where /metrics is served: null on the service's own port (never in production), a
   * port number for a separate listener (kept off the partner-facing port), or 'off'.
   */
  readonly metricsPort: number | 'off' | null;
  /**
   * Seconds between SIGTERM and the drain during which the process keeps serving but
   * readiness answers 503, so that a load balancer deregisters it first (a pre-stop delay).
   */
  readonly shutdownDelaySeconds: number;
  /** Days reading activity is kept; a month's partition is dropped once all of it is older (ADR 0100). */
  readonly activityRetentionDays: number;
  /** Days the stream URL audit log is kept, dropped by whole months like reading activity. */
  readonly streamAuditRetentionDays: number;
  /** Root secret: the secret pepper, the media URL key and the key-encryption key derive from it. */
  readonly serverSecret: Buffer;
  /** The root secret being rotated away from (SERVER_SECRET_PREVIOUS): still read, until `secret:rotate` moved everything off it. */
  readonly serverSecretPrevious?: Buffer;

  constructor(values: Omit<AppConfig, 'isProduction' | 'mounts'>) {
    Object.assign(this, values);
  }

  get isProduction(): boolean {
    return this.nodeEnv === 'production';
  }

  mounts(surface: Surface): boolean {
    return this.services.has(surface);
  }
}

// In a file of its own so that the readers of files (secret-file.ts) throw it without a cycle.
export { ConfigError } from './config-error.js';

type Env = Record<string, string | undefined>;

/** Variables that may instead be read from the file `<NAME>_FILE` names (a mounted secret). */
export const FILE_VARIABLES = ['SERVER_SECRET', 'SERVER_SECRET_PREVIOUS', 'DATABASE_URL', 'DATABASE_READ_URL'] as const;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(environment: Env = process.env): AppConfig {
  const env = withFileVariables(environment, FILE_VARIABLES);
  const nodeEnv = env.NODE_ENV?.trim() || 'development';
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const dataDir = resolve(env.DATA_DIR?.trim() || './data');
  const storage = oneOf(env, 'STORAGE', ['local', 's3'] as const, 'local');
  const isProduction = nodeEnv === 'production';
  return new AppConfig({
    port,
    host: env.HOST?.trim() || '0.0.0.0',
    publicBaseUrl: publicBaseUrl(env, port, isProduction),
    databaseUrl: postgresUrl(env, 'DATABASE_URL'),
    databaseReadUrl: postgresUrl(env, 'DATABASE_READ_URL'),
    // Two at least: the migration lock holds one connection while the migrations use another.
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', DEFAULT_POOL_SIZE, 2, 1000),
    dataDir,
    services: surfaces(env),
    storage,
    s3: storage === 's3' ? s3Settings(env) : undefined,
    streamUrlTtlSeconds: integer(env, 'STREAM_URL_TTL_SECONDS', 1200, 1, 86400),
    webhookRetryScheduleSeconds: retrySchedule(env),
    // Secure in every environment: a development default would carry into a deployment that forgot NODE_ENV.
    webhookAllowInsecureUrls: boolean(env, 'WEBHOOK_ALLOW_INSECURE_URLS', false),
    webhookConcurrency: integer(env, 'WEBHOOK_CONCURRENCY', 64, 1, 1000),
    webhookPartnerConcurrency: integer(env, 'WEBHOOK_PARTNER_CONCURRENCY', 4, 1, 1000),
    webhookWorkerEnabled: boolean(env, 'WEBHOOK_WORKER', true),
    webhookPollIntervalMs: integer(env, 'WEBHOOK_POLL_INTERVAL_MS', 250, 10, 60_000),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    // At most the time allowed for a whole request, which would otherwise end it first.
    httpHeadersTimeoutMs: integer(env, 'HTTP_HEADERS_TIMEOUT_MS', 10_000, 100, HTTP_REQUEST_TIMEOUT_MS),
    rateLimitRps: integer(env, 'RATE_LIMIT_RPS', 50, 1, 1_000_000),
    rateLimitBurst: integer(env, 'RATE_LIMIT_BURST', 100, 1, 1_000_000),
    tokenFailuresPerMinute: integer(env, 'TOKEN_FAILURES_PER_MINUTE', 10, 1, 1_000_000),
    unauthenticatedRps: integer(env, 'UNAUTHENTICATED_RPS', 20, 1, 1_000_000),
    unauthenticatedBurst: integer(env, 'UNAUTHENTICATED_BURST', 100, 1, 1_000_000),
    trustProxy: trustedProxies(env, isProduction),
    nodeEnv,
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    keyActivationDelaySeconds: keyActivationDelay(env, isProduction),
    credentialCacheSeconds: integer(env, 'CREDENTIAL_CACHE_SECONDS', 60, 0, 3600),
    platformJwksUrl: httpsInProduction(env, 'PLATFORM_JWKS_URL', isProduction),
    activityRetentionDays: integer(env, 'ACTIVITY_RETENTION_DAYS', 400, 1, 36_500),
    streamAuditRetentionDays: integer(env, 'STREAM_AUDIT_RETENTION_DAYS', 400, 1, 36_500),
    serverSecret: serverSecret(env, dataDir, isProduction),
    serverSecretPrevious: previousServerSecret(env, isProduction),
    metricsPort: metricsPort(env, port, isProduction),
    shutdownDelaySeconds: integer(env, 'SHUTDOWN_DELAY_SECONDS', 0, 0, 300),
  });
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!allowed.includes(raw as T)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function origin(env: Env, name: string, fallback: string): string {
  return httpUrl(env, name)?.replace(/\/+$/, '') ?? fallback;
}

/**
 * The origin partners reach the service by: it names the token issuers and starts every
 * stream URL. In production it must be set, and https, or tokens and URLs would silently
 * name localhost (DECISIONS 21).
 */
function publicBaseUrl(env: Env, port: number, isProduction: boolean): string {
  if (!isProduction) return origin(env, 'PUBLIC_BASE_URL', `http://localhost:${port}`);
  if (!env.PUBLIC_BASE_URL?.trim())
    throw new ConfigError('PUBLIC_BASE_URL is required when NODE_ENV=production (the https origin partners call, e.g. https://api.example.com)');
  const url = origin(env, 'PUBLIC_BASE_URL', '');
  if (!url.startsWith('https:')) throw new ConfigError(`PUBLIC_BASE_URL must be an https URL when NODE_ENV=production, got "${url}"`);
  return url;
}

function httpUrl(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an absolute http(s) URL, got "${raw}"`);
  }
  return raw;
}

/** A URL whose answers the service trusts (keys): https in production, where the path to it may cross a network. */
function httpsInProduction(env: Env, name: string, isProduction: boolean): string | undefined {
  const url = httpUrl(env, name);
  if (url && isProduction && !url.startsWith('https:')) throw new ConfigError(`${name} must be an https URL when NODE_ENV=production, got "${url}"`);
  return url;
}

function postgresUrl(env: Env, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  if (!/^postgres(ql)?:\/\//.test(raw)) {
    throw new ConfigError(`${name} must be a postgres:// connection string`);
  }
  return raw;
}

function surfaces(env: Env): ReadonlySet<Surface> {
  const raw = env.SERVICES?.trim();
  if (!raw) return new Set(SURFACES);
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !SURFACES.includes(n as Surface));
  if (unknown.length > 0 || names.length === 0) {
    throw new ConfigError(`SERVICES must list some of ${SURFACES.join(', ')}, got "${raw}"`);
  }
  return new Set(names as Surface[]);
}

/**
 * The shortest KEY_ACTIVATION_DELAY_SECONDS production takes: ten times the 30 s a verifier
 * deployed apart waits between refetches of the platform key set on an unknown kid
 * (UNKNOWN_KID_REFETCH_INTERVAL_MS). With less, forged kids that spend the refetch made a
 * split verifier refuse genuine tokens of a key that began signing before it was fetched.
 */
export const MIN_PRODUCTION_KEY_ACTIVATION_DELAY_SECONDS = 300;

function keyActivationDelay(env: Env, isProduction: boolean): number {
  const delay = integer(env, 'KEY_ACTIVATION_DELAY_SECONDS', 600, 0, 86400);
  if (isProduction && delay < MIN_PRODUCTION_KEY_ACTIVATION_DELAY_SECONDS) {
    throw new ConfigError(
      `KEY_ACTIVATION_DELAY_SECONDS must be at least ${MIN_PRODUCTION_KEY_ACTIVATION_DELAY_SECONDS} when NODE_ENV=production (ten times the 30 s key set refetch interval), got "${delay}"`,
    );
  }
  return delay;
}

const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * `false` (default), a hop count, or a comma-separated list of addresses, CIDRs and range
 * names. `true` once meant "every hop", which takes the entry the client wrote: it now names
 * the proxies' own networks (a list), and production refuses it so that the operator names
 * its proxies (docs/limits.md).
 */
function trustedProxies(env: Env, isProduction: boolean): TrustedProxies {
  const raw = env.TRUST_PROXY?.trim();
  if (!raw || raw === 'false') return false;
  if (raw === 'true') {
    if (isProduction) {
      throw new ConfigError(
        'TRUST_PROXY=true is refused when NODE_ENV=production: name the proxies (addresses, CIDR ranges, loopback, linklocal, uniquelocal) or give their number',
      );
    }
    return [...PROXY_RANGE_NAMES];
  }
  if (/^\d+$/.test(raw)) return integer(env, 'TRUST_PROXY', 0, 1, 100);
  const entries = raw.split(',').map((entry) => entry.trim());
  const invalid = entries.find((entry) => !PROXY_RANGE_NAMES.includes(entry) && !isAddressOrCidr(entry));
  if (invalid !== undefined) {
    throw new ConfigError(
      `TRUST_PROXY must be true, false, a hop count, or addresses and CIDR ranges separated by commas (or loopback, linklocal, uniquelocal), got "${invalid}"`,
    );
  }
  return entries;
}

function isAddressOrCidr(entry: string): boolean {
  const [address, prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128));
}

function retrySchedule(env: Env): number[] {
  const raw = env.WEBHOOK_RETRY_SCHEDULE?.trim() || '0,5,300,1800,7200,18000,36000,36000';
  const parts = raw.split(',').map((s) => s.trim());
  if (parts.length === 0 || parts.some((p) => !/^\d+(\.\d+)?$/.test(p))) {
    throw new ConfigError(`WEBHOOK_RETRY_SCHEDULE must be comma-separated seconds such as 0,5,300, got "${raw}"`);
  }
  return parts.map(Number);
}

/** Unset: on the service port, except in production, where the partner-facing port never serves it (DECISIONS 21). */
function metricsPort(env: Env, servicePort: number, isProduction: boolean): number | 'off' | null {
  const raw = env.METRICS_PORT?.trim().toLowerCase();
  if (!raw) return isProduction ? 'off' : null;
  if (raw === 'off') return 'off';
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port < 1 || port > 65535) throw new ConfigError(`METRICS_PORT must be a port from 1 to 65535 or off, got "${env.METRICS_PORT}"`);
  if (port === servicePort) throw new ConfigError(`METRICS_PORT must differ from PORT (${servicePort}); leave it unset to serve /metrics on PORT`);
  return port;
}

function s3Settings(env: Env): S3Settings {
  const bucket = env.S3_BUCKET?.trim();
  if (!bucket) throw new ConfigError('S3_BUCKET is required when STORAGE=s3');
  return {
    endpoint: env.S3_ENDPOINT?.trim() ? origin(env, 'S3_ENDPOINT', '') : undefined,
    publicEndpoint: env.S3_PUBLIC_ENDPOINT?.trim() ? origin(env, 'S3_PUBLIC_ENDPOINT', '') : undefined,
    bucket,
    region: env.S3_REGION?.trim() || 'us-east-1',
    accessKeyId: env.S3_ACCESS_KEY_ID?.trim() || undefined,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY?.trim() || undefined,
    forcePathStyle: boolean(env, 'S3_FORCE_PATH_STYLE', true),
  };
}

/**
 * SERVER_SECRET is required in production so that every replica shares it. Elsewhere a
 * random one is created on first start under DATA_DIR and reused, so `npm start` needs
 * no setup.
 */
function serverSecret(env: Env, dataDir: string, isProduction: boolean): Buffer {
  const raw = env.SERVER_SECRET?.trim();
  if (raw) {
    if (raw.length < 32) throw new ConfigError('SERVER_SECRET must be at least 32 characters');
    const weakness = isProduction ? secretWeakness(raw) : undefined;
    if (weakness) throw new ConfigError(`SERVER_SECRET is too guessable for production: ${weakness}; use e.g. openssl rand -base64 32`);
    return Buffer.from(raw, 'utf8');
  }
  if (isProduction) throw new ConfigError('SERVER_SECRET is required when NODE_ENV=production');
  return Buffer.from(readOrCreateSecretFile(join(dataDir, 'server-secret')), 'utf8');
}

/** SERVER_SECRET_PREVIOUS, held to the same rules as SERVER_SECRET, and never equal to it. */
function previousServerSecret(env: Env, isProduction: boolean): Buffer | undefined {
  const raw = env.SERVER_SECRET_PREVIOUS?.trim();
  if (!raw) return undefined;
  if (raw.length < 32) throw new ConfigError('SERVER_SECRET_PREVIOUS must be at least 32 characters');
  const weakness = isProduction ? secretWeakness(raw) : undefined;
  if (weakness) throw new ConfigError(`SERVER_SECRET_PREVIOUS is too guessable for production: ${weakness}`);
  if (raw === env.SERVER_SECRET?.trim())
    throw new ConfigError('SERVER_SECRET_PREVIOUS must differ from SERVER_SECRET (it names the secret being rotated away from)');
  return Buffer.from(raw, 'utf8');
}

/** Fewer distinct characters than this means a typed pattern, not random material (hex has 16). */
const MIN_DISTINCT_SECRET_CHARACTERS = 10;

/**
 * Why a long secret is still weak: few distinct characters ("aaaa…", "abab…") or one short
 * piece repeated ("changeme-changeme-…"). Random material from any generator passes.
 */
export function secretWeakness(secret: string): string | undefined {
  const distinct = new Set(secret).size;
  if (distinct < MIN_DISTINCT_SECRET_CHARACTERS) return `only ${distinct} distinct characters`;
  const period = shortestPeriod(secret);
  if (period <= secret.length / 2) return `a ${period}-character pattern repeated`;
  return undefined;
}

/** The length of the shortest prefix whose repetition yields the string (prefix function). */
function shortestPeriod(text: string): number {
  const border = new Array<number>(text.length).fill(0);
  for (let i = 1; i < text.length; i++) {
    let k = border[i - 1];
    while (k > 0 && text[i] !== text[k]) k = border[k - 1];
    border[i] = text[i] === text[k] ? k + 1 : k;
  }
  return text.length - border[text.length - 1];
}
