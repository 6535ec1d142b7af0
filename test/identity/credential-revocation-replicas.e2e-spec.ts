import { DataSource } from 'typeorm';
import { PartnerCredentialsService } from '../../src/modules/identity/index.js';
import { msUntil, REPLICA_DEADLINE_MS } from '../support/replicas.js';
import { bearer, startTestApp, type TestApp } from '../support/test-app.js';

/**
 * A credential's status is kept in memory by every replica (ADR 0113): a revocation must
 * still stop its tokens everywhere at once, and one made behind the service's back within
 * CREDENTIAL_CACHE_SECONDS.
 */
let revoking: TestApp;
/** Trusts a status for an hour: only a notification can make it refuse in time. */
let remembering: TestApp;
/** Trusts a status for one second. */
let bounded: TestApp;

beforeAll(async () => {
  revoking = await startTestApp();
  remembering = await startTestApp({ CREDENTIAL_CACHE_SECONDS: '3600' }, revoking.databaseUrl);
  bounded = await startTestApp({ CREDENTIAL_CACHE_SECONDS: '1' }, revoking.databaseUrl);
});
afterAll(async () => {
  await revoking?.close();
  await remembering?.close();
  await bounded?.close();
});

async function usableCredential() {
  const credential = await revoking.partner();
  const token = await revoking.token(credential);
  const status = async (app: TestApp) => (await app.inject({ method: 'GET', url: '/v1/categories', headers: bearer(token) })).statusCode;
  // Each replica has the credential's status in memory before the revocation.
  for (const app of [revoking, remembering, bounded]) expect(await status(app)).toBe(200);
  return { credential, status };
}

it('refuses a revoked credential at once on the revoking replica, and within a second on another that trusts statuses for an hour', async () => {
  const { credential, status } = await usableCredential();
  expect(await revoking.app.get(PartnerCredentialsService).revoke(credential.client_id)).toBe(true);
  expect(await status(revoking)).toBe(401);
  expect(await msUntil(async () => (await status(remembering)) === 401)).toBeLessThan(REPLICA_DEADLINE_MS);
});

it('refuses a credential revoked by hand in SQL, which no notification announces, once CREDENTIAL_CACHE_SECONDS have passed', async () => {
  const { credential, status } = await usableCredential();
  await revoking.app.get(DataSource).query(`UPDATE credentials SET revoked_at = now() WHERE client_id = $1`, [credential.client_id]);
  // Still trusted from memory: the bound, not a notification, is what ends it.
  expect(await status(remembering)).toBe(200);
  await msUntil(async () => (await status(bounded)) === 401);
  expect(await status(remembering)).toBe(200);
});
