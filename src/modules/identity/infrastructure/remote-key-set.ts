import { createPublicKey, type KeyObject } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { JWKS_MAX_AGE_SECONDS } from '../domain/token-issuers.js';

/** An unknown `kid` refetches the set at most once in this long (DECISIONS 3). */
export const UNKNOWN_KID_REFETCH_INTERVAL_MS = 30_000;
const FETCH_TIMEOUT_MS = 5_000;
/** A published set is small; a larger answer is not a key set, and is not read whole. */
const MAX_KEY_SET_BYTES = 256 * 1024;

interface KeySet {
  keys: ReadonlyMap<string, KeyObject>;
  fetchedAt: number;
  maxAgeMs: number;
}

export interface RemoteKeySetOptions {
  now?: () => number;
  refetchIntervalMs?: number;
}

/**
 * The platform's public keys read from its key set URL (DECISIONS 3, ADR 0004). The whole
 * last set is kept: a `kid` it lists is answered from memory until the set's max-age has
 * passed, and then from a fresh fetch. A `kid` it does not list may cause one refetch, at
 * most once every 30 s per process: a stranger sending made-up `kid`s can neither evict a
 * genuine key (the set is only ever replaced by a later set) nor use up the fetch a
 * genuine new key needs beyond that interval. A set that cannot be refreshed keeps serving
 * its keys (logged); only a process that has never fetched one answers 503.
 */
export class RemoteKeySet {
  private readonly logger = new Logger('PlatformKeySet');
  private readonly now: () => number;
  private readonly refetchIntervalMs: number;
  private current?: KeySet;
  private lastFetchAt = -Infinity;
  private fetching?: Promise<KeySet>;

  constructor(
    private readonly url: string,
    options: RemoteKeySetOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.refetchIntervalMs = options.refetchIntervalMs ?? UNKNOWN_KID_REFETCH_INTERVAL_MS;
  }

  /** The key published under `kid`, or undefined when the platform does not publish it. */
  async key(kid: string): Promise<KeyObject | undefined> {
    let set = this.current ?? (await this.fetchShared());
    if (this.now() - set.fetchedAt >= set.maxAgeMs) set = await this.refreshOrKeep(set);
    const key = set.keys.get(kid);
    if (key || this.now() - this.lastFetchAt < this.refetchIntervalMs) return key;
    return (await this.refreshOrKeep(set)).keys.get(kid);
  }

  private async refreshOrKeep(stale: KeySet): Promise<KeySet> {
    try {
      return await this.fetchShared();
    } catch (error) {
      this.logger.warn({ url: this.url, err: (error as Error).message }, 'platform key set not refreshed; keeping the last one');
      // Tried again after the refetch interval, not on every request while the platform is down.
      return (this.current = { ...stale, fetchedAt: this.now() - stale.maxAgeMs + this.refetchIntervalMs });
    }
  }

  /** One fetch at a time, whoever asks; its time counts against the refetch interval even when it fails. */
  private fetchShared(): Promise<KeySet> {
    if (!this.fetching) {
      this.lastFetchAt = this.now();
      this.fetching = this.fetchSet()
        .then((set) => (this.current = set))
        .finally(() => (this.fetching = undefined));
    }
    return this.fetching;
  }

  private async fetchSet(): Promise<KeySet> {
    let body: unknown;
    let cacheControl: string | null;
    try {
      const response = await fetch(this.url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'error' });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      cacheControl = response.headers.get('cache-control');
      const text = await response.text();
      if (text.length > MAX_KEY_SET_BYTES) throw new Error('the key set is larger than 256 KiB');
      body = JSON.parse(text);
    } catch (error) {
      this.logger.warn({ url: this.url, err: (error as Error).message }, 'platform key set unreachable');
      throw new DomainError('temporarily_unavailable', "The service cannot fetch the token issuer's public keys. Retry shortly.", { retryAfterSeconds: 5 });
    }
    return { keys: es256Keys(body), fetchedAt: this.now(), maxAgeMs: maxAgeMs(cacheControl) };
  }
}

/** The set's ES256 (P-256) signing keys by `kid`; anything else it lists cannot verify our tokens. */
function es256Keys(body: unknown): Map<string, KeyObject> {
  const keys = new Map<string, KeyObject>();
  const listed = (body as { keys?: unknown } | null)?.keys;
  for (const jwk of Array.isArray(listed) ? listed : []) {
    const { kid, kty, crv, use, alg } = (jwk ?? {}) as Record<string, unknown>;
    if (typeof kid !== 'string' || kty !== 'EC' || crv !== 'P-256' || (use ?? 'sig') !== 'sig' || (alg ?? 'ES256') !== 'ES256') continue;
    try {
      keys.set(kid, createPublicKey({ key: jwk as never, format: 'jwk' }));
    } catch {
      // A malformed entry is skipped, not allowed to hide the set's other keys.
    }
  }
  return keys;
}

/** The set's `max-age`, bounded to what the platform publishes at most; no header, the platform's default. */
function maxAgeMs(cacheControl: string | null): number {
  const match = /(?:^|,)\s*max-age=(\d+)/i.exec(cacheControl ?? '');
  const seconds = match ? Math.min(Number(match[1]), JWKS_MAX_AGE_SECONDS) : JWKS_MAX_AGE_SECONDS;
  return seconds * 1000;
}
