import { createPublicKey, generateKeyPairSync, randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, exportJWK, SignJWT, type JWK } from 'jose';
import { DataSource } from 'typeorm';
import type { IssuedCredential, TokenIssuer } from '../../src/modules/identity/index.js';
import { ServerSecrets } from '../../src/shared/crypto/server-secrets.js';
import type { TestApp } from './test-app.js';

/**
 * Tokens a verifier must refuse, built from a genuine token so that only the one property
 * under attack differs (same claims, same kid where it matters).
 */
const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The genuine token's claims under `alg: none`, with an empty signature. */
export function algNoneToken(genuine: string): string {
  const { kid } = decodeProtectedHeader(genuine);
  return `${b64url({ alg: 'none', typ: 'at+jwt', kid })}.${b64url(decodeJwt(genuine))}.`;
}

/** HS256 with the issuer's published public key (PEM) as the HMAC secret: the classic algorithm confusion. */
export function hs256WithPublicKeyToken(genuine: string, publishedKey: JWK): Promise<string> {
  const pem = createPublicKey({ key: publishedKey as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
  return new SignJWT(decodeJwt(genuine)).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: publishedKey.kid }).sign(new TextEncoder().encode(String(pem)));
}

/** ES256 by a key the service never published, under the genuine kid or an unknown one. */
export function foreignEs256Token(genuine: string, kid = decodeProtectedHeader(genuine).kid ?? 'foreign'): Promise<string> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return new SignJWT(decodeJwt(genuine)).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid }).sign(privateKey);
}

/** Signs the genuine token's claims, with `overrides` (undefined removes a claim), under a published test key. */
export type TestKeySigner = (genuine: string, overrides?: Record<string, unknown>) => Promise<string>;

/**
 * Inserts an ES256 key the service publishes for `issuer` (as a rotation would), so a test
 * can sign tokens the service would otherwise accept: expired ones, foreign audiences.
 * Waits out the verifier's one-second guard on reloading the key set for an unknown kid.
 */
export async function publishTestKey(t: TestApp, issuer: TokenIssuer = 'platform'): Promise<TestKeySigner> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const kid = `test-${randomUUID()}`;
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  // signs_from in the past and older than the service's own key: published, never chosen to sign.
  await t.app
    .get(DataSource)
    .query(`INSERT INTO signing_keys (kid, issuer, public_jwk, sealed_private_key, signs_from) VALUES ($1, $2, $3, $4, '2000-01-01')`, [
      kid,
      issuer,
      JSON.stringify(jwk),
      t.app.get(ServerSecrets).seal('unused'),
    ]);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  return (genuine, overrides = {}) =>
    new SignJWT({ ...decodeJwt(genuine), jti: randomUUID(), ...overrides }).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid }).sign(privateKey);
}

/** A token from the children's service's own issuer (POST /kids/v1/oauth2/token). */
export async function kidsServiceToken(t: TestApp, credential: IssuedCredential): Promise<string> {
  const response = await t.inject({
    method: 'POST',
    url: '/kids/v1/oauth2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: credential.client_id,
      client_secret: credential.client_secret,
      scope: 'kidsapp:engagement:read',
    }).toString(),
  });
  if (response.statusCode !== 200) throw new Error(`kids token request failed: ${response.statusCode} ${response.body}`);
  return response.json().access_token as string;
}
