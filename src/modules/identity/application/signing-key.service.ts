import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { AppConfig } from '../../../config/app-config.js';
import { ServerSecrets } from '../../../shared/crypto/server-secrets.js';
import { publishedKeysAt, retirementOfPredecessors, signingKeyAt, type KeySchedulePolicy } from '../domain/signing-key-schedule.js';
import { SigningKeyRepository, type StoredSigningKey } from '../domain/signing-key.repository.js';
import { ACCESS_TOKEN_LIFETIME_SECONDS, TOKEN_ISSUERS, type TokenIssuer } from '../domain/token-issuers.js';

/** How often a replica re-reads the key set, to learn of rotations made elsewhere. */
const KEY_REFRESH_SECONDS = 30;
/** An unknown `kid` triggers a re-read, but at most this often (forged kids cost nothing). */
const UNKNOWN_KID_RELOAD_MS = 1000;

interface LoadedKey extends StoredSigningKey {
  /** Parsed once per key: parsing it per verification cost more than the ECDSA check itself. */
  publicKey: KeyObject;
  privateKey?: KeyObject;
}

interface IssuerKeys {
  keys: LoadedKey[];
  loadedAt: number;
}

/**
 * The ES256 key pairs of both issuers: created on first start, persisted (private halves
 * sealed with a key derived from SERVER_SECRET), rotated by `keys:rotate`.
 */
@Injectable()
export class SigningKeyService implements OnApplicationBootstrap {
  private readonly cache = new Map<TokenIssuer, IssuerKeys>();
  private readonly loading = new Map<TokenIssuer, Promise<IssuerKeys>>();
  private readonly policy: KeySchedulePolicy;

  constructor(
    private readonly repository: SigningKeyRepository,
    private readonly secrets: ServerSecrets,
    @Inject(AppConfig) config: AppConfig,
  ) {
    this.policy = {
      tokenLifetimeSeconds: ACCESS_TOKEN_LIFETIME_SECONDS,
      activationDelaySeconds: config.keyActivationDelaySeconds,
      keyRefreshSeconds: KEY_REFRESH_SECONDS,
    };
  }

  /** At bootstrap, once the root secret to seal with is settled (ServerSecretGate, at module init). */
  async onApplicationBootstrap(): Promise<void> {
    for (const issuer of TOKEN_ISSUERS) await this.ensureFirstKey(issuer);
  }

  /** Seals every stored private key again with `reseal` (a root secret rotation); returns how many. */
  async resealAll(reseal: (sealed: string) => string): Promise<number> {
    const count = await this.repository.resealAll(reseal);
    this.cache.clear();
    return count;
  }

  /** The keys whose private half the writing root secret does not open: sealed under another (`secret:status`). */
  async sealedUnderOtherSecret(): Promise<{ kid: string; issuer: TokenIssuer; signsFrom: Date }[]> {
    const keys = (await Promise.all(TOKEN_ISSUERS.map((issuer) => this.repository.list(issuer)))).flat();
    return keys
      .filter((key) => !this.secrets.sealedWith(key.sealedPrivateKey, this.secrets.writingFingerprint))
      .map(({ kid, issuer, signsFrom }) => ({ kid, issuer, signsFrom }));
  }

  anySealedKey(): Promise<string | undefined> {
    return this.repository.anySealedKey();
  }

  /**
   * Publishes a new key now; it signs once the activation delay has passed, and the keys it
   * replaces are no longer published (their tokens refused everywhere) from `retires_older_at`.
   */
  async rotate(issuer: TokenIssuer): Promise<{ kid: string; signs_from: string; retires_older_at: string }> {
    const signsFrom = new Date(Date.now() + this.policy.activationDelaySeconds * 1000);
    const key = this.generate(issuer, signsFrom);
    await this.repository.insert(key);
    this.cache.delete(issuer);
    return { kid: key.kid, signs_from: signsFrom.toISOString(), retires_older_at: retirementOfPredecessors(signsFrom, this.policy).toISOString() };
  }

  async currentSigningKey(issuer: TokenIssuer): Promise<{ kid: string; privateKey: KeyObject }> {
    const key = signingKeyAt((await this.keys(issuer)).keys, new Date());
    if (!key) throw new Error(`No active signing key for issuer ${issuer}`);
    key.privateKey ??= createPrivateKey(this.secrets.unseal(key.sealedPrivateKey));
    return { kid: key.kid, privateKey: key.privateKey };
  }

  /** The public key for `kid`, if the issuer has published it. */
  async verificationKey(issuer: TokenIssuer, kid: string): Promise<KeyObject | undefined> {
    let entry = await this.keys(issuer);
    let key = entry.keys.find((k) => k.kid === kid);
    if (!key && Date.now() - entry.loadedAt > UNKNOWN_KID_RELOAD_MS) {
      entry = await this.keys(issuer, true);
      key = entry.keys.find((k) => k.kid === kid);
    }
    if (!key || !publishedKeysAt(entry.keys, new Date(), this.policy).includes(key)) return undefined;
    return key.publicKey;
  }

  async jwks(issuer: TokenIssuer): Promise<{ keys: Record<string, unknown>[] }> {
    const published = publishedKeysAt((await this.keys(issuer)).keys, new Date(), this.policy);
    return { keys: published.map((k) => k.publicJwk) };
  }

  private async ensureFirstKey(issuer: TokenIssuer): Promise<void> {
    if ((await this.repository.list(issuer)).length > 0) return;
    await this.repository.withIssuerLock(issuer, async () => {
      if ((await this.repository.list(issuer)).length > 0) return;
      await this.repository.insert(this.generate(issuer, new Date()));
    });
  }

  private keys(issuer: TokenIssuer, force = false): Promise<IssuerKeys> {
    const cached = this.cache.get(issuer);
    if (!force && cached && Date.now() - cached.loadedAt < KEY_REFRESH_SECONDS * 1000) {
      return Promise.resolve(cached);
    }
    // One load at a time per issuer, however many requests arrive meanwhile.
    let pending = this.loading.get(issuer);
    if (!pending) {
      pending = this.load(issuer).finally(() => this.loading.delete(issuer));
      this.loading.set(issuer, pending);
    }
    return pending;
  }

  private async load(issuer: TokenIssuer): Promise<IssuerKeys> {
    const previous = new Map(this.cache.get(issuer)?.keys.map((k) => [k.kid, k]));
    const keys = (await this.repository.list(issuer)).map(
      (stored): LoadedKey => previous.get(stored.kid) ?? { ...stored, publicKey: createPublicKey({ key: stored.publicJwk as never, format: 'jwk' }) },
    );
    const entry = { keys, loadedAt: Date.now() };
    this.cache.set(issuer, entry);
    return entry;
  }

  private generate(issuer: TokenIssuer, signsFrom: Date): StoredSigningKey {
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string; y: string };
    const kid = thumbprint(jwk);
    return {
      kid,
      issuer,
      publicJwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, kid, alg: 'ES256', use: 'sig' },
      sealedPrivateKey: this.secrets.seal(privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()),
      signsFrom,
    };
  }
}

/** RFC 7638 JWK thumbprint: a stable, collision-free key id. */
function thumbprint(jwk: { kty: string; crv: string; x: string; y: string }): string {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return createHash('sha256').update(canonical).digest('base64url');
}
