import { jest } from '@jest/globals';
import { decodeProtectedHeader } from 'jose';
import { decodeToken } from '../../src/modules/identity/domain/access-token.js';
import { PlatformJwtStrategy } from '../../src/modules/identity/infrastructure/passport/platform-jwt.strategy.js';
import { ApiError } from '../../src/shared/errors/api-error.js';
import { DomainError } from '../../src/shared/errors/domain-error.js';
import { bearer, useTestApp } from '../support/test-app.js';
import { algNoneToken, hs256WithPublicKeyToken } from '../support/tokens.js';

/** The Passport strategies on their own, and how the verified-token cache stands in front of them. */
const t = useTestApp();
let strategy: PlatformJwtStrategy;
let genuine: string;

beforeAll(async () => {
  strategy = t.app.get(PlatformJwtStrategy);
  genuine = await t.token(await t.partner());
});
afterEach(() => jest.restoreAllMocks());

const verifyWithStrategy = (token: string) => strategy.authenticateToken(token, decodeToken(token));

it('verifies a genuine token into its principal (the control case)', async () => {
  await expect(verifyWithStrategy(genuine)).resolves.toMatchObject({ issuer: 'platform', environment: 'live' });
});

it('refuses a token whose header alg is not ES256', async () => {
  const { keys } = (await t.inject({ method: 'GET', url: '/platform/v1/jwks' })).json();
  const publishedKey = keys.find((key: { kid: string }) => key.kid === decodeProtectedHeader(genuine).kid);
  for (const forged of [algNoneToken(genuine), await hs256WithPublicKeyToken(genuine, publishedKey)]) {
    const refusal = await verifyWithStrategy(forged).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DomainError);
    expect(ApiError.from(refusal as DomainError).body).toEqual({ error: 'invalid_token', error_description: 'The access token must be signed with ES256.' });
  }
});

it('runs Passport for a token not seen before, and not again for its repeats', async () => {
  const token = await t.token(await t.partner());
  const passport = jest.spyOn(strategy, 'authenticateToken');
  for (let i = 0; i < 3; i++) expect((await t.inject({ method: 'GET', url: '/v1/categories', headers: bearer(token) })).statusCode).toBe(200);
  expect(passport).toHaveBeenCalledTimes(1);
});
