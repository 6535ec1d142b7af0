import { jest } from '@jest/globals';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { PartnerErasureService } from '../../src/modules/offboarding/index.js';
import { PartnerRowsRepository } from '../../src/modules/offboarding/domain/partner-rows.repository.js';
import { importCatalog, manifest, manifestNovel } from '../fixtures/catalog-fixture.js';
import { partnerClient, type PartnerClient } from '../fixtures/partner-client.js';
import { buildOnce, runCli } from '../support/processes.js';
import { bearer, serviceEnvFor, startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Offboarding (DECISIONS 29): `partner:erase` run as an operator runs it, a process of its
 * own beside the service (another replica, as far as the service can tell).
 */
const NOVEL = 'offboard-novel';
let t: TestApp;
let db: DataSource;

beforeAll(async () => {
  buildOnce();
  t = await startTestApp({ WEBHOOK_WORKER: 'false' });
  db = t.app.get(DataSource);
  const novels = manifest([manifestNovel(NOVEL, { chapters: 3 })]);
  await importCatalog(t, novels, 'live');
  await importCatalog(t, novels, 'sandbox');
});
afterAll(() => t?.close());

const cli = (...args: string[]) => runCli(args, serviceEnvFor(t));

const platform = (client: PartnerClient, method: 'GET' | 'POST' | 'PUT', path: string, payload?: object) =>
  t.inject({ method, url: `/platform/v1${path}`, headers: bearer(client.token), ...(payload && { payload }) });

function expectStatus(response: Awaited<ReturnType<TestApp['inject']>>, status: number) {
  if (response.statusCode !== status) throw new Error(`expected ${status}, got ${response.statusCode} ${response.body}`);
}

/** A subscriber with some of everything: entitlement, progress, a position, activity, an ending, a webhook, an event. */
async function seed(client: PartnerClient, subscriberId: string): Promise<void> {
  await client.entitle(subscriberId, { product: 'textapp', plan: 'text_early' });
  await client.entitle(subscriberId, { product: 'audioapp', plan: 'audio_standard' });
  expectStatus(await client.call('POST', `/subscribers/${subscriberId}/novels`, { novel_id: NOVEL }), 201);
  // Started long enough ago for every chapter to be released, so an ending can be chosen.
  await db.query(`UPDATE novel_progress SET started_at = now() - interval '10 days' WHERE partner_id = $1 AND environment = $2`, [
    client.partnerId,
    client.environment,
  ]);
  expectStatus(
    await client.call('PUT', `/subscribers/${subscriberId}/playback-position`, { novel_id: NOVEL, chapter_id: `${NOVEL}-ch1`, position_seconds: 42 }),
    200,
  );
  expectStatus(await client.call('GET', `/novels/${NOVEL}/chapters/1/content?subscriber_id=${subscriberId}`), 200);
  expectStatus(
    await platform(client, 'POST', '/webhook-endpoints', { url: 'https://93.184.215.14/hook', events: ['novel.finished', 'chapter.unlocked'] }),
    201,
  );
  expectStatus(await client.call('POST', `/novels/${NOVEL}/choices`, { subscriber_id: subscriberId, choice_id: 'stay' }), 200);
  if (client.environment === 'sandbox') {
    const clock = await platform(client, 'POST', '/test-clocks', { frozen_time: '2026-01-01T00:00:00Z', name: 'offboarding' });
    expectStatus(clock, 201);
    expectStatus(await platform(client, 'PUT', `/test-clocks/${clock.json().id}/subscribers/${subscriberId}-on-clock`), 200);
  }
}

/** What a partner's reads answer: the figures another partner's erasure must leave alone. */
async function answersOf(client: PartnerClient, subscriberId: string): Promise<Record<string, unknown>> {
  const reads = {
    status: () => platform(client, 'GET', `/subscriber/${subscriberId}/status`),
    events: () => platform(client, 'GET', '/events'),
    billing: () => platform(client, 'GET', '/billing-usage'),
    progress: () => client.call('GET', `/subscriber/${subscriberId}/reading-progress`),
    playback: () => client.call('GET', `/subscribers/${subscriberId}/playback-position?novel_id=${NOVEL}`),
    engagement: () => client.call('GET', '/analytics/engagement'),
  };
  const answers: Record<string, unknown> = {};
  for (const [name, read] of Object.entries(reads)) {
    const response = await read();
    // When the answer was made is not part of it.
    const { generated_at: _, ...body } = response.json();
    answers[name] = { status: response.statusCode, body };
  }
  return answers;
}

/** The partner's rows in every table with a `partner_id` column, read from the catalog, and the rows hanging off them. */
async function rowsOf(partnerId: string): Promise<Record<string, number>> {
  const tables: { table_name: string }[] = await db.query(
    `SELECT c.table_name FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE c.table_schema = current_schema() AND c.column_name = 'partner_id' AND t.table_type = 'BASE TABLE'
        -- A partitioned table counts its partitions' rows.
        AND NOT EXISTS (SELECT FROM pg_inherits i JOIN pg_class k ON k.oid = i.inhrelid WHERE k.relname = c.table_name AND k.relnamespace = current_schema()::regnamespace) ORDER BY 1`,
  );
  const counts: Record<string, number> = {};
  for (const { table_name } of tables) {
    const [row] = await db.query(`SELECT count(*)::int AS n FROM ${pg.escapeIdentifier(table_name)} WHERE partner_id = $1`, [partnerId]);
    counts[table_name] = row.n;
  }
  const [partner] = await db.query(`SELECT count(*)::int AS n FROM partners WHERE id = $1`, [partnerId]);
  counts.partners = partner.n;
  return counts;
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((sum, n) => sum + n, 0);

test('a wrong name erases nothing; the right one stops the credentials, deletes every row, and leaves other partners as they were', async () => {
  const leaving = await partnerClient(t);
  const leavingSandbox = await partnerClient(t, { environment: 'sandbox', partnerId: leaving.partnerId });
  const staying = await partnerClient(t);
  for (const client of [leaving, leavingSandbox, staying]) await seed(client, 'same-subscriber');
  const [{ name }] = await db.query(`SELECT name FROM partners WHERE id = $1`, [leaving.partnerId]);
  const leavingRows = await rowsOf(leaving.partnerId);
  // Rows in at least the tables the seed writes to, both environments.
  expect(Object.values(leavingRows).filter((n) => n > 0).length).toBeGreaterThanOrEqual(10);
  const stayingBefore = await answersOf(staying, 'same-subscriber');
  const stayingRows = await rowsOf(staying.partnerId);

  const wrong = await cli('partner:erase', '--partner', leaving.partnerId, '--confirm', `${name} Ltd`);
  expect(wrong.code).toBe(2);
  expect(wrong.output).toContain('is not the name of partner');
  expect(await rowsOf(leaving.partnerId)).toEqual(leavingRows);
  expectStatus(await platform(leaving, 'GET', '/subscriber/same-subscriber/status'), 200);

  // The staying partner reads all along; every answer is the one it had before.
  let erasing = true;
  const during: Record<string, unknown>[] = [];
  const reader = (async () => {
    while (erasing) during.push(await answersOf(staying, 'same-subscriber'));
  })();
  const erased = await cli('partner:erase', '--partner', leaving.partnerId, '--confirm', name);
  erasing = false;
  await reader;
  expect(erased.code).toBe(0);
  const report = JSON.parse(erased.stdout);
  expect(report).toMatchObject({ partner_id: leaving.partnerId, name, credentials_revoked: 2, partner_deleted: true });
  // At least what was there: deleting source rows makes the signed-count triggers write
  // compensating rows into the count tables, which the sweep deletes too.
  for (const [table, count] of Object.entries(leavingRows)) if (table !== 'partners') expect(report.rows_deleted[table]).toBeGreaterThanOrEqual(count);

  // The service process (another replica) refuses both environments' tokens at once.
  expectStatus(await platform(leaving, 'GET', '/subscriber/same-subscriber/status'), 401);
  expectStatus(await leavingSandbox.call('GET', '/subscriber/same-subscriber/reading-progress'), 401);
  expect(total(await rowsOf(leaving.partnerId))).toBe(0);
  const [orphans] = await db.query(
    `SELECT (SELECT count(*) FROM webhook_endpoint_secrets s WHERE NOT EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = s.endpoint_id))::int
          + (SELECT count(*) FROM webhook_delivery_attempts a WHERE NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.id = a.delivery_id))::int AS n`,
  );
  expect(orphans.n).toBe(0);

  expect(during.length).toBeGreaterThan(0);
  for (const answers of during) expect(answers).toEqual(stayingBefore);
  expect(await answersOf(staying, 'same-subscriber')).toEqual(stayingBefore);
  expect(await rowsOf(staying.partnerId)).toEqual(stayingRows);

  // Gone: asking again names the partner as unknown.
  const again = await cli('partner:erase', '--partner', leaving.partnerId, '--confirm', name);
  expect(again.code).toBe(2);
  expect(again.output).toContain(`no partner ${leaving.partnerId}`);
});

test('an erasure interrupted part way is finished by running the command again', async () => {
  const leaving = await partnerClient(t);
  await seed(leaving, 'interrupted');
  const [{ name }] = await db.query(`SELECT name FROM partners WHERE id = $1`, [leaving.partnerId]);
  const before = await rowsOf(leaving.partnerId);
  // The process dies after its third batch: the credentials are revoked and some rows gone.
  const rows = t.app.get(PartnerRowsRepository);
  const deleteBatch = rows.deleteBatch.bind(rows);
  let batches = 0;
  const interrupt = jest.spyOn(rows, 'deleteBatch').mockImplementation(async (...args: Parameters<typeof deleteBatch>) => {
    if (++batches > 3) throw new Error('process killed');
    return deleteBatch(...args);
  });
  await expect(t.app.get(PartnerErasureService).erase(leaving.partnerId, name)).rejects.toThrow('process killed');
  interrupt.mockRestore();
  const partial = await rowsOf(leaving.partnerId);
  expect(total(partial)).toBeLessThan(total(before));
  expect(total(partial)).toBeGreaterThan(1);
  expectStatus(await platform(leaving, 'GET', '/subscriber/interrupted/status'), 401);

  const resumed = await cli('partner:erase', '--partner', leaving.partnerId, '--confirm', name);
  expect(resumed.code).toBe(0);
  expect(total(await rowsOf(leaving.partnerId))).toBe(0);
});
