import { DataSource } from 'typeorm';
import { EntitlementsService } from '../../src/modules/entitlements/index.js';
import { importCatalog, manifest, manifestNovel } from '../fixtures/catalog-fixture.js';
import { partnerClient, type PartnerClient } from '../fixtures/partner-client.js';
import { msUntil, REPLICA_DEADLINE_MS, useTwoReplicas } from '../support/replicas.js';
import { bearer, type TestApp } from '../support/test-app.js';

/** Replicas keep the catalog and plan mappings in memory, and must agree within 1 s of a change. */
const COHERENCE_MS = 1_000;

let partner: PartnerClient;

const replicas = useTwoReplicas();

beforeAll(async () => {
  partner = await partnerClient(replicas.first);
  await importCatalog(replicas.first, manifest([manifestNovel('already-there')]));
});

const get = (app: TestApp, url: string) => app.inject({ method: 'GET', url, headers: bearer(partner.token) });
const novelIds = async (app: TestApp) => (await get(app, '/v1/novels?page_size=100')).json().data.map((n: { id: string }) => n.id) as string[];

const cutListeningConnections = () =>
  replicas.first.app
    .get(DataSource)
    .query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'partner-reading-listening-api:listen'`);

describe('catalog read through another replica', () => {
  it('shows a novel imported through one replica on the other within a second', async () => {
    // The second replica has its catalog in memory already.
    expect(await novelIds(replicas.second)).toEqual(['already-there']);
    await importCatalog(replicas.first, manifest([manifestNovel('already-there'), manifestNovel('imported-elsewhere', { chapters: 2 })]));
    expect(await msUntil(async () => (await novelIds(replicas.second)).includes('imported-elsewhere'))).toBeLessThan(REPLICA_DEADLINE_MS);
    expect((await get(replicas.second, '/v1/novels/imported-elsewhere/chapters')).json().chapters).toHaveLength(2);
  });

  it('shows changed chapters on the other replica', async () => {
    const chapterCount = async () => (await get(replicas.second, '/v1/novels/already-there/chapters')).json().chapters.length as number;
    expect(await chapterCount()).toBe(3);
    await importCatalog(replicas.first, manifest([manifestNovel('already-there', { chapters: 5 })]));
    await msUntil(async () => (await chapterCount()) === 5);
  });

  it('stops serving a removed novel on the other replica', async () => {
    expect((await get(replicas.second, '/v1/novels/imported-elsewhere/chapters')).statusCode).toBe(200);
    await importCatalog(replicas.first, manifest([manifestNovel('imported-elsewhere', { status: 'removed' })]));
    await msUntil(async () => (await get(replicas.second, '/v1/novels/imported-elsewhere/chapters')).statusCode === 404);
    expect(await novelIds(replicas.second)).not.toContain('imported-elsewhere');
  });

  it('keeps each environment its own: a live import leaves the sandbox catalog as it was', async () => {
    const sandbox = await partnerClient(replicas.second, { environment: 'sandbox', partnerId: partner.partnerId });
    const sandboxIds = async () => (await sandbox.call('GET', '/novels?page_size=100')).json().data.map((n: { id: string }) => n.id) as string[];
    const before = await sandboxIds();
    await importCatalog(replicas.first, manifest([manifestNovel('live-only')]));
    await msUntil(async () => (await novelIds(replicas.second)).includes('live-only'));
    expect(await sandboxIds()).toEqual(before);
  });

  it('reloads everything within a second of its listening connection being cut, since notifications may have been missed', async () => {
    const title = async () =>
      (await get(replicas.second, '/v1/novels?page_size=100')).json().data.find((n: { id: string }) => n.id === 'already-there').title as string;
    const before = await title();
    // A change no notification announces: served from memory, the replica does not see it...
    await replicas.first.app.get(DataSource).query(`UPDATE novels SET title = 'Changed without notice' WHERE environment = 'live' AND id = 'already-there'`);
    expect(await title()).toBe(before);
    // ...until its listening connection is lost and reopened.
    await cutListeningConnections();
    await msUntil(async () => (await title()) === 'Changed without notice');
  });

  it('converges when an import commits while its listening connection is cut', async () => {
    // Past the back-off that follows a recent loss: this loss is reconnected at once, as a first one is.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    await cutListeningConnections();
    await importCatalog(replicas.first, manifest([manifestNovel('imported-while-cut')]));
    await msUntil(async () => (await novelIds(replicas.second)).includes('imported-while-cut'));
    // Listening again: the next import arrives as fast as before.
    await importCatalog(replicas.first, manifest([manifestNovel('imported-after-reconnect')]));
    await msUntil(async () => (await novelIds(replicas.second)).includes('imported-after-reconnect'));
  });
});

describe('plan mapping changed through another replica', () => {
  it('maps the plan of entitlements written through the other replica within a second', async () => {
    const tenant = { partnerId: partner.partnerId, environment: 'live' as const };
    const entitleThroughSecond = async (subscriberId: string) => {
      const response = await replicas.second.inject({
        method: 'POST',
        url: '/platform/v1/entitlements',
        headers: bearer(partner.token),
        payload: { subscriber_id: subscriberId, product: 'textapp', status: 'active', plan: 'gold' },
      });
      expect(response.statusCode).toBe(200);
      return replicas.second.app.get(EntitlementsService).features(tenant, subscriberId);
    };
    // Unmapped, the partner's plan name falls back to the product's default plan; the second replica now holds the (empty) mapping.
    expect((await entitleThroughSecond('before-mapping')).earlyAccess).toBe(false);
    await replicas.first.app.get(EntitlementsService).mapPlan(partner.partnerId, 'gold', 'text_early');
    let attempt = 0;
    const elapsed = await msUntil(async () => (await entitleThroughSecond(`after-mapping-${attempt++}`)).earlyAccess);
    expect(elapsed).toBeLessThan(COHERENCE_MS + 500);
  });
});
