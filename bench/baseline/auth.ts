import {
  createDecipheriv,
  createHmac,
  createPrivateKey,
  createPublicKey,
  hkdfSync,
  randomUUID,
  sign,
  timingSafeEqual,
  verify,
  type KeyObject,
} from 'node:crypto';
import type pg from 'pg';
import { CREDENTIAL, RATE_LIMIT_LEVEL, SIGNING_KEYS } from './sql.js';

/**
 * Tokens for the baseline, with node:crypto only: it verifies the service's ES256 tokens
 * once and then trusts a cached lookup (as the service does), checks revocation against a
 * 5-second cache, and issues tokens with the same keys, claims and header as the service.
 */
export interface Principal {
  clientId: string;
  partnerId: string;
  environment: string;
  scopes: ReadonlySet<string>;
  expiresAt: number;
}

interface SigningKey {
  kid: string;
  publicKey: KeyObject;
  privateKey: KeyObject;
  signsFrom: number;
}

const CLOCK_SKEW_SECONDS = 30;
const TOKEN_LIFETIME_SECONDS = 600;
/** The service's default CREDENTIAL_CACHE_SECONDS (revocations also reach it by NOTIFY, which the bench never sends). */
const CREDENTIAL_CACHE_MS = 60_000;
/** The service's default TOKEN_FAILURES_PER_MINUTE. */
const TOKEN_FAILURES_PER_MINUTE = 10;

export class Tokens {
  private keys: SigningKey[] = [];
  private readonly verified = new Map<string, Principal>();
  private readonly active = new Map<string, { active: boolean; at: number }>();
  private readonly pepper: Buffer;
  private readonly sealingKey: Buffer;
  private readonly issuer: string;

  constructor(
    private readonly pool: pg.Pool,
    serverSecret: string,
    private readonly audience: string,
  ) {
    const secret = Buffer.from(serverSecret, 'utf8');
    this.pepper = derive(secret, 'credential-secret-pepper');
    this.sealingKey = derive(secret, 'private-key-sealing');
    this.issuer = `${audience}/platform/v1`;
  }

  async loadKeys(): Promise<void> {
    const { rows } = await this.pool.query<{ kid: string; public_jwk: Record<string, unknown>; sealed_private_key: string; signs_from: Date }>(SIGNING_KEYS, [
      'platform',
    ]);
    this.keys = rows
      .map((row) => ({
        kid: row.kid,
        publicKey: createPublicKey({ key: row.public_jwk as never, format: 'jwk' }),
        privateKey: createPrivateKey(this.unseal(row.sealed_private_key)),
        signsFrom: row.signs_from.getTime(),
      }))
      .sort((a, b) => a.signsFrom - b.signsFrom);
  }

  /** The principal of a bearer token, or null (401). */
  async principal(authorization: string | undefined): Promise<Principal | null> {
    if (!authorization || !authorization.startsWith('Bearer ')) return null;
    const token = authorization.slice(7);
    let principal = this.verified.get(token);
    if (!principal) {
      principal = this.verifySignature(token) ?? undefined;
      if (!principal) return null;
      if (this.verified.size >= 20_000) this.verified.delete(this.verified.keys().next().value as string);
      this.verified.set(token, principal);
    }
    if (principal.expiresAt + CLOCK_SKEW_SECONDS <= Date.now() / 1000) return null;
    return (await this.isActive(principal.clientId)) ? principal : null;
  }

  /**
   * Client credentials (HTTP Basic) → a signed token response, or null (401). As the
   * service (TokenRequestBudgets), it first reads the failure budget of (client id,
   * address) and refuses when it is spent; the bench never spends it.
   */
  async issue(authorization: string | undefined, address: string): Promise<Record<string, unknown> | null | 'rate_limited'> {
    if (!authorization || !/^basic\s/i.test(authorization)) return null;
    const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) return null;
    const clientId = decodeURIComponent(decoded.slice(0, colon));
    const clientSecret = decodeURIComponent(decoded.slice(colon + 1));
    const { rows: budget } = await this.pool.query({
      ...RATE_LIMIT_LEVEL,
      values: [`token-failure:${clientId}:${address}`, TOKEN_FAILURES_PER_MINUTE, TOKEN_FAILURES_PER_MINUTE / 60],
    });
    if (budget.length === 1 && (budget[0].level as number) < 1) return 'rate_limited';
    const { rows } = await this.pool.query({ ...CREDENTIAL, values: [clientId] });
    const credential = rows[0] as { partnerId: string; secretHash: Buffer; scopes: string[]; environment: string; revokedAt: Date | null } | undefined;
    if (!credential || credential.revokedAt) return null;
    const hash = createHmac('sha256', this.pepper).update(clientSecret, 'utf8').digest();
    if (hash.length !== credential.secretHash.length || !timingSafeEqual(hash, credential.secretHash)) return null;
    const now = Math.floor(Date.now() / 1000);
    const key = this.keys.filter((k) => k.signsFrom <= Date.now()).at(-1)!;
    const header = base64url(JSON.stringify({ alg: 'ES256', typ: 'at+jwt', kid: key.kid }));
    const payload = base64url(
      JSON.stringify({
        iss: this.issuer,
        sub: clientId,
        aud: this.audience,
        client_id: clientId,
        partner_id: credential.partnerId,
        env: credential.environment,
        scope: credential.scopes.join(' '),
        iat: now,
        exp: now + TOKEN_LIFETIME_SECONDS,
        jti: randomUUID(),
      }),
    );
    const signature = sign('sha256', Buffer.from(`${header}.${payload}`), { key: key.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url');
    return { access_token: `${header}.${payload}.${signature}`, token_type: 'Bearer', expires_in: TOKEN_LIFETIME_SECONDS, scope: credential.scopes.join(' ') };
  }

  private verifySignature(token: string): Principal | null {
    const parts = token.split('.');
    if (parts.length !== 3) return null;
    try {
      const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as { alg?: string; kid?: string };
      const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as Record<string, unknown>;
      const key = this.keys.find((k) => k.kid === header.kid);
      if (header.alg !== 'ES256' || !key) return null;
      const ok = verify(
        'sha256',
        Buffer.from(`${parts[0]}.${parts[1]}`),
        { key: key.publicKey, dsaEncoding: 'ieee-p1363' },
        Buffer.from(parts[2], 'base64url'),
      );
      const now = Date.now() / 1000;
      if (!ok || claims.iss !== this.issuer || claims.aud !== this.audience || typeof claims.exp !== 'number' || claims.exp + CLOCK_SKEW_SECONDS <= now)
        return null;
      return {
        clientId: String(claims.client_id),
        partnerId: String(claims.partner_id),
        environment: String(claims.env),
        scopes: new Set(String(claims.scope).split(' ')),
        expiresAt: claims.exp,
      };
    } catch {
      return null;
    }
  }

  private async isActive(clientId: string): Promise<boolean> {
    const cached = this.active.get(clientId);
    if (cached && Date.now() - cached.at < CREDENTIAL_CACHE_MS) return cached.active;
    const { rows } = await this.pool.query({ ...CREDENTIAL, values: [clientId] });
    const active = rows.length === 1 && !rows[0].revokedAt;
    this.active.set(clientId, { active, at: Date.now() });
    return active;
  }

  private unseal(sealed: string): string {
    const [iv, tag, body] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
    const decipher = createDecipheriv('aes-256-gcm', this.sealingKey, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
  }
}

function derive(secret: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), purpose, 32));
}

const base64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

/** The media URL key and signature of src/modules/media/domain/signed-media-url.ts. */
export function mediaUrlSigner(serverSecret: string): (key: string, expires: number) => string {
  const secret = derive(Buffer.from(serverSecret, 'utf8'), 'media-url-signing');
  return (key, expires) => createHmac('sha256', secret).update(`media-url:v1\n${key}\n${expires}`, 'utf8').digest('base64url');
}
